package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// GuavaBurstyConfig configures a GuavaBursty.
type GuavaBurstyConfig struct {
	// Rate is the stable rate in permits per second (permitsPerSecond).
	Rate float64
	// MaxBurst is how many seconds' worth of permits an idle limiter
	// stores (maxBurstSeconds; RateLimiter.create(rate) uses 1 s).
	MaxBurst time.Duration
	// Timeout is tryAcquire's timeout; 0 never waits. InfiniteTimeout
	// makes every request acquire() its permit.
	Timeout time.Duration
}

// InfiniteTimeout as a Guava timeout means acquire(): wait as long as it
// takes.
const InfiniteTimeout time.Duration = -1

// GuavaBursty is Guava's RateLimiter.create(rate) (SmoothRateLimiter's
// SmoothBursty, Guava 33), each request calling tryAcquire(1, timeout), or
// acquire() for an infinite timeout. The limiter keeps the time of the next
// free ticket in whole microseconds and a store of unused permits (a
// double, at most rate·maxBurst, empty when created). A request is let
// through if the next free ticket is at most timeout after now; it then
// takes a stored permit if there is one, for free, or else a fresh one,
// and pushes the next free ticket one stable interval (1e6/rate µs) later.
// It waits until the next free ticket as it was before its call, so the
// first request of a burst never waits and the next caller pays for it.
// Idle time before the next free ticket refills the store at one permit
// per stable interval. The limiter is created at virtual time 0 and reads
// the time in µs truncated towards zero, as Guava's Stopwatch does.
//
// When the clock steps back, Guava's resync adds no permits (now is not
// after the next free ticket) and the next free ticket stays where it is,
// so the wait of an acquire() grows by the step.
type GuavaBursty struct {
	g   guavaSmooth
	st  guavaState
	cfg GuavaBurstyConfig
}

// NewGuavaBursty validates c and builds the limiter.
func NewGuavaBursty(c GuavaBurstyConfig) (*GuavaBursty, error) {
	if err := positiveLimit("guava-bursty", "rate", c.Rate); err != nil {
		return nil, err
	}
	if c.MaxBurst <= 0 {
		return nil, fmt.Errorf("guava-bursty: max-burst must be positive, got %v (for example max-burst=1s, the default of RateLimiter.create)", c.MaxBurst)
	}
	to, err := timeoutMicros("guava-bursty", c.Timeout)
	if err != nil {
		return nil, err
	}
	l := &GuavaBursty{cfg: c}
	g := &l.g
	g.timeout = to
	g.setRate(c.Rate)
	// SmoothBursty.doSetRate on a new limiter (oldMaxPermits == 0).
	g.maxPermits = secondsDouble(c.MaxBurst) * c.Rate
	l.st.stored = 0
	g.coolDown = g.stableInterval
	return l, nil
}

// timeoutMicros converts a configured timeout to Guava's µs.
func timeoutMicros(name string, d time.Duration) (int64, error) {
	if d == InfiniteTimeout {
		return guavaTimeoutInf, nil
	}
	if d < 0 {
		return 0, fmt.Errorf("%s: timeout must be ≥ 0 or inf, got %v", name, d)
	}
	return int64(d / time.Microsecond), nil
}

// Decide implements Limiter.
func (l *GuavaBursty) Decide(now time.Duration) Decision { return l.Check(now) }

// Check implements Stage: tryAcquire(1, timeout) reserves the permit.
func (l *GuavaBursty) Check(now time.Duration) Decision { return l.st.tryAcquire(now, 1, &l.g) }

// DecideRequest implements RequestLimiter: tryAcquire(permits = the
// request's cost, timeout).
func (l *GuavaBursty) DecideRequest(now time.Duration, r *Request) Decision {
	return l.st.tryAcquire(now, r.cost(), &l.g)
}

// Record implements Stage; the permit was reserved by Check.
func (l *GuavaBursty) Record(time.Duration) {}

// Spec implements Limiter.
func (l *GuavaBursty) Spec() string {
	return fmt.Sprintf("guava-bursty:rate=%s,max-burst=%s,timeout=%s",
		formatFloat(l.cfg.Rate), FormatDuration(l.cfg.MaxBurst), formatGuavaTimeout(l.cfg.Timeout))
}

// Rate implements Limiter.
func (l *GuavaBursty) Rate() float64 { return l.cfg.Rate }

// StateBytes implements Limiter.
func (l *GuavaBursty) StateBytes() int { return int(unsafe.Sizeof(*l)) }

// keyedTable implements keyedStater: the stored permits and next free
// ticket per key (guavaTable).
func (l *GuavaBursty) keyedTable() keyedTable { return guavaTable(l.st, l.g) }
