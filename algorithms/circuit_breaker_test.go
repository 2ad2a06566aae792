package algorithms

import (
	"strings"
	"testing"
	"time"
)

func newBreaker(t *testing.T, spec string) *CircuitBreaker {
	t.Helper()
	l, err := New(spec, 100)
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	b, ok := l.(*CircuitBreaker)
	if !ok {
		t.Fatalf("New(%q) built a %T", spec, l)
	}
	return b
}

func wantState(t *testing.T, b *CircuitBreaker, want BreakerState, step string) {
	t.Helper()
	if b.State() != want {
		t.Fatalf("%s: state %v, want %v", step, b.State(), want)
	}
}

func wantPass(t *testing.T, b *CircuitBreaker, now time.Duration, want bool, step string) {
	t.Helper()
	if got := b.Check(now).Pass; got != want {
		t.Fatalf("%s: Check(%v) pass=%v, want %v (state %v)", step, now, got, want, b.State())
	}
}

// Seed 004's state diagram, step by step: slow calls over 50% of at least
// 10 open the breaker; it blocks for the recovery; one probe; the probe's
// answer closes or reopens it.
func TestBreakerStateDiagram(t *testing.T) {
	b := newBreaker(t, "circuit-breaker:strategy=slow-ratio,max-rt=500ms,threshold=0.5,min-requests=10,recovery=10s")
	// 10 calls enter at 100 ms .. 190 ms, all admitted while CLOSED; the
	// first 6 take 600 ms (slow), the other 4 take 20 ms.
	for i := 0; i < 10; i++ {
		wantPass(t, b, time.Duration(100+10*i)*ms, true, "closed")
	}
	// Complete them in exit order: fast ones first.
	for i := 6; i < 10; i++ {
		b.Complete(time.Duration(100+10*i)*ms, time.Duration(120+10*i)*ms, false)
		wantState(t, b, Closed, "fast completions")
	}
	for i := 0; i < 5; i++ {
		b.Complete(time.Duration(100+10*i)*ms, time.Duration(700+10*i)*ms, false)
		wantState(t, b, Closed, "5 slow of 9: under min-requests")
	}
	// The 10th completion: 6 slow of 10 = 0.6 > 0.5.
	b.Complete(150*ms, 750*ms, false)
	wantState(t, b, Open, "6 slow of 10")
	wantPass(t, b, 751*ms, false, "open")
	wantPass(t, b, 10749*ms+999*time.Microsecond, false, "open until the opening ms + 10 s")
	// Inclusive: the first request at 750 ms + 10 s is the probe.
	wantPass(t, b, 10750*ms, true, "probe")
	wantState(t, b, HalfOpen, "after the probe passed")
	wantPass(t, b, 10750*ms, false, "a second request while HALF_OPEN")
	wantPass(t, b, 10900*ms, false, "still HALF_OPEN")
	// The probe is fast: CLOSED, and the bucket is zeroed.
	b.Complete(10750*ms, 10800*ms, false)
	wantState(t, b, Closed, "fast probe")
	wantPass(t, b, 10801*ms, true, "closed again")
	for i := 0; i < 9; i++ {
		b.Complete(10801*ms, 10801*ms+600*ms, false)
	}
	wantState(t, b, Closed, "9 slow calls after the reset: under min-requests")
	b.Complete(10801*ms, 11401*ms+time.Millisecond, false)
	wantState(t, b, Open, "the 10th slow call in the bucket [11 s, 12 s)")
}

func TestBreakerSlowProbeReopensForAnotherRecovery(t *testing.T) {
	b := newBreaker(t, "circuit-breaker:strategy=slow-ratio,max-rt=100ms,min-requests=1,recovery=2s")
	b.Complete(0, 200*ms, false) // threshold 1.0: every counted call slow opens
	wantState(t, b, Open, "one slow call of one")
	wantPass(t, b, 2200*ms, true, "probe at 200 ms + 2 s")
	b.Complete(2200*ms, 2301*ms, false) // 101 ms > 100 ms
	wantState(t, b, Open, "slow probe")
	// The new recovery runs from the probe's exit.
	wantPass(t, b, 4300*ms, false, "before 2301 ms + 2 s")
	wantPass(t, b, 4301*ms, true, "at 2301 ms + 2 s")
}

