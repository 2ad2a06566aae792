package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// Resilience4jConfig configures a Resilience4j limiter.
type Resilience4jConfig struct {
	// LimitForPeriod is RateLimiterConfig.limitForPeriod (default 50).
	LimitForPeriod int32
	// RefreshPeriod is limitRefreshPeriod (default 500ns).
	RefreshPeriod time.Duration
	// Timeout is timeoutDuration (default 5s): the longest a caller waits
	// for a permit of a later cycle.
	Timeout time.Duration
}

// Resilience4j is resilience4j-ratelimiter's AtomicRateLimiter, the
// default RateLimiter implementation, driven by acquirePermission(permits)
// with the request's cost as permits.
//
// Time is split into cycles of RefreshPeriod counted from the limiter's
// creation (nanoTime − nanoTimeStart; creation is t = 0). The state is the
// active cycle and its permissions, which start at LimitForPeriod. A call
// first moves to the current cycle, adding elapsedCycles·limitForPeriod
// permissions capped at limitForPeriod (in Java long arithmetic, then
// narrowed to int); permissions may be negative, reserved by waiting
// callers. If permissions ≥ permits it passes at once. Otherwise it needs
// nanosToWait = fullCyclesToWait·period + (time to the next cycle), with
// fullCyclesToWait = ⌈(permits − permissions − limit)/limit⌉ (Java int
// divCeil); if nanosToWait ≤ Timeout it reserves the permits (permissions
// go negative) and passes after that wait, a wait in the lab; else it is
// refused (the Java caller has then slept Timeout; the lab records a block
// without a wait).
type Resilience4j struct {
	resilience4jState
	cfg *Resilience4jConfig
}

// resilience4jState is what changes in a Resilience4j: the active cycle
// and its permissions. A per-key resilience4j keeps only this per key (16
// bytes) and the configuration once.
type resilience4jState struct {
	cycle       int64
	permissions int32
}

// NewResilience4j validates c and builds the limiter.
func NewResilience4j(c Resilience4jConfig) (*Resilience4j, error) {
	switch {
	case c.LimitForPeriod < 1:
		return nil, fmt.Errorf("resilience4j: limit-for-period must be at least 1, got %d (RateLimiterConfig refuses less)", c.LimitForPeriod)
	case c.RefreshPeriod < time.Nanosecond:
		return nil, fmt.Errorf("resilience4j: refresh-period must be at least 1ns, got %v (RateLimiterConfig refuses less)", c.RefreshPeriod)
	case c.Timeout < 0:
		return nil, fmt.Errorf("resilience4j: timeout must not be negative, got %v", c.Timeout)
	}
	cfg := c
	return &Resilience4j{resilience4jState: resilience4jState{permissions: c.LimitForPeriod}, cfg: &cfg}, nil
}

// Decide implements Limiter: acquirePermission(1).
func (r *Resilience4j) Decide(now time.Duration) Decision { return r.acquire(now, 1, r.cfg) }

// DecideRequest implements RequestLimiter: acquirePermission(cost).
func (r *Resilience4j) DecideRequest(now time.Duration, q *Request) Decision {
	c := q.Cost
	if c < 1 {
		c = 1
	}
	return r.acquire(now, c, r.cfg)
}

// Check implements Stage: the reservation is made while deciding.
func (r *Resilience4j) Check(now time.Duration) Decision { return r.acquire(now, 1, r.cfg) }

// Record implements Stage; the permits are already reserved.
func (r *Resilience4j) Record(time.Duration) {}

// acquire is acquirePermission(permits) on r with configuration c; the
// single-key limiter and the per-key table both decide through it.
func (r *resilience4jState) acquire(now time.Duration, permits int32, c *Resilience4jConfig) Decision {
	period := int64(c.RefreshPeriod)
	perCycle := c.LimitForPeriod
	currentNanos := int64(now)
	currentCycle := currentNanos / period // Java long division: towards zero

	nextCycle, nextPermissions := r.cycle, r.permissions
	if nextCycle != currentCycle {
		elapsed := currentCycle - nextCycle
		accumulated := elapsed * int64(perCycle)
		nextCycle = currentCycle
		nextPermissions = int32(min(int64(nextPermissions)+accumulated, int64(perCycle)))
	}
	wait := int64(0)
	if nextPermissions < permits {
		nanosToNextCycle := (currentCycle+1)*period - currentNanos
		atNextCycle := nextPermissions + perCycle
		fullCycles := javaDivCeil(-(atNextCycle - permits), perCycle)
		wait = int64(fullCycles)*period + nanosToNextCycle
	}
	timeout := int64(c.Timeout)
	canAcquireInTime := timeout >= wait
	if canAcquireInTime {
		nextPermissions -= permits
	}
	r.cycle, r.permissions = nextCycle, nextPermissions
	switch {
	case wait <= 0:
		return Decision{Pass: true}
	case canAcquireInTime:
		return Decision{Pass: true, Wait: time.Duration(wait)}
	}
	return Decision{}
}

// javaDivCeil is AtomicRateLimiter.divCeil in Java int arithmetic.
func javaDivCeil(x, y int32) int32 { return (x + y - 1) / y }

// Spec implements Limiter.
func (r *Resilience4j) Spec() string {
	c := r.cfg
	return fmt.Sprintf("resilience4j:limit-for-period=%d,refresh-period=%s,timeout=%s", c.LimitForPeriod, FormatDuration(c.RefreshPeriod), FormatDuration(c.Timeout))
}

// Rate implements Limiter.
func (r *Resilience4j) Rate() float64 {
	return float64(r.cfg.LimitForPeriod) / r.cfg.RefreshPeriod.Seconds()
}

// StateBytes implements Limiter.
func (r *Resilience4j) StateBytes() int { return int(unsafe.Sizeof(*r)) }

// keyedTable implements keyedStater: the cycle and permissions per key.
func (r *Resilience4j) keyedTable() keyedTable {
	c := r.cfg
	return stateTable(resilience4jState{permissions: c.LimitForPeriod},
		func(st *resilience4jState, now time.Duration, req *Request) Decision {
			return st.acquire(now, req.cost(), c)
		})
}

// Fresh implements Freshener: a limiter created at t = 0 (cycle 0, full),
// sharing r's configuration.
func (r *Resilience4j) Fresh() Limiter {
	return &Resilience4j{resilience4jState: resilience4jState{permissions: r.cfg.LimitForPeriod}, cfg: r.cfg}
}
