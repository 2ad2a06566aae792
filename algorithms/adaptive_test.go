package algorithms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mustCompleter(t *testing.T, spec string) Completer {
	t.Helper()
	l, err := New(spec, 0)
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	c, ok := l.(Completer)
	if !ok {
		t.Fatalf("%s is not a Completer", spec)
	}
	if r, ok := c.(SignalReader); ok {
		r.BindSignals(ConstSignals{})
	}
	return c
}

// admit is Check then Begin; it reports the pass and the ticket.
func admit(c Completer, now time.Duration) (bool, Ticket) {
	if !c.Check(now).Pass {
		return false, Ticket{}
	}
	return true, c.Begin(now, now)
}

func TestAdaptiveSpecsRoundTrip(t *testing.T) {
	for _, spec := range []string{
		"concurrency:limit=3", "concurrency:limit=2.5", "concurrency:limit=4,flavor=go",
		"sentinel-system:max-thread=2", "sentinel-system:qps=10,avg-rt=50,load=4,cpu=0.8",
		"sentinel-system:load=4,flavor=go,strategy=bbr", "aegis-bbr", "aegis-bbr:version=v0.2.0,buckets=10,window=1s",
		"aimd", "aimd:windowed=true", "vegas", "vegas:probe=off,smoothing=0.5", "gradient2", "gradient2:windowed=true,window-size=20",
		"envoy-adaptive", "envoy-adaptive:jitter=0%,buffer=10", "none",
	} {
		l, err := New(spec, 0)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		again, err := New(l.Spec(), 0)
		if err != nil || again.Spec() != l.Spec() {
			t.Errorf("%s → %s does not round-trip: %v", spec, l.Spec(), err)
		}
		if _, ok := l.(Completer); !ok {
			t.Errorf("%s is not a Completer", spec)
		}
	}
}

func TestAdaptiveBadSpecs(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"sentinel-system", "at least one rule"},
		{"sentinel-system:load=-1", "must not be negative"},
		{"sentinel-system:load=1,strategy=bbr", "flavor=go only"},
		{"sentinel-system:cpu=1.5", "above 1"},
		{"concurrency:limit=2.5,flavor=go", "whole limit"},
		{"aimd:backoff=0.3", "[0.5, 1.0)"},
		{"gradient2:tolerance=0.5", "at least 1.0"},
		{"vegas:window-size=20", "only with windowed=true"},
		{"aimd:windowed=true,window-size=5", "at least 10"},
		{"aegis-bbr:version=v9", "not known"},
		{"envoy-adaptive:min=0", "1 ≤ min ≤ max"},
		{"vegas:probe=maybe", "not true or false"},
	} {
		if _, err := New(tc.spec, 0); err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error with %q", tc.spec, err, tc.want)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Worked example (docs/algorithms.md): limit=2 admits two calls at once;
// the third waits for a completion.
func TestConcurrencyWorkedExample(t *testing.T) {
	for _, spec := range []string{"concurrency:limit=2", "concurrency:limit=2,flavor=go"} {
		c := mustCompleter(t, spec)
		p1, t1 := admit(c, 0)
		p2, _ := admit(c, ms)
		p3, _ := admit(c, 2*ms)
		c.Complete(3*ms, t1, Failure)
		p4, _ := admit(c, 4*ms)
		if got := []bool{p1, p2, p3, p4}; got[0] != true || got[1] != true || got[2] != false || got[3] != true {
			t.Errorf("%s: %v, want pass pass block pass", spec, got)
		}
	}
	// A fractional count: 2.5 admits 2 (2+1 > 2.5).
	c := mustCompleter(t, "concurrency:limit=2.5")
	admit(c, 0)
	admit(c, 0)
	if ok, _ := admit(c, 0); ok {
		t.Error("limit=2.5 admitted a third call")
	}
}

// Java's thread rule blocks only above max-thread (N+1 admitted); Go's at
// max-thread (N admitted).
func TestSentinelSystemThread(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want int
	}{{"sentinel-system:max-thread=2", 3}, {"sentinel-system:max-thread=2,flavor=go", 2}} {
		c := mustCompleter(t, tc.spec)
		n := 0
		for i := 0; i < 10; i++ {
			if ok, _ := admit(c, time.Duration(i)*ms); ok {
				n++
			}
		}
		if n != tc.want {
			t.Errorf("%s admitted %d at once, want %d", tc.spec, n, tc.want)
		}
	}
}

