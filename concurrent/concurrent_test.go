package concurrent

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock advances by step on every reading, so that time moves with the
// work done and not with the machine's speed.
func fakeClock(step int64) Clock {
	var t atomic.Int64
	return func() int64 { return t.Add(step) }
}

// hammer runs g goroutines calling Allow n times each and returns the
// recorded times of the passes.
func hammer(l Limiter, g, n int) []int64 {
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []int64
			for range n {
				if ok, at := l.Allow(); ok {
					mine = append(mine, at)
				}
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}

func cfg(limit int, window time.Duration, n int, clock Clock) Config {
	return Config{Limit: limit, Window: window, SampleCount: n, Clock: clock}
}

// TestEveryImplementationCountsItsDecisions hammers each implementation
// for a short time on the wall clock (run it with -race): the decisions the
// goroutines saw equal the limiter's own calls, passes and blocks.
func TestEveryImplementationCountsItsDecisions(t *testing.T) {
	for _, im := range Impls {
		t.Run(im.Name, func(t *testing.T) {
			bc := BenchConfig{Config: cfg(50, 10*time.Millisecond, 2, nil), Goroutines: 8, Duration: 30 * time.Millisecond}
			r, err := Bench(context.Background(), im, bc)
			if err != nil {
				t.Fatal(err)
			}
			if r.Decisions == 0 || r.Passes == 0 || r.Passes+r.Blocks != r.Decisions {
				t.Fatalf("decisions %d, passes %d, blocks %d", r.Decisions, r.Passes, r.Blocks)
			}
			if r.MaxWindowPassed < 1 || r.MaxWindowPassed > r.Passes || r.MaxAlignedPassed > r.MaxWindowPassed*2 || r.MaxAlignedPassed < 1 {
				t.Errorf("max window %d with %d passes", r.MaxWindowPassed, r.Passes)
			}
			if r.P50 > r.P99 || r.P99 > r.Max || r.Decisions < int64(bc.Goroutines) {
				t.Errorf("latencies p50 %v p99 %v max %v", r.P50, r.P99, r.Max)
			}
			// A fresh limiter hammered without Bench: its totals, where it
			// keeps them, add up to the calls made.
			l := im.New(cfg(50, 10*time.Millisecond, 2, WallClock()))
			passes := hammer(l, 8, 500)
			c := l.Counters()
			keeps := im.Name == "sentinel-ring" || im.Name == "mutex-ring"
			if keeps && (c.Calls != 8*500 || c.Passes+c.Blocks != c.Calls || c.Passes != int64(len(passes))) {
				t.Errorf("counters %+v after 4000 calls with %d passes", c, len(passes))
			}
			if !keeps && (c.Calls != 0 || c.Passes != 0) {
				t.Errorf("counters %+v from a design without totals", c)
			}
			if len(passes) == 0 {
				t.Error("nothing passed")
			}
		})
	}
}

// TestOneStepDesignsNeverExceedTheLimit hammers the mutex ring and the
// atomic fixed window with 64 goroutines on a fake clock and checks every
// window of their own definition by the recorded pass times.
func TestOneStepDesignsNeverExceedTheLimit(t *testing.T) {
	const limit = 7
	window := 10 * time.Millisecond
	for _, step := range []int64{1_000, 20_000, 300_000} {
		fw := hammer(NewAtomicFixedWindow(cfg(limit, window, 1, fakeClock(step))), 64, 300)
		perWindow := map[int64]int{}
		for _, at := range fw {
			perWindow[at/int64(window)]++
		}
		for k, n := range perWindow {
			if n > limit {
				t.Errorf("atomic-fixed-window, step %dns: %d passes in window %d", step, n, k)
			}
		}
		if len(perWindow) < 2 {
			t.Errorf("atomic-fixed-window, step %dns: only %d windows exercised", step, len(perWindow))
		}

		for _, n := range []int{1, 2, 5} {
			ring := hammer(NewMutexRing(cfg(limit, window, n, fakeClock(step))), 64, 300)
			w := int64(window/time.Millisecond) / int64(n)
			// At a pass at ms t the ring counted the buckets b(t)−n+1 … b(t).
			for _, at := range ring {
				b := at / 1e6 / w
				in := 0
				for _, o := range ring {
					if ob := o / 1e6 / w; ob > b-int64(n) && ob <= b && o <= at {
						in++
					}
				}
				if in > limit {
					t.Fatalf("mutex-ring n=%d, step %dns: %d passes in the window ending at %dns", n, step, in, at)
				}
			}
			if len(ring) == 0 {
				t.Fatalf("mutex-ring n=%d: nothing passed", n)
			}
		}
	}
}

// TestSentinelRingCountersAddUp freezes the clock so that no bucket is ever
// reset: after 64 goroutines are done, the buckets hold every decision
// (passes + blocks = calls), the ring's totals agree, and the passes are at
// least the limit and at most the limit plus one in flight per other
// goroutine (the check-then-add race, bounded).
func TestSentinelRingCountersAddUp(t *testing.T) {
	const limit, g, n = 20, 64, 200
	r := NewSentinelRing(cfg(limit, time.Second, 2, func() int64 { return 5e8 }))
	passes := hammer(r, g, n)
	c := r.Counters()
	bp, bb := r.bucketSums()
	if c.Calls != g*n || c.Passes+c.Blocks != c.Calls || bp != c.Passes || bb != c.Blocks || int64(len(passes)) != c.Passes {
		t.Fatalf("counters %+v, buckets pass %d block %d, %d passes seen", c, bp, bb, len(passes))
	}
	if c.Passes < limit || c.Passes > limit+g-1 {
		t.Errorf("%d passes, want between %d and %d", c.Passes, limit, limit+g-1)
	}
	if c.LockMisses != 0 {
		t.Errorf("%d lock misses with a frozen clock (no bucket to reset)", c.LockMisses)
	}

	// On a moving fake clock the totals still add up, and every path of
	// currentWindow runs.
	r = NewSentinelRing(cfg(limit, 10*time.Millisecond, 2, fakeClock(3_000)))
	passes = hammer(r, g, n)
	c = r.Counters()
	if c.Calls != g*n || c.Passes+c.Blocks != c.Calls || int64(len(passes)) != c.Passes {
		t.Fatalf("moving clock: counters %+v, %d passes seen", c, len(passes))
	}
}

// TestSentinelRingIsTheLabsLeapArrayAlone checks that one goroutine gets
// the single-threaded decisions: limit passes per window of one bucket.
func TestSentinelRingIsTheLabsLeapArrayAlone(t *testing.T) {
	for _, im := range Impls[:3] {
		l := im.New(cfg(5, 10*time.Millisecond, 1, fakeClock(100_000))) // 0.1 ms per reading
		perWindow := map[int64]int{}
		for range 1000 {
			if ok, at := l.Allow(); ok {
				perWindow[at/1e7]++
			}
		}
		var last int64
		for k := range perWindow {
			last = max(last, k)
		}
		if len(perWindow) < 5 {
			t.Errorf("%s: only %d windows", im.Name, len(perWindow))
		}
		for k, n := range perWindow {
			if n != 5 && k != last {
				t.Errorf("%s: %d passes in window %d, want 5", im.Name, n, k)
			}
		}
	}
}

func TestMaxInWindow(t *testing.T) {
	for _, tc := range []struct {
		times []int64
		w     int64
		want  int64
	}{
		{nil, 10, 0},
		{[]int64{5}, 10, 1},
		{[]int64{0, 10, 20}, 10, 1},     // (t−10, t] excludes t−10
		{[]int64{0, 9, 10, 19}, 10, 2},  // {0,9}, {10,19}
		{[]int64{19, 0, 10, 11}, 10, 3}, // unsorted: {10,11,19}
		{[]int64{3, 3, 3, 12}, 10, 4},
	} {
		if got := MaxInWindow(append([]int64(nil), tc.times...), tc.w); got != tc.want {
			t.Errorf("MaxInWindow(%v, %d) = %d, want %d", tc.times, tc.w, got, tc.want)
		}
	}
	// Against the brute force on random times.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ts := make([]int64, rng.IntN(50))
		for i := range ts {
			ts[i] = rng.Int64N(100)
		}
		w := 1 + rng.Int64N(30)
		var want int64
		for _, t := range ts {
			var n int64
			for _, o := range ts {
				if o > t-w && o <= t {
					n++
				}
			}
			want = max(want, n)
		}
		var aligned int64
		for _, t := range ts {
			var n int64
			for _, o := range ts {
				if o/w == t/w {
					n++
				}
			}
			aligned = max(aligned, n)
		}
		if got := MaxInAligned(ts, w); got != aligned {
			t.Fatalf("MaxInAligned(%v, %d) = %d, want %d", ts, w, got, aligned)
		}
		if got := MaxInWindow(append([]int64(nil), ts...), w); got != want {
			t.Fatalf("MaxInWindow(%v, %d) = %d, want %d", ts, w, got, want)
		}
	}
}

