package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// GuavaWarmingUpConfig configures a GuavaWarmingUp.
type GuavaWarmingUpConfig struct {
	// Rate is the stable rate in permits per second (permitsPerSecond).
	Rate float64
	// WarmUp is the warm-up period (warmupPeriod), truncated to whole
	// microseconds as TimeUnit.NANOSECONDS.toMicros does.
	WarmUp time.Duration
	// ColdFactor is the cold interval over the stable interval (Guava's
	// public factories use 3).
	ColdFactor float64
	// Timeout is tryAcquire's timeout; 0 never waits, InfiniteTimeout is
	// acquire().
	Timeout time.Duration
}

// GuavaWarmingUp is Guava's RateLimiter.create(rate, warmupPeriod) with a
// cold factor (SmoothRateLimiter's SmoothWarmingUp, Guava 33), each request
// calling tryAcquire(1, timeout), or acquire() for an infinite timeout. It
// is GuavaBursty's scheme with stored permits that cost time: the limiter
// starts cold with maxPermits stored, and a stored permit above
// thresholdPermits = 0.5·warmup/stableInterval costs the area under a line
// rising from the stable interval at the threshold to coldFactor times it
// at maxPermits = threshold + 2·warmup/(stable + cold); below the threshold
// a permit costs the stable interval. Spending the store from full down to
// the threshold therefore takes the warm-up period, and an idle limiter
// refills it at maxPermits per warm-up period. Times are whole
// microseconds read from a stopwatch started at virtual time 0 (truncated
// towards zero), the permits are doubles and every cast is Java's, so the
// waits are Guava's to the microsecond; the first request after a pause
// never waits and the next one pays for it.
//
// When the clock steps back, Guava's resync adds no permits and the next
// free ticket stays where it is.
type GuavaWarmingUp struct {
	g   guavaSmooth
	st  guavaState
	cfg GuavaWarmingUpConfig
}

// NewGuavaWarmingUp validates c and builds the limiter.
func NewGuavaWarmingUp(c GuavaWarmingUpConfig) (*GuavaWarmingUp, error) {
	const name = "guava-warming-up"
	if err := positiveLimit(name, "rate", c.Rate); err != nil {
		return nil, err
	}
	if c.WarmUp < 0 {
		return nil, fmt.Errorf("%s: warm-up must not be negative, got %v (for example warm-up=4s)", name, c.WarmUp)
	}
	if !(c.ColdFactor > 1) {
		return nil, fmt.Errorf("%s: cold-factor must be larger than 1, got %s (the cold rate is rate/cold-factor; Guava uses 3)", name, formatNumber(c.ColdFactor))
	}
	to, err := timeoutMicros(name, c.Timeout)
	if err != nil {
		return nil, err
	}
	l := &GuavaWarmingUp{cfg: c}
	g := &l.g
	g.timeout = to
	g.warm = true
	g.setRate(c.Rate)
	// SmoothWarmingUp.doSetRate on a new limiter (oldMaxPermits == 0).
	stable := g.stableInterval
	w := float64(int64(c.WarmUp / time.Microsecond)) // warmupPeriodMicros
	cold := stable * c.ColdFactor
	g.threshold = 0.5 * w / stable
	g.maxPermits = g.threshold + 2.0*w/(stable+cold)
	g.slope = (cold - stable) / (g.maxPermits - g.threshold)
	l.st.stored = g.maxPermits
	g.coolDown = w / g.maxPermits
	return l, nil
}

// Decide implements Limiter.
func (l *GuavaWarmingUp) Decide(now time.Duration) Decision { return l.Check(now) }

// Check implements Stage: tryAcquire(1, timeout) reserves the permit.
func (l *GuavaWarmingUp) Check(now time.Duration) Decision { return l.st.tryAcquire(now, 1, &l.g) }

// DecideRequest implements RequestLimiter: tryAcquire(permits = the
// request's cost, timeout).
func (l *GuavaWarmingUp) DecideRequest(now time.Duration, r *Request) Decision {
	return l.st.tryAcquire(now, r.cost(), &l.g)
}

// Record implements Stage; the permit was reserved by Check.
func (l *GuavaWarmingUp) Record(time.Duration) {}

// Spec implements Limiter.
func (l *GuavaWarmingUp) Spec() string {
	return fmt.Sprintf("guava-warming-up:rate=%s,warm-up=%s,cold-factor=%s,timeout=%s",
		formatFloat(l.cfg.Rate), FormatDuration(l.cfg.WarmUp), formatFloat(l.cfg.ColdFactor), formatGuavaTimeout(l.cfg.Timeout))
}

// Rate implements Limiter.
func (l *GuavaWarmingUp) Rate() float64 { return l.cfg.Rate }

// StateBytes implements Limiter.
func (l *GuavaWarmingUp) StateBytes() int { return int(unsafe.Sizeof(*l)) }

// keyedTable implements keyedStater: the stored permits and next free
// ticket per key (guavaTable).
func (l *GuavaWarmingUp) keyedTable() keyedTable { return guavaTable(l.st, l.g) }
