package algorithms

import (
	"fmt"
	"math"
	"math/bits"
	"time"
	"unsafe"
)

// Bucket4jConfig configures a Bucket4j limiter.
type Bucket4jConfig struct {
	// Capacity is the bandwidth's capacity; the bucket starts full.
	Capacity int64
	// RefillTokens per RefillPeriod.
	RefillTokens int64
	RefillPeriod time.Duration
	// Intervally selects refillIntervally (whole refills at creation +
	// k·period); false is refillGreedy.
	Intervally bool
	// Nanos selects TimeMeter.SYSTEM_NANOTIME; false is the default
	// SYSTEM_MILLISECONDS (time in whole ms).
	Nanos bool
}

// Bucket4j is a Bucket4j 8 local bucket (Bucket.builder().addLimit(one
// bandwidth).build(): LockFreeBucket over BucketState64BitsInteger) asked
// tryConsume(cost) for each request.
//
// The state is the last refill time, the tokens and a rounding error in
// token·nanoseconds. Before each decision the bandwidth refills:
//
//   - greedy: elapsed whole periods add refillTokens each; the rest adds
//     ⌊(refillTokens·rest + roundingError)/period⌋ tokens and keeps the
//     remainder as the new rounding error, so no fraction of a token is
//     lost; a full bucket refills nothing (its rounding error stays).
//   - intervally: the time since the last refill is cut down to whole
//     periods, so tokens arrive only at creation + k·period.
//
// A request passes iff cost ≤ tokens, and takes them; a refused request
// stores nothing, not even its refill (LockFreeBucket refills a copy and
// keeps it only with a consumption), which shows after a clock step back.
// Time is
// TimeMeter.SYSTEM_MILLISECONDS by default: whole milliseconds (of the
// lab's epoch + t, only differences matter) times 10^6; clock=nanos reads
// every nanosecond. The overflow fallbacks (to double arithmetic) are
// Bucket4j's.
type Bucket4j struct {
	bucket4jState
	cfg *Bucket4jConfig
}

// bucket4jState is what changes in a Bucket4j: the last refill time, the
// tokens and the rounding error. A per-key bucket4j keeps only this per
// key (24 bytes) and the configuration once.
type bucket4jState struct {
	lastRefill    int64
	size          int64
	roundingError int64
}

// NewBucket4j validates c and builds the limiter.
func NewBucket4j(c Bucket4jConfig) (*Bucket4j, error) {
	switch {
	case c.Capacity < 1:
		return nil, fmt.Errorf("bucket4j: capacity must be at least 1, got %d", c.Capacity)
	case c.RefillTokens < 1:
		return nil, fmt.Errorf("bucket4j: refill-tokens must be at least 1, got %d", c.RefillTokens)
	case c.RefillPeriod < time.Nanosecond:
		return nil, fmt.Errorf("bucket4j: refill-period must be positive, got %v", c.RefillPeriod)
	}
	cfg := c
	return &Bucket4j{bucket4jState: cfg.fresh(), cfg: &cfg}, nil
}

// fresh is a full bucket created at t = 0.
func (c *Bucket4jConfig) fresh() bucket4jState {
	return bucket4jState{size: c.Capacity, lastRefill: c.nanos(0)}
}

// nanos is the time meter's reading at virtual time t.
func (c *Bucket4jConfig) nanos(t time.Duration) int64 {
	if c.Nanos {
		return int64(t)
	}
	return floorMs(t) * 1_000_000
}

// Decide implements Limiter: tryConsume(1).
func (b *Bucket4j) Decide(now time.Duration) Decision { return b.tryConsume(now, 1, b.cfg) }

// DecideRequest implements RequestLimiter: tryConsume(cost).
func (b *Bucket4j) DecideRequest(now time.Duration, r *Request) Decision {
	c := int64(r.Cost)
	if c < 1 {
		c = 1
	}
	return b.tryConsume(now, c, b.cfg)
}

