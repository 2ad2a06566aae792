package algorithms

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// soakTrials returns full when RATELIMIT_LAB_SOAK=1 (.ci/run sets it),
// else quick: the long randomized comparisons run a subset of their
// trials in a plain go test, still covering each of their cycles.
func soakTrials(full, quick int) int {
	if os.Getenv("RATELIMIT_LAB_SOAK") == "1" {
		return full
	}
	return quick
}

const ms = time.Millisecond

func mustNew(t testing.TB, spec string, limit float64) Limiter {
	t.Helper()
	l, err := New(spec, limit)
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	return l
}

// spread returns n arrivals evenly over [from, to).
func spread(n int, from, to time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = from + time.Duration(i)*(to-from)/time.Duration(n)
	}
	return out
}

func concat(parts ...[]time.Duration) []time.Duration {
	var out []time.Duration
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func countPasses(l Limiter, trace []time.Duration) int {
	n := 0
	for _, t := range trace {
		if l.Decide(t).Pass {
			n++
		}
	}
	return n
}

// The seed article's picture of LeapArray: 500 ms buckets, sample count 2.
func TestBucketIndexAndWindowStart(t *testing.T) {
	b := newBuckets(2, 500)
	epoch := epochMs(500)
	for _, tc := range []struct {
		t         int64
		idx       int
		windowEnd int64
	}{
		{300, 0, 0}, {800, 1, 500}, {1300, 0, 1000},
	} {
		idx := b.current(epoch + tc.t)
		if idx != tc.idx || b.start[idx]-epoch != tc.windowEnd {
			t.Errorf("t=%dms: bucket %d start %d, want bucket %d start %d", tc.t, idx, b.start[idx]-epoch, tc.idx, tc.windowEnd)
		}
	}
}

func TestBoundaryBurst(t *testing.T) {
	big := concat(spread(500, 900*ms, 1000*ms), spread(500, 1000*ms, 1100*ms))
	small := concat(spread(80, 800*ms, 1000*ms), spread(80, 1000*ms, 1200*ms))
	for _, tc := range []struct {
		spec  string
		limit float64
		trace []time.Duration
		want  int
	}{
		{"fixed-window", 500, big, 1000},
		{"leap-array:sample-count=2", 500, big, 500},
		{"leap-array:sample-count=10", 500, big, 500},
		{"leap-array:sample-count=1000", 500, big, 500},
		{"sliding-log", 500, big, 500},
		{"fixed-window", 100, small, 160},
		{"leap-array:sample-count=2", 100, small, 100},
		{"leap-array:sample-count=5", 100, small, 100},
		{"sliding-log", 100, small, 100},
	} {
		if got := countPasses(mustNew(t, tc.spec, tc.limit), tc.trace); got != tc.want {
			t.Errorf("%s limit %v: %d passes, want %d", tc.spec, tc.limit, got, tc.want)
		}
	}
}

// decisions runs a trace and returns each decision.
func decisions(l Limiter, trace []time.Duration) []Decision {
	out := make([]Decision, len(trace))
	for i, t := range trace {
		out[i] = l.Decide(t)
	}
	return out
}

func TestThrottlingMillisecondPath(t *testing.T) {
	l := mustNew(t, "leaky-bucket:limit=10,max-queue=500ms", 0).(*Throttling)
	if l.nanos || l.cost != 100 {
		t.Fatalf("limit 10/s: nanos=%v cost=%d, want the ms path with cost 100", l.nanos, l.cost)
	}
	// Seven at once: waits 0, 100, ..., 500 (the edge passes), then a block.
	got := decisions(l, []time.Duration{0, 0, 0, 0, 0, 0, 0})
	for i, d := range got[:6] {
		if !d.Pass || d.Wait != time.Duration(i)*100*ms {
			t.Errorf("request %d: %+v, want a pass after %dms", i, d, i*100)
		}
	}
	if got[6].Pass {
		t.Errorf("request 6: %+v, want a block (600ms > max-queue 500ms)", got[6])
	}
	// Times are floored to whole ms: latest is now 500ms, so at 99.9ms the
	// next turn (600ms) is 501ms away, and at 100.9ms exactly 500ms away.
	if d := l.Decide(99900 * time.Microsecond); d.Pass {
		t.Errorf("at 99.9ms: %+v, want a block (wait 501ms)", d)
	}
	if d := l.Decide(100900 * time.Microsecond); !d.Pass || d.Wait != 500*ms {
		t.Errorf("at 100.9ms: %+v, want a pass after 500ms", d)
	}
	// After the queue drains, a request passes at once and resets latest.
	if d := l.Decide(10 * time.Second); !d.Pass || d.Wait != 0 {
		t.Errorf("after idle: %+v, want an immediate pass", d)
	}
}

func TestThrottlingNanosecondPath(t *testing.T) {
	for _, tc := range []struct {
		limit float64
		cost  int64
	}{{3, 333333333}, {7, 142857143}, {2000, 500000}} {
		l := mustNew(t, fmt.Sprintf("leaky-bucket:limit=%v", tc.limit), 0).(*Throttling)
		if !l.nanos || l.cost != tc.cost {
			t.Errorf("limit %v: nanos=%v cost=%d, want ns path with cost %d", tc.limit, l.nanos, l.cost, tc.cost)
		}
	}
	for _, limit := range []float64{10, 100, 1000, 0.5} {
		if l := mustNew(t, fmt.Sprintf("leaky-bucket:limit=%v", limit), 0).(*Throttling); l.nanos {
			t.Errorf("limit %v: ns path, want ms", limit)
		}
	}
	// limit 3: pass at 0; the second waits 333333333ns; a third fits only
	// if it arrives at 166666666ns or later (wait exactly 500ms).
	l := mustNew(t, "leaky-bucket:limit=3,max-queue=500ms", 0)
	got := decisions(l, []time.Duration{0, 0, 166666665, 166666666, 166666666})
	want := []Decision{{true, 0}, {true, 333333333}, {false, 0}, {true, 500 * ms}, {false, 0}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestThrottlingClockBack(t *testing.T) {
	// cost 100ms, queue 1s. Latest never moves back: after a step back of
	// 50ms the wait grows by 50ms.
	l := mustNew(t, "leaky-bucket:limit=10,max-queue=1s", 0)
	got := decisions(l, []time.Duration{0, 100 * ms, 200 * ms, 150 * ms, 160 * ms})
	want := []Decision{{true, 0}, {true, 0}, {true, 0}, {true, 150 * ms}, {true, 240 * ms}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestWarmUpColdStartAndStaircase(t *testing.T) {
	l := mustNew(t, "warm-up:limit=100", 0).(*WarmUp)
	if l.tokens.warningToken != 500 || l.tokens.maxToken != 1000 {
		t.Fatalf("warning %d max %d, want 500 and 1000", l.tokens.warningToken, l.tokens.maxToken)
	}
	// 200/s for 6 s. The first second passes 33 = (int)(100/3); each new
	// second the tokens drop by the previous second's passes and the
	// allowed QPS climbs: 967 tokens -> 34.87, 933 -> 36.60, 897 -> 38.64 ...
	perSecond := make([]int, 6)
	for i := 0; i < 1200; i++ {
		at := time.Duration(i) * 5 * ms
		if l.Decide(at).Pass {
			perSecond[at/time.Second]++
		}
	}
	want := []int{33, 34, 36, 38, 41, 44}
	for s := range want {
		if perSecond[s] != want[s] {
			t.Errorf("second %d: %d passes, want %d (all: %v)", s, perSecond[s], want[s], perSecond)
		}
	}
}

func TestWarmUpReachesStableLimitAndTokensFreezeWhenClockGoesBack(t *testing.T) {
	l := mustNew(t, "warm-up:limit=100,warm-up=2s", 0).(*WarmUp)
	// warning 100, max 200: the cold rate is 33 and the full rate 100 once
	// the tokens are below 100.
	var last int
	for s := 0; s < 10; s++ {
		last = 0
		for i := 0; i < 300; i++ {
			if l.Decide(time.Duration(s)*time.Second + time.Duration(i)*time.Second/300).Pass {
				last++
			}
		}
	}
	if last != 100 {
		t.Errorf("after warming up: %d passes in a second, want 100", last)
	}
	stored, filled := l.tokens.stored, l.tokens.lastFilled
	l.Decide(8500 * ms) // back 1.5 s: no sync
	if l.tokens.stored != stored || l.tokens.lastFilled != filled {
		t.Errorf("clock back: tokens %d filled %d, want them frozen at %d, %d", l.tokens.stored, l.tokens.lastFilled, stored, filled)
	}
}

func TestWarmUpRateLimiterPacesAtTheColdRate(t *testing.T) {
	// limit 100, cold factor 3: the cold rate is 33.33/s, cost 30 ms. With
	// one arrival every 10 ms, request k waits 20k ms until the wait
	// would pass 500 ms.
	l := mustNew(t, "warm-up-rate-limiter:limit=100", 0)
	for k := 0; k <= 25; k++ {
		d := l.Decide(time.Duration(k) * 10 * ms)
		if !d.Pass || d.Wait != time.Duration(20*k)*ms {
			t.Fatalf("request %d: %+v, want a pass after %dms", k, d, 20*k)
		}
	}
	if d := l.Decide(260 * ms); d.Pass {
		t.Errorf("request 26: %+v, want a block (wait 520ms)", d)
	}
	if d := l.Decide(270 * ms); d.Pass {
		t.Errorf("request 27: %+v, want a block (wait 510ms)", d)
	}
	if d := l.Decide(280 * ms); !d.Pass || d.Wait != 500*ms {
		t.Errorf("request 28: %+v, want a pass after exactly 500ms", d)
	}
}

func TestWarmUpRateLimiterRampMatchesReference(t *testing.T) {
	// A ramp from 10/s to 300/s over 20 s, then 300/s: the queue fills, the
	// tokens drain and the cost steps down from 30 ms to 10 ms.
	var trace []time.Duration
	t0 := 0.0
	for t0 < 30 {
		r := 10 + 290*min(t0/20, 1)
		t0 += 1 / r
		trace = append(trace, time.Duration(t0*1e9))
	}
	l := mustNew(t, "warm-up-rate-limiter:limit=100", 0)
	ref := newRefWarm(100, 10, 3, 1, 1000)
	ref.queue, ref.timeout = true, 500
	passes := 0
	for i, at := range trace {
		d := l.Decide(at)
		ok, wait := ref.decide(at)
		if d.Pass != ok || d.Wait != time.Duration(wait)*ms {
			t.Fatalf("arrival %d at %v: %+v, reference %v after %dms", i, at, d, ok, wait)
		}
		if d.Pass {
			passes++
		}
	}
	// After an idle second it is warm: cost 10 ms, so 5 s at 200/s passes
	// 100 per second plus the 500 ms queue: 550.
	if got := countPasses(l, spread(1000, 31*time.Second, 36*time.Second)); got != 550 {
		t.Errorf("warm: %d passes in 5 s at 200/s, want 550", got)
	}
}

// TestTokenBucketMatchesXTimeRate compares decisions with x/time/rate's
// own AllowN on random traces and parameters, with clock steps back.
func TestTokenBucketMatchesXTimeRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	epoch := time.Unix(1_600_000_000, 0)
	for trial := 0; trial < 300; trial++ {
		r := []float64{0.3, 1, 3, 7, 10, 33.3, 100, 1e3, 12345.678}[rng.IntN(9)] * (0.5 + rng.Float64())
		burst := 1 + rng.IntN(20)
		spec := fmt.Sprintf("token-bucket:rate=%v,burst=%d", r, burst)
		l := mustNew(t, spec, 0)
		ref := rate.NewLimiter(rate.Limit(r), burst)
		trace := jumpyTrace(rng, 2000, trial%2 == 0)
		for i, at := range trace {
			if got, want := l.Decide(at).Pass, ref.AllowN(epoch.Add(at), 1); got != want {
				t.Fatalf("%s arrival %d at %v: pass=%v, x/time/rate %v", spec, i, at, got, want)
			}
		}
	}
	// limit=L is rate=L, burst=ceil(L).
	if s := mustNew(t, "token-bucket:limit=2.5", 0).Spec(); s != "token-bucket:rate=2.5,burst=3" {
		t.Errorf("limit shorthand: %s", s)
	}
}

// TestTokenBucketSubNanosecondDeficit pins the case where x/time/rate lets
// a request through with a deficit worth less than a nanosecond.
func TestTokenBucketSubNanosecondDeficit(t *testing.T) {
	epoch := time.Unix(1_600_000_000, 0)
	found := false
	for _, r := range []float64{3, 7, 0.7, 33.3, 1e9 / 3} {
		l := mustNew(t, fmt.Sprintf("token-bucket:rate=%v,burst=1", r), 0).(*TokenBucket)
		ref := rate.NewLimiter(rate.Limit(r), 1)
		gap := time.Duration(1e9 / r) // truncated: slightly short of a token
		for i := 0; i < 200; i++ {
			at := time.Duration(i) * gap
			before := l.st.tokens
			got, want := l.Decide(at).Pass, ref.AllowN(epoch.Add(at), 1)
			if got != want {
				t.Fatalf("rate %v arrival %d: %v, x/time/rate %v", r, i, got, want)
			}
			if got && l.st.tokens < 0 && before >= 0 {
				found = true
			}
		}
	}
	if !found {
		t.Error("no trace exercised a pass with a negative sub-ns deficit")
	}
}

func TestLeapArrayMatchesSentinelReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := []int{1, 2, 3, 4, 5, 10, 20, 60, 100}[rng.IntN(9)]
		ims := int64(n) * int64(1+rng.IntN(300))
		limit := []float64{1, 2, 5, 10.5, 50, 100}[rng.IntN(6)]
		spec := fmt.Sprintf("leap-array:limit=%v,sample-count=%d,interval=%dms", limit, n, ims)
		l := mustNew(t, spec, 0)
		ref := &refDefault{count: limit, sec: newRefLeap(n, ims/int64(n)), ims: ims, epoch: epochMs(ims / int64(n))}
		for i, at := range jumpyTrace(rng, 3000, trial%3 == 0) {
			if got, want := l.Decide(at).Pass, ref.decide(at); got != want {
				t.Fatalf("%s arrival %d at %v: pass=%v, reference %v", spec, i, at, got, want)
			}
		}
	}
}

func TestWarmUpMatchesSentinelReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		n := []int{1, 2, 4, 10}[rng.IntN(4)]
		limit := []float64{3, 10, 20.5, 100}[rng.IntN(4)]
		warm := 1 + rng.IntN(10)
		cold := 2 + rng.IntN(3)
		queue := trial%2 == 1
		var l Limiter
		ref := newRefWarm(limit, warm, cold, n, 1000)
		if queue {
			ref.sec = newRefLeap(1, 1000)
			ref.queue, ref.timeout = true, int64(rng.IntN(1000))
			l = mustNew(t, fmt.Sprintf("warm-up-rate-limiter:limit=%v,warm-up=%ds,cold-factor=%d,max-queue=%dms", limit, warm, cold, ref.timeout), 0)
		} else {
			l = mustNew(t, fmt.Sprintf("warm-up:limit=%v,warm-up=%ds,cold-factor=%d,sample-count=%d", limit, warm, cold, n), 0)
		}
		trace := jumpyTrace(rng, 4000, trial%3 == 0)
		if trial%4 == 0 {
			trace = poissonTrace(rng, limit*3, 30*time.Second)
		}
		for i, at := range trace {
			d := l.Decide(at)
			ok, wait := ref.decide(at)
			if d.Pass != ok || d.Wait != time.Duration(wait)*ms {
				t.Fatalf("%s arrival %d at %v: %+v, reference %v after %dms", l.Spec(), i, at, d, ok, wait)
			}
		}
	}
}

func TestThrottlingMatchesSentinelReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		limit := []float64{0.5, 1, 3, 7, 10, 33.3, 100, 999, 1000, 5000}[rng.IntN(10)]
		ims := int64([]int{1000, 500, 2000, 100}[rng.IntN(4)])
		q := int64(rng.IntN(2000))
		l := mustNew(t, fmt.Sprintf("leaky-bucket:limit=%v,interval=%dms,max-queue=%dms", limit, ims, q), 0)
		// The reference, straight from ThrottlingController.
		r := int64(limit + 0.5)
		nanos := ims%r != 0 || limit/float64(ims) > 1
		latest := int64(-1)
		for i, at := range jumpyTrace(rng, 2000, trial%2 == 0) {
			var cur, cost, maxQ, unit int64
			if nanos {
				cur, cost, maxQ, unit = epochMs(1)*1e6+int64(at), int64(1e6*float64(ims)/limit+0.5), q*1e6, 1
			} else {
				cur, cost, maxQ, unit = epochMs(1)+floorMs(at), int64(float64(ims)/limit+0.5), q, 1e6
			}
			want := Decision{}
			if cost+latest <= cur {
				latest, want = cur, Decision{Pass: true}
			} else if cost+latest-cur <= maxQ {
				latest += cost
				want = Decision{Pass: true, Wait: time.Duration((latest - cur) * unit)}
			}
			if got := l.Decide(at); got != want {
				t.Fatalf("%s arrival %d at %v: %+v, reference %+v", l.Spec(), i, at, got, want)
			}
		}
	}
}