// Java's qps rule: passQps + 1 > qps blocks (qps=3 admits 3 per window);
// Go's: qps < T passes (T=3 admits 3 as well: 0,1,2 < 3).
func TestSentinelSystemQPS(t *testing.T) {
	for _, spec := range []string{"sentinel-system:qps=3", "sentinel-system:qps=3,flavor=go", "sentinel-system:qps=2.5"} {
		c := mustCompleter(t, spec)
		n := 0
		for i := 0; i < 10; i++ {
			if ok, _ := admit(c, time.Duration(i)*ms); ok {
				n++
			}
		}
		want := 3
		if spec == "sentinel-system:qps=2.5" {
			want = 2
		}
		if n != want {
			t.Errorf("%s admitted %d in one window, want %d", spec, n, want)
		}
	}
}

// Worked example of checkBbr (docs/algorithms.md): load above the
// threshold; in the window one call completed in 100 ms, so
// maxSuccessQps = 1·2/1 = 2, minRt = 100, and the estimate is
// 2·100/1000 = 0.2: a second concurrent call is blocked (threads 2 > 1 and
// 2 > 0.2), the first of a pair passes (threads 1).
func TestSentinelSystemBBRWorkedExample(t *testing.T) {
	l, _ := New("sentinel-system:load=1", 0)
	s := l.(*SentinelSystem)
	s.BindSignals(ConstSignals{Load: 2})
	ok, tk := admit(s, 0)
	s.Complete(100*ms, tk, Success)
	a, _ := admit(s, 200*ms) // threads 0
	b, _ := admit(s, 201*ms) // threads 1: 1 > 1 is false
	c, _ := admit(s, 202*ms) // threads 2 > 0.2
	if !ok || !a || !b || c {
		t.Errorf("got %v %v %v %v, want pass pass pass block", ok, a, b, c)
	}
	if r := s.BlockReason(202 * ms); r != "load" {
		t.Errorf("reason %q, want load", r)
	}
	// Go without strategy=bbr blocks on the load alone; with bbr it
	// passes the first pair too (maxComplete has no floor of 1).
	g := mustCompleter(t, "sentinel-system:load=1,flavor=go").(*SentinelSystem)
	g.BindSignals(ConstSignals{Load: 2})
	if ok, _ := admit(g, 0); ok {
		t.Error("go, strategy none: load 2 > 1 passed")
	}
	g = mustCompleter(t, "sentinel-system:load=1,flavor=go,strategy=bbr").(*SentinelSystem)
	g.BindSignals(ConstSignals{Load: 2})
	a, _ = admit(g, 0)
	b, _ = admit(g, ms)
	c, _ = admit(g, 2*ms) // 2 > 0·60000/1000
	if !a || !b || c {
		t.Errorf("go bbr: %v %v %v, want pass pass block", a, b, c)
	}
}

// avg-rt: Java's double average vs Go's integer division. Two calls of
// 10 and 11 ms: Java 10.5 > 10 blocks; Go 21/2 = 10 < 10 is false, blocks
// too, and with avg-rt=11 Go passes (10 < 11) while Java passes (10.5 ≤ 11).
func TestSentinelSystemAvgRT(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want bool
	}{
		{"sentinel-system:avg-rt=10", false}, {"sentinel-system:avg-rt=10,flavor=go", false},
		{"sentinel-system:avg-rt=11", true}, {"sentinel-system:avg-rt=11,flavor=go", true},
	} {
		c := mustCompleter(t, tc.spec)
		_, t1 := admit(c, 0)
		_, t2 := admit(c, 0)
		c.Complete(10*ms, t1, Success)
		c.Complete(11*ms, t2, Success)
		if ok, _ := admit(c, 20*ms); ok != tc.want {
			t.Errorf("%s: pass=%v, want %v", tc.spec, ok, tc.want)
		}
	}
}