// Check implements Stage: tryConsume takes the tokens while deciding.
func (b *Bucket4j) Check(now time.Duration) Decision { return b.tryConsume(now, 1, b.cfg) }

// Record implements Stage; the tokens are already taken.
func (b *Bucket4j) Record(time.Duration) {}

// tryConsume is tryConsume(tokens) on b with configuration c; the
// single-key limiter and the per-key table both decide through it.
func (b *bucket4jState) tryConsume(now time.Duration, tokens int64, c *Bucket4jConfig) Decision {
	// LockFreeBucket refills a copy of the state and stores it only with
	// a consumption: a refused request leaves the state as it was.
	saved := *b
	b.refill(c.nanos(now), c)
	if tokens > b.size {
		*b = saved
		return Decision{}
	}
	b.size -= tokens
	return Decision{Pass: true}
}

// refill is BucketState64BitsInteger.refill for the one bandwidth.
func (b *bucket4jState) refill(current int64, c *Bucket4jConfig) {
	period := int64(c.RefillPeriod)
	prev := b.lastRefill
	if current <= prev {
		return
	}
	if c.Intervally {
		current -= (current - prev) % period
		if current <= prev {
			return
		}
	}
	b.lastRefill = current
	capacity, refillTokens, size := c.Capacity, c.RefillTokens, b.size
	if size >= capacity {
		return
	}
	dur := current - prev
	newSize := size
	if dur > period {
		elapsedPeriods := dur / period
		newSize += elapsedPeriods * refillTokens // Java long: wraps
		if newSize > capacity || newSize < size {
			b.size, b.roundingError = capacity, 0
			return
		}
		dur %= period
	}
	roundingError := b.roundingError
	withoutError := multiplyExactOrMax(refillTokens, dur)
	divided := withoutError + roundingError
	if divided < 0 || withoutError == math.MaxInt64 {
		newSize += javaD2L(float64(dur) / float64(period) * float64(refillTokens))
		roundingError = 0
	} else {
		calculated := divided / period
		if calculated == 0 {
			roundingError = divided
		} else {
			newSize += calculated
			roundingError = divided % period
		}
	}
	if newSize >= capacity || newSize < size {
		b.size, b.roundingError = capacity, 0
		return
	}
	b.size, b.roundingError = newSize, roundingError
}

// multiplyExactOrMax is Bucket4j's multiplyExactOrReturnMaxValue for the
// non-negative operands it is given here: x·y, or MaxInt64 on overflow.
func multiplyExactOrMax(x, y int64) int64 {
	if x < 0 || y < 0 {
		return x * y
	}
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// Spec implements Limiter.
func (b *Bucket4j) Spec() string {
	c := b.cfg
	refill, clock := "greedy", "millis"
	if c.Intervally {
		refill = "intervally"
	}
	if c.Nanos {
		clock = "nanos"
	}
	return fmt.Sprintf("bucket4j:capacity=%d,refill-tokens=%d,refill-period=%s,refill=%s,clock=%s",
		c.Capacity, c.RefillTokens, FormatDuration(c.RefillPeriod), refill, clock)
}

// Rate implements Limiter.
func (b *Bucket4j) Rate() float64 {
	return float64(b.cfg.RefillTokens) / b.cfg.RefillPeriod.Seconds()
}

// StateBytes implements Limiter.
func (b *Bucket4j) StateBytes() int { return int(unsafe.Sizeof(*b)) }

// keyedTable implements keyedStater: the tokens and refill time per key.
func (b *Bucket4j) keyedTable() keyedTable {
	c := b.cfg
	return stateTable(c.fresh(),
		func(st *bucket4jState, now time.Duration, r *Request) Decision {
			return st.tryConsume(now, int64(r.cost()), c)
		})
}

// Fresh implements Freshener: a full bucket created at t = 0, sharing b's
// configuration.
func (b *Bucket4j) Fresh() Limiter {
	return &Bucket4j{bucket4jState: b.cfg.fresh(), cfg: b.cfg}
}
