package algorithms

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// seedRingPort is seed 002 §3.1's SlidingWindowRateLimiter ported line by
// line (with the issue's reading of the operators the crawl lost), on a
// millisecond clock that reads floor(t) and starts at 0 when the limiter
// is created. Python's int(elapsed / bucket_ms) equals elapsed //
// bucket_ms for every elapsed a time.Duration can hold (below 2^52 ms).
type seedRingPort struct {
	limit                float64
	windowMs, bucketMs   int64
	bucketCount          int64
	buckets              []int64
	total                int64
	currentBucketIndex   int64
	currentBucketStartMs int64
}

func newSeedRingPort(limit float64, windowMs, bucketCount int64) *seedRingPort {
	return &seedRingPort{limit: limit, windowMs: windowMs, bucketCount: bucketCount,
		bucketMs: windowMs / bucketCount, buckets: make([]int64, bucketCount)}
}

func (s *seedRingPort) advance(nowMs int64) {
	elapsed := nowMs - s.currentBucketStartMs
	if elapsed < s.bucketMs {
		return
	}
	steps := elapsed / s.bucketMs
	if steps > s.bucketCount {
		steps = s.bucketCount
	}
	for i := int64(0); i < steps; i++ {
		idx := (s.currentBucketIndex + 1 + i) % s.bucketCount
		s.total -= s.buckets[idx]
		s.buckets[idx] = 0
	}
	if steps > 0 {
		s.currentBucketIndex = (s.currentBucketIndex + steps) % s.bucketCount
		s.currentBucketStartMs += s.bucketMs * steps
	}
}

func (s *seedRingPort) allow(now time.Duration) bool {
	s.advance(floorMs(now))
	if float64(s.total) < s.limit {
		s.total++
		s.buckets[s.currentBucketIndex]++
		return true
	}
	return false
}

func TestSeedRingMatchesPrintedCode(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 17))
	var passed, total int
	for _, tc := range []struct {
		limit    float64
		windowMs int64
		buckets  int
	}{{10, 1000, 100}, {10, 1000, 10}, {3, 100, 7}, {100, 1000, 100}, {2.5, 1000, 3}, {5, 1000, 1000}, {50, 2000, 1}, {20, 999, 10}} {
		for trial := range 6 {
			l, err := NewSeedRing(SeedRingConfig{Limit: tc.limit, Window: time.Duration(tc.windowMs) * ms, Buckets: tc.buckets})
			if err != nil {
				t.Fatal(err)
			}
			ref := newSeedRingPort(tc.limit, tc.windowMs, int64(tc.buckets))
			trace := jumpyTrace(rng, 3000, trial%2 == 0)
			if trial == 5 {
				trace = poissonTrace(rng, 3*tc.limit*1000/float64(tc.windowMs), 30*time.Second)
			}
			for i, at := range trace {
				got, want := l.Decide(at).Pass, ref.allow(at)
				if got != want {
					t.Fatalf("%+v trial %d, arrival %d at %v: pass=%v, the seed's code says %v", tc, trial, i, at, got, want)
				}
				if got {
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

// TestSeedRingRewipesAfterIdleGap pins the clamp: after an idle gap of
// 5 s (5 windows), the ring's start moves at most one window per call,
// so the next calls each wipe the ring and pass.
func TestSeedRingRewipesAfterIdleGap(t *testing.T) {
	l := mustNew(t, "seed-ring:limit=3,window=1s,buckets=10", 0)
	if got := countPasses(l, []time.Duration{0, 0, 0, 0}); got != 3 {
		t.Fatalf("at 0: %d passed, want 3", got)
	}
	// At 5.05 s the start is at 0: elapsed 5050 ms is 50 steps, clamped
	// to 10, so the start moves to 1 s, 2 s, 3 s, 4 s on four calls, each
	// wiping the ring. The fifth call finds elapsed 1050 ms = 10 steps
	// and wipes once more, then the ring is current (start 5 s).
	burst := make([]time.Duration, 10)
	for i := range burst {
		burst[i] = 5050 * ms
	}
	got := decisions(l, burst)
	want := []bool{true, true, true, true, true, true, true, false, false, false}
	for i := range want {
		if got[i].Pass != want[i] {
			t.Errorf("request %d at 5.05 s: pass=%v, want %v", i, got[i].Pass, want[i])
		}
	}
	// The prose's single reset would pass 3 here, as a ring that moves to
	// the current bucket at once does (leap-array with 10 buckets).
	if n := countPasses(mustNew(t, "leap-array:limit=3,sample-count=10", 0), concat([]time.Duration{0, 0, 0, 0}, burst)); n != 6 {
		t.Errorf("leap-array passed %d, want 3 + 3", n)
	}
}

func TestSeedRingClockBack(t *testing.T) {
	// limit 2, 10 buckets of 100 ms. Passes at 1.05 s and 1.15 s. Back at
	// 0.5 s elapsed is negative: nothing moves and the ring is full, so
	// it is blocked. At 2.06 s the bucket of 1.05 s has left the window.
	l := mustNew(t, "seed-ring:limit=2,window=1s,buckets=10", 0)
	got := decisions(l, []time.Duration{1050 * ms, 1150 * ms, 500 * ms, 2060 * ms, 2070 * ms})
	want := []bool{true, true, false, true, false}
	for i := range want {
		if got[i].Pass != want[i] {
			t.Errorf("request %d: pass=%v, want %v", i, got[i].Pass, want[i])
		}
	}
}

func TestSeedRingErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"seed-ring:limit=0", "limit must be a positive number, got 0"},
		{"seed-ring:window=50ms,buckets=100", "bucket_ms = window_ms // buckets = 50 // 100 is 0 ms"},
		{"seed-ring:buckets=0", "buckets must be between 1 and 1000000, got 0"},
		{"seed-ring:window=1500us", "window must be positive whole milliseconds"},
	} {
		if _, err := New(tc.spec, 10); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
	// Buckets that do not divide the window are accepted, as printed.
	if _, err := New("seed-ring:window=1s,buckets=7", 10); err != nil {
		t.Errorf("buckets=7 of 1 s: %v, want it accepted (bucket_ms 142)", err)
	}
}
