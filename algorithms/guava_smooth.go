package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// guavaSmooth is the configuration and arithmetic that Guava's
// SmoothBursty and SmoothWarmingUp share (SmoothRateLimiter and
// RateLimiter.tryAcquire), and guavaState what changes: the time of the
// next free ticket in whole microseconds, the stored permits as a double,
// and the rule that a caller pays for the permits it takes by pushing the
// next free ticket later, so that the next caller waits for it. A per-key
// guava limiter keeps only the guavaState per key (16 bytes) and the
// guavaSmooth once.
type guavaSmooth struct {
	maxPermits     float64
	stableInterval float64 // µs per permit at the stable rate
	coolDown       float64 // µs of idle time that store one permit
	timeout        int64   // µs; -1 means acquire() (timeout=inf)

	// SmoothWarmingUp only (warm is false for SmoothBursty, whose stored
	// permits cost nothing).
	warm             bool
	threshold, slope float64
}

// guavaState is the part of a Guava limiter that changes per request.
type guavaState struct {
	stored   float64
	nextFree int64 // nextFreeTicketMicros
}

// guavaTimeoutInf is the timeout that stands for acquire().
const guavaTimeoutInf = -1

// guavaMicros is Guava's SleepingStopwatch.readMicros for a limiter created at
// virtual time 0: Stopwatch.elapsed(MICROSECONDS) converts the elapsed
// nanoseconds with TimeUnit, which truncates towards zero, so 999 ns reads
// 0 µs and −1500 ns reads −1 µs.
func guavaMicros(d time.Duration) int64 { return int64(d / time.Microsecond) }

// setRate is RateLimiter.setRate at stopwatch reading 0 on a new limiter:
// resync(0) changes nothing, so only the interval is set here and the
// subclass part is done by the caller.
func (g *guavaSmooth) setRate(rate float64) {
	g.stableInterval = 1e6 / rate // SECONDS.toMicros(1L) / permitsPerSecond
}

// resync is SmoothRateLimiter.resync.
func (s *guavaState) resync(now int64, g *guavaSmooth) {
	if now > s.nextFree {
		newPermits := float64(now-s.nextFree) / g.coolDown
		s.stored = math.Min(g.maxPermits, s.stored+newPermits)
		s.nextFree = now
	}
}

// storedPermitsToWaitTime is SmoothBursty's (0) or SmoothWarmingUp's
// integral under the throttling line.
func (g *guavaSmooth) storedPermitsToWaitTime(stored, take float64) int64 {
	if !g.warm {
		return 0
	}
	above := stored - g.threshold
	var micros int64
	if above > 0.0 {
		aboveTake := math.Min(above, take)
		length := g.permitsToTime(above) + g.permitsToTime(above-aboveTake)
		micros = javaD2L(aboveTake * length / 2.0)
		take -= aboveTake
	}
	micros += javaD2L(g.stableInterval * take)
	return micros
}

// permitsToTime is stableIntervalMicros + permits·slope; the conversion
// keeps the product rounded on its own (Go may otherwise fuse it into a
// multiply-add, which Java never does).
func (g *guavaSmooth) permitsToTime(permits float64) float64 {
	return g.stableInterval + float64(permits*g.slope)
}

// reserveEarliestAvailable is SmoothRateLimiter.reserveEarliestAvailable
// for requiredPermits permits: the stored ones are spent first (at
// storedPermitsToWaitTime), the rest are fresh at stableInterval each, and
// the whole price moves the next free ticket; the caller waits only until
// the old ticket, so a request of any size is never refused for its size
// (the next caller pays).
func (s *guavaState) reserveEarliestAvailable(now int64, permits int32, g *guavaSmooth) int64 {
	s.resync(now, g)
	ret := s.nextFree
	required := float64(permits)
	spend := math.Min(required, s.stored)
	fresh := required - spend
	wait := g.storedPermitsToWaitTime(s.stored, spend) + javaD2L(fresh*g.stableInterval)
	s.nextFree = saturatedAdd(s.nextFree, wait)
	s.stored -= spend
	return ret
}

// tryAcquire is RateLimiter.tryAcquire(permits, timeout, MICROSECONDS), or
// acquire(permits) when the timeout is infinite, on s with configuration
// g: it returns whether the permits are granted and the microseconds the
// caller then sleeps. canAcquire reads only the next free ticket, not the
// permits asked for, so with timeout=0 a request of any size passes when
// nextFreeTicketMicros ≤ now (Guava RateLimiter.tryAcquire, canAcquire,
// reserveAndGetWaitLength). The single-key limiters and the per-key table
// both decide through it.
func (s *guavaState) tryAcquire(now time.Duration, permits int32, g *guavaSmooth) Decision {
	nowMicros := guavaMicros(now)
	// canAcquire: queryEarliestAvailable(now) − timeout ≤ now.
	if g.timeout != guavaTimeoutInf && !(s.nextFree-g.timeout <= nowMicros) {
		return Decision{}
	}
	wait := max(s.reserveEarliestAvailable(nowMicros, permits, g)-nowMicros, 0)
	if wait > math.MaxInt64/int64(time.Microsecond) {
		return Decision{Pass: true, Wait: math.MaxInt64}
	}
	return Decision{Pass: true, Wait: time.Duration(wait) * time.Microsecond}
}

// saturatedAdd is Guava's LongMath.saturatedAdd.
func saturatedAdd(a, b int64) int64 {
	s := a + b
	if (a^b) < 0 || (a^s) >= 0 {
		return s
	}
	if s < 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

func formatGuavaTimeout(d time.Duration) string {
	if d == InfiniteTimeout {
		return "inf"
	}
	return FormatDuration(d)
}

// guavaMaxWait is the longest wait a pass can get: the timeout, or no
// bound for acquire().
func (g *guavaSmooth) maxWait() time.Duration {
	if g.timeout == guavaTimeoutInf {
		return math.MaxInt64
	}
	return time.Duration(g.timeout) * time.Microsecond
}

// secondsDouble is the double nearest to d in seconds, as a Java caller
// writing the decimal literal would get (d.Seconds() can be one ulp off).
func secondsDouble(d time.Duration) float64 {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	f, _ := strconv.ParseFloat(fmt.Sprintf("%s%d.%09d", neg, d/time.Second, d%time.Second), 64)
	return f
}
