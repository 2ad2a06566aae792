// Package simulator replays arrivals through rate limiters on a virtual
// clock and measures, bin by bin, what each one lets through.
//
// Run feeds the same arrivals, in the same order, to every limiter; each
// limiter runs in its own goroutine and its decisions stream into an
// accumulator that counts per bin, tracks the busiest sliding window exactly
// and keeps a histogram of the waits. Nothing proportional to the number of
// arrivals is held: arrivals travel in a fixed pool of reusable batches, and
// the series is proportional to duration/bin.
package simulator

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Defaults for Config. A zero Bin or Window is an error, not a default, so
// that "--bin 0" is reported; start from DefaultConfig or set them.
const (
	DefaultBin    = 50 * time.Millisecond
	DefaultWindow = time.Second
)

// ProgressEvery is roughly how many arrivals pass between Progress calls.
const ProgressEvery = 100_000

// Config describes one run.
type Config struct {
	// Scenario names the scenario or trace; Limit is its limit in req/s.
	// Both are copied into the Result.
	Scenario string
	Limit    float64
	// Bin is the width of a series bin (DefaultBin); Window the length of
	// the sliding window behind MaxWindowPassed (DefaultWindow). Both must
	// be positive.
	Bin, Window time.Duration
	// Start and End bound the run in true time. The bins cover [Start,
	// End), extended to hold any arrival at or after End and any pass
	// admitted after End (a queue draining), or before Start.
	Start, End time.Duration
	// Reorder is how far behind the latest admission time an admission may
	// come and still be counted exactly in MaxWindowPassed (default: one
	// Window; see AlgoResult.LateAdmissions). Memory grows with it.
	Reorder time.Duration
	// Decisions, if not nil, is asked once per limiter (by index) for a
	// writer that receives one CSV row per arrival, without header:
	// algorithm,seq,t_ns,verdict,wait_ns,stage,rt_ns,error (see
	// DecisionsHeader). A nil writer turns the rows off for that limiter.
	// The writer is used from the limiter's goroutine only and is buffered
	// by Run.
	Decisions func(algo int) io.Writer
	// Downstream, if not nil, is the service behind every limiter; each
	// row gets its own copy, and every row is then run by the chain
	// executor (chain.go).
	Downstream *scenarios.Downstream
	// MaxBins bounds the number of bins of the series (per limiter; 0 means
	// DefaultMaxBins). Run widens Bin up front when the span [Start, End)
	// would need more (see PlanBin) and doubles it during the run when
	// arrivals or admissions outside the span would; Result.Bin is the
	// width used. Memory and series.csv stay bounded whatever the span.
	MaxBins int
	// Progress, if not nil, is called from one goroutine with the number of
	// arrivals fed so far, about every ProgressEvery arrivals, and once at
	// the end with the total.
	Progress func(done int64)
	// Signals are the host signals the run provides (a trace's cpu and
	// load1 columns); an adaptive rule reading another is an error. Seed
	// seeds the limiters that draw random numbers (adaptive.go).
	Signals algorithms.Signal
	Seed    uint64
	// Workers is how many goroutines decide a row whose keys are
	// independent (shard.go); 0 and 1 decide every row on one. The
	// result is the same, bit for bit, for every Workers.
	Workers int
}

// DefaultConfig returns a Config with the default Bin and Window.
func DefaultConfig() Config {
	return Config{Bin: DefaultBin, Window: DefaultWindow}
}

// Validate reports a Config that cannot run, naming the CLI flag.
func (c *Config) Validate() error {
	if c.Bin <= 0 {
		return fmt.Errorf("--bin must be positive, got %v", c.Bin)
	}
	if c.Window <= 0 {
		return fmt.Errorf("--window must be positive, got %v", c.Window)
	}
	if c.Reorder < 0 {
		return fmt.Errorf("--reorder must not be negative, got %v", c.Reorder)
	}
	if c.Workers < 0 || c.Workers > maxWorkers {
		return fmt.Errorf("--workers must be between 1 and %d, got %d", maxWorkers, c.Workers)
	}
	return nil
}

const (
	batchSize       = 1 << 15
	batchesInFlight = 8
)

// batch is a slice of consecutive arrivals shared read-only by every
// worker; the last worker done with it returns it to the pool.
type batch struct {
	seq  int64 // index of arr[0] in the run
	arr  []scenarios.Arrival
	refs atomic.Int32
}

