package concurrent

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// BenchConfig is one hammer: Goroutines goroutines calling Allow on one
// limiter for Duration.
type BenchConfig struct {
	Config
	Goroutines int
	Duration   time.Duration
}

// MaxTimedPasses bounds the passes a bench keeps the time of (8 bytes
// each), so that a limit too high for the duration is an error up front.
const MaxTimedPasses = 20_000_000

// MaxGoroutines bounds --goroutines: each hammering goroutine keeps its
// stack, a batch of latencies and its tallies (BytesPerGoroutine), so a
// count past it is an error up front rather than an out-of-memory crash.
// The latency histograms are shared (histShards of them, about 15 KB
// each), not one per goroutine: 100000 goroutines took 1.8 GB with one
// each.
const MaxGoroutines = 100_000

// BytesPerGoroutine bounds what one hammering goroutine holds while a
// bench runs: its stack as the runtime starts it (the hammer loop does not
// grow it) and its worker (the latency batch, the tallies and a few pass
// times). BenchmarkBenchMemory measures about 3.4 KB at 10000 and 100000
// goroutines; --help states the peak for MaxGoroutines from it.
const BytesPerGoroutine = 4 << 10

// histShards is the most latency histograms a bench keeps: goroutine i
// adds its latencies to histogram i mod histShards, a batch at a time
// under the histogram's lock, so memory stays bounded whatever the
// goroutine count, and up to histShards goroutines each have their own.
const histShards = 64

// latencyBatch is how many latencies a goroutine keeps before adding them
// to its shared histogram.
const latencyBatch = 32

// Validate reports a hammer that cannot run, on one line naming the flag.
func (c *BenchConfig) Validate() error {
	if c.Goroutines < 1 || c.Goroutines > MaxGoroutines {
		return fmt.Errorf("--goroutines must be between 1 and %d, got %d (for example --goroutines 1,8,64)", MaxGoroutines, c.Goroutines)
	}
	if c.Duration <= 0 {
		return fmt.Errorf("--duration must be positive, got %v (for example --duration 2s)", c.Duration)
	}
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if p := float64(c.Limit) * (float64(c.Duration)/float64(c.Window) + 1); p > MaxTimedPasses/4 {
		return fmt.Errorf("--limit %d per --window %v over --duration %v is about %.0f passes to time, more than this bench keeps (%d); lower --limit or --duration", c.Limit, c.Window, c.Duration, p, MaxTimedPasses/4)
	}
	return nil
}

