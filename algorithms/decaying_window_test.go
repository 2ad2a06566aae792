package algorithms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// decayingBruteForce is the decaying window's definition as a brute-force
// sum: every pass is kept with its bucket; the weighted count at t counts
// them per bucket by a scan of all passes, then sums the buckets in the
// documented order (bucket j with weight 1, then j−1 down to j−buckets+1
// with exp(−age_ms/decay_ms)). A bucket more than buckets−1 behind the
// newest bucket J reached so far is forgotten: its passes do not count,
// and a pass that lands in it is not kept.
func decayingBruteForce(limit float64, window time.Duration, buckets int, decay time.Duration, trace []time.Duration) []bool {
	b := int64(window) / int64(buckets)
	n := int64(buckets)
	var passes []int64 // bucket of every counted pass
	var J int64
	seen := false
	out := make([]bool, len(trace))
	for k, t := range trace {
		j := int64(t) / b
		if int64(t)%b < 0 {
			j--
		}
		if !seen || j > J {
			J, seen = j, true
		}
		count := func(i int64) int64 {
			if i <= J-n {
				return 0
			}
			var c int64
			for _, p := range passes {
				if p == i {
					c++
				}
			}
			return c
		}
		w := float64(count(j))
		for i := j - 1; i >= j-n+1; i-- {
			if c := count(i); c > 0 {
				age := float64(int64(t)-(i+1)*b) / 1e6
				w += float64(float64(c) * math.Exp(-age/(float64(decay)/1e6)))
			}
		}
		if w+1 <= limit {
			out[k] = true
			if j > J-n {
				passes = append(passes, j)
			}
		}
	}
	return out
}

func TestDecayingWindowMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	var passed, total int
	for _, tc := range []struct {
		limit   float64
		window  time.Duration
		buckets int
		decay   time.Duration
	}{
		{10, time.Second, 10, 500 * ms}, {10, time.Second, 1, 500 * ms}, {3.5, 100 * ms, 4, 20 * ms},
		{50, time.Second, 100, 200 * ms}, {5, 2 * time.Second, 8, 3 * time.Second}, {1, time.Second, 2, time.Microsecond},
	} {
		for trial := range 4 {
			l, err := NewDecayingWindow(DecayingWindowConfig{Limit: tc.limit, Window: tc.window, Buckets: tc.buckets, Decay: tc.decay})
			if err != nil {
				t.Fatal(err)
			}
			trace := jumpyTrace(rng, 700, trial%2 == 0)
			if trial == 3 {
				p := poissonTrace(rng, 3*tc.limit/tc.window.Seconds(), 10*time.Second)
				trace = p[:min(800, len(p))]
			}
			want := decayingBruteForce(tc.limit, tc.window, tc.buckets, tc.decay, trace)
			for i, at := range trace {
				if got := l.Decide(at).Pass; got != want[i] {
					t.Fatalf("%+v trial %d, arrival %d at %v: pass=%v, the brute-force sum says %v", tc, trial, i, at, got, want[i])
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

func TestDecayingWindowWorkedExample(t *testing.T) {
	// limit 10, 10 buckets of 100 ms, decay 500 ms. Ten passes at 0 fill
	// bucket 0. At 150 ms bucket 0 weighs 10·e^(−50/500) = 9.05: blocked.
	// At 600 ms it weighs 10·e^(−500/500) = 3.68, so 6 pass (3.68 + 6 ≤
	// 10 − 1 + 1 for the sixth, 3.68 + 6 + 1 > 10 for the seventh).
	l := mustNew(t, "decaying-window:limit=10", 0)
	first := countPasses(l, make([]time.Duration, 12))
	at150 := countPasses(l, []time.Duration{150 * ms})
	burst := make([]time.Duration, 10)
	for i := range burst {
		burst[i] = 600 * ms
	}
	at600 := countPasses(l, burst)
	if first != 10 || at150 != 0 || at600 != 6 {
		t.Errorf("passes %d at 0, %d at 150 ms, %d at 600 ms; want 10, 0, 6", first, at150, at600)
	}
	// At 1 s bucket 0 has left the window: only bucket 6 (6 passes, end
	// 700 ms) weighs 6·e^(−300/500) = 3.29, so 6 more pass.
	for i := range burst {
		burst[i] = time.Second
	}
	if n := countPasses(l, burst); n != 6 {
		t.Errorf("at 1 s: %d passed, want 6", n)
	}
}

func TestDecayingWindowErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"decaying-window:limit=0", "limit must be a positive number, got 0"},
		{"decaying-window:buckets=3", "buckets 3 does not divide window 1s"},
		{"decaying-window:window=1s,buckets=7", "buckets 7 does not divide window 1s"},
		{"decaying-window:buckets=0", "buckets must be between 1 and 1000000, got 0"},
		{"decaying-window:decay=0s", "decay must be positive"},
		{"decaying-window:window=-1s", "window must be positive"},
	} {
		if _, err := New(tc.spec, 10); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}

// TestDecayingWindowTies puts the limit exactly at the defined weighted
// count + 1 (a pass) and one ulp below it (a block), at random states:
// the one-exp estimate cannot tell these apart, so they exercise the
// exact sum behind it.
func TestDecayingWindowTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	checked := 0
	for _, spec := range []string{"decaying-window:limit=1e9", "decaying-window:limit=1e9,buckets=100,decay=50ms", "decaying-window:limit=1e9,window=2s,buckets=8,decay=3s"} {
		l := mustNew(t, spec, 0).(*DecayingWindow)
		for i, at := range jumpyTrace(rng, 3000, false) {
			l.Decide(at)
			if i%7 != 0 {
				continue
			}
			j := l.advance(at)
			n := int64(len(l.counts))
			lo := max(j-n+1, l.newest-n+1)
			if j < lo {
				continue
			}
			w := l.exact(at, j, lo)
			saved := l.cfg.Limit
			l.cfg.Limit = w + 1
			if !l.Check(at).Pass {
				t.Fatalf("%s at %v: weighted count %v + 1 equals the limit, but Check blocks", spec, at, w)
			}
			l.cfg.Limit = math.Nextafter(w+1, 0)
			if l.Check(at).Pass {
				t.Fatalf("%s at %v: weighted count %v + 1 is one ulp above the limit, but Check passes", spec, at, w)
			}
			l.cfg.Limit = saved
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d states checked", checked)
	}
}
