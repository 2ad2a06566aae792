package simulator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// This file holds plain ports of Sentinel 1.8's circuit breaker classes
// (LeapArray, AbstractCircuitBreaker, ResponseTimeCircuitBreaker,
// ExceptionCircuitBreaker), of the flow controllers put in front of them
// (DefaultController on a LeapArray, ThrottlingController on its
// millisecond and nanosecond paths, and x/time/rate itself), and of the
// slot chain (FlowSlot, DegradeSlot, StatisticSlot), driven by their own
// event loop under the documented event order, with responses from the
// trace or from the downstream model written out plainly. The chain
// executor must make the same decisions and the same state changes on
// every trace.

// jClock is TimeUtil.currentTimeMillis() (ms) and System.nanoTime() (ns),
// and the virtual time t itself for x/time/rate.
type jClock struct {
	ms, ns int64
	t      time.Duration
}

type jWrap[T any] struct {
	start int64
	v     *T
}

// jLeap is LeapArray<T>.
type jLeap[T any] struct {
	wl, interval int64
	arr          []*jWrap[T]
	reset        func(*T)
}

func newJLeap[T any](sampleCount int, intervalMs int64, reset func(*T)) *jLeap[T] {
	return &jLeap[T]{wl: intervalMs / int64(sampleCount), interval: intervalMs, arr: make([]*jWrap[T], sampleCount), reset: reset}
}

func (l *jLeap[T]) currentWindow(t int64) *jWrap[T] {
	idx := (t / l.wl) % int64(len(l.arr))
	ws := t - t%l.wl
	old := l.arr[idx]
	switch {
	case old == nil:
		l.arr[idx] = &jWrap[T]{start: ws, v: new(T)}
		return l.arr[idx]
	case ws == old.start:
		return old
	case ws > old.start:
		old.start = ws
		l.reset(old.v)
		return old
	default:
		return &jWrap[T]{start: ws, v: new(T)}
	}
}

func (l *jLeap[T]) values(t int64) []*T {
	var out []*T
	for _, w := range l.arr {
		if w == nil || t-w.start > l.interval {
			continue
		}
		out = append(out, w.v)
	}
	return out
}

type jCounter struct{ bad, total int64 }

const (
	jClosed = iota
	jOpen
	jHalfOpen
)

// jBreaker is AbstractCircuitBreaker with ResponseTimeCircuitBreaker
// (grade 0) or ExceptionCircuitBreaker (grade 1 ratio, 2 count).
type jBreaker struct {
	clock              *jClock
	grade              int
	maxAllowedRt       int64
	threshold          float64 // maxSlowRequestRatio or the rule's count
	minRequestAmount   int64
	recoveryTimeoutMs  int64
	state              int
	nextRetryTimestamp int64
	stat               *jLeap[jCounter]
	changes            []jChange
}

type jChange struct {
	ms       int64
	from, to int
}

func (b *jBreaker) set(to int) {
	b.changes = append(b.changes, jChange{b.clock.ms, b.state, to})
	b.state = to
}

func (b *jBreaker) tryPass() bool {
	if b.state == jClosed {
		return true
	}
	if b.state == jOpen {
		return b.clock.ms >= b.nextRetryTimestamp && b.fromOpenToHalfOpen()
	}
	return false
}

func (b *jBreaker) fromOpenToHalfOpen() bool {
	if b.state == jOpen {
		b.set(jHalfOpen)
		return true
	}
	return false
}

func (b *jBreaker) transformToOpen() {
	switch b.state {
	case jClosed, jHalfOpen:
		b.set(jOpen)
		b.nextRetryTimestamp = b.clock.ms + b.recoveryTimeoutMs
	}
}

func (b *jBreaker) fromHalfOpenToClose() {
	if b.state == jHalfOpen {
		b.set(jClosed)
		*b.stat.currentWindow(b.clock.ms).v = jCounter{}
	}
}

// onRequestComplete for an entry created at createMs, with or without error.
func (b *jBreaker) onRequestComplete(createMs int64, failed bool) {
	counter := b.stat.currentWindow(b.clock.ms).v
	rt := b.clock.ms - createMs
	var bad bool
	if b.grade == 0 {
		bad = rt > b.maxAllowedRt
	} else {
		bad = failed
	}
	if bad {
		counter.bad++
	}
	counter.total++
	if b.state == jOpen {
		return
	}
	if b.state == jHalfOpen {
		if bad {
			b.transformToOpen()
		} else {
			b.fromHalfOpenToClose()
		}
		return
	}
	var badN, total int64
	for _, c := range b.stat.values(b.clock.ms) {
		badN += c.bad
		total += c.total
	}
	if total < b.minRequestAmount {
		return
	}
	switch b.grade {
	case 0:
		ratio := float64(badN) * 1.0 / float64(total)
		if ratio > b.threshold {
			b.transformToOpen()
		}
		if ratio == b.threshold && b.threshold == 1.0 {
			b.transformToOpen()
		}
	case 1:
		if float64(badN)*1.0/float64(total) > b.threshold {
			b.transformToOpen()
		}
	case 2:
		if float64(badN) > b.threshold {
			b.transformToOpen()
		}
	}
}

