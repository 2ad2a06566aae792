package algorithms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// evenStream is one arrival every step over [0, d).
func evenStream(step, d time.Duration) []time.Duration {
	var out []time.Duration
	for t := time.Duration(0); t < d; t += step {
		out = append(out, t)
	}
	return out
}

// TestCheckToAddWorkedExample pins, by hand, a gap of 10 ms at limit 100 on
// an even 1 ms stream from 0 to 3 s.
//
// With the gap, the pass decided at d is counted from d+10ms on, so at t the
// count is the passes decided at or before t−10ms. In the first second every
// limiter passes t = 0…108 ms: at 108 the count is the 99 passes of 0…98
// (99+1 ≤ 100), at 109 it is the 100 passes of 0…99. That is 109 passes, 9
// more than the 100 of gap 0, one fewer than the 10 "in flight" of rate ×
// gap = 1000/s × 10 ms, because the pass that brings the count to the limit
// is itself in flight. fixed-window (1 s windows) and leap-array (2 buckets
// of 500 ms) start from zero at 1000 and 2000, so they repeat 0…108 every
// second. sliding-log keeps the records 10…118 ms until they leave
// (t−1s, t]: at 1000+x it counts 118−x of them, so its next pass is at
// 1019 (118−19+1 = 100), and from then on the count stays at 90
// (old ones leaving as new ones land) until the old ones are gone and the
// new ones reach 100 at 1128: passes 1019…1127, again 109. The third block
// starts 19 ms later again: 2038…2146.
func TestCheckToAddWorkedExample(t *testing.T) {
	stream := evenStream(ms, 3*time.Second)
	inRanges := func(rs ...[2]int) func(int) bool {
		return func(m int) bool {
			for _, r := range rs {
				if m >= r[0] && m <= r[1] {
					return true
				}
			}
			return false
		}
	}
	everySecond := func(last int) func(int) bool {
		return func(m int) bool { return m%1000 <= last }
	}
	for _, tc := range []struct {
		spec string
		want func(ms int) bool
	}{
		{"leap-array:limit=100", everySecond(99)},
		{"fixed-window:limit=100", everySecond(99)},
		{"sliding-log:limit=100", everySecond(99)},
		{"leap-array:limit=100,check-to-add=10ms", everySecond(108)},
		{"fixed-window:limit=100,check-to-add=10ms", everySecond(108)},
		{"sliding-log:limit=100,check-to-add=10ms", inRanges([2]int{0, 108}, [2]int{1019, 1127}, [2]int{2038, 2146})},
	} {
		l := mustNew(t, tc.spec, 0)
		for _, at := range stream {
			m := int(at / ms)
			if got := l.Decide(at).Pass; got != tc.want(m) {
				t.Fatalf("%s at %d ms: pass=%v, want %v", tc.spec, m, got, !got)
			}
		}
	}
}

// model is the brute-force definition of check-to-add for the four kinds on
// a clock that never goes back: every pass decided at d is recorded at
// d+gap, and the window count at t is the number of recorded passes with a
// record time at or before t inside t's window.
type model struct {
	kind    string
	limit   float64
	window  time.Duration // fixed-window, sliding-log
	n       int           // leap-array, warm-up: buckets
	w       int64         // bucket ms
	ims     int64         // interval ms
	gap     time.Duration
	records []time.Duration
	warm    *refWarm
}

func (m *model) count(t time.Duration, in func(r time.Duration) bool) int64 {
	var c int64
	for _, r := range m.records {
		if r <= t && in(r) {
			c++
		}
	}
	return c
}

// bucketed is the LeapArray count: records whose bucket is t's or one of
// the n−1 before it.
func (m *model) bucketed(t time.Duration) int64 {
	bt := floorMs(t) / m.w
	return m.count(t, func(r time.Duration) bool { return floorMs(r)/m.w > bt-int64(m.n) })
}

func (m *model) decide(t time.Duration) bool {
	var pass bool
	switch m.kind {
	case "fixed-window":
		k := t / m.window
		pass = float64(m.count(t, func(r time.Duration) bool { return r/m.window == k }))+1 <= m.limit
	case "sliding-log":
		pass = float64(m.count(t, func(r time.Duration) bool { return r > t-m.window }))+1 <= m.limit
	case "sliding-window-counter":
		k := t / m.window
		prev := float64(m.count(t, func(r time.Duration) bool { return r/m.window == k-1 }))
		curr := float64(m.count(t, func(r time.Duration) bool { return r/m.window == k }))
		pass = prev*float64(m.window-(t-k*m.window))/float64(m.window)+curr+1 <= m.limit
	case "leap-array":
		qps := float64(m.bucketed(t)) / (float64(m.ims) / 1000)
		pass = float64(javaD2I(qps)+1) <= m.limit
	case "warm-up":
		passQps := javaD2L(float64(m.bucketed(t)) / (float64(m.ims) / 1000))
		sec := floorMs(t) / 1000
		prev := m.count(t, func(r time.Duration) bool { return floorMs(r)/1000 == sec-1 })
		m.warm.syncToken(m.warm.epoch+floorMs(t), prev)
		pass = float64(passQps+1) <= m.warm.rate()
	}
	if pass {
		m.records = append(m.records, t+m.gap)
	}
	return pass
}

