package algorithms

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// swcDefinition is the definition of the sliding-window counter,
// written out plainly: every pass is kept in a map by window, K is the
// newest window any arrival reached.
func swcDefinition(limit float64, window time.Duration, trace []time.Duration) []bool {
	counts := map[int64]int64{}
	var K int64
	seen := false
	out := make([]bool, len(trace))
	for i, t := range trace {
		k := int64(t) / int64(window)
		if int64(t)%int64(window) < 0 {
			k--
		}
		if !seen || k > K {
			K, seen = k, true
		}
		if k < K {
			out[i] = float64(counts[K]) < limit
			continue // counted nowhere
		}
		estimate := float64(counts[k-1])*float64(int64(window)-(int64(t)-k*int64(window)))/float64(window) + float64(counts[k])
		if estimate+1 <= limit {
			out[i] = true
			counts[k]++
		}
	}
	return out
}

func TestSlidingWindowCounterMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	var passed, total int
	for _, tc := range []struct {
		limit  float64
		window time.Duration
	}{{10, time.Second}, {3, 100 * ms}, {2.5, 250 * ms}, {100, time.Second}, {1, 3 * time.Second}, {7, 333333333}} {
		for trial := range 6 {
			l, err := NewSlidingWindowCounter(SlidingWindowCounterConfig{Limit: tc.limit, Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			trace := jumpyTrace(rng, 3000, trial%2 == 0)
			if trial == 5 {
				trace = poissonTrace(rng, 3*tc.limit/tc.window.Seconds(), 20*tc.window)
			}
			want := swcDefinition(tc.limit, tc.window, trace)
			for i, at := range trace {
				if got := l.Decide(at).Pass; got != want[i] {
					t.Fatalf("limit %v window %v trial %d, arrival %d at %v: pass=%v, the definition says %v", tc.limit, tc.window, trial, i, at, got, want[i])
				}
				if want[i] {
					passed++
				}
				total++
			}
		}
	}
	if passed == 0 || passed == total {
		t.Fatalf("%d of %d passed: the traces do not exercise the limiter", passed, total)
	}
}

func TestSlidingWindowCounterWorkedExample(t *testing.T) {
	// limit 10, window 1 s. Ten passes at 0–900 ms fill window 0. At
	// 1.5 s the estimate is 10·0.5 + 0 = 5: five pass (5 + 4 + 1 ≤ 10),
	// the sixth is blocked (5 + 5 + 1 > 10). At 1.8 s the estimate is
	// 10·0.2 + 5 = 7: three more pass.
	l := mustNew(t, "sliding-window-counter:limit=10", 0)
	n := countPasses(l, spread(10, 0, time.Second))
	at15 := countPasses(l, []time.Duration{1500 * ms, 1500 * ms, 1500 * ms, 1500 * ms, 1500 * ms, 1500 * ms})
	at18 := countPasses(l, []time.Duration{1800 * ms, 1800 * ms, 1800 * ms, 1800 * ms, 1800 * ms})
	if n != 10 || at15 != 5 || at18 != 3 {
		t.Errorf("passes: %d in window 0, %d at 1.5 s, %d at 1.8 s; want 10, 5, 3", n, at15, at18)
	}
	// Clock back into window 0: window 1 holds 8 < 10, so it passes and
	// is counted nowhere; window 1 still admits up to the estimate.
	if !l.Decide(900 * ms).Pass {
		t.Error("step back into window 0: blocked, want a pass (newest window's count 8 < 10)")
	}
	if got := countPasses(l, []time.Duration{1999 * ms, 1999 * ms, 1999 * ms}); got != 1 {
		t.Errorf("at 1.999 s: %d passed, want 1 (10·0.001 + 8 = 8.01; 9.01 + 1 > 10 for the second)", got)
	}
}

func TestSlidingWindowCounterErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"sliding-window-counter:limit=0", "limit must be a positive number, got 0"},
		{"sliding-window-counter:window=0s", "window must be positive"},
	} {
		if _, err := New(tc.spec, 10); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}