// BenchResult is what one hammer measured.
type BenchResult struct {
	Impl       string        `json:"impl"`
	Goroutines int           `json:"goroutines"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Decisions is the number of Allow calls that returned.
	Decisions int64 `json:"decisions"`
	Passes    int64 `json:"passes"`
	Blocks    int64 `json:"blocks"`
	// DecisionsPerSec is Decisions / Elapsed; NsPerDecision is the mean
	// latency of one Allow call as seen by its goroutine.
	DecisionsPerSec float64 `json:"decisions_per_sec"`
	NsPerDecision   float64 `json:"ns_per_decision"`
	// P50, P99 and Max are latencies of one Allow call; the quantiles are
	// within 1/32 of the true value, Max is exact.
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
	// MaxWindowPassed is the largest number of passes recorded in any
	// trailing window (t − Window, t] of the clock; Limit is the limit per
	// Window and Overshoot their ratio.
	MaxWindowPassed int64 `json:"max_window_passed"`
	// MaxAlignedPassed is the largest number of passes recorded in any
	// aligned window [kW, (k+1)W) from the start: the windows every
	// implementation promises to keep to Limit when it decides alone, so
	// what it holds beyond Limit is what concurrency let through.
	MaxAlignedPassed int64   `json:"max_aligned_passed"`
	AlignedOvershoot float64 `json:"aligned_overshoot"`
	Limit            int     `json:"limit"`
	Window           string  `json:"window"`
	Overshoot        float64 `json:"overshoot"`
	// The limiter's counters at the end.
	CASFailures int64 `json:"cas_failures"`
	LockMisses  int64 `json:"lock_misses"`
	Yields      int64 `json:"yields"`
}

// worker is one goroutine's private tallies and its batch of latencies
// not yet in its shared histogram.
type worker struct {
	batch     [latencyBatch]int64
	nb        int
	shard     *histShard
	passTimes []int64
	calls     int64
	passes    int64
	sumNs     int64
	_         [64]byte
}

// histShard is a latency histogram some goroutines share.
type histShard struct {
	mu sync.Mutex
	h  latencyHist
}

// record keeps one latency, adding the batch to the shared histogram
// when it is full.
func (w *worker) record(d int64) {
	w.batch[w.nb] = d
	w.nb++
	if w.nb == latencyBatch {
		w.flush()
	}
}

// flush adds the batch to the worker's shared histogram.
func (w *worker) flush() {
	if w.nb == 0 {
		return
	}
	w.shard.mu.Lock()
	for _, d := range w.batch[:w.nb] {
		w.shard.h.add(d)
	}
	w.shard.mu.Unlock()
	w.nb = 0
}

// Bench hammers a fresh limiter of impl with cfg on the wall clock (the
// Clock of cfg is used for the limiter and for the latencies; nil means
// WallClock). It returns early with ctx's error if ctx is cancelled.
func Bench(ctx context.Context, impl Impl, cfg BenchConfig) (BenchResult, error) {
	if err := cfg.Validate(); err != nil {
		return BenchResult{}, err
	}
	// The wall clock starts when the goroutines are released, so that the
	// first window is a whole one, as every later window is under a
	// saturating hammer (otherwise the first window's passes and the
	// second's fall in one trailing window).
	var origin time.Time
	clock := cfg.Clock
	if clock == nil {
		clock = func() int64 { return int64(time.Since(origin)) }
	}
	cfg.Clock = clock
	lim := impl.New(cfg.Config)
	workers := make([]worker, cfg.Goroutines)
	shards := make([]histShard, min(cfg.Goroutines, histShards))
	expect := int(float64(cfg.Limit)*(float64(cfg.Duration)/float64(cfg.Window)+1)) / cfg.Goroutines
	var stop atomic.Bool
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	for i := range workers {
		w := &workers[i]
		w.passTimes = make([]int64, 0, min(expect+16, 1<<16))
		w.shard = &shards[i%len(shards)]
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-release
			t0 := clock()
			// Every goroutine decides at least once, even if it is first
			// scheduled after the duration is over.
			for first := true; first || !stop.Load(); first = false {
				pass, at := lim.Allow()
				t1 := clock()
				d := t1 - t0
				t0 = t1
				w.record(d)
				w.sumNs += d
				w.calls++
				if pass {
					w.passes++
					w.passTimes = append(w.passTimes, at)
				}
			}
			w.flush()
		}()
	}
	ready.Wait()
	start := time.Now()
	origin = start
	close(release)
	timer := time.NewTimer(cfg.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	stop.Store(true)
	done.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return BenchResult{}, err
	}

	r := BenchResult{Impl: impl.Name, Goroutines: cfg.Goroutines, Elapsed: elapsed, Limit: cfg.Limit, Window: cfg.Window.String()}
	var hist latencyHist
	var times []int64
	var sumNs int64
	for i := range workers {
		w := &workers[i]
		r.Decisions += w.calls
		r.Passes += w.passes
		sumNs += w.sumNs
		times = append(times, w.passTimes...)
		w.passTimes = nil
	}
	for i := range shards {
		hist.merge(&shards[i].h)
	}
	r.Blocks = r.Decisions - r.Passes
	r.DecisionsPerSec = float64(r.Decisions) / elapsed.Seconds()
	r.NsPerDecision = float64(sumNs) / float64(r.Decisions)
	r.P50, r.P99, r.Max = hist.quantile(0.50), hist.quantile(0.99), time.Duration(hist.max)
	r.MaxAlignedPassed = MaxInAligned(times, int64(cfg.Window))
	r.MaxWindowPassed = MaxInWindow(times, int64(cfg.Window))
	r.Overshoot = float64(r.MaxWindowPassed) / float64(cfg.Limit)
	r.AlignedOvershoot = float64(r.MaxAlignedPassed) / float64(cfg.Limit)
	c := lim.Counters()
	r.CASFailures, r.LockMisses, r.Yields = c.CASFailures, c.LockMisses, c.Yields
	runtime.GC() // leave the next hammer a clean heap
	return r, nil
}

// MaxInWindow returns the largest number of times in any window
// (t − w, t]. It sorts times in place.
func MaxInWindow(times []int64, w int64) int64 {
	slices.Sort(times)
	var best int64
	lo := 0
	for hi, t := range times {
		for times[lo] <= t-w {
			lo++
		}
		best = max(best, int64(hi-lo+1))
	}
	return best
}

// MaxInAligned returns the largest number of times (not negative) in any
// window [kw, (k+1)w).
func MaxInAligned(times []int64, w int64) int64 {
	counts := map[int64]int64{}
	var best int64
	for _, t := range times {
		counts[t/w]++
		best = max(best, counts[t/w])
	}
	return best
}

// latencyHist is a log-linear histogram of nanoseconds: exact below 64,
// then 32 buckets per power of two (relative error below 1/32).
type latencyHist struct {
	n     [64 + 58*32]int64
	count int64
	max   int64
	_     [56]byte
}

func histIndex(v int64) int {
	if v < 64 {
		return int(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - 6 // v>>shift is in [32, 63]
	return 64 + (shift-1)*32 + int(v>>shift) - 32
}

// histLow is the smallest value of bucket i.
func histLow(i int) int64 {
	if i < 64 {
		return int64(i)
	}
	shift := (i-64)/32 + 1
	return int64((i-64)%32+32) << shift
}

func (h *latencyHist) add(v int64) {
	h.n[histIndex(v)]++
	h.count++
	h.max = max(h.max, v)
}

func (h *latencyHist) merge(o *latencyHist) {
	for i, c := range o.n {
		h.n[i] += c
	}
	h.count += o.count
	h.max = max(h.max, o.max)
}

// quantile returns the smallest bucket value at or above the q quantile.
func (h *latencyHist) quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	rank := int64(q*float64(h.count-1)) + 1
	var seen int64
	for i, c := range h.n {
		seen += c
		if seen >= rank {
			return time.Duration(min(histLow(i), h.max))
		}
	}
	return time.Duration(h.max)
}
