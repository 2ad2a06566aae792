package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: Traefik v3's RateLimiter middleware
// (pkg/middlewares/ratelimiter/rate_limiter.go, ServeHTTP: Reserve(),
// then a delay over maxDelay cancels the reservation and answers 429)
// on x/time/rate's bucket, with its ttlmap entry of ttl whole seconds.
func (l *Traefik) Explain(now time.Duration, _ *Request) Explanation {
	p := l.cfg
	e := Explanation{Rule: fmt.Sprintf("rateLimit average=%d period=%v burst=%d: rate %s/s, maxDelay %v, entry ttl %ds", p.Average, p.Period, p.Burst, fmtF(p.rate), p.maxDelay, p.ttl)}
	st := l.traefikState
	switch {
	case !st.present || st.fresh:
		e.State = "no bucket for this source (a new one is full)"
	default:
		e.State = fmt.Sprintf("tokens=%s at last=%s, entry expires at %ds", fmtF(st.tokens), fmtMs(st.last), st.expiry)
	}
	sec := floorSeconds(now)
	var step string
	tokens := p.burst
	switch {
	case st.present && st.expiry <= sec:
		step = fmt.Sprintf("the entry expired (%ds ≤ %ds): a new bucket of %s", st.expiry, sec, fmtF(p.burst))
	case !st.present || st.fresh:
		step = fmt.Sprintf("a new bucket of %s", fmtF(p.burst))
	default:
		last := min(st.last, now)
		tokens = min(st.tokens+float64(durationSeconds(now-last)*p.rate), p.burst)
		step = fmt.Sprintf("advance: min(%s + (%s − %s)·%s/s, %s) = %s", fmtF(st.tokens), fmtMs(now), fmtMs(last), fmtF(p.rate), fmtF(p.burst), fmtF(tokens))
	}
	left := tokens - 1
	var wait time.Duration
	if left < 0 {
		wait = waitForTokens(-left, p.rate)
	}
	cp := st
	d := cp.check(now, p)
	e.Pass, e.Wait = d.Pass, d.Wait
	if d.Pass {
		e.Math = fmt.Sprintf("%s; tokens − 1 = %s; delay %v ≤ maxDelay %v → pass", step, fmtF(left), wait, p.maxDelay)
	} else {
		e.Math = fmt.Sprintf("%s; tokens − 1 = %s; delay %v > maxDelay %v → reject (429; the token is given back)", step, fmtF(left), wait, p.maxDelay)
	}
	return e
}
