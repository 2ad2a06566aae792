package algorithms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// A plain port of Guava 33's RateLimiter.tryAcquire/acquire and
// SmoothRateLimiter with its two subclasses, written as the Java is: a
// stopwatch, the abstract methods as an interface, Java's (long) casts
// and LongMath.saturatedAdd. The limiters in guava_*.go must make the
// same decisions and waits on every trace.

type refGuavaSub interface {
	doSetRate(r *refGuava, permitsPerSecond, stableIntervalMicros float64)
	storedPermitsToWaitTime(r *refGuava, storedPermits, permitsToTake float64) int64
	coolDownIntervalMicros(r *refGuava) float64
}

type refGuava struct {
	sub                  refGuavaSub
	storedPermits        float64
	maxPermits           float64
	stableIntervalMicros float64
	nextFreeTicketMicros int64
	nowNanos             int64 // the stopwatch's elapsed nanoseconds
	slept                []int64
}

func (r *refGuava) readMicros() int64 { return r.nowNanos / 1000 } // TimeUnit: truncation

func (r *refGuava) setRate(permitsPerSecond float64) {
	now := r.readMicros()
	r.resync(now)
	stable := 1000000 / permitsPerSecond
	r.stableIntervalMicros = stable
	r.sub.doSetRate(r, permitsPerSecond, stable)
}

func (r *refGuava) resync(nowMicros int64) {
	if nowMicros > r.nextFreeTicketMicros {
		newPermits := float64(nowMicros-r.nextFreeTicketMicros) / r.sub.coolDownIntervalMicros(r)
		r.storedPermits = math.Min(r.maxPermits, r.storedPermits+newPermits)
		r.nextFreeTicketMicros = nowMicros
	}
}

func (r *refGuava) reserveEarliestAvailable(requiredPermits int, nowMicros int64) int64 {
	r.resync(nowMicros)
	returnValue := r.nextFreeTicketMicros
	storedPermitsToSpend := math.Min(float64(requiredPermits), r.storedPermits)
	freshPermits := float64(requiredPermits) - storedPermitsToSpend
	waitMicros := r.sub.storedPermitsToWaitTime(r, r.storedPermits, storedPermitsToSpend) +
		javaD2L(freshPermits*r.stableIntervalMicros)
	r.nextFreeTicketMicros = refSaturatedAdd(r.nextFreeTicketMicros, waitMicros)
	r.storedPermits -= storedPermitsToSpend
	return returnValue
}

func (r *refGuava) reserveAndGetWaitLength(permits int, nowMicros int64) int64 {
	momentAvailable := r.reserveEarliestAvailable(permits, nowMicros)
	return max(momentAvailable-nowMicros, 0)
}

func (r *refGuava) acquire() int64 {
	microsToWait := r.reserveAndGetWaitLength(1, r.readMicros())
	r.slept = append(r.slept, microsToWait)
	return microsToWait
}

func (r *refGuava) tryAcquire(timeoutMicros int64) (bool, int64) {
	return r.tryAcquireN(1, timeoutMicros)
}

// tryAcquireN is RateLimiter.tryAcquire(permits, timeout, MICROSECONDS).
func (r *refGuava) tryAcquireN(permits int, timeoutMicros int64) (bool, int64) {
	timeoutMicros = max(timeoutMicros, 0)
	nowMicros := r.readMicros()
	if !(r.nextFreeTicketMicros-timeoutMicros <= nowMicros) { // canAcquire
		return false, 0
	}
	microsToWait := r.reserveAndGetWaitLength(permits, nowMicros)
	return true, microsToWait
}

