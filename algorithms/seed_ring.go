package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// maxRingBuckets bounds the buckets of seed-ring and decaying-window, so
// a spec cannot ask for gigabytes of state (8 MB at most).
const maxRingBuckets = 1_000_000

// SeedRingConfig configures a SeedRing.
type SeedRingConfig struct {
	// Limit: a request passes while the ring's total is below it.
	Limit float64
	// Window is the window, whole milliseconds (window_ms).
	Window time.Duration
	// Buckets is the number of buckets (bucket_count); the bucket length
	// is ⌊window_ms / buckets⌋ ms, which must be at least 1.
	Buckets int
}

// SeedRing is the in-memory SlidingWindowRateLimiter printed in seed 002
// §3.1: a ring of bucket_count counters of bucket_ms = ⌊window_ms /
// bucket_count⌋ ms each, a running total, the index of the current bucket
// and the millisecond its bucket started, first the limiter's creation at
// virtual time 0. On each call the clock (virtual time floored to whole
// ms) advances the ring: when at least bucket_ms have passed since the
// current bucket started, steps = ⌊elapsed / bucket_ms⌋, clamped to
// bucket_count; the next steps buckets are subtracted from the total and
// zeroed, the current index moves steps forward and the bucket start moves
// steps·bucket_ms forward. A request passes iff total < limit, and a pass
// adds one to the total and to the current bucket.
//
// The clamp makes the ring fall behind after an idle gap longer than the
// window: the start moves at most bucket_count·bucket_ms per call, so each
// following call wipes the whole ring again until the start has caught up
// with the clock, where the article's prose promises a single reset. Each
// of those calls passes (the total was just zeroed). With buckets that do
// not divide the window, the ring covers only bucket_count·bucket_ms.
//
// When the clock steps back, elapsed is below bucket_ms, so nothing moves
// and the request is judged and counted in the current bucket.
type SeedRing struct {
	cfg      SeedRingConfig
	bucketMs int64
	start    int64 // current_bucket_start, ms since creation
	index    int
	total    int64
	buckets  []int64
}

// NewSeedRing validates c and builds the limiter.
func NewSeedRing(c SeedRingConfig) (*SeedRing, error) {
	const name = "seed-ring"
	if err := positiveLimit(name, "limit", c.Limit); err != nil {
		return nil, err
	}
	if c.Window <= 0 || c.Window%time.Millisecond != 0 {
		return nil, fmt.Errorf("%s: window must be positive whole milliseconds, got %v (the seed's window_ms is an int)", name, c.Window)
	}
	if c.Buckets < 1 || c.Buckets > maxRingBuckets {
		return nil, fmt.Errorf("%s: buckets must be between 1 and %d, got %d", name, maxRingBuckets, c.Buckets)
	}
	wms := int64(c.Window / time.Millisecond)
	bms := wms / int64(c.Buckets)
	if bms == 0 {
		return nil, fmt.Errorf("%s: bucket_ms = window_ms // buckets = %d // %d is 0 ms, and the seed's code divides by it; use at most %d buckets or a longer window", name, wms, c.Buckets, wms)
	}
	return &SeedRing{cfg: c, bucketMs: bms, buckets: make([]int64, c.Buckets)}, nil
}

// Decide implements Limiter.
func (r *SeedRing) Decide(now time.Duration) Decision { return r.Check(now) }

// Check implements Stage: allow(), which counts the pass while deciding.
func (r *SeedRing) Check(now time.Duration) Decision {
	r.advance(floorMs(now))
	if float64(r.total) < r.cfg.Limit {
		r.total++
		r.buckets[r.index]++
		return Decision{Pass: true}
	}
	return Decision{}
}

// Record implements Stage; allow() has already counted the pass.
func (r *SeedRing) Record(time.Duration) {}

// advance is _advance.
func (r *SeedRing) advance(now int64) {
	elapsed := now - r.start
	if elapsed < r.bucketMs {
		return
	}
	steps := elapsed / r.bucketMs
	n := len(r.buckets)
	if steps >= int64(n) {
		// Zeroing n consecutive buckets of the ring zeroes all of them,
		// and the index comes back to where it was.
		steps = int64(n)
		if r.total != 0 {
			clear(r.buckets)
			r.total = 0
		}
	} else {
		for i := range int(steps) {
			idx := (r.index + 1 + i) % n
			r.total -= r.buckets[idx]
			r.buckets[idx] = 0
		}
		r.index = (r.index + int(steps)) % n
	}
	r.start += r.bucketMs * steps
}

// Spec implements Limiter.
func (r *SeedRing) Spec() string {
	return fmt.Sprintf("seed-ring:limit=%s,window=%s,buckets=%d", formatFloat(r.cfg.Limit), FormatDuration(r.cfg.Window), r.cfg.Buckets)
}

// Rate implements Limiter.
func (r *SeedRing) Rate() float64 { return r.cfg.Limit / r.cfg.Window.Seconds() }

// StateBytes implements Limiter.
func (r *SeedRing) StateBytes() int {
	return int(unsafe.Sizeof(*r)) + 8*len(r.buckets)
}