// Run replays src through every limiter and returns their results. The
// limiters must be fresh; Run does not close src. If src.Err() reports an
// error at the end, Run returns it; if ctx is cancelled, Run stops and
// returns ctx's error.
func Run(ctx context.Context, src scenarios.Stream, limiters []algorithms.Limiter, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(limiters) == 0 {
		return nil, errors.New("no algorithms to run")
	}
	if ss, ok := src.(SignalStream); ok {
		cfg.Signals |= ss.Signals()
	}
	// A trace's cpu and load1 columns script the signals too.
	if c := scenarios.StreamColumns(src); c.CPU || c.Load1 {
		if c.CPU {
			cfg.Signals |= algorithms.SignalCPU
		}
		if c.Load1 {
			cfg.Signals |= algorithms.SignalLoad1
		}
	}
	if err := prepareAdaptive(limiters, &cfg); err != nil {
		return nil, err
	}
	if cfg.Reorder == 0 {
		cfg.Reorder = cfg.Window
	}
	requested := cfg.Bin
	cfg.Bin = PlanBin(cfg.End-cfg.Start, cfg.Bin, cfg.maxBins())
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	n := len(limiters)
	free := make(chan *batch, batchesInFlight)
	for range batchesInFlight {
		free <- &batch{arr: make([]scenarios.Arrival, 0, batchSize)}
	}
	accs := make([]*accumulator, n)
	ins := make([]chan *batch, n)
	errs := make([]error, n)
	workers := make([]RowWorkers, n)
	var wg sync.WaitGroup
	for i, lim := range limiters {
		accs[i] = newAccumulator(&cfg)
		accs[i].prio = newPrioAcc(lim)
		accs[i].keys = newKeyStats(lim)
		ins[i] = make(chan *batch, batchesInFlight)
		var w io.Writer
		if cfg.Decisions != nil {
			w = cfg.Decisions(i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = work(ctx, lim, accs[i], ins[i], free, w, &cfg, &workers[i])
			if errs[i] != nil {
				cancel(errs[i])
			}
		}()
	}

	var steps clockSteps
	maxAt, fed, feedErr := feed(ctx, src, ins, free, cfg.Progress, &steps)
	for _, in := range ins {
		close(in)
	}
	wg.Wait()

	if feedErr != nil {
		return nil, feedErr
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	res := assemble(&cfg, limiters, accs, maxAt, fed)
	res.RequestedBin = requested
	res.ClockSteps, res.ClockStepCount = steps.list, steps.n
	if cfg.Workers > 1 {
		res.Workers = workers
	}
	return res, nil
}

// feed reads src into batches and hands each to every worker. It returns
// the latest true time seen and the number of arrivals.
func feed(ctx context.Context, src scenarios.Stream, ins []chan *batch, free chan *batch, progress func(int64), steps *clockSteps) (maxAt time.Duration, done int64, err error) {
	maxAt = -1 << 63
	var reported int64
	bs, _ := src.(scenarios.BatchStream)
	for {
		var b *batch
		select {
		case b = <-free:
		case <-ctx.Done():
			return maxAt, done, context.Cause(ctx)
		}
		if bs != nil {
			// The stream fills the batch in one call; then one pass for
			// the latest time and the clock steps.
			b.arr = b.arr[:bs.Fill(b.arr[:batchSize])]
			for j := range b.arr {
				a := &b.arr[j]
				if a.At > maxAt {
					maxAt = a.At
				}
				steps.see(a.At, a.Clock)
			}
		} else {
			b.arr = b.arr[:0]
			for len(b.arr) < batchSize {
				a, ok := src.Next()
				if !ok {
					break
				}
				if a.At > maxAt {
					maxAt = a.At
				}
				steps.see(a.At, a.Clock)
				b.arr = append(b.arr, a)
			}
		}
		if len(b.arr) == 0 {
			free <- b
			break
		}
		b.seq = done
		done += int64(len(b.arr))
		b.refs.Store(int32(len(ins)))
		// Never blocks: each channel can hold every batch of the pool.
		for _, in := range ins {
			in <- b
		}
		if progress != nil && done-reported >= ProgressEvery {
			reported = done
			progress(done)
		}
		if len(b.arr) < batchSize {
			break
		}
	}
	if progress != nil {
		progress(done)
	}
	return maxAt, done, nil
}

// work runs one limiter over the batches it receives, and says in rw how
// the row was decided.
func work(ctx context.Context, lim algorithms.Limiter, acc *accumulator, in <-chan *batch, free chan<- *batch, w io.Writer, cfg *Config, rw *RowWorkers) (err error) {
	var rows *decisionWriter
	if w != nil {
		rows = newDecisionWriter(w, lim.Spec())
	}
	ds := make([]algorithms.Decision, batchSize)
	var ch eventedRow // an evented row (chainrow.go), chosen at the first batch
	var ca *carryRow  // a row whose decisions may need later arrivals (lookahead.go)
	var sh *shardRow  // a row decided on several goroutines (shard.go)
	release := func(b *batch) {
		if b.refs.Add(-1) == 0 {
			free <- b
		}
	}
	*rw = RowWorkers{Shards: 1}
	first := true
	for b := range in {
		kept := false
		if err == nil && ctx.Err() == nil {
			if first {
				first = false
				ch = newEventedRow(lim, acc, rows, cfg, b)
				if ch == nil {
					ca = newCarryRow(lim)
				}
				switch {
				case cfg.Workers <= 1:
				case ch == nil && ca == nil:
					sh, *rw = startShards(lim, cfg, acc.keys)
				default:
					*rw = unsharded(lim, ch != nil)
				}
				if ch != nil {
					if _, carries := lim.(carryDecider); carries {
						// An evented row decides each arrival when it comes, and this
						// limiter's decision may wait on later arrivals (a fallback's
						// local check at T + timeout): not exact there, so refused.
						name, _, _ := strings.Cut(lim.Spec(), ":")
						err = fmt.Errorf("%s decides a request only when the arrivals up to its token server's answer are known, which a run with a downstream or recorded responses (rt_ms, error) does not give; replay it without them (a trace of t_ms and keys, or a scenario without downstream)", name)
						ch = nil
					}
				}
			}
			switch {
			case err != nil: // refused at the first batch
			case ch != nil:
				err = ch.process(b)
			case ca != nil:
				err = ca.process(acc, b, rows)
			case sh != nil: // the row's shards hold b until it is recorded
				kept = true
				err = sh.process(acc, b, rows, release)
			default:
				err = process(lim, acc, b, ds, rows)
			}
		}
		if !kept {
			release(b)
		}
	}
	if sh != nil {
		if e := sh.finish(acc, rows, release, err == nil && ctx.Err() == nil); err == nil {
			err = e
		}
	}
	if first && err == nil && ctx.Err() == nil && hasUsers(cfg) {
		// No arrival from the stream: a closed population alone.
		ch = newEventedRow(lim, acc, rows, cfg, &batch{})
	}
	if ch != nil && err == nil && ctx.Err() == nil {
		err = ch.finish()
	}
	if ca != nil && err == nil && ctx.Err() == nil {
		err = ca.finish(acc, rows)
	}
	if err == nil && ctx.Err() == nil {
		err = finishLimiter(lim)
	}
	if rows != nil && err == nil {
		err = rows.flush()
	}
	return err
}

// wrapErr is the one-line error of a run whose times would pass the int64
// nanoseconds every time of the run is counted in: who (arrival 5) at at,
// what (its wait, its service, ...) would end it past them, and the fix.
// Traces and scenarios keep their times far below (scenarios.MaxTraceMillis,
// scenarios.MaxTime), so only a sum of many of them (a wait, a queue) can.
func wrapErr(spec, who string, at time.Duration, what, fix string) error {
	return fmt.Errorf("%s: %s at %v: %s would end it past the last time the run's int64 nanosecond clock holds (about 292 years), and the clock would wrap; %s", spec, who, at, what, fix)
}

// process decides one batch: first every decision, timed as a whole, then
// the bookkeeping.
func process(lim algorithms.Limiter, acc *accumulator, b *batch, ds []algorithms.Decision, rows *decisionWriter) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("algorithm %s panicked at arrival %d: %v", lim.Spec(), b.seq, r)
		}
	}()
	arr := b.arr
	ds = ds[:len(arr)]
	t0 := time.Now()
	if !decideBatch(lim, arr, ds) {
		if rl, ok := lim.(algorithms.RequestLimiter); ok {
			var r algorithms.Request
			for j := range arr {
				requestOf(&arr[j], &r)
				ds[j] = rl.DecideRequest(arr[j].Clock, &r)
			}
		} else {
			for j := range arr {
				ds[j] = lim.Decide(arr[j].Clock)
			}
		}
	}
	acc.decideNs += int64(time.Since(t0))
	acc.decisions += int64(len(arr))
	if err := limiterErr(lim); err != nil {
		return err
	}
	return recordDecided(lim, acc, b.seq, arr, ds, rows)
}