// refSaturatedAdd is LongMath.saturatedAdd, written out plainly: the sum
// overflows iff both operands have the same sign and the result's differs.
func refSaturatedAdd(a, b int64) int64 {
	naive := a + b
	if (a >= 0) == (b >= 0) && (naive >= 0) != (a >= 0) {
		if a >= 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return naive
}

type refBursty struct{ maxBurstSeconds float64 }

func (b refBursty) doSetRate(r *refGuava, permitsPerSecond, _ float64) {
	oldMaxPermits := r.maxPermits
	r.maxPermits = b.maxBurstSeconds * permitsPerSecond
	if oldMaxPermits == math.Inf(1) {
		r.storedPermits = r.maxPermits
	} else if oldMaxPermits == 0.0 {
		r.storedPermits = 0.0
	} else {
		r.storedPermits = r.storedPermits * r.maxPermits / oldMaxPermits
	}
}
func (refBursty) storedPermitsToWaitTime(*refGuava, float64, float64) int64 { return 0 }
func (refBursty) coolDownIntervalMicros(r *refGuava) float64                { return r.stableIntervalMicros }

type refWarmingUp struct {
	warmupPeriodMicros int64
	slope              float64
	thresholdPermits   float64
	coldFactor         float64
}

func (w *refWarmingUp) doSetRate(r *refGuava, _, stableIntervalMicros float64) {
	oldMaxPermits := r.maxPermits
	coldIntervalMicros := stableIntervalMicros * w.coldFactor
	w.thresholdPermits = 0.5 * float64(w.warmupPeriodMicros) / stableIntervalMicros
	r.maxPermits = w.thresholdPermits + 2.0*float64(w.warmupPeriodMicros)/(stableIntervalMicros+coldIntervalMicros)
	w.slope = (coldIntervalMicros - stableIntervalMicros) / (r.maxPermits - w.thresholdPermits)
	if oldMaxPermits == math.Inf(1) {
		r.storedPermits = 0.0
	} else if oldMaxPermits == 0.0 {
		r.storedPermits = r.maxPermits
	} else {
		r.storedPermits = r.storedPermits * r.maxPermits / oldMaxPermits
	}
}

func (w *refWarmingUp) storedPermitsToWaitTime(r *refGuava, storedPermits, permitsToTake float64) int64 {
	availablePermitsAboveThreshold := storedPermits - w.thresholdPermits
	var micros int64
	if availablePermitsAboveThreshold > 0.0 {
		permitsAboveThresholdToTake := math.Min(availablePermitsAboveThreshold, permitsToTake)
		length := w.permitsToTime(r, availablePermitsAboveThreshold) +
			w.permitsToTime(r, availablePermitsAboveThreshold-permitsAboveThresholdToTake)
		micros = javaD2L(permitsAboveThresholdToTake * length / 2.0)
		permitsToTake -= permitsAboveThresholdToTake
	}
	micros += javaD2L(r.stableIntervalMicros * permitsToTake)
	return micros
}

func (w *refWarmingUp) permitsToTime(r *refGuava, permits float64) float64 {
	return r.stableIntervalMicros + float64(permits*w.slope)
}

func (w *refWarmingUp) coolDownIntervalMicros(r *refGuava) float64 {
	return float64(w.warmupPeriodMicros) / r.maxPermits
}

func newRefBursty(rate, maxBurstSeconds float64) *refGuava {
	r := &refGuava{sub: refBursty{maxBurstSeconds}}
	r.setRate(rate)
	return r
}

func newRefWarmingUp(rate float64, warmup time.Duration, coldFactor float64) *refGuava {
	r := &refGuava{sub: &refWarmingUp{warmupPeriodMicros: int64(warmup / time.Microsecond), coldFactor: coldFactor}}
	r.setRate(rate)
	return r
}

// decide runs one request at virtual time t as the lab does: tryAcquire
// with the timeout, or acquire() for timeout < 0.
func (r *refGuava) decide(t time.Duration, timeoutMicros int64) Decision {
	r.nowNanos = int64(t)
	if timeoutMicros < 0 {
		return Decision{Pass: true, Wait: time.Duration(r.acquire()) * time.Microsecond}
	}
	ok, w := r.tryAcquire(timeoutMicros)
	return Decision{Pass: ok, Wait: time.Duration(w) * time.Microsecond}
}

// Guava's own documented waits, each call arriving as the previous one
// returns (acquire()).
func TestGuavaPublishedWaits(t *testing.T) {
	for _, tc := range []struct {
		spec     string
		arrivals []time.Duration
		waits    []time.Duration
	}{
		{"guava-bursty:rate=5,timeout=inf", []time.Duration{0, 0, 200 * ms}, []time.Duration{0, 200 * ms, 200 * ms}},
		{"guava-warming-up:rate=2,warm-up=4000ms,cold-factor=3,timeout=inf",
			[]time.Duration{0, 0, 1375 * ms, 2500 * ms, 3375 * ms, 4000 * ms, 4500 * ms, 5000 * ms},
			[]time.Duration{0, 1375 * ms, 1125 * ms, 875 * ms, 625 * ms, 500 * ms, 500 * ms, 500 * ms}},
	} {
		l := mustNew(t, tc.spec, 0)
		for i, at := range tc.arrivals {
			if i > 0 && at != tc.arrivals[i-1]+tc.waits[i-1] {
				t.Fatalf("%s: arrival %d is not when the previous call returns", tc.spec, i)
			}
			if d := l.Decide(at); !d.Pass || d.Wait != tc.waits[i] {
				t.Errorf("%s: call %d at %v: %+v, want a pass after %v", tc.spec, i, at, d, tc.waits[i])
			}
		}
	}
}

func TestGuavaTryAcquireWorkedExamples(t *testing.T) {
	// create(5): the first request passes at once and the next caller pays
	// 200 ms, so with timeout 0 the second at 0 and one at 199.999 ms are
	// refused; at 200 ms it passes. With timeout 100 ms, one at 100 ms
	// passes after 100 ms.
	l := mustNew(t, "guava-bursty:rate=5", 0)
	got := decisions(l, []time.Duration{0, 0, 199999 * time.Microsecond, 200 * ms, 250 * ms})
	want := []Decision{{Pass: true}, {}, {}, {Pass: true}, {}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("timeout 0, request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	l = mustNew(t, "guava-bursty:rate=5,timeout=100ms", 0)
	got = decisions(l, []time.Duration{0, 100 * ms, 100 * ms})
	want = []Decision{{Pass: true}, {Pass: true, Wait: 100 * ms}, {}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("timeout 100ms, request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// An idle second stores rate·max-burst = 5 permits: after a 2 s pause,
	// 6 requests at one instant pass (5 stored and the fresh one whose
	// cost the next caller pays), the 7th is refused.
	l = mustNew(t, "guava-bursty:rate=5", 0)
	l.Decide(0)
	n := 0
	for range 10 {
		if l.Decide(2 * time.Second).Pass {
			n++
		}
	}
	if n != 6 {
		t.Errorf("after an idle 2 s, %d of 10 passed at one instant, want 6", n)
	}
}

// The stopwatch reads whole µs truncated towards zero, like TimeUnit.
func TestGuavaStopwatchTruncates(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{{999, 0}, {1000, 1}, {1999, 1}, {-1, 0}, {-999, 0}, {-1000, -1}, {-1500, -1}} {
		if got := guavaMicros(tc.d); got != tc.want {
			t.Errorf("guavaMicros(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	// Before creation the clock reads a negative time: nextFree (0) is
	// later than now, so timeout 0 refuses and acquire() waits the gap.
	l := mustNew(t, "guava-bursty:rate=1", 0)
	if d := l.Decide(-5 * time.Second); d.Pass {
		t.Errorf("at −5 s with timeout 0: %+v, want a refusal", d)
	}
	l = mustNew(t, "guava-bursty:rate=1,timeout=inf", 0)
	if d := l.Decide(-5 * time.Second); !d.Pass || d.Wait != 5*time.Second {
		t.Errorf("at −5 s, acquire(): %+v, want a pass after 5s", d)
	}
	// 999 ns reads 0 µs, so it is the same instant as 0.
	l = mustNew(t, "guava-bursty:rate=1,timeout=inf", 0)
	l.Decide(0)
	if d := l.Decide(999); d.Wait != time.Second {
		t.Errorf("at 999 ns after a pass at 0: wait %v, want 1s", d.Wait)
	}
}

func TestGuavaClockBack(t *testing.T) {
	// rate 10, created empty at 0: a pass at 0 moves the next free ticket
	// to 100 ms, a second (acquire) waits for it and moves it to 200 ms.
	// Back at −500 ms no permits are stored and the ticket stays, so
	// acquire() waits 700 ms and moves it to 300 ms; at 300 ms the next
	// request does not wait.
	l := mustNew(t, "guava-bursty:rate=10,timeout=inf", 0)
	got := decisions(l, []time.Duration{0, 0, -500 * ms, 300 * ms})
	want := []Decision{{Pass: true}, {Pass: true, Wait: 100 * ms}, {Pass: true, Wait: 700 * ms}, {Pass: true}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("acquire(), request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// With timeout 0 the same arrivals: the step back is refused and
	// changes nothing, so 100 ms passes.
	l = mustNew(t, "guava-bursty:rate=10", 0)
	got = decisions(l, []time.Duration{0, 0, -500 * ms, 100 * ms})
	want = []Decision{{Pass: true}, {}, {}, {Pass: true}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("timeout 0, request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestGuavaMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 2))
	type variant struct {
		spec    string
		ref     func() *refGuava
		timeout int64
	}
	var vs []variant
	for _, rate := range []float64{0.7, 3, 10, 100, 333.3, 5000} {
		for _, to := range []struct {
			s  string
			us int64
		}{{"0", 0}, {"50ms", 50000}, {"1500us", 1500}, {"inf", -1}} {
			rate := rate
			for _, burst := range []struct {
				s   string
				sec float64
			}{{"1s", 1}, {"2500ms", 2.5}, {"100ms", 0.1}} {
				vs = append(vs, variant{
					spec:    "guava-bursty:rate=" + formatFloat(rate) + ",max-burst=" + burst.s + ",timeout=" + to.s,
					ref:     func() *refGuava { return newRefBursty(rate, burst.sec) },
					timeout: to.us,
				})
			}
			for _, w := range []struct {
				s  string
				d  time.Duration
				cf float64
			}{{"4s", 4 * time.Second, 3}, {"1500ms", 1500 * ms, 2}, {"10s", 10 * time.Second, 7.5}, {"0s", 0, 3}, {"333333ns", 333333, 1.5}} {
				vs = append(vs, variant{
					spec:    "guava-warming-up:rate=" + formatFloat(rate) + ",warm-up=" + w.s + ",cold-factor=" + formatFloat(w.cf) + ",timeout=" + to.s,
					ref:     func() *refGuava { return newRefWarmingUp(rate, w.d, w.cf) },
					timeout: to.us,
				})
			}
		}
	}
	var decided, passed int
	for _, v := range vs {
		for trial := range 3 {
			l := mustNew(t, v.spec, 0)
			ref := v.ref()
			// Scale the trace to the rate so both idle and saturated
			// spells occur.
			trace := jumpyTrace(rng, 1500, trial == 0)
			if trial == 2 {
				trace = poissonTrace(rng, 3*l.Rate(), time.Duration(float64(600*time.Second)/max(l.Rate(), 1)))
			}
			for i, at := range trace {
				got, want := l.Decide(at), ref.decide(at, v.timeout)
				if got != want {
					t.Fatalf("%s, trial %d, arrival %d at %v: %+v, Guava's code %+v", v.spec, trial, i, at, got, want)
				}
				decided++
				if got.Pass {
					passed++
				}
			}
		}
	}
	if passed == 0 || passed == decided {
		t.Fatalf("%d of %d passed: the traces do not exercise the limiter", passed, decided)
	}
}

func TestSaturatedAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	edge := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 5, math.MinInt64 + 5, 1 << 62, -(1 << 62)}
	for range 20000 {
		a, b := rng.Int64()-rng.Int64(), rng.Int64()-rng.Int64()
		if rng.IntN(3) == 0 {
			a = edge[rng.IntN(len(edge))]
		}
		if rng.IntN(3) == 0 {
			b = edge[rng.IntN(len(edge))]
		}
		if got, want := saturatedAdd(a, b), refSaturatedAdd(a, b); got != want {
			t.Fatalf("saturatedAdd(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
}

func TestGuavaErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"guava-bursty:rate=0", "rate must be a positive number, got 0"},
		{"guava-bursty:rate=-2", "rate must be a positive number"},
		{"guava-bursty:max-burst=0s", "max-burst must be positive"},
		{"guava-bursty:max-burst=-1s", "max-burst must be positive"},
		{"guava-bursty:timeout=-1s", "timeout \"-1s\" is not a duration ≥ 0 or inf"},
		{"guava-bursty:timeout=forever", "timeout \"forever\" is not a duration"},
		{"guava-warming-up:rate=0,warm-up=1s", "rate must be a positive number, got 0"},
		{"guava-warming-up", "guava-warming-up needs a warm-up"},
		{"guava-warming-up:warm-up=1s,cold-factor=1", "cold-factor must be larger than 1, got 1"},
		{"guava-warming-up:warm-up=1s,cold-factor=0.5", "cold-factor must be larger than 1"},
		{"guava-warming-up:warm-up=-1s", "warm-up must not be negative"},
	} {
		_, err := New(tc.spec, 10)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}

// warm-up=0 is accepted, as Guava accepts it: maxPermits is 0 and the
// cool-down interval 0/0, so the first idle spell makes storedPermits NaN,
// every cost casts to 0 and nothing is limited any more.
func TestGuavaZeroWarmUpStopsLimiting(t *testing.T) {
	l := mustNew(t, "guava-warming-up:rate=10,warm-up=0s", 0)
	if got := decisions(l, []time.Duration{0, 0}); !got[0].Pass || got[1].Pass {
		t.Fatalf("before any idle time: %+v, want a pass then a refusal (100 ms apart)", got)
	}
	if n := countPasses(l, make([]time.Duration, 1000)); n != 0 {
		t.Fatalf("%d passed at 0, want 0", n)
	}
	burst := make([]time.Duration, 1000)
	for i := range burst {
		burst[i] = time.Second
	}
	if n := countPasses(l, burst); n != 1000 {
		t.Errorf("after an idle spell %d of 1000 passed at one instant, want all (stored permits are NaN)", n)
	}
}