// slidingLogReference keeps every pass and counts by brute force.
func slidingLogReference(limit int, window time.Duration, trace []time.Duration) []bool {
	var passes []time.Duration
	out := make([]bool, len(trace))
	for i, t := range trace {
		n := 0
		for _, p := range passes {
			if p > t-window && p <= t {
				n++
			}
		}
		if n < limit {
			passes = append(passes, t)
			out[i] = true
		}
	}
	return out
}

func TestSlidingLogMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 100; trial++ {
		limit := 1 + rng.IntN(40)
		window := time.Duration(1+rng.IntN(2000)) * ms
		l := mustNew(t, fmt.Sprintf("sliding-log:limit=%d,window=%v,history=1h", limit, window), 0)
		trace := jumpyTrace(rng, 1500, false)
		want := slidingLogReference(limit, window, trace)
		for i, at := range trace {
			if got := l.Decide(at).Pass; got != want[i] {
				t.Fatalf("%s arrival %d at %v: %v, definition %v", l.Spec(), i, at, got, want[i])
			}
		}
	}
}

// On a clock that never goes back, no window of length W ever holds more
// than limit passes.
func TestSlidingLogNeverExceedsLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 50; trial++ {
		limit := 1 + rng.IntN(50)
		l := mustNew(t, fmt.Sprintf("sliding-log:limit=%d", limit), 0)
		var passed []time.Duration
		for _, at := range poissonTrace(rng, float64(limit)*(1+4*rng.Float64()), 20*time.Second) {
			if l.Decide(at).Pass {
				passed = append(passed, at)
			}
		}
		lo := 0
		for hi, at := range passed {
			for passed[lo] <= at-time.Second {
				lo++
			}
			if hi-lo+1 > limit {
				t.Fatalf("limit %d: %d passes in (%v, %v]", limit, hi-lo+1, at-time.Second, at)
			}
		}
	}
}