// While HALF_OPEN the next completion of any admitted request decides: an
// older call still in flight, not the probe.
func TestBreakerNonProbeCompletionDecides(t *testing.T) {
	b := newBreaker(t, "circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=2,recovery=1s")
	b.Complete(0, 10*ms, true)
	b.Complete(0, 20*ms, true)
	wantState(t, b, Open, "2 errors of 2")
	wantPass(t, b, 1020*ms, true, "probe")
	// A call admitted long before, at 5 ms, returns now without error.
	b.Complete(5*ms, 1030*ms, false)
	wantState(t, b, Closed, "an old successful call closes it")
	// The probe then fails: CLOSED, one error of one, under min-requests.
	b.Complete(1020*ms, 1040*ms, true)
	wantState(t, b, Closed, "the probe's failure counts like any call")

	// And an old slow call reopens a HALF_OPEN slow-ratio breaker.
	s := newBreaker(t, "circuit-breaker:strategy=slow-ratio,max-rt=100ms,min-requests=1,recovery=1s")
	s.Complete(0, 150*ms, false)
	wantPass(t, s, 1150*ms, true, "probe")
	s.Complete(100*ms, 1160*ms, false) // entered at 100 ms: 1060 ms
	wantState(t, s, Open, "an old slow call reopens it")
}

// Under slow-ratio only the RT counts: a fast call that failed closes a
// HALF_OPEN breaker, and a slow successful one reopens it.
func TestBreakerSlowRatioIgnoresErrors(t *testing.T) {
	b := newBreaker(t, "circuit-breaker:strategy=slow-ratio,max-rt=100ms,min-requests=1,recovery=1s")
	for i := 0; i < 20; i++ {
		b.Complete(0, 10*ms, true)
	}
	wantState(t, b, Closed, "20 fast failures")
	b.Complete(0, 101*ms, false)
	wantState(t, b, Closed, "1 slow of 21")
	e := newBreaker(t, "circuit-breaker:strategy=slow-ratio,max-rt=100ms,threshold=0,min-requests=1,recovery=1s")
	e.Complete(0, 101*ms, false)
	wantState(t, e, Open, "threshold 0: one slow call")
	wantPass(t, e, 1101*ms, true, "probe")
	e.Complete(1101*ms, 1102*ms, true)
	wantState(t, e, Closed, "a fast failed probe closes a slow-ratio breaker")
	// Error strategies: a slow call without error closes.
	x := newBreaker(t, "circuit-breaker:strategy=error-count,threshold=0,min-requests=1,recovery=1s")
	x.Complete(0, 0, true)
	wantState(t, x, Open, "error-count 0: the first error")
	wantPass(t, x, time.Second, true, "probe")
	x.Complete(time.Second, time.Hour, false)
	wantState(t, x, Closed, "a slow probe without error closes an error breaker")
}

func TestBreakerMinRequestsAndExactThresholds(t *testing.T) {
	b := newBreaker(t, "circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=5")
	for i := 0; i < 4; i++ {
		b.Complete(0, 1*ms, true)
	}
	wantState(t, b, Closed, "4 errors of 4, min-requests 5")
	// A new second: the bucket starts over.
	b.Complete(time.Second, time.Second, true)
	wantState(t, b, Closed, "1 error in the new bucket")
	// Exactly at the threshold stays closed: 5 errors of 10.
	c := newBreaker(t, "circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=5")
	for i := 0; i < 10; i++ {
		c.Complete(0, 1*ms, i >= 5)
	}
	wantState(t, c, Closed, "ratio exactly 0.5")
	c.Complete(0, 1*ms, true)
	wantState(t, c, Open, "6 of 11 > 0.5")
	// slow-ratio at exactly 0.5 stays closed.
	s := newBreaker(t, "circuit-breaker:strategy=slow-ratio,max-rt=10ms,threshold=0.5,min-requests=2")
	s.Complete(0, 11*ms, false)
	s.Complete(0, 10*ms, false) // exactly max-rt is not slow
	wantState(t, s, Closed, "1 slow of 2 at threshold 0.5")
	// error-count N needs N+1 errors.
	n := newBreaker(t, "circuit-breaker:strategy=error-count,threshold=3,min-requests=1")
	for i := 0; i < 3; i++ {
		n.Complete(0, 0, true)
	}
	wantState(t, n, Closed, "3 errors, threshold 3")
	n.Complete(0, 0, true)
	wantState(t, n, Open, "the 4th error")
	// error-ratio 1.0 never opens.
	one := newBreaker(t, "circuit-breaker:strategy=error-ratio,threshold=1,min-requests=1")
	for i := 0; i < 1000; i++ {
		one.Complete(0, 0, true)
	}
	wantState(t, one, Closed, "error-ratio 1.0, every call failed")
}