// Worked example of aegis-bbr (docs/algorithms.md) with window=1s,
// buckets=10 (100 ms buckets): CPU 100% from 0, so the EMA after the
// samples at 0 and 500 ms is 50 then 97 per mille... well below 800 until
// it crosses; with cpu-threshold=0 the CPU gate is always open.
func TestAegisBBRWorkedExample(t *testing.T) {
	c := mustCompleter(t, "aegis-bbr:window=1s,buckets=10,cpu-threshold=0")
	// Two calls in flight pass (inFlight > 1 needs 2 before the check).
	a, ta := admit(c, 0)
	b, tb := admit(c, 0)
	// inFlight 2; maxPASS over no live bucket... the window has just been
	// created: timespan 0, all 9 older buckets read, none written: maxPASS
	// = 1, minRT = 1 (none), maxInFlight = ⌊1·1·10/1000⌋ = 0: drop.
	d, _ := admit(c, 0)
	if !a || !b || d {
		t.Fatalf("got %v %v %v, want pass pass drop", a, b, d)
	}
	// Completions at 150 ms (RT 150): bucket 1 holds 2 passes and RT 300/2.
	c.Complete(150*ms, ta, Success)
	c.Complete(150*ms, tb, Success)
	// At 250 ms (bucket 2): maxPASS = 2, minRT = 150, maxInFlight =
	// ⌊2·150·10/1000⌋ = 3: up to 3 in flight pass... the check passes while
	// inFlight ≤ 3.
	n := 0
	for i := 0; i < 6; i++ {
		if ok, _ := admit(c, 250*ms); ok {
			n++
		}
	}
	if n != 4 {
		t.Errorf("admitted %d at 250ms, want 4 (inFlight 0..3 pass)", n)
	}
	if got := c.CurrentLimit(250 * ms); got != 3 {
		t.Errorf("maxInFlight %v, want 3", got)
	}
}

// The CPU EMA: samples at 0, 500 ms, … of ⌊cpu·1000⌋, cpu = int64(prev·0.95
// + usage·0.05).
func TestAegisCPUEMA(t *testing.T) {
	l, _ := New("aegis-bbr", 0)
	b := l.(*AegisBBR)
	b.BindSignals(ConstSignals{Cpu: 0.9995})
	want := int64(0)
	for k := 0; k < 50; k++ {
		want = int64(float64(want)*0.95 + float64(999)*(1.0-0.95))
		if got := b.CPU(time.Duration(k) * 500 * ms); got != want {
			t.Fatalf("sample %d: cpu %d, want %d", k, got, want)
		}
	}
}

// RT rounding: head rounds up, v0.2.0 truncates: a 1.5 ms call is 2 ms in
// head and 1 ms in v0.2.0.
func TestAegisRTVersions(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want int64
	}{{"aegis-bbr:window=1s,buckets=10", 2}, {"aegis-bbr:window=1s,buckets=10,version=v0.2.0", 1}} {
		c := mustCompleter(t, tc.spec).(*AegisBBR)
		_, tk := admit(c, 0)
		c.Complete(1500*time.Microsecond, tk, Success)
		if got := c.minRT(200 * ms); got != tc.want {
			t.Errorf("%s: minRT %d, want %d", tc.spec, got, tc.want)
		}
	}
}

// AIMD worked example: limit 20; a sample with inflight 10 (10·2 ≥ 20)
// raises it to 21; a drop multiplies by 0.9 → 18 → clamped to min 20.
func TestAIMDWorkedExample(t *testing.T) {
	c := mustCompleter(t, "aimd:min=10")
	var tks []Ticket
	for i := 0; i < 10; i++ {
		_, tk := admit(c, 0)
		tks = append(tks, tk)
	}
	c.Complete(10*ms, tks[9], Success) // inflight at acquire 10
	if got := c.CurrentLimit(0); got != 21 {
		t.Fatalf("limit %v, want 21", got)
	}
	c.Complete(10*ms, tks[0], Timeout) // drop: (int)(21·0.9) = 18
	if got := c.CurrentLimit(0); got != 18 {
		t.Fatalf("limit %v, want 18", got)
	}
}