// recordDecided does a row's bookkeeping for consecutive decided arrivals, the
// first of them arrival seq of the run.
func recordDecided(lim algorithms.Limiter, acc *accumulator, seq int64, arr []scenarios.Arrival, ds []algorithms.Decision, rows *decisionWriter) error {
	acc.addBatch(arr, ds)
	addFallbacks(lim, acc, arr) // cluster.go
	if j := acc.wrapped - 1; j >= 0 {
		return wrapErr(lim.Spec(), fmt.Sprintf("arrival %d", seq+int64(j)), arr[j].At, fmt.Sprintf("the wait of %v it is given", ds[j].Wait), "bound the limiter's wait (a timeout or max-queue, or a higher rate)")
	}
	if acc.keys != nil {
		acc.keys.addBatch(acc, arr, ds)
	}
	if rows != nil {
		for j := range arr {
			rows.row(seq+int64(j), arr[j].Clock, ds[j], arr[j].Priority)
		}
		return rows.err()
	}
	return nil
}

// decisionWriter formats decision rows without allocating.
type decisionWriter struct {
	w      *bufio.Writer
	prefix []byte // the quoted spec and a comma
	buf    []byte
}

func newDecisionWriter(w io.Writer, spec string) *decisionWriter {
	return &decisionWriter{
		w:      bufio.NewWriterSize(w, 1<<16),
		prefix: append([]byte(csvField(spec)), ','),
		buf:    make([]byte, 0, 128),
	}
}