func TestLeapArrayWithOneBucketIsFixedWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 100; trial++ {
		limit := 1 + rng.IntN(50)
		sec := 1 + rng.IntN(3)
		la := mustNew(t, fmt.Sprintf("leap-array:limit=%d,sample-count=1,interval=%ds", limit, sec), 0)
		fw := mustNew(t, fmt.Sprintf("fixed-window:limit=%d,window=%ds", limit*sec, sec), 0)
		for i, at := range jumpyTrace(rng, 3000, false) {
			if a, b := la.Decide(at).Pass, fw.Decide(at).Pass; a != b {
				t.Fatalf("limit %d interval %ds arrival %d at %v: leap-array %v, fixed-window %v", limit, sec, i, at, a, b)
			}
		}
	}
}

func TestLeapArrayWithMillisecondBucketsIsSlidingLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 30; trial++ {
		limit := 1 + rng.IntN(100)
		la := mustNew(t, fmt.Sprintf("leap-array:limit=%d,sample-count=1000", limit), 0)
		sl := mustNew(t, fmt.Sprintf("sliding-log:limit=%d", limit), 0)
		trace := poissonTrace(rng, float64(limit)*3, 10*time.Second)
		for i := range trace {
			trace[i] = trace[i].Truncate(ms)
		}
		for i, at := range trace {
			if a, b := la.Decide(at).Pass, sl.Decide(at).Pass; a != b {
				t.Fatalf("limit %d arrival %d at %v: leap-array %v, sliding-log %v", limit, i, at, a, b)
			}
		}
	}
}