// Vegas without the probe: the first sample sets rtt_noload; then a sample
// at twice the RTT with the limiter full gives queueSize = ceil(20·(1 −
// 1/2)) = 10 > beta = 6·1 = 6: the limit decreases by log10(20)→1 to 19.
func TestVegasWorkedExample(t *testing.T) {
	c := mustCompleter(t, "vegas:probe=off")
	var tks []Ticket
	for i := 0; i < 20; i++ {
		ok, tk := admit(c, 0)
		if !ok {
			t.Fatalf("call %d blocked under the initial limit 20", i)
		}
		tks = append(tks, tk)
	}
	if ok, _ := admit(c, 0); ok {
		t.Fatal("21st call passed")
	}
	c.Complete(10*ms, tks[0], Success)
	if got := c.CurrentLimit(0); got != 20 {
		t.Fatalf("after the first sample limit %v, want 20", got)
	}
	c.Complete(20*ms, tks[19], Success) // inflight 20: 40 ≥ 20
	if got := c.CurrentLimit(0); got != 19 {
		t.Fatalf("limit %v, want 19", got)
	}
	// A zero RTT throws in VegasLimit: the permit leaks.
	c2 := mustCompleter(t, "vegas:probe=off,initial=1").(*Netflix)
	_, tk := admit(c2, 5*ms)
	c2.Complete(5*ms, tk, Success)
	if ok, _ := admit(c2, 6*ms); ok {
		t.Error("the permit of a call whose sample threw was released")
	}
}

// Gradient2 worked example: inflight below limit/2 keeps the limit; at
// inflight 10 of 20 with RTT equal to the long RTT, gradient = min(1,
// 1.5) = 1, newLimit = 20·1 + 4 = 24, smoothed 20·0.8 + 24·0.2 = 20.8 → 20.
func TestGradient2WorkedExample(t *testing.T) {
	c := mustCompleter(t, "gradient2")
	var tks []Ticket
	for i := 0; i < 10; i++ {
		_, tk := admit(c, 0)
		tks = append(tks, tk)
	}
	c.Complete(10*ms, tks[9], Success)
	if got := c.(*Netflix).g2.estimated; got != 20.8 {
		t.Fatalf("estimated %v, want 20.8", got)
	}
	if got := c.CurrentLimit(0); got != 20 {
		t.Fatalf("limit %v, want 20", got)
	}
}

// envoyClock drives an EnvoyAdaptive as Envoy's gradient_controller_test
// does: a simulated time that only moves when advanced, samples whose send
// time is now − latency.
type envoyClock struct {
	e   *EnvoyAdaptive
	now time.Duration
}

func (c *envoyClock) forward() bool {
	if !c.e.Check(c.now).Pass {
		return false
	}
	c.e.Begin(c.now, c.now)
	return true
}

func (c *envoyClock) sample(lat time.Duration) {
	c.e.Complete(c.now, Ticket{At: c.now - lat}, Success)
}

func (c *envoyClock) advance(d time.Duration) {
	c.now += d
	c.e.advance(c.now)
}