// Completions while OPEN are counted but decide nothing; the bucket they
// filled is the one a close zeroes.
func TestBreakerCompletionsWhileOpen(t *testing.T) {
	b := newBreaker(t, "circuit-breaker:strategy=error-count,threshold=1,min-requests=1,stat-interval=10s,recovery=1s")
	b.Complete(0, 0, true)
	b.Complete(0, 0, true)
	wantState(t, b, Open, "2 errors > 1")
	for i := 0; i < 5; i++ {
		b.Complete(0, 100*ms, true)
	}
	wantState(t, b, Open, "completions while OPEN")
	wantPass(t, b, time.Second, true, "probe")
	b.Complete(time.Second, time.Second, false)
	wantState(t, b, Closed, "probe ok")
	b.Complete(time.Second, time.Second, true)
	wantState(t, b, Closed, "one error after the reset, threshold 1")
	b.Complete(time.Second, time.Second, true)
	wantState(t, b, Open, "two errors after the reset")
}

func TestBreakerSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"circuit-breaker":                                                                                     "needs a strategy",
		"circuit-breaker:strategy=latency":                                                                    `unknown strategy "latency"`,
		"circuit-breaker:strategy=slow-ratio":                                                                 "needs max-rt",
		"circuit-breaker:strategy=slow-ratio,max-rt=100ms,threshold=1.5":                                      "between 0 and 1",
		"circuit-breaker:strategy=error-ratio,threshold=-0.1":                                                 "between 0 and 1",
		"circuit-breaker:strategy=error-ratio":                                                                "needs a threshold",
		"circuit-breaker:strategy=error-count,threshold=-1":                                                   "at least 0",
		"circuit-breaker:strategy=error-ratio,threshold=0.5,max-rt=100ms":                                     "max-rt applies to strategy=slow-ratio only",
		"circuit-breaker:strategy=error-count,threshold=5,recovery=1500ms":                                    "whole seconds",
		"circuit-breaker:strategy=error-count,threshold=5,recovery=0s":                                        "whole seconds",
		"circuit-breaker:strategy=error-count,threshold=5,min-requests=0":                                     "min-requests must be at least 1",
		"circuit-breaker:strategy=slow-ratio,max-rt=1.5ms":                                                    "whole milliseconds",
		"circuit-breaker:strategy=error-count,threshold=5,stat-interval=0s":                                   "whole milliseconds",
		"circuit-breaker:strategy=error-count,threshold=5+circuit-breaker:strategy=error-ratio,threshold=0.5": "2 circuit breakers",
		"circuit-breaker:strategy=error-count,threshold=5+leap-array:limit=10":                                "put it last",
		"leap-array:limit=10+":                                                                                "empty stage",
	} {
		_, err := New(spec, 100)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("New(%q) = %v, want one line containing %q", spec, err, want)
		}
	}
}

func TestChainSpecRoundTripsAndDecidesForOneCaller(t *testing.T) {
	l := mustNew(t, "leaky-bucket:limit=10+circuit-breaker:strategy=error-count,threshold=2", 0)
	want := "leaky-bucket:limit=10,interval=1s,max-queue=500ms+circuit-breaker:strategy=error-count,threshold=2,min-requests=5,stat-interval=1s,recovery=10s"
	if l.Spec() != want {
		t.Fatalf("Spec %q, want %q", l.Spec(), want)
	}
	if l.Rate() != 10 {
		t.Errorf("Rate %v, want the flow stage's 10", l.Rate())
	}
	// One caller, each request after the previous was admitted: the
	// leaky bucket paces at 100 ms, so arrivals 30 ms apart wait.
	got := decisions(l, []time.Duration{0, 30 * ms, 200 * ms})
	if got[0] != (Decision{Pass: true}) || got[1] != (Decision{Pass: true, Wait: 70 * ms}) || got[2] != (Decision{Pass: true}) {
		t.Fatalf("decisions %+v", got)
	}
}