// TestClockRollback pins what each limiter does when the clock steps back.
func TestClockRollback(t *testing.T) {
	t.Run("leap-array loses passes to a throw-away bucket", func(t *testing.T) {
		// 500 ms buckets. Two passes at 1.6 s and 1.7 s fill slot 1 with the
		// window [1.5 s, 2 s). Back at 0.9 s, slot 1 holds a newer bucket,
		// so passes go to a throw-away bucket: the count stays 2 and every
		// request passes. At 1.8 s the count is still 2.
		l := mustNew(t, "leap-array:limit=3", 0)
		got := decisions(l, []time.Duration{1600 * ms, 1700 * ms, 900 * ms, 910 * ms, 920 * ms, 1800 * ms, 1810 * ms})
		want := []bool{true, true, true, true, true, true, false}
		for i := range want {
			if got[i].Pass != want[i] {
				t.Errorf("request %d: pass=%v, want %v", i, got[i].Pass, want[i])
			}
		}
	})
	t.Run("fixed-window counts only the newest window", func(t *testing.T) {
		l := mustNew(t, "fixed-window:limit=2", 0)
		got := decisions(l, []time.Duration{1100 * ms, 900 * ms, 950 * ms, 1200 * ms, 1300 * ms})
		want := []bool{true, true, true, true, false}
		for i := range want {
			if got[i].Pass != want[i] {
				t.Errorf("request %d: pass=%v, want %v", i, got[i].Pass, want[i])
			}
		}
	})
	t.Run("sliding-log ignores passes stamped later", func(t *testing.T) {
		l := mustNew(t, "sliding-log:limit=2", 0)
		// Back at 0.5 s the passes at 1 s and 1.1 s do not count yet; at
		// 1.2 s all four passes are in (0.2 s, 1.2 s].
		got := decisions(l, []time.Duration{1000 * ms, 1100 * ms, 500 * ms, 600 * ms, 650 * ms, 1200 * ms})
		want := []bool{true, true, true, true, false, false}
		for i := range want {
			if got[i].Pass != want[i] {
				t.Errorf("request %d: pass=%v, want %v", i, got[i].Pass, want[i])
			}
		}
	})
	t.Run("token-bucket moves last back", func(t *testing.T) {
		l := mustNew(t, "token-bucket:rate=10,burst=1", 0)
		got := decisions(l, []time.Duration{1000 * ms, 500 * ms, 600 * ms, 650 * ms})
		// 1 s: full, pass (0 left). 0.5 s: no elapsed time, block. 0.6 s:
		// 100 ms since... last is still 1 s, so no time; block. The bucket
		// refills only from last=1 s on.
		want := []bool{true, false, false, false}
		for i := range want {
			if got[i].Pass != want[i] {
				t.Errorf("request %d: pass=%v, want %v", i, got[i].Pass, want[i])
			}
		}
	})
}

func TestRegistryErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"leap-arry", `unknown algorithm "leap-arry" (did you mean "leap-array"?)`},
		{"leap-array:sample=3", `leap-array: unknown parameter "sample" (did you mean "sample-count"?); allowed: limit, sample-count, interval`},
		{"leap-array:sample-count=3", "sample-count 3 does not divide interval 1s"},
		{"leap-array:sample-count=x", `sample-count "x" is not a whole number`},
		{"leap-array:limit=-1", "limit must be a positive number, got -1"},
		{"leap-array:limit=0", "limit must be a positive number, got 0"},
		{"leap-array:interval=1.5ms", "interval must be whole milliseconds"},
		{"fixed-window:window=0s", "window must be positive"},
		{"leaky-bucket:limit=0.4", "rounds to 0"},
		{"warm-up:warm-up=1500ms", "warm-up must be whole seconds from 1s to 2147483647s"},
		{"warm-up:cold-factor=1", "cold-factor must be larger than 1"},
		{"token-bucket:limit=1,rate=2", "either limit or rate"},
		{"token-bucket:burst=0", "burst must be at least 1"},
		{"sliding-log:limit", `parameter "limit" is not key=value`},
		{"sliding-log:limit=1,limit=2", `parameter "limit" is given twice`},
		{"", "empty algorithm spec"},
	} {
		_, err := New(tc.spec, 100)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
	if _, err := New("leap-array", 0); err == nil || !strings.Contains(err.Error(), "needs a limit") {
		t.Errorf("leap-array without a limit: %v", err)
	}
}

func TestCanonicalSpecsRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fixed-window", "fixed-window:limit=100,window=1s"},
		{"sliding-window:sample-count=10", "leap-array:limit=100,sample-count=10,interval=1s"},
		{"sliding-log:window=500ms", "sliding-log:limit=100,window=500ms,history=10s"},
		{"token-bucket", "token-bucket:rate=100,burst=100"},
		{"throttling:max-queue=2s", "leaky-bucket:limit=100,interval=1s,max-queue=2s"},
		{"warm-up:limit=2.5", "warm-up:limit=2.5,warm-up=10s,cold-factor=3,sample-count=2,interval=1s"},
		{"warm-up-rate-limiter:warm-up=1m", "warm-up-rate-limiter:limit=100,warm-up=60s,cold-factor=3,max-queue=500ms"},
		{"circuit-breaker:strategy=slow-ratio,max-rt=0.2s", "circuit-breaker:strategy=slow-ratio,max-rt=200ms,threshold=1,min-requests=5,stat-interval=1s,recovery=10s"},
	} {
		l := mustNew(t, tc.in, 100)
		if got := l.Spec(); got != tc.want {
			t.Errorf("%s: spec %s, want %s", tc.in, got, tc.want)
		}
		again := mustNew(t, l.Spec(), 7)
		if again.Spec() != l.Spec() {
			t.Errorf("%s does not round-trip: %s", l.Spec(), again.Spec())
		}
	}
	if len(coreKinds) != 14 || len(List()) != len(kinds) {
		t.Errorf("List has %d limiters (%d core), want every kind (14 core)", len(List()), len(coreKinds))
	}
}

// Fuzzing found these: a fractional limit must never admit more than the
// limit in a window, and a warm-up too long for Java's int is an error.
func TestFractionalLimitsNeverExceed(t *testing.T) {
	for _, spec := range []string{"fixed-window:limit=2.7", "sliding-log:limit=2.7"} {
		l, err := New(spec, 0)
		if err != nil {
			t.Fatal(err)
		}
		var passed int
		for i := 0; i < 10; i++ {
			if l.Decide(time.Duration(i) * time.Millisecond).Pass {
				passed++
			}
		}
		if passed != 2 {
			t.Errorf("%s admitted %d of 10 arrivals in one window, want 2", spec, passed)
		}
	}
}

func TestWarmUpPeriodFitsJavaInt(t *testing.T) {
	if _, err := New("warm-up:limit=10,warm-up=2147483647s", 0); err != nil {
		t.Errorf("the largest Java int of seconds is rejected: %v", err)
	}
	for _, spec := range []string{"warm-up:limit=10,warm-up=2147483648s", "warm-up-rate-limiter:limit=10,warm-up=2147483648s"} {
		if _, err := New(spec, 0); err == nil {
			t.Errorf("%s is accepted, but Java's int cannot hold it", spec)
		}
	}
}

// TestLeapArrayThresholds checks that the two integer thresholds LeapArray
// folds its check into agree with DefaultController's arithmetic
// (leapPasses) on every window count near each edge and on random ones.
func TestLeapArrayThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, c := range []struct {
		limit    float64
		interval time.Duration
	}{
		{100, time.Second}, {2.7, time.Second}, {0.5, time.Second}, {1, 3 * time.Second},
		{1e-9, time.Second}, {1000, 7 * time.Millisecond}, {3e9, time.Second}, {2147483647, time.Second},
		{2147483648, 10 * time.Second}, {1e18, time.Millisecond}, {12345.678, 1500 * time.Millisecond},
	} {
		l, err := NewLeapArray(LeapArrayConfig{Limit: c.limit, SampleCount: 1, Interval: c.interval})
		if err != nil {
			t.Fatal(err)
		}
		is := l.intervalS
		check := func(r int64) {
			if r < 0 {
				return
			}
			want := leapPasses(r, is, c.limit)
			if got := r <= l.passUpTo || r >= l.passFrom; got != want {
				t.Fatalf("limit %v interval %v: count %d passes=%v, DefaultController says %v", c.limit, c.interval, r, got, want)
			}
		}
		for _, edge := range []int64{0, l.passUpTo, l.passFrom} {
			for d := int64(-3); d <= 3; d++ {
				check(edge + d)
			}
		}
		for range 10000 {
			check(rng.Int64N(1 << 40))
			check(rng.Int64N(max(l.passUpTo, 1)*4 + 1))
		}
	}
}

