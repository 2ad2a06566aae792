package algorithms

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.uber.org/ratelimit"
)

// scriptedClock is a ratelimit.Clock whose time the test sets and whose
// Sleep only records the duration, so a Take never moves the clock.
type scriptedClock struct {
	now   time.Time
	slept time.Duration
}

func (c *scriptedClock) Now() time.Time        { return c.now }
func (c *scriptedClock) Sleep(d time.Duration) { c.slept += d }
func (c *scriptedClock) take(l ratelimit.Limiter, at time.Duration) time.Duration {
	c.now, c.slept = time.Unix(0, uberEpochNs+int64(at)), 0
	l.Take()
	return c.slept
}

// TestUberMatchesLibrary replays random traces (bursts, idle gaps, steps
// back) through the real go.uber.org/ratelimit v0.3.1 and the lab's port.
func TestUberMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	var waited int
	for _, tc := range []struct{ rate, slack int }{
		{1, 10}, {3, 0}, {10, 10}, {100, 10}, {100, 0}, {100, 1}, {333, 7}, {1000, 10}, {7000, 100}, {2_000_000_000, 10},
	} {
		for trial := range 4 {
			clock := &scriptedClock{}
			lib := ratelimit.New(tc.rate, ratelimit.WithSlack(tc.slack), ratelimit.WithClock(clock))
			l, err := NewUber(UberConfig{Rate: tc.rate, Slack: tc.slack})
			if err != nil {
				t.Fatal(err)
			}
			trace := jumpyTrace(rng, 3000, trial%2 == 0)
			if trial == 3 {
				trace = poissonTrace(rng, 2*float64(min(tc.rate, 5000)), 5*time.Second)
			}
			for i, at := range trace {
				want := clock.take(lib, at)
				got := l.Decide(at)
				if !got.Pass || got.Wait != want {
					t.Fatalf("rate %d slack %d, trial %d, arrival %d at %v: %+v, the library sleeps %v", tc.rate, tc.slack, trial, i, at, got, want)
				}
				if want > 0 {
					waited++
				}
			}
		}
	}
	if waited == 0 {
		t.Fatal("no Take ever slept: the traces do not exercise the limiter")
	}
}

func TestUberWorkedExample(t *testing.T) {
	// rate 10 (100 ms per request), slack 2. The first Take starts the
	// schedule at 0; the next two at 0 sleep 100 and 200 ms. After 1 s of
	// idling, the schedule restarts 200 ms (the slack) behind now, so
	// three requests at 1 s go at once and the fourth sleeps 100 ms.
	l := mustNew(t, "uber:rate=10,slack=2", 0)
	got := decisions(l, []time.Duration{0, 0, 0, time.Second, time.Second, time.Second, time.Second})
	want := []time.Duration{0, 100 * ms, 200 * ms, 0, 0, 0, 100 * ms}
	for i := range want {
		if !got[i].Pass || got[i].Wait != want[i] {
			t.Errorf("request %d: %+v, want a pass after %v", i, got[i], want[i])
		}
	}
	// Clock back: the next permission stays at 1.1 s, so a Take at 0.5 s
	// sleeps 700 ms (until 1.2 s).
	if d := l.Decide(500 * ms); d.Wait != 700*ms {
		t.Errorf("after stepping back to 0.5 s: %+v, want a wait of 700ms", d)
	}
}

func TestUberErrors(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		limit float64
		want  string
	}{
		{"uber:rate=0", 0, "rate must be a whole number ≥ 1, got 0"},
		{"uber:rate=2.5", 0, "rate must be a whole number ≥ 1, got 2.5"},
		{"uber", 2.5, "rate must be a whole number ≥ 1, got 2.5"},
		{"uber:rate=10,slack=-1", 0, "slack must be ≥ 0"},
		{"uber:rate=10,slack=x", 0, `slack "x" is not a whole number`},
	} {
		_, err := New(tc.spec, tc.limit)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}