// jFlow is a flow rule: canPass returns whether it passes and how long it
// sleeps; addPass is StatisticSlot's addPassRequest.
type jFlow interface {
	canPass() (bool, time.Duration)
	addPass()
}

// jXRate is golang.org/x/time/rate's AllowN(epoch+t, 1).
type jXRate struct {
	clock *jClock
	lim   *rate.Limiter
}

func (x *jXRate) canPass() (bool, time.Duration) {
	return x.lim.AllowN(time.Unix(1_600_000_000, 0).Add(x.clock.t), 1), 0
}

func (x *jXRate) addPass() {}

// jDownstream is the downstream model written out plainly: FIFO, the
// first server to come free (linear scan), the phase at the start of
// service, a timeout from admission, errors by the splitmix64 hash of
// (seed, arrival number).
type jDownstream struct {
	cfg  *scenarios.Downstream
	free []time.Duration
}

func (d *jDownstream) serve(seq int, adm time.Duration) (exit time.Duration, failed bool) {
	if d.free == nil {
		d.free = make([]time.Duration, d.cfg.Servers)
		for i := range d.free {
			d.free[i] = math.MinInt64
		}
	}
	k := 0
	for i := range d.free {
		if d.free[i] < d.free[k] {
			k = i
		}
	}
	start := adm
	if d.free[k] > start {
		start = d.free[k]
	}
	service, errs := d.cfg.Service, 0.0
	for _, p := range d.cfg.Phases {
		if start >= p.From && start < p.To {
			service, errs = p.Service, p.Errors
		}
	}
	d.free[k] = start + service
	if d.cfg.Timeout > 0 && start+service-adm > d.cfg.Timeout {
		return adm + d.cfg.Timeout, true
	}
	z := d.cfg.Seed + uint64(seq+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return start + service, float64(z>>11)/(1<<53) < errs
}

// jDefault is DefaultController on a StatisticNode's rolling second.
type jDefault struct {
	clock      *jClock
	count      float64
	intervalMs int64
	node       *jLeap[int64]
}

func (d *jDefault) canPass() (bool, time.Duration) {
	d.node.currentWindow(d.clock.ms)
	var sum int64
	for _, v := range d.node.values(d.clock.ms) {
		sum += *v
	}
	qps := float64(sum) / (float64(d.intervalMs) / 1000.0)
	if float64(int32(qps)+1) > d.count {
		return false, 0
	}
	return true, 0
}

func (d *jDefault) addPass() { *d.node.currentWindow(d.clock.ms).v++ }

// jThrottling is ThrottlingController.canPass, with its nanosecond path
// when the limit does not divide the interval or exceeds one per ms.
type jThrottling struct {
	clock            *jClock
	count            float64
	statDurationMs   int64
	maxQueueingMs    int64
	latestPassedTime int64
}

func (r *jThrottling) canPass() (bool, time.Duration) {
	nanos := r.statDurationMs%int64(math.Floor(r.count+0.5)) != 0 || r.count/float64(r.statDurationMs) > 1
	if !nanos {
		ok, w := r.canPassIn(r.clock.ms, int64(math.Floor(1.0*float64(r.statDurationMs)*1/r.count+0.5)), r.maxQueueingMs)
		return ok, time.Duration(w) * time.Millisecond
	}
	ok, w := r.canPassIn(r.clock.ns, int64(math.Floor(1.0*1e6*float64(r.statDurationMs)*1/r.count+0.5)), r.maxQueueingMs*1_000_000)
	return ok, time.Duration(w)
}

func (r *jThrottling) canPassIn(cur, cost, maxQueue int64) (bool, int64) {
	expected := cost + r.latestPassedTime
	if expected <= cur {
		r.latestPassedTime = cur
		return true, 0
	}
	wait := cost + r.latestPassedTime - cur
	if wait > maxQueue {
		return false, 0
	}
	old := r.latestPassedTime + cost
	r.latestPassedTime = old
	wait = old - cur
	if wait > maxQueue {
		r.latestPassedTime -= cost
		return false, 0
	}
	return true, wait
}

func (r *jThrottling) addPass() {}

// jRequest is one arrival with its recorded response.
type jRequest struct {
	t      time.Duration
	rt     time.Duration
	failed bool
}

type jResult struct {
	pass   bool
	stage  string
	wait   time.Duration
	rt     time.Duration
	failed bool
}

// jRun drives the slot chain [flow] → degrade over reqs with the event
// order of the contract, on a plain list of pending events.
func jRun(reqs []jRequest, epoch int64, flow jFlow, b *jBreaker, clock *jClock, ds *jDownstream) []jResult {
	type ev struct {
		t     time.Duration
		class int
		seq   int
	}
	var pending []ev
	out := make([]jResult, len(reqs))
	admission := make([]time.Duration, len(reqs))
	set := func(t time.Duration) {
		ms := int64(t / time.Millisecond)
		if t%time.Millisecond < 0 {
			ms--
		}
		clock.ms = epoch + ms
		clock.ns = epoch*1_000_000 + int64(t)
		clock.t = t
	}
	less := func(a, c ev) bool {
		if a.t != c.t {
			return a.t < c.t
		}
		if a.class != c.class {
			return a.class < c.class
		}
		return a.seq < c.seq
	}
	// degrade is DegradeSlot.entry then StatisticSlot's pass, at t.
	degrade := func(seq int, t time.Duration) {
		set(t)
		if b != nil && !b.tryPass() {
			out[seq].stage = "breaker"
			return
		}
		if flow != nil {
			flow.addPass()
		}
		out[seq].pass = true
		out[seq].wait = t - reqs[seq].t
		admission[seq] = t
		if ds != nil {
			exit, failed := ds.serve(seq, t)
			reqs[seq].rt, reqs[seq].failed = exit-t, failed
		}
		pending = append(pending, ev{t + reqs[seq].rt, 0, seq})
	}
	complete := func(seq int, t time.Duration) {
		set(t)
		created := epoch + int64(math.Floor(float64(reqs[seq].t)/float64(time.Millisecond)))
		if b != nil {
			b.onRequestComplete(created, reqs[seq].failed)
		}
		out[seq].rt = t - admission[seq]
		out[seq].failed = reqs[seq].failed
	}
	runBefore := func(k ev, all bool) {
		for {
			best := -1
			for i, e := range pending {
				if best < 0 || less(e, pending[best]) {
					best = i
				}
			}
			if best < 0 || (!all && !less(pending[best], k)) {
				return
			}
			e := pending[best]
			pending = append(pending[:best], pending[best+1:]...)
			if e.class == 0 {
				complete(e.seq, e.t)
			} else {
				degrade(e.seq, e.t)
			}
		}
	}
	for seq, r := range reqs {
		runBefore(ev{r.t, 2, seq}, false)
		set(r.t)
		var wait time.Duration
		if flow != nil {
			ok, w := flow.canPass()
			if !ok {
				out[seq].stage = "flow"
				continue
			}
			wait = w
		}
		if wait > 0 {
			pending = append(pending, ev{r.t + wait, 1, seq})
			continue
		}
		degrade(seq, r.t)
	}
	runBefore(ev{}, true)
	return out
}

// refCase builds the reference chain for a spec used in the comparison.
type refCase struct {
	spec  string
	build func(clock *jClock) (jFlow, *jBreaker)
	ds    *scenarios.Downstream // responses from a downstream, not the trace
}

// refDownstream slows down and fails in alternate seconds.
func refDownstream() *scenarios.Downstream {
	d := &scenarios.Downstream{Servers: 3, Service: 20 * time.Millisecond, Timeout: 400 * time.Millisecond, Seed: 5}
	for i := 0; i < 40; i++ {
		from := time.Duration(i) * 2 * time.Second
		p := scenarios.DownstreamPhase{From: from, To: from + time.Second, Service: 150 * time.Millisecond}
		if i%3 == 1 {
			p.Service, p.Errors = 5*time.Millisecond, 0.7
		}
		d.Phases = append(d.Phases, p)
	}
	return d
}

func jNewBreaker(clock *jClock, grade int, maxRt int64, threshold float64, minReq int64, statMs int64, recoverySec int64) *jBreaker {
	return &jBreaker{clock: clock, grade: grade, maxAllowedRt: maxRt, threshold: threshold, minRequestAmount: minReq,
		recoveryTimeoutMs: recoverySec * 1000, stat: newJLeap(1, statMs, func(c *jCounter) { *c = jCounter{} })}
}

func refCases() []refCase {
	slow := func(c *jClock) *jBreaker { return jNewBreaker(c, 0, 100, 0.5, 3, 1000, 1) }
	slowSpec := "circuit-breaker:strategy=slow-ratio,max-rt=100ms,threshold=0.5,min-requests=3,recovery=1s"
	leap := func(c *jClock) jFlow {
		return &jDefault{clock: c, count: 20, intervalMs: 1000, node: newJLeap(2, 1000, func(v *int64) { *v = 0 })}
	}
	throttle := func(c *jClock) jFlow {
		return &jThrottling{clock: c, count: 20, statDurationMs: 1000, maxQueueingMs: 300, latestPassedTime: -1}
	}
	return []refCase{
		{slowSpec, func(c *jClock) (jFlow, *jBreaker) { return nil, slow(c) }, nil},
		{"circuit-breaker:strategy=slow-ratio,max-rt=50ms,min-requests=2,stat-interval=500ms,recovery=2s",
			func(c *jClock) (jFlow, *jBreaker) { return nil, jNewBreaker(c, 0, 50, 1.0, 2, 500, 2) }, nil},
		{"circuit-breaker:strategy=error-ratio,threshold=0.3,min-requests=4,stat-interval=700ms,recovery=1s",
			func(c *jClock) (jFlow, *jBreaker) { return nil, jNewBreaker(c, 1, 0, 0.3, 4, 700, 1) }, nil},
		{"circuit-breaker:strategy=error-count,threshold=2,min-requests=1,recovery=1s",
			func(c *jClock) (jFlow, *jBreaker) { return nil, jNewBreaker(c, 2, 0, 2, 1, 1000, 1) }, nil},
		{"leap-array:limit=20+" + slowSpec, func(c *jClock) (jFlow, *jBreaker) { return leap(c), slow(c) }, nil},
		{"leaky-bucket:limit=20,max-queue=300ms+" + slowSpec, func(c *jClock) (jFlow, *jBreaker) { return throttle(c), slow(c) }, nil},
		{"leaky-bucket:limit=20,max-queue=300ms+circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=3,recovery=1s",
			func(c *jClock) (jFlow, *jBreaker) { return throttle(c), jNewBreaker(c, 1, 0, 0.5, 3, 1000, 1) }, nil},
		{"leaky-bucket:limit=30,max-queue=300ms+" + slowSpec, func(c *jClock) (jFlow, *jBreaker) {
			return &jThrottling{clock: c, count: 30, statDurationMs: 1000, maxQueueingMs: 300, latestPassedTime: -1}, slow(c)
		}, nil},
		{"token-bucket:rate=20,burst=5+" + slowSpec, func(c *jClock) (jFlow, *jBreaker) {
			return &jXRate{clock: c, lim: rate.NewLimiter(20, 5)}, slow(c)
		}, nil},
		{"leap-array:limit=20+" + slowSpec, func(c *jClock) (jFlow, *jBreaker) { return leap(c), slow(c) }, refDownstream()},
		{"leaky-bucket:limit=30,max-queue=300ms+circuit-breaker:strategy=error-ratio,threshold=0.3,min-requests=3,recovery=1s",
			func(c *jClock) (jFlow, *jBreaker) {
				return &jThrottling{clock: c, count: 30, statDurationMs: 1000, maxQueueingMs: 300, latestPassedTime: -1}, jNewBreaker(c, 1, 0, 0.3, 3, 1000, 1)
			}, refDownstream()},
		{"circuit-breaker:strategy=error-count,threshold=2,min-requests=1,recovery=1s",
			func(c *jClock) (jFlow, *jBreaker) { return nil, jNewBreaker(c, 2, 0, 2, 1, 1000, 1) }, refDownstream()},
		{"leap-array:limit=20", func(c *jClock) (jFlow, *jBreaker) { return leap(c), nil }, nil},
		{"leaky-bucket:limit=20,max-queue=300ms", func(c *jClock) (jFlow, *jBreaker) { return throttle(c), nil }, nil},
	}
}

// randomRequests is a trace with regimes: calm, slow, failing, idle gaps,
// equal timestamps and now and then the clock stepping back.
func randomRequests(rng *rand.Rand, n int) []jRequest {
	out := make([]jRequest, n)
	t := time.Duration(rng.IntN(1000)) * time.Millisecond
	slowP, errP := 0.1, 0.1
	for i := range out {
		switch rng.IntN(40) {
		case 0:
			slowP, errP = rng.Float64(), rng.Float64()
		case 1:
			t += time.Duration(rng.IntN(3000)) * time.Millisecond
		case 2:
			t -= time.Duration(rng.IntN(400)) * time.Millisecond
		}
		switch rng.IntN(4) {
		case 0: // same instant
		case 1:
			t += time.Duration(rng.IntN(5)) * time.Millisecond
		default:
			t += time.Duration(rng.ExpFloat64() * float64(40*time.Millisecond))
		}
		rt := time.Duration(rng.IntN(100_000)) * time.Microsecond
		if rng.Float64() < slowP {
			rt = time.Duration(80+rng.IntN(900)) * time.Millisecond
		}
		if rng.IntN(20) == 0 {
			rt = 0
		}
		out[i] = jRequest{t: t, rt: rt, failed: rng.Float64() < errP}
	}
	return out
}

func TestChainsMatchSentinelReference(t *testing.T) {
	const epoch = 1_600_000_000_000 - 1_600_000_000_000%(7000*3) // a multiple of every length used
	seeds := long(30, 10)
	for _, rc := range refCases() {
		changes, breakerBlocks := 0, 0
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			rng := rand.New(rand.NewPCG(seed, 9))
			reqs := randomRequests(rng, 400+rng.IntN(400))
			clock := &jClock{}
			flow, b := rc.build(clock)
			arr := make([]scenarios.Arrival, len(reqs))
			for i, r := range reqs {
				arr[i] = scenarios.Arrival{At: r.t, Clock: r.t, HasResponse: rc.ds == nil, RT: r.rt, Failed: r.failed}
			}
			var ds *jDownstream
			if rc.ds != nil {
				ds = &jDownstream{cfg: rc.ds}
			}
			want := jRun(reqs, epoch, flow, b, clock, ds)

			lim, err := algorithms.New(rc.spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			var rows bytes.Buffer
			cfg := cfgFor(10 * time.Second)
			cfg.Decisions = func(int) io.Writer { return &rows }
			cfg.Downstream = rc.ds
			res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := parseRows(t, rows.String())
			for i := range reqs {
				w, g := want[i], got[i]
				wantStage := w.stage
				if w.pass {
					if g.verdict != "pass" || g.wait != w.wait || g.rt != w.rt || g.failed != w.failed {
						t.Fatalf("%s seed %d arrival %d (t=%v): got %+v, the reference passes with wait %v rt %v failed %v",
							rc.spec, seed, i, reqs[i].t, g, w.wait, w.rt, w.failed)
					}
				} else if g.verdict != "block" || g.stage != wantStage {
					t.Fatalf("%s seed %d arrival %d (t=%v): got %+v, the reference blocks at %s", rc.spec, seed, i, reqs[i].t, g, wantStage)
				}
			}
			var gotChanges []jChange
			if c := res.Algorithms[0].Chain; c != nil {
				for _, tr := range c.Transitions {
					gotChanges = append(gotChanges, jChange{epoch + int64(math.Floor(float64(tr.Clock)/1e6)), int(tr.From), int(tr.To)})
				}
			}
			if b != nil && fmt.Sprint(gotChanges) != fmt.Sprint(b.changes) {
				t.Fatalf("%s seed %d: state changes\n got %v\nwant %v", rc.spec, seed, gotChanges, b.changes)
			}
			if b != nil {
				changes += len(b.changes)
				for _, w := range want {
					if w.stage == "breaker" {
						breakerBlocks++
					}
				}
			}
		}
		// The comparison is worth something only if the breakers moved:
		// over 30 seeds at least 100 state changes and 1000 breaker blocks.
		if strings.Contains(rc.spec, "circuit-breaker") && (changes < 100*seeds/30 || breakerBlocks < 1000*seeds/30) {
			t.Errorf("%s: only %d state changes and %d breaker blocks over all seeds", rc.spec, changes, breakerBlocks)
		}
		t.Logf("%s: %d state changes, %d breaker blocks", rc.spec, changes, breakerBlocks)
	}
}

type parsedRow struct {
	verdict, stage string
	wait, rt       time.Duration
	failed         bool
}

func parseRows(t *testing.T, s string) []parsedRow {
	t.Helper()
	var out []parsedRow
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		// The spec is quoted; the last eight fields follow it (the
		// priority column last).
		f := strings.Split(line, ",")
		f = f[len(f)-8 : len(f)-1]
		var r parsedRow
		r.verdict, r.stage = f[2], f[4]
		w, _ := strconv.ParseInt(f[3], 10, 64)
		r.wait = time.Duration(w)
		if f[5] != "" {
			x, _ := strconv.ParseInt(f[5], 10, 64)
			r.rt = time.Duration(x)
		}
		r.failed = f[6] == "1"
		out = append(out, r)
	}
	return out
}