// TestBucketsMatchReferenceLeapArray drives the running-total buckets and
// the plain port of Sentinel's LeapArray with the same random operations
// (pass sums, adds, previous-window reads) at times that mostly creep
// forward, sometimes jump by up to two intervals and sometimes go back,
// and compares every answer.
func TestBucketsMatchReferenceLeapArray(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for _, c := range []struct {
		n int
		w int64
	}{{1, 1000}, {2, 500}, {10, 100}, {60, 1000}, {1000, 1}, {3, 1}, {7, 3}} {
		b, r := newBuckets(c.n, c.w), newRefLeap(c.n, c.w)
		tm := int64(1_600_000_000_000)
		interval := int64(c.n) * c.w
		for op := range 200_000 {
			switch x := rng.IntN(100); {
			case x < 80:
				tm += rng.Int64N(2 * c.w)
			case x < 95:
				tm += rng.Int64N(2 * interval)
			default:
				tm -= rng.Int64N(interval)
			}
			switch rng.IntN(3) {
			case 0:
				if got, want := b.sum(tm), r.pass(tm); got != want {
					t.Fatalf("n=%d w=%d op %d: sum %d, reference %d", c.n, c.w, op, got, want)
				}
			case 1:
				b.add(tm, 1)
				r.addPass(tm)
			default:
				if got, want := b.previous(tm), r.previousWindowPass(tm); got != want {
					t.Fatalf("n=%d w=%d op %d: previous %d, reference %d", c.n, c.w, op, got, want)
				}
			}
		}
	}
}

// Issue 21, item 10: every whole-millisecond or whole-second interval of
// the Sentinel limiters names both of its bounds when refused, and takes
// its upper bound itself.
func TestIntervalErrorsNameTheUpperBound(t *testing.T) {
	const ms = "must be whole milliseconds from "
	for _, tc := range []struct{ ok, bad, want string }{
		{"circuit-breaker:strategy=slow-ratio,max-rt=100ms,recovery=2147483s", "circuit-breaker:strategy=slow-ratio,max-rt=100ms,recovery=8760h", "recovery must be whole seconds from 1s to 2147483s (596h31m23s), got 8760h0m0s"},
		{"circuit-breaker:strategy=slow-ratio,max-rt=100ms,recovery=1s", "circuit-breaker:strategy=slow-ratio,max-rt=100ms,recovery=1500ms", "recovery must be whole seconds from 1s to 2147483s"},
		{"circuit-breaker:strategy=error-count,threshold=1,stat-interval=2147483647ms", "circuit-breaker:strategy=error-count,threshold=1,stat-interval=2147483648ms", "stat-interval " + ms + "1ms to 2147483647ms (596h31m23.647s)"},
		{"circuit-breaker:strategy=slow-ratio,max-rt=2147483647ms", "circuit-breaker:strategy=slow-ratio,max-rt=2147483648ms", "max-rt " + ms + "0ms to 2147483647ms"},
		{"leap-array:interval=2147483647ms,sample-count=1", "leap-array:interval=2147483648ms,sample-count=1", "interval " + ms + "1ms to 2147483647ms"},
		{"leaky-bucket:max-queue=2147483647ms", "leaky-bucket:max-queue=8760h", "max-queue " + ms + "0ms to 2147483647ms"},
		{"leaky-bucket:interval=2147483647ms", "leaky-bucket:interval=2147483648ms", "interval " + ms + "1ms to 2147483647ms"},
		{"warm-up-rate-limiter:max-queue=2147483647ms", "warm-up-rate-limiter:max-queue=2147483648ms", "max-queue " + ms + "0ms to 2147483647ms"},
		{"sentinel-param:duration=1073741824s", "sentinel-param:duration=1073741825s", "duration must be whole seconds from 1s to 1073741824s"},
		{"warm-up:warm-up=2147483647s", "warm-up:warm-up=2147483648s", "warm-up must be whole seconds from 1s to 2147483647s"},
		{"warm-up:flavor=go,warm-up=4294967295s", "warm-up:flavor=go,warm-up=4294967296s", "warm-up must be whole seconds from 1s to 4294967295s"},
	} {
		if _, err := New(tc.ok, 100); err != nil {
			t.Errorf("New(%q): %v, want it accepted (the bound itself)", tc.ok, err)
		}
		_, err := New(tc.bad, 100)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "at least") {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.bad, err, tc.want)
		}
	}
}