func newEnvoy(t *testing.T, spec string) *envoyClock {
	l, err := New(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &envoyClock{e: l.(*EnvoyAdaptive)}
	// makeController advances 42 hours before the test starts; with the
	// controller built at 0 that runs the sample timer (nothing sampled)
	// but leaves the minRTT window open.
	c.advance(42 * time.Hour)
	return c
}

// advancePastMinRTTStage: request_count+1 forwards and samples.
func (c *envoyClock) pastMinRTT(n int, lat time.Duration) {
	for i := 0; i <= n; i++ {
		c.forward()
		c.sample(lat)
	}
}

// Envoy's MinRTTLogicTest.
func TestEnvoyMinRTTLogic(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=50,percentile=50,jitter=0%,min=7")
	if !c.e.inWindow() || c.e.limit != 7 {
		t.Fatalf("not in the minRTT window at limit 7: %v %d", c.e.inWindow(), c.e.limit)
	}
	for i := 0; i < 7; i++ {
		if !c.forward() {
			t.Fatal("blocked below 7")
		}
	}
	if c.forward() || c.forward() {
		t.Fatal("forwarded above 7")
	}
	c.advance(13 * ms)
	for i := 0; i < 7; i++ {
		c.sample(13 * ms)
	}
	for i := 0; i < 43; i++ {
		if c.e.limit != 7 {
			t.Fatalf("limit %d during the window", c.e.limit)
		}
		if !c.forward() {
			t.Fatal("blocked")
		}
		c.sample(13 * ms)
	}
	if c.e.inWindow() || c.e.MinRTT()/ms != 13 {
		t.Errorf("window active %v, minRTT %v, want inactive and 13 ms", c.e.inWindow(), c.e.MinRTT())
	}
}

// Envoy's CancelLatencySample: samples of 1..5 ms, 50th percentile →
// minRTT 3 ms (3050 µs here: the bin [3000, 3100) with one sample).
func TestEnvoyCancelLatencySample(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=5,percentile=50,jitter=0%")
	for i := 1; i <= 5; i++ {
		c.forward()
		c.sample(time.Duration(i) * ms)
	}
	if c.e.MinRTT()/ms != 3 || c.e.minRtt != 3050 {
		t.Errorf("minRTT %d µs, want 3050", c.e.minRtt)
	}
}

// Envoy's SamplePercentileProcessTest: limit 3 forwards 3, then blocks;
// a cancel frees one.
func TestEnvoySamplePercentileProcess(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=5,percentile=50,jitter=0%")
	got := []bool{c.forward(), c.forward(), c.forward(), c.forward()}
	c.e.outstand-- // cancelLatencySample
	got = append(got, c.forward(), c.forward())
	want := []bool{true, true, true, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("forwards %v, want %v", got, want)
		}
	}
}

// Envoy's MinRTTBufferTest: with a 50% buffer, samples of 6 ms against a
// 5 ms minRTT never lower the limit; it grows every window.
func TestEnvoyMinRTTBuffer(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=5,percentile=50,jitter=0%,buffer=50")
	if c.e.limit != 3 {
		t.Fatalf("limit %d, want 3", c.e.limit)
	}
	c.pastMinRTT(5, 5*ms)
	if c.e.MinRTT()/ms != 5 {
		t.Fatalf("minRTT %v", c.e.MinRTT())
	}
	for r := 0; r < 10; r++ {
		last := c.e.limit
		for i := 1; i <= 5; i++ {
			c.forward()
			c.sample(6 * ms)
		}
		c.advance(101 * ms)
		if c.e.limit <= last {
			t.Fatalf("recalc %d: limit %d not above %d", r, c.e.limit, last)
		}
	}
}

// Envoy's ConcurrencyLimitBehaviorTestBasic (its first part): the limit
// grows on its own from 7, at most doubling per window; latencies below
// minRTT make it grow.
func TestEnvoyConcurrencyLimitBasic(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=5,percentile=50,jitter=0%,buffer=10,min=7")
	c.pastMinRTT(5, 5*ms)
	if c.e.MinRTT()/ms != 5 {
		t.Fatalf("minRTT %v", c.e.MinRTT())
	}
	c.advance(101 * ms)
	if c.e.limit < 7 || float64(c.e.limit)/7 > 2 {
		t.Fatalf("limit %d", c.e.limit)
	}
	for r := 0; r < 10; r++ {
		last := c.e.limit
		for i := 1; i <= 5; i++ {
			c.forward()
			c.sample(4 * ms)
		}
		c.advance(101 * ms)
		if c.e.limit <= last {
			t.Fatalf("recalc %d: limit %d not above %d", r, c.e.limit, last)
		}
	}
	// Latencies well above minRTT shrink it (gradient 0.5).
	for r := 0; r < 10; r++ {
		last := c.e.limit
		for i := 1; i <= 5; i++ {
			c.forward()
			c.sample(6 * ms)
		}
		c.advance(101 * ms)
		if c.e.limit > last && last > 7 {
			t.Fatalf("recalc %d: limit %d grew from %d on slow samples", r, c.e.limit, last)
		}
	}
}

