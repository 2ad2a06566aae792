package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: Guava's RateLimiter.tryAcquire(1,
// timeout) on SmoothBursty (guava/src/com/google/common/util/concurrent/
// SmoothRateLimiter.java: resync, reserveEarliestAvailable; Guava 33).
func (l *GuavaBursty) Explain(now time.Duration, _ *Request) Explanation {
	rule := fmt.Sprintf("RateLimiter.create(%s) (maxBurstSeconds %s), tryAcquire(1, %s)", fmtF(l.cfg.Rate), fmtF(l.cfg.MaxBurst.Seconds()), formatGuavaTimeout(l.cfg.Timeout))
	return explainGuava(rule, l.st, &l.g, now)
}

// Explain implements Explainer: SmoothWarmingUp, whose stored permits
// above the threshold cost the integral under its throttling line
// (SmoothRateLimiter.java, SmoothWarmingUp.storedPermitsToWaitTime).
func (l *GuavaWarmingUp) Explain(now time.Duration, _ *Request) Explanation {
	rule := fmt.Sprintf("RateLimiter.create(%s, warmupPeriod %v), tryAcquire(1, %s)", fmtF(l.cfg.Rate), l.cfg.WarmUp, formatGuavaTimeout(l.cfg.Timeout))
	return explainGuava(rule, l.st, &l.g, now)
}

// explainGuava explains one tryAcquire on a copy of st.
func explainGuava(rule string, st guavaState, g *guavaSmooth, now time.Duration) Explanation {
	e := Explanation{Rule: rule}
	us := func(m int64) string { return fmtMs(time.Duration(m) * time.Microsecond) }
	e.State = fmt.Sprintf("storedPermits=%s nextFreeTicket=%s", fmtF(st.stored), us(st.nextFree))
	nowUs := guavaMicros(now)
	cp := st
	d := cp.tryAcquire(now, 1, g) // why refuses a trace with costs: one permit
	e.Pass, e.Wait = d.Pass, d.Wait
	read := fmt.Sprintf("now reads %dµs (nanoseconds truncated)", nowUs)
	if !d.Pass {
		e.Math = fmt.Sprintf("%s; canAcquire: nextFreeTicket − timeout = %s > now → reject", read, us(st.nextFree-g.timeout))
		return e
	}
	stored := st.stored
	var resync string
	if nowUs > st.nextFree {
		stored = min(g.maxPermits, st.stored+float64(nowUs-st.nextFree)/g.coolDown)
		resync = fmt.Sprintf("resync: stored = min(%s, %s + %dµs / %sµs) = %s", fmtF(g.maxPermits), fmtF(st.stored), nowUs-st.nextFree, fmtF(g.coolDown), fmtF(stored))
	} else {
		resync = "resync: now is not after nextFreeTicket, no permit stored"
	}
	spend := min(1, stored)
	e.Math = fmt.Sprintf("%s; %s; spends %s stored + %s fresh permit(s): nextFreeTicket → %s; waits %v → pass",
		read, resync, fmtF(spend), fmtF(1-spend), us(cp.nextFree), d.Wait)
	return e
}
