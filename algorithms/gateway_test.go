package algorithms

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// decideAll decides trace through l (with cost 1) and returns the
// decisions as a string of '+' (pass) and '.' (block).
func decideAll(l Limiter, trace []time.Duration) string {
	var b strings.Builder
	for _, at := range trace {
		if l.Decide(at).Pass {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

type costAt struct {
	at   time.Duration
	cost int32
	pass bool
}

func checkCosts(t *testing.T, spec string, steps []costAt) {
	t.Helper()
	l := mustNew(t, spec, 0).(RequestLimiter)
	for i, s := range steps {
		if got := l.DecideRequest(s.at, &Request{Cost: s.cost}).Pass; got != s.pass {
			t.Errorf("%s step %d (cost %d at %v): pass %v, want %v", spec, i, s.cost, s.at, got, s.pass)
		}
	}
}

// TestEnvoyAtomicVectors replays Envoy's own AtomicTokenBucketImplTest
// (test/common/common/token_bucket_impl_test.cc) through envoy-local in
// atomic mode: fill_rate = tokens_per_fill / fill_interval, the cost as
// the tokens asked for (allow_partial false).
func TestEnvoyAtomicVectors(t *testing.T) {
	// MaxBucketSize: {3, rate 1}.
	checkCosts(t, "envoy-local:max-tokens=3,tokens-per-fill=1,fill-interval=1s", []costAt{
		{0, 3, true}, {10 * time.Second, 4, false}, {10 * time.Second, 3, true}})
	// Consume: {10, rate 1}.
	checkCosts(t, "envoy-local:max-tokens=10,tokens-per-fill=1,fill-interval=1s", []costAt{
		{0, 20, false}, {0, 9, true}, {0, 1, true}, {999 * ms, 1, false},
		{5999 * ms, 6, false}, {6000 * ms, 6, true}, {6000 * ms, 1, false}})
	// Refill: {1, rate 0.5}.
	checkCosts(t, "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=2s", []costAt{
		{0, 1, true}, {500 * ms, 1, false}, {1500 * ms, 1, false}, {2000 * ms, 1, true}})
	// YearlyMinRefillRate: a rate of one token in two years is raised to
	// kMinFillRate, one a year.
	year := 365 * 24 * time.Hour
	checkCosts(t, fmt.Sprintf("envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=%dms", 2*year/ms), []costAt{
		{0, 1, true}, {year - time.Second, 1, false}, {year, 1, true}})
}

// TestEnvoyAtomicRounding is the worked example of docs/algorithms.md: a
// bucket of one token refilled every 100 ms, asked exactly every 100 ms,
// refuses the fourth request, whose bucket holds 0.9999999999999998 tokens
// in double arithmetic (0.3 − 0.2 is 0.09999999999999998), and from then
// on every other one.
func TestEnvoyAtomicRounding(t *testing.T) {
	l := mustNew(t, "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=100ms", 0)
	if got := decideAll(l, spread(6, 0, 600*ms)); got != "+++.+." {
		t.Errorf("requests every 100 ms: %s, want +++.+.", got)
	}
}

// TestEnvoyTimer: ticks at phase + k·fill-interval, k ≥ 1, whole refills
// capped at max-tokens, a tick at an arrival's instant first.
func TestEnvoyTimer(t *testing.T) {
	l := mustNew(t, "envoy-local:max-tokens=3,tokens-per-fill=2,fill-interval=100ms,mode=timer,phase=30ms", 0)
	trace := []time.Duration{0, 0, 0, 0, 129 * ms, 130 * ms, 130 * ms, 130 * ms, 229 * ms, 1 * time.Second,
		1 * time.Second, 1 * time.Second, 1 * time.Second, 900 * ms, 1030 * ms}
	//                        full: 3 ─┘  none yet    tick 130: +2          tick 230 not yet  8 ticks: capped at 3  back: none  tick 1030
	if got, want := decideAll(l, trace), "+++..++..+++..+"; got != want {
		t.Errorf("timer mode: %s, want %s", got, want)
	}
	// Cost is ignored in timer mode (1.30 had no hits_addend).
	checkCosts(t, "envoy-local:max-tokens=2,fill-interval=1s,mode=timer", []costAt{
		{0, 5, true}, {0, 5, true}, {0, 1, false}})
	// Envoy refuses a fill interval under 50 ms in both modes (the 1.30
	// timer's Config and the ≥ 1.31 LocalRateLimiterImpl).
	for _, mode := range []string{"timer", "atomic"} {
		if _, err := New("envoy-local:max-tokens=1,fill-interval=49ms,mode="+mode, 0); err == nil || !strings.Contains(err.Error(), "at least 50ms") {
			t.Errorf("a 49 ms %s bucket: %v", mode, err)
		}
		if _, err := New("envoy-local:max-tokens=1,fill-interval=50ms,mode="+mode, 0); err != nil {
			t.Errorf("a 50 ms %s bucket: %v", mode, err)
		}
	}
}

// traefikRef is Traefik's in-memory limiter written against the real
// golang.org/x/time/rate: the ttlmap reduced to one source (Get drops an
// entry whose expiry ≤ now.Unix(), Set stores now+ttl s), then Reserve,
// Delay and, over maxDelay, Cancel, all at the arrival's instant.
type traefikRef struct {
	lim      *rate.Limiter
	expiry   int64
	r        rate.Limit
	burst    int
	maxDelay time.Duration
	ttl      int
	epoch    time.Time
}

func newTraefikRef(average int64, period time.Duration, burst int) *traefikRef {
	rtl := float64(average*int64(time.Second)) / float64(period)
	var maxDelay time.Duration
	if rtl < 1 {
		maxDelay = 500 * time.Millisecond
	} else {
		maxDelay = time.Second / (time.Duration(rtl) * 2)
	}
	ttl := 1
	if rtl >= 1 {
		ttl++
	} else if rtl > 0 {
		ttl += int(1 / rtl)
	}
	return &traefikRef{r: rate.Limit(rtl), burst: burst, maxDelay: maxDelay, ttl: ttl, epoch: time.Unix(1_600_000_000, 0)}
}

func (x *traefikRef) decide(at time.Duration) Decision {
	now := x.epoch.Add(at)
	if x.lim != nil && x.expiry <= now.Unix() {
		x.lim = nil
	}
	if x.lim == nil {
		x.lim = rate.NewLimiter(x.r, x.burst)
	}
	x.expiry = now.Add(time.Duration(x.ttl) * time.Second).Unix()
	res := x.lim.ReserveN(now, 1)
	if !res.OK() {
		return Decision{}
	}
	delay := res.DelayFrom(now)
	if delay > x.maxDelay {
		res.CancelAt(now)
		return Decision{}
	}
	return Decision{Pass: true, Wait: delay}
}

// TestTraefikMatchesXTimeRate drives traefik and the real x/time/rate
// (through traefikRef) over random configurations and traces, bursts,
// pauses around a second and clock steps back included.
func TestTraefikMatchesXTimeRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	decisions := 0
	for c := 0; c < 300; c++ {
		average := int64(1 + rng.IntN(2000))
		if c%5 == 0 {
			average = int64(1 + rng.IntN(3))
		}
		period := []time.Duration{time.Second, 10 * time.Second, 100 * ms, 3 * time.Second, time.Minute}[rng.IntN(5)]
		burst := 1 + rng.IntN(50)
		spec := fmt.Sprintf("traefik:average=%d,period=%s,burst=%d", average, FormatDuration(period), burst)
		l := mustNew(t, spec, 0)
		ref := newTraefikRef(average, period, burst)
		at := time.Duration(rng.Int64N(int64(2 * time.Second)))
		for i := 0; i < 400; i++ {
			switch rng.IntN(20) {
			case 0:
				at += time.Duration(rng.Int64N(int64(3 * time.Second))) // a pause
			case 1:
				at -= time.Duration(rng.Int64N(int64(500 * ms))) // a step back
			case 2, 3, 4:
				// same instant
			default:
				at += time.Duration(rng.Int64N(int64(float64(period) / float64(average) * 2)))
			}
			want, got := ref.decide(at), l.Decide(at)
			decisions++
			if got != want {
				t.Fatalf("%s, arrival %d at %v: %+v, x/time/rate gives %+v", spec, i, at, got, want)
			}
		}
	}
	t.Logf("%d decisions identical", decisions)
}

// TestTraefikIdleSecond: average=10, burst=5 (maxDelay 50 ms): five at
// once pass, the sixth would wait 100 ms and is refused; the same at
// 0.95 s (9.5 tokens refilled, capped at 5) and at 2.0 s.
func TestTraefikIdleSecond(t *testing.T) {
	l := mustNew(t, "traefik:average=10,burst=5", 0)
	trace := concat(make([]time.Duration, 6), []time.Duration{950 * ms, 950 * ms, 950 * ms, 950 * ms, 950 * ms, 950 * ms},
		[]time.Duration{2000 * ms, 2000 * ms, 2000 * ms, 2000 * ms, 2000 * ms, 2000 * ms})
	if got, want := decideAll(l, trace), "+++++.+++++.+++++."; got != want {
		t.Errorf("%s, want %s", got, want)
	}
	// A slow refill shows the expiry: average=2 (ttl 2 s, maxDelay 250 ms).
	l = mustNew(t, "traefik:average=2,period=1s,burst=4", 0)
	trace = []time.Duration{0, 0, 0, 0, 0, 900 * ms, 900 * ms, 900 * ms, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	// 0 s: 4 pass, the 5th waits 500 ms > 250 ms. 0.9 s: 1.8 tokens, one
	// passes, the next waits 100 ms (≤ 250 ms: passes with a wait), the
	// third waits 600 ms. 2.0 s: the entry set at 0.9 s expired at second
	// 2, so a new bucket gives 4 at once.
	if got, want := decideAll(l, trace), "++++.++.++++"; got != want {
		t.Errorf("idle second: %s, want %s", got, want)
	}
}

// TestHAProxyCountsDenied: limit 10 per 10 s, a client at 2/s. The first
// ten pass (the rate is read after counting the request itself: the 11th
// reads 11 > 10); from then on every request, denied or not, is counted,
// the previous period's 20 weigh in as they fade, and the rate never falls
// to 10 again: nothing more passes. At exactly 1/s the same happens from
// t = 10 s: the new period starts with the whole previous one (10) plus
// the request itself, 11. At 0.9/s it is never denied.
func TestHAProxyCountsDenied(t *testing.T) {
	l := mustNew(t, "haproxy:limit=10,period=10s", 0)
	got := decideAll(l, spread(120, 0, 60*time.Second))
	if want := strings.Repeat("+", 10) + strings.Repeat(".", 110); got != want {
		t.Errorf("2/s: %s, want %s", got, want)
	}
	l = mustNew(t, "haproxy:limit=10,period=10s", 0)
	if got, want := decideAll(l, spread(60, 0, 60*time.Second)), strings.Repeat("+", 10)+strings.Repeat(".", 50); got != want {
		t.Errorf("1/s: %s, want %s", got, want)
	}
	l = mustNew(t, "haproxy:limit=10,period=10s", 0)
	if got := decideAll(l, spread(54, 0, 60*time.Second)); got != strings.Repeat("+", 54) {
		t.Errorf("0.9/s: %s", got)
	}
}

// TestHAProxyFreqCtr checks the counter's arithmetic on hand-computed
// values: period 1000 ms; 4 requests at 0, then one at 1500 ms sees
// prev 4 over remain 500 ms: ⌊(4·500 + 1·1000)/1000⌋ = 3.
func TestHAProxyFreqCtr(t *testing.T) {
	h := mustNew(t, "haproxy:limit=100,period=1s", 0).(*HAProxy)
	for range 4 {
		h.Decide(0)
	}
	ms0 := uint32(h.cfg.epoch)
	h.Decide(1500 * ms)
	if h.curr != 1 || h.prev != 4 || h.tick != ms0+1000 {
		t.Fatalf("after the rotation: curr %d prev %d tick %d (want 1, 4, %d)", h.curr, h.prev, h.tick, ms0+1000)
	}
	if r := h.rate(ms0+1500, h.cfg.period); r != 3 {
		t.Errorf("rate %d, want 3", r)
	}
	// Two periods idle: prev is 0 and the grid restarts at now (even).
	h.Decide(4001 * ms)
	if h.prev != 0 || h.curr != 1 || h.tick != (ms0+4001)&^1 {
		t.Errorf("after an idle: curr %d prev %d tick %d", h.curr, h.prev, h.tick)
	}
	// expire drops the entry: counted from 0 again.
	l := mustNew(t, "haproxy:limit=2,period=10s,expire=1s", 0)
	if got := decideAll(l, []time.Duration{0, 0, 0, 999 * ms, 1999 * ms, 1999 * ms}); got != "++..++" {
		// 0,0 pass (rates 1, 2); third rate 3 > 2; 999 ms rate 4; at
		// 1999 ms the entry touched at 999 ms has expired (touch + expire
		// ≤ now): a new counter, rates 1 and 2.
		t.Errorf("expire: %s", got)
	}
}

// TestKongPolicies: second=1,minute=3 and three requests a second for 4
// s, then one at 60 s. local counts passes only: one a second, three in
// the minute. redis INCRs every unit on every request, rejected or not:
// the minute is spent in the first second. Both pass at 60 s, a new
// minute.
func TestKongPolicies(t *testing.T) {
	trace := concat(spread(3, 0, 30*ms), spread(3, time.Second, time.Second+30*ms),
		spread(3, 2*time.Second, 2*time.Second+30*ms), spread(3, 3*time.Second, 3*time.Second+30*ms),
		[]time.Duration{60 * time.Second})
	for policy, want := range map[string]string{"local": "+..+..+.....+", "redis": "+...........+"} {
		l := mustNew(t, "kong:second=1,minute=3,policy="+policy, 0)
		if got := decideAll(l, trace); got != want {
			t.Errorf("%s: %s, want %s", policy, got, want)
		}
	}
	// Windows are whole UTC seconds and minutes: epoch + t with the epoch
	// a whole minute, so a burst across t = 60 s passes twice.
	l := mustNew(t, "kong:minute=5", 0)
	if got := decideAll(l, concat(spread(6, 59*time.Second, 60*time.Second), spread(6, 60*time.Second, 61*time.Second))); got != "+++++.+++++." {
		t.Errorf("minute boundary: %s", got)
	}
	if e := l.(EpochReader).EpochMs(); e%60000 != 0 || e < 1_600_000_000_000 {
		t.Errorf("epoch %d is not a whole minute at or after 1.6e12", e)
	}
}

// TestKongMonthTTL: a month counter lives 30 days. Created on Oct 1 00:00
// UTC, it is gone after Oct 31 00:00:00.000, and October's count starts
// again from 0; on Nov 1 a new window starts anyway.
func TestKongMonthTTL(t *testing.T) {
	l := mustNew(t, "kong:month=2", 0)
	epoch := time.UnixMilli(l.(EpochReader).EpochMs()).UTC()
	at := func(s string) time.Duration {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Sub(epoch)
	}
	trace := []time.Duration{at("2020-10-01T00:00:00Z"), at("2020-10-01T00:00:01Z"), at("2020-10-01T00:00:02Z"),
		at("2020-10-30T23:59:59Z"), at("2020-10-31T00:00:00Z"), at("2020-10-31T00:00:01Z"), at("2020-10-31T00:00:02Z"), at("2020-10-31T00:00:03Z")}
	if got, want := decideAll(l, trace), "++...++."; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

// TestResilience4jCycles: 2 permits per 100 ms cycle from creation,
// timeout 150 ms. At 0: two pass, the third reserves a permit of cycle 1
// (waits 100 ms), the fourth one of cycle 1 too (100 ms), the fifth would
// wait 200 ms: refused. At 120 ms (cycle 1, permissions −2 + 2 = 0): the
// next waits 80 ms for cycle 2.
func TestResilience4jCycles(t *testing.T) {
	l := mustNew(t, "resilience4j:limit-for-period=2,refresh-period=100ms,timeout=150ms", 0)
	want := []Decision{{Pass: true}, {Pass: true}, {Pass: true, Wait: 100 * ms}, {Pass: true, Wait: 100 * ms}, {}, {Pass: true, Wait: 80 * ms}}
	for i, at := range []time.Duration{0, 0, 0, 0, 0, 120 * ms} {
		if got := l.Decide(at); got != want[i] {
			t.Errorf("arrival %d at %v: %+v, want %+v", i, at, got, want[i])
		}
	}
	// acquirePermission(permits) with the cost.
	checkCosts(t, "resilience4j:limit-for-period=5,refresh-period=1s,timeout=0s", []costAt{
		{0, 3, true}, {0, 3, false}, {0, 2, true}, {999 * ms, 1, false}, {time.Second, 5, true}})
}

// TestBucket4jRefill: greedy keeps the fraction of a token as a rounding
// error; intervally adds whole refills at creation + k·period only.
func TestBucket4jRefill(t *testing.T) {
	// 10 per second: drained at 0; 150 ms refills 1 (and 0.5 kept), 200 ms
	// adds the kept 0.5 + 0.5 = 1.
	l := mustNew(t, "bucket4j:capacity=10,refill-tokens=10", 0)
	trace := concat(make([]time.Duration, 11), []time.Duration{150 * ms, 150 * ms, 200 * ms, 200 * ms})
	if got, want := decideAll(l, trace), "++++++++++.+.+."; got != want {
		t.Errorf("greedy: %s, want %s", got, want)
	}
	l = mustNew(t, "bucket4j:capacity=5,refill-tokens=5,refill=intervally", 0)
	trace = concat(make([]time.Duration, 6), []time.Duration{999 * ms, 1000 * ms, 1000 * ms, 2500 * ms})
	if got, want := decideAll(l, trace), "+++++..+++"; got != want {
		t.Errorf("intervally: %s, want %s", got, want)
	}
	// The default clock reads whole milliseconds.
	l = mustNew(t, "bucket4j:capacity=1,refill-tokens=1,refill-period=1ms", 0)
	if got := decideAll(l, []time.Duration{0, 1999 * time.Microsecond, 2 * ms}); got != "+++" {
		t.Errorf("ms clock: %s", got)
	}
	checkCosts(t, "bucket4j:capacity=4,refill-tokens=4", []costAt{{0, 5, false}, {0, 3, true}, {0, 2, false}, {250 * ms, 2, true}})
	// A refused request stores nothing, not even its refill (LockFreeBucket
	// keeps the state it copied): after a clock step back, the refill runs
	// from the last pass, 1.5 tokens, not from the refusal.
	checkCosts(t, "bucket4j:capacity=2,refill-tokens=1,clock=nanos", []costAt{
		{0, 2, true}, {2 * time.Second, 3, false}, {1500 * ms, 2, false}, {1500 * ms, 1, true}})
}

func TestGatewaySpecs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"envoy-local", "envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s,mode=atomic,phase=0s,max-descriptors=20"},
		{"envoy-local:mode=TIMER,fill-interval=0.25s,tokens-per-fill=25", "envoy-local:max-tokens=100,tokens-per-fill=25,fill-interval=250ms,mode=timer,phase=0s,max-descriptors=20"},
		{"traefik", "traefik:average=100,period=1s,burst=1"},
		{"traefik:burst=0,period=0s", "traefik:average=100,period=1s,burst=1"},
		{"haproxy", "haproxy:limit=100,period=1s,expire=0s"},
		{"kong", "kong:second=100,policy=local"},
		{"kong:policy=redis,hour=7,second=2.5", "kong:second=2.5,hour=7,policy=redis"},
		{"resilience4j", "resilience4j:limit-for-period=100,refresh-period=1s,timeout=5s"},
		{"bucket4j", "bucket4j:capacity=100,refill-tokens=100,refill-period=1s,refill=greedy,clock=millis"},
	} {
		l := mustNew(t, tc.in, 100)
		if got := l.Spec(); got != tc.want {
			t.Errorf("%s: spec %s, want %s", tc.in, got, tc.want)
		}
		if again := mustNew(t, l.Spec(), 7); again.Spec() != l.Spec() {
			t.Errorf("%s does not round-trip: %s", l.Spec(), again.Spec())
		}
	}
	for _, tc := range []struct{ spec, want string }{
		{"envoy-local:max-tokens=2.5", "max-tokens must be a whole number"},
		{"envoy-local:max-tokens=2,fill-interval=1500us", "whole number of milliseconds"},
		{"envoy-local:max-tokens=2,mode=bucket", `mode "bucket" is not known; allowed: atomic, timer`},
		{"traefik:average=0", "must be a whole number from 1"},
		{"haproxy:limit=0", "must be a whole number from 1"},
		{"haproxy:limit=5,period=1500us", "whole milliseconds"},
		{"kong:minute=0", "minute must be a positive number"},
		{"kong:second=1,policy=cluster", `policy "cluster" is not known`},
		{"resilience4j:limit-for-period=0", "at least 1"},
		{"bucket4j:capacity=3", "needs a refill-tokens"},
		{"bucket4j:capacity=3,refill-tokens=3,refill=smooth", "allowed: greedy, intervally"},
	} {
		if _, err := New(tc.spec, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
	if _, err := New("kong", 0); err == nil || !strings.Contains(err.Error(), "kong needs a limit") {
		t.Errorf("kong without limits: %v", err)
	}
}

// TestGatewayStateSmall: the per-key wrapper keeps one limiter per key;
// each keeps its state small.
func TestGatewayStateSmall(t *testing.T) {
	for spec, most := range map[string]int{
		"envoy-local:max-tokens=5": 48, "traefik:average=5": 48, "haproxy:limit=5": 32,
		"resilience4j": 24, "bucket4j:capacity=5,refill-tokens=5": 32, "kong:second=5": 256,
	} {
		if n := mustNew(t, spec, 0).StateBytes(); n > most {
			t.Errorf("%s: %d bytes of state, want at most %d", spec, n, most)
		}
	}
}

// TestEnvoyTimerVectors replays Envoy 1.30's LocalRateLimiterImplTest
// (test/extensions/filters/common/local_ratelimit/local_ratelimit_test.cc)
// through mode=timer: each invokeCallback() of the fill timer is the next
// tick, at k·fill_interval.
func TestEnvoyTimerVectors(t *testing.T) {
	tick := func(k int) time.Duration { return time.Duration(k) * 200 * ms }
	// TokenBucket: {200ms, max 1, per fill 1}.
	checkCosts(t, "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=200ms,mode=timer", []costAt{
		{0, 1, true}, {0, 1, false}, {0, 1, false},
		{tick(1), 1, true}, {tick(1), 1, false},
		{tick(3), 1, true}, {tick(3), 1, false}}) // two fills: 0 → 1 → 1
	// TokenBucketMultipleTokensPerFill: {200ms, 2, 2}.
	checkCosts(t, "envoy-local:max-tokens=2,tokens-per-fill=2,fill-interval=200ms,mode=timer", []costAt{
		{0, 1, true}, {0, 1, true}, {0, 1, false},
		{tick(1), 1, true},
		{tick(2), 1, true}, {tick(2), 1, true}, {tick(2), 1, false}})
	// TokenBucketMaxTokensGreaterThanTokensPerFill: {200ms, 2, 1}.
	checkCosts(t, "envoy-local:max-tokens=2,tokens-per-fill=1,fill-interval=200ms,mode=timer", []costAt{
		{0, 1, true}, {0, 1, true}, {0, 1, false},
		{tick(1), 1, true}, {tick(1), 1, false}})
}

// TestGatewayFresh: Fresh() decides as a limiter built from the spec, even
// after its source has decided a trace.
func TestGatewayFresh(t *testing.T) {
	trace := concat(spread(300, 0, 3*time.Second), spread(50, 2*time.Second, 2100*ms), spread(100, 5*time.Second, 9*time.Second))
	for _, spec := range constructors {
		l := mustNew(t, spec, 0)
		f, ok := l.(Freshener)
		if !ok {
			continue
		}
		decideAll(l, trace)
		fresh, built := f.Fresh(), mustNew(t, spec, 0)
		for i, at := range trace {
			if a, b := fresh.Decide(at), built.Decide(at); a != b {
				t.Fatalf("%s arrival %d: Fresh decides %+v, New %+v", spec, i, a, b)
			}
		}
	}
}

// TestHAProxyObserved pins the http_req_rate readings HAProxy 2.6.12
// itself showed (`show table` on its stats socket after each request, run
// under libfaketime with a frozen clock stepped to each arrival, limit 3,
// http_req_rate(1000ms)), with the 200/429 answers it gave. Past 1.9 s its
// clock_update_date took the fake clock's next jump for a clock jump and
// stopped following it, so the run ends there.
func TestHAProxyObserved(t *testing.T) {
	h := mustNew(t, "haproxy:limit=3,period=1s", 0).(*HAProxy)
	times := []time.Duration{0, 0, 0, 0, 500 * ms, 1000 * ms, 1200 * ms, 1900 * ms}
	rates := []uint32{1, 2, 3, 4, 5, 6, 6, 3}
	codes := "+++....+"
	for i, at := range times {
		d := h.Decide(at)
		if got := h.rate(uint32(h.cfg.epoch+floorMs(at)), h.cfg.period); got != rates[i] || d.Pass != (codes[i] == '+') {
			t.Errorf("request %d at %v: rate %d pass %v; HAProxy showed %d and %c", i, at, got, d.Pass, rates[i], codes[i])
		}
	}
}

// freqCtrRef is src/freq_ctr.c and include/haproxy/freq_ctr.h written out
// for one thread, as C reads (uint arithmetic, the lock bit, the slow path
// taken by update_freq_ctr_period), for TestHAProxyMatchesFreqCtr.
type freqCtrRef struct{ currTick, currCtr, prevCtr uint32 }

func (c *freqCtrRef) updatePeriod(now, period, inc uint32) uint32 {
	currTick := c.currTick
	if now-currTick < period {
		c.currCtr += inc
		return c.currCtr
	}
	// update_freq_ctr_period_slow: the CAS on curr_tick | 1 succeeds alone.
	c.prevCtr, c.currCtr = c.currCtr, inc
	currTick += period
	if now-currTick >= period {
		c.prevCtr = 0
		currTick = now
	}
	c.currTick = currTick &^ 1
	return inc
}

func (c *freqCtrRef) total(now, period uint32, pend int) uint64 {
	tick, past, curr := c.currTick, uint64(c.prevCtr), uint64(c.currCtr)
	remain := int32(tick + period - now) // int remain = tick + period - global_now_ms
	if remain < 0 {
		remain += int32(period)
		if remain >= 0 {
			past = curr
		} else {
			past = 0
		}
		curr = 0
	}
	if pend < 0 {
		pend = 0
		if curr == 0 && past <= 1 {
			return past * uint64(period)
		}
	}
	return past*uint64(int64(remain)) + (curr+uint64(pend))*uint64(period)
}

func (c *freqCtrRef) readPeriod(now, period uint32) uint32 {
	return uint32(c.total(now, period, -1) / uint64(period))
}

// TestHAProxyMatchesFreqCtr drives haproxy and the freq_ctr transliteration
// over random periods (odd ones too), limits and traces with idle gaps and
// steps back, near the 32-bit wrap of now_ms as well.
func TestHAProxyMatchesFreqCtr(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	decisions := 0
	for c := 0; c < 200; c++ {
		period := uint32(1 + rng.IntN(3000))
		limit := int64(1 + rng.IntN(50))
		l := mustNew(t, fmt.Sprintf("haproxy:limit=%d,period=%dms", limit, period), 0).(*HAProxy)
		var ref freqCtrRef
		at := time.Duration(rng.Int64N(int64(time.Second)))
		if c%4 == 0 { // start just before now_ms wraps
			at = time.Duration((1<<32)-int64(uint32(l.cfg.epoch))-int64(rng.IntN(2000))) * ms
		}
		for i := 0; i < 500; i++ {
			switch rng.IntN(20) {
			case 0:
				at += time.Duration(rng.Int64N(int64(4*period))) * ms
			case 1:
				at -= time.Duration(rng.Int64N(int64(period))) * ms
			case 2, 3:
			default:
				at += time.Duration(rng.ExpFloat64() * float64(period) / float64(limit) * float64(ms))
			}
			now := uint32(l.cfg.epoch + floorMs(at))
			ref.updatePeriod(now, period, 1)
			want := uint64(ref.readPeriod(now, period)) <= uint64(limit)
			decisions++
			if got := l.Decide(at).Pass; got != want {
				t.Fatalf("period %d limit %d, arrival %d at %v: pass %v, freq_ctr says %v", period, limit, i, at, got, want)
			}
		}
	}
	t.Logf("%d decisions identical", decisions)
}

// Envoy's per-key buckets (dynamic descriptors, ≥ 1.34) are the atomic
// kind only; 1.30's timer mode had none, so mode=timer with key= is refused
// in one line with the fix, in a chain too; key=* (one bucket) and the
// atomic mode per key build.
func TestEnvoyTimerIsNotPerKey(t *testing.T) {
	for _, c := range []struct {
		spec string
		ok   bool
	}{
		{"envoy-local:mode=timer,key=ip", false},
		{"envoy-local:max-tokens=5,mode=timer,key=key,capacity=10", false},
		{"leap-array+envoy-local:mode=timer,key=ip", false},
		{"envoy-local:mode=timer,key=*", true},
		{"envoy-local:mode=atomic,key=ip", true},
		{"envoy-local:mode=timer", true},
	} {
		_, err := New(c.spec, 10)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "mode=timer cannot be per key") || !strings.Contains(err.Error(), "use mode=atomic with key=, or mode=timer without key=")):
			t.Errorf("%s: %v, want the refusal", c.spec, err)
		}
	}
}