// Envoy's MinRTTEpoch: requests sent before a minRTT window began are not
// sampled in it.
func TestEnvoyMinRTTEpoch(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=25,percentile=50,jitter=0%,min=2,buffer=0")
	c.advance(1350 * ms)
	c.pastMinRTT(25, 1350*ms)
	if c.e.inWindow() || c.e.MinRTT() != 1350*ms+ms*0 && c.e.MinRTT()/ms != 1350 {
		t.Fatalf("window %v minRTT %v", c.e.inWindow(), c.e.MinRTT())
	}
	last := c.e.limit
	for i := 0; i < 29; i++ {
		c.forward()
		c.advance(time.Second)
		c.sample(1350 * ms)
		c.advance(0)
		if c.e.limit <= last {
			t.Fatalf("step %d: limit %d not above %d", i, c.e.limit, last)
		}
		last = c.e.limit
	}
	n := int(c.e.limit)
	for i := 0; i < n; i++ {
		c.forward()
	}
	c.advance(5 * time.Second)
	if !c.e.inWindow() || c.e.limit != 2 {
		t.Fatalf("not in the next window at limit 2: %v %d", c.e.inWindow(), c.e.limit)
	}
	if n <= 25 {
		t.Fatalf("only %d outstanding", n)
	}
	for i := 0; i < n; i++ {
		c.sample(5 * time.Minute)
	}
	if !c.e.inWindow() {
		t.Error("old samples ended the minRTT window")
	}
}

// Five windows in a row at the minimum re-measure minRTT at once.
func TestEnvoyRemeasureAtFloor(t *testing.T) {
	c := newEnvoy(t, "envoy-adaptive:interval=30s,update=100ms,request-count=5,percentile=50,jitter=0%")
	c.pastMinRTT(5, 5*ms)
	w := c.e.Windows
	for r := 0; r < 6 && c.e.Windows == w; r++ {
		for i := 0; i < 3; i++ {
			c.forward()
			c.sample(50 * ms)
		}
		c.advance(100 * ms)
	}
	if c.e.Windows != w+1 {
		t.Errorf("windows %d → %d, want a re-measure after 5 windows at the floor", w, c.e.Windows)
	}
}

// circllhist bins: two significant digits.
func TestCircHistBuckets(t *testing.T) {
	for _, tc := range []struct {
		d         float64
		val, exp  int
		left, wid float64
	}{{3000, 30, 3, 3000, 100}, {13000, 13, 4, 13000, 1000}, {1, 10, 0, 1, 0.1}, {999, 99, 2, 990, 10}, {0.11, 11, -1, 0.11000000000000001, 0.01}} {
		b := circBucket(tc.d)
		if b.val != tc.val || b.exp != tc.exp {
			t.Errorf("%v: bin %d e%d, want %d e%d", tc.d, b.val, b.exp, tc.val, tc.exp)
		}
	}
	var h circHist
	for i := 0; i < 50; i++ {
		h.insert(13000)
	}
	if q := h.quantile(0.5); int(q) != 13490 {
		t.Errorf("p50 of 50×13 ms = %v, want 13490 (13000 + 25/51·1000)", q)
	}
}

// Invariant over random loops: no limiter with a concurrency limit lets
// more calls be in flight than its limit (plus one for Java's thread rule).
func TestAdaptiveInFlightBounded(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		bound func(c Completer, now time.Duration) float64
	}{
		{"concurrency:limit=5", nil},
		{"aimd", nil}, {"vegas", nil}, {"gradient2", nil}, {"gradient2:windowed=true", nil}, {"aimd:windowed=true", nil},
		{"envoy-adaptive:jitter=0%,request-count=10", nil},
	} {
		c := mustCompleter(t, tc.spec)
		rng := rand.New(rand.NewPCG(1, 2))
		type call struct {
			end time.Duration
			tk  Ticket
		}
		var open []call
		now := time.Duration(0)
		for i := 0; i < 20000; i++ {
			now += time.Duration(rng.IntN(2000)) * time.Microsecond
			// complete the calls due
			k := 0
			for _, o := range open {
				if o.end <= now {
					oc := Success
					if rng.IntN(20) == 0 {
						oc = Timeout
					}
					c.Complete(o.end, o.tk, oc)
				} else {
					open[k] = o
					k++
				}
			}
			open = open[:k]
			lim := c.CurrentLimit(now)
			if ok, tk := admit(c, now); ok {
				if float64(c.InFlight()) > math.Max(lim, 1) && tc.spec != "envoy-adaptive:jitter=0%,request-count=10" {
					t.Fatalf("%s: %d in flight above limit %v", tc.spec, c.InFlight(), lim)
				}
				open = append(open, call{end: now + time.Duration(1+rng.IntN(40))*ms, tk: tk})
			}
		}
	}
}