func (d *decisionWriter) row(seq int64, clock time.Duration, dec algorithms.Decision, prio bool) {
	b := append(d.buf[:0], d.prefix...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(clock), 10)
	if dec.Pass {
		b = append(b, ",pass,"...)
		b = strconv.AppendInt(b, int64(max(dec.Wait, 0)), 10)
		b = append(b, ",,,"...)
	} else {
		b = append(b, ",block,0,flow,,"...)
	}
	b = appendPriority(b, prio)
	d.buf = b
	d.w.Write(b) // the error is sticky; see err
}

func (d *decisionWriter) err() error {
	// bufio.Writer keeps the first write error; a zero-length write
	// reports it without writing anything.
	_, err := d.w.Write(nil)
	return err
}

func (d *decisionWriter) flush() error { return d.w.Flush() }

// assemble aligns every limiter's bins to one range and builds the Result.
func assemble(cfg *Config, limiters []algorithms.Limiter, accs []*accumulator, maxAt time.Duration, fed int64) *Result {
	for _, a := range accs {
		if a.keys != nil {
			a.keys.hurtBins(a) // before the bins are aligned (keys.go)
		}
	}
	cfg.Bin = commonBin(cfg, accs, maxAt, fed)
	bin := int64(cfg.Bin)
	end := cfg.End
	if fed > 0 && maxAt >= end {
		// Extend to the end of the bin holding the latest arrival.
		i := floorDiv(int64(maxAt-cfg.Start), bin)
		end = cfg.Start + time.Duration((i+1)*bin)
	}
	lo := int64(0)
	hi := max(int64(1), (int64(end-cfg.Start)+bin-1)/bin)
	for _, a := range accs {
		lo = min(lo, a.origin)
		hi = max(hi, a.origin+int64(len(a.bins)))
	}
	start := cfg.Start + time.Duration(lo*bin)
	if end < start {
		end = start
	}
	res := &Result{
		Scenario:   cfg.Scenario,
		Limit:      cfg.Limit,
		Bin:        cfg.Bin,
		Window:     cfg.Window,
		Start:      start,
		End:        end,
		Algorithms: make([]AlgoResult, len(accs)),
	}
	for i, a := range accs {
		res.Algorithms[i] = a.finish(limiters[i], cfg.Window, lo, hi, end)
	}
	return res
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// requestOf fills r with what a RequestLimiter reads of a.
func requestOf(a *scenarios.Arrival, r *algorithms.Request) {
	r.Keys = a.Keys
	r.Cost = a.Weight()
	r.Priority = a.Priority
}