// monotoneTrace is a non-decreasing trace with bursts at one instant,
// bucket edges, idle gaps and nanosecond jitter.
func monotoneTrace(rng *rand.Rand, n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	t := time.Duration(rng.Int64N(2000)) * ms
	for len(out) < n {
		switch rng.IntN(12) {
		case 0:
			t += time.Duration(rng.Int64N(3000)) * ms
		case 1:
			for k := rng.IntN(20); k > 0 && len(out) < n; k-- {
				out = append(out, t)
			}
		case 2:
			t = t - t%(100*ms) + 100*ms
		case 3:
			t += time.Duration(rng.Int64N(int64(ms)))
		default:
			t += time.Duration(rng.Int64N(int64(8 * ms)))
		}
		out = append(out, t)
	}
	return out
}

var modelGaps = []time.Duration{0, 1, 250 * time.Microsecond, ms, 3 * ms, 10 * ms, 50 * ms, 700 * ms, 2 * time.Second}

func TestCheckToAddMatchesBruteForceModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for trial := 0; trial < 40; trial++ {
		trace := monotoneTrace(rng, 1500)
		gap := modelGaps[trial%len(modelGaps)]
		limit := []float64{1, 2.5, 5, 20}[trial%4]
		for _, m := range []*model{
			{kind: "fixed-window", window: 200 * ms},
			{kind: "sliding-log", window: 300 * ms},
			{kind: "sliding-window-counter", window: 300 * ms},
			{kind: "leap-array", n: 4, w: 250, ims: 1000},
			{kind: "leap-array", n: 1, w: 500, ims: 500},
			{kind: "warm-up", n: 2, w: 500, ims: 1000, warm: newRefWarm(limit*4, 2, 3, 2, 1000)},
		} {
			m.limit, m.gap = limit, gap
			var spec string
			switch m.kind {
			case "fixed-window", "sliding-log", "sliding-window-counter":
				spec = fmt.Sprintf("%s:limit=%s,window=%s", m.kind, formatFloat(limit), FormatDuration(m.window))
			case "leap-array":
				spec = fmt.Sprintf("leap-array:limit=%s,sample-count=%d,interval=%dms", formatFloat(limit), m.n, m.ims)
			case "warm-up":
				m.limit = limit * 4
				spec = fmt.Sprintf("warm-up:limit=%s,warm-up=2s,sample-count=2", formatFloat(m.limit))
			}
			spec += ",check-to-add=" + FormatDuration(gap)
			l := mustNew(t, spec, 0)
			for i, at := range trace {
				want := m.decide(at)
				if got := l.Decide(at).Pass; got != want {
					t.Fatalf("trial %d %s, arrival %d at %v: pass=%v, the model says %v", trial, spec, i, at, got, want)
				}
			}
		}
	}
}

// TestCheckToAddOvershootIsPassesInFlight checks the bound behind the
// findings on random non-decreasing traces: for sliding-log, the passes
// decided in any (t−W, t] ending at a pass are at most ⌈limit⌉−1 plus the
// passes decided in (t−gap, t], the ones in flight (the current one
// included). With gap 0 that is the limit itself.
func TestCheckToAddOvershootIsPassesInFlight(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const window = 100 * ms
	for trial := 0; trial < 60; trial++ {
		trace := monotoneTrace(rng, 3000)
		gap := modelGaps[trial%len(modelGaps)]
		limit := []float64{1, 3, 10, 7.5}[trial%4]
		l := mustNew(t, fmt.Sprintf("sliding-log:limit=%s,window=100ms,check-to-add=%s", formatFloat(limit), FormatDuration(gap)), 0)
		var passes []time.Duration
		for _, at := range trace {
			if !l.Decide(at).Pass {
				continue
			}
			passes = append(passes, at)
			var inWindow, inFlight int
			for _, p := range passes {
				if p > at-window {
					inWindow++
				}
				if p > at-gap || p == at {
					inFlight++
				}
			}
			bound := int(limitCeilMinusOne(limit)) + inFlight
			if inWindow > bound {
				t.Fatalf("trial %d gap %v limit %v: %d passes in (%v, %v], more than %d", trial, gap, limit, inWindow, at-window, at, bound)
			}
		}
	}
}

// limitCeilMinusOne is the most passes a window may already hold for one
// more to pass (count+1 ≤ limit).
func limitCeilMinusOne(limit float64) float64 {
	n := 0.0
	for n+1 <= limit {
		n++
	}
	return n - 1
}