// Every adaptive limiter survives the shared table of traces (clock steps
// back, before zero, huge jumps), each pass completing 7 ms later with a
// rotating outcome, and decides the same as its twin and as one built
// from its Spec.
func TestAdaptiveSharedTraces(t *testing.T) {
	specs := []string{
		"concurrency:limit=5", "concurrency:limit=5,flavor=go", "sentinel-system:max-thread=3,qps=20,avg-rt=5,load=0.5,cpu=0.5",
		"sentinel-system:max-thread=3,load=0.5,cpu=0.5,flavor=go,strategy=bbr", "aegis-bbr:window=1s,buckets=10,cpu-threshold=0",
		"aimd", "vegas", "gradient2:windowed=true", "envoy-adaptive:request-count=5,jitter=0%", "none",
	}
	for _, spec := range specs {
		for name, trace := range traces() {
			var cs [3]Completer
			for i := range cs {
				s := spec
				if i == 2 {
					s = mustCompleter(t, spec).Spec()
				}
				cs[i] = mustCompleter(t, s)
				if r, ok := cs[i].(SignalReader); ok {
					r.BindSignals(ConstSignals{Cpu: 0.9, Load: 2})
				}
				if sd, ok := cs[i].(Seeded); ok {
					sd.Reseed(7)
				}
			}
			type call struct {
				end time.Duration
				tk  [3]Ticket
				oc  Outcome
			}
			var open []call
			for i, at := range trace {
				k := 0
				for _, o := range open {
					if o.end <= at {
						for j := range cs {
							cs[j].Complete(o.end, o.tk[j], o.oc)
						}
					} else {
						open[k] = o
						k++
					}
				}
				open = open[:k]
				var d [3]bool
				var tk [3]Ticket
				for j := range cs {
					d[j], tk[j] = admit(cs[j], at)
				}
				if d[1] != d[0] || d[2] != d[0] {
					t.Fatalf("%s/%s arrival %d: %v, twin %v, from Spec %v", spec, name, i, d[0], d[1], d[2])
				}
				if d[0] {
					open = append(open, call{end: at + 7*ms, tk: tk, oc: Outcome(i % 3)})
				}
			}
		}
	}
}

// envoy-adaptive names concurrency_update_interval update-interval (the
// issue's name); update, the name it had first, stays an alias, and both
// build the same limiter, written update-interval.
func TestEnvoyUpdateIntervalName(t *testing.T) {
	want := "envoy-adaptive:interval=60s,update-interval=250ms,request-count=50,percentile=50,buffer=25%,min=3,max=1000,jitter=15%"
	for _, spec := range []string{"envoy-adaptive:update-interval=250ms", "envoy-adaptive:update=250ms", "envoy-adaptive:UPDATE-INTERVAL=250ms"} {
		l, err := New(spec, 0)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if l.Spec() != want {
			t.Errorf("%s: spec %s, want %s", spec, l.Spec(), want)
		}
		if r, err := New(l.Spec(), 0); err != nil || r.Spec() != want {
			t.Errorf("%s: its spec does not rebuild: %v", spec, err)
		}
	}
	for spec, msg := range map[string]string{
		"envoy-adaptive:update=1s,update-interval=1s": `parameter "update-interval" is given twice (update-interval and update name one parameter; keep one)`,
		"envoy-adaptive:update-interval=0s":           "update-interval must be at least 1ms",
	} {
		if _, err := New(spec, 0); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", spec, err, msg)
		}
	}
	for _, in := range List() {
		if in.Name != "envoy-adaptive" {
			continue
		}
		if p := in.Params[1]; p.Key != "update-interval" || len(p.Aliases) != 1 || p.Aliases[0] != "update" {
			t.Errorf("list shows %+v", p)
		}
	}
}
