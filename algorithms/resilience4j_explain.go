package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: resilience4j's
// AtomicRateLimiter.calculateNextState (resilience4j-ratelimiter,
// internal/AtomicRateLimiter.java): cycles are counted from the limiter's
// creation (currentNanos / cyclePeriod, Java long division), each new
// cycle adds limitForPeriod permissions up to limitForPeriod, and a
// request that cannot get its permits within timeoutDuration is refused.
func (r *Resilience4j) Explain(now time.Duration, q *Request) Explanation {
	c := r.cfg
	permits := reqCost(q)
	e := Explanation{Rule: fmt.Sprintf("limitForPeriod=%d limitRefreshPeriod=%v timeoutDuration=%v; cycles start at the limiter's creation (0ms)", c.LimitForPeriod, c.RefreshPeriod, c.Timeout)}
	e.State = fmt.Sprintf("cycle=%d [%s, %s) permissions=%d", r.cycle, fmtMs(time.Duration(r.cycle)*c.RefreshPeriod), fmtMs(time.Duration(r.cycle+1)*c.RefreshPeriod), r.permissions)
	period := int64(c.RefreshPeriod)
	cur := int64(now) / period
	perm := r.permissions
	step := fmt.Sprintf("currentCycle = %dns / %dns = %d", int64(now), period, cur)
	if cur != r.cycle {
		acc := (cur - r.cycle) * int64(c.LimitForPeriod)
		perm = int32(min(int64(perm)+acc, int64(c.LimitForPeriod)))
		step += fmt.Sprintf("; new cycle: permissions = min(%d + %d·%d, %d) = %d", r.permissions, cur-r.cycle, c.LimitForPeriod, c.LimitForPeriod, perm)
	} else {
		step += " (the same cycle: no refill)"
	}
	cp := r.resilience4jState
	d := cp.acquire(now, permits, c)
	e.Pass, e.Wait = d.Pass, d.Wait
	switch {
	case perm >= permits:
		e.Math = fmt.Sprintf("%s; %d ≥ %d permit(s) → pass, %d left", step, perm, permits, perm-permits)
	case d.Pass:
		e.Math = fmt.Sprintf("%s; %d < %d: waits %v for the next cycle, within timeout %v → pass after the wait", step, perm, permits, d.Wait, c.Timeout)
	default:
		e.Math = fmt.Sprintf("%s; %d < %d: the next permit is %s away, over timeoutDuration %v → reject", step, perm, permits, fmtMs(time.Duration((cur+1)*period-int64(now))), c.Timeout)
	}
	return e
}