func TestLatencyHistogram(t *testing.T) {
	var h latencyHist
	for v := int64(1); v <= 1000; v++ {
		h.add(v * 1000)
	}
	for _, tc := range []struct {
		q    float64
		want int64
	}{{0.5, 500_000}, {0.99, 990_000}} {
		got := int64(h.quantile(tc.q))
		if got > tc.want || float64(tc.want-got) > float64(tc.want)/32 {
			t.Errorf("quantile %v = %d, want within 1/32 below %d", tc.q, got, tc.want)
		}
	}
	if h.max != 1_000_000 || h.count != 1000 {
		t.Errorf("max %d count %d", h.max, h.count)
	}
	for _, v := range []int64{0, 1, 63, 64, 65, 100, 1 << 20, 1<<62 + 12345} {
		i := histIndex(v)
		if lo := histLow(i); lo > v || (i+1 < len(h.n) && histLow(i+1) <= v) {
			t.Errorf("value %d in bucket %d [%d, %d)", v, i, lo, histLow(i+1))
		}
	}
}

func TestBenchConfigErrors(t *testing.T) {
	ok := BenchConfig{Config: cfg(100, 100*time.Millisecond, 2, nil), Goroutines: 1, Duration: time.Second}
	for _, tc := range []struct {
		mut  func(*BenchConfig)
		want string
	}{
		{func(c *BenchConfig) { c.Goroutines = 0 }, "--goroutines must be between 1 and 100000, got 0"},
		{func(c *BenchConfig) { c.Goroutines = MaxGoroutines + 1 }, "--goroutines must be between 1 and 100000, got 100001"},
		{func(c *BenchConfig) { c.SampleCount = 0 }, "--sample-count must be between 1 and 100000, got 0"},
		{func(c *BenchConfig) { c.Window = time.Hour; c.SampleCount = MaxSampleCount * 2 }, "--sample-count must be between 1 and 100000, got 200000"},
		{func(c *BenchConfig) { c.Duration = 0 }, "--duration must be positive, got 0s"},
		{func(c *BenchConfig) { c.Limit = 0 }, "--limit must be between 1"},
		{func(c *BenchConfig) { c.Window = 1500 * time.Microsecond }, "--window must be a positive whole number of milliseconds"},
		{func(c *BenchConfig) { c.SampleCount = 3 }, "--sample-count 3 does not divide --window 100ms"},
		{func(c *BenchConfig) { c.Limit = 1 << 23; c.Duration = time.Minute }, "lower --limit or --duration"},
	} {
		c := ok
		tc.mut(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want one line containing %q", err, tc.want)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	if _, err := Lookup("sentinel-rign"); err == nil || !strings.Contains(err.Error(), `did you mean "sentinel-ring"`) {
		t.Errorf("Lookup typo: %v", err)
	}
}

// BenchmarkAllow reports ns per decision of each implementation under
// b.RunParallel (GOMAXPROCS goroutines) on the wall clock.
func BenchmarkAllow(b *testing.B) {
	for _, im := range Impls {
		b.Run(im.Name, func(b *testing.B) {
			l := im.New(cfg(1000, 100*time.Millisecond, 2, WallClock()))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					l.Allow()
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
		})
	}
}