// TestCheckToAddCanPassFewer refutes "never fewer passes than with 0" by
// two hand-made traces: a late record counts against a later window, or
// stays in a sliding window longer, and blocks an arrival that gap 0 lets
// through. (The race is an overshoot in the passes per window, not a
// pointwise gain in total passes.)
func TestCheckToAddCanPassFewer(t *testing.T) {
	for _, tc := range []struct {
		spec     string
		arrivals []time.Duration
		want0    int
		wantGap  int
	}{
		// gap 0: 8 passes in [0,10), 14 passes in [10,20). gap 5ms: 8
		// passes and is recorded at 13 in [10,20), so 14 is blocked.
		{"fixed-window:limit=1,window=10ms", []time.Duration{8 * ms, 14 * ms}, 2, 1},
		// gap 0: 0 passes, 9 is blocked, 14 passes (0 left (4,14]).
		// gap 5ms: 0 passes and is recorded at 5, which blocks 9 and,
		// still inside (4,14], blocks 14.
		{"sliding-log:limit=1,window=10ms", []time.Duration{0, 9 * ms, 14 * ms}, 2, 1},
	} {
		if got := countPasses(mustNew(t, tc.spec, 0), tc.arrivals); got != tc.want0 {
			t.Errorf("%s: %d passes, want %d", tc.spec, got, tc.want0)
		}
		if got := countPasses(mustNew(t, tc.spec+",check-to-add=5ms", 0), tc.arrivals); got != tc.wantGap {
			t.Errorf("%s,check-to-add=5ms: %d passes, want %d", tc.spec, got, tc.wantGap)
		}
	}
}

// TestCheckToAddZeroIsTheLimiter checks that gap 0 makes exactly the
// wrapped limiter's decisions on every shared trace, the clock steps back
// included, through the wrapper itself (the registry returns the plain
// limiter for 0).
func TestCheckToAddZeroIsTheLimiter(t *testing.T) {
	for _, spec := range constructors {
		for name, trace := range traces() {
			plain := mustNew(t, spec, 0)
			s, ok := mustNew(t, spec, 0).(Stage)
			if !ok {
				continue // a chain or a breaker: not a two-step limiter
			}
			w, err := NewCheckToAdd(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			if w.Spec() != plain.Spec() {
				t.Fatalf("spec %q, want %q", w.Spec(), plain.Spec())
			}
			for i, at := range trace {
				if got, want := w.Decide(at), plain.Decide(at); got != want {
					t.Fatalf("%s on %s, arrival %d at %v: %+v, want %+v", spec, name, i, at, got, want)
				}
			}
		}
	}
}

func TestCheckToAddRegistry(t *testing.T) {
	for _, kind := range checkToAddKinds {
		plain := mustNew(t, kind, 100)
		zero := mustNew(t, kind+":check-to-add=0s", 100)
		if zero.Spec() != plain.Spec() || strings.Contains(plain.Spec(), "check-to-add") {
			t.Errorf("%s: check-to-add=0s gives spec %q, want today's %q", kind, zero.Spec(), plain.Spec())
		}
		if _, ok := zero.(*CheckToAdd); ok {
			t.Errorf("%s: check-to-add=0s is wrapped, want today's limiter", kind)
		}
		l := mustNew(t, kind+":check-to-add=1500us", 100)
		want := plain.Spec() + ",check-to-add=1500us"
		if l.Spec() != want {
			t.Errorf("%s: spec %q, want %q", kind, l.Spec(), want)
		}
		if again := mustNew(t, l.Spec(), 7); again.Spec() != want {
			t.Errorf("%s does not round-trip: %q", want, again.Spec())
		}
		for _, tc := range []struct{ val, msg string }{
			{"-1ms", kind + ": check-to-add must not be negative, got -1ms"},
			{"10", kind + `: check-to-add "10" is not a duration`},
			{"soon", kind + `: check-to-add "soon" is not a duration`},
		} {
			_, err := New(kind+":check-to-add="+tc.val, 100)
			if err == nil || !strings.HasPrefix(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("check-to-add=%s on %s: %v, want one line starting %q", tc.val, kind, err, tc.msg)
			}
		}
	}
	for _, kind := range []string{"token-bucket", "leaky-bucket", "warm-up-rate-limiter"} {
		if _, err := New(kind+":check-to-add=1ms", 100); err == nil || !strings.Contains(err.Error(), `unknown parameter "check-to-add"`) {
			t.Errorf("%s accepts check-to-add: %v", kind, err)
		}
	}
}

// BenchmarkCheckToAdd reports ns/decision of leap-array through the race
// wrapper at several gaps, on the Poisson trace of BenchmarkDecide.
func BenchmarkCheckToAdd(b *testing.B) {
	for _, gap := range []string{"0s", "100us", "1ms", "10ms"} {
		b.Run("leap-array/check-to-add="+gap, func(b *testing.B) {
			l := mustNew(b, "leap-array:check-to-add="+gap, benchLimit)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.Decide(benchAt(i))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
			b.ReportMetric(float64(l.StateBytes()), "state-bytes")
		})
	}
}

// TestCheckToAddSaturates: a record due beyond the end of time stays
// pending instead of wrapping into the past.
func TestCheckToAddSaturates(t *testing.T) {
	l := mustNew(t, "fixed-window:limit=1,window=1s,check-to-add=2h", 0)
	late := time.Duration(math.MaxInt64) - ms
	if !l.Decide(late).Pass || !l.Decide(late).Pass {
		t.Error("a pass recorded past the end of time counted at once")
	}
}
