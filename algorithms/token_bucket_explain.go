package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: golang.org/x/time/rate v0.16's
// Limiter.reserveN (rate.go: advance, then tokens -= n, then
// durationFromTokens of a deficit), on a copy of the bucket.
func (b *TokenBucket) Explain(now time.Duration, _ *Request) Explanation {
	e := Explanation{Rule: fmt.Sprintf("rate.NewLimiter(%s, %d).Allow(): one token per request", fmtF(b.cfg.Rate), b.cfg.Burst)}
	s := b.st
	if !s.seen {
		e.State = fmt.Sprintf("tokens=%d (full: no token taken yet)", b.cfg.Burst)
	} else {
		e.State = fmt.Sprintf("tokens=%s at last=%s", fmtF(s.tokens), fmtMs(s.last))
	}
	tokens := s.tokens
	var refill string
	if s.seen {
		last := s.last
		if now < last {
			last = now
		}
		add := durationSeconds(now-last) * b.cfg.Rate
		tokens += add
		refill = fmt.Sprintf("advance: %s + (%s − %s)·%s/s = %s", fmtF(s.tokens), fmtMs(now), fmtMs(last), fmtF(b.cfg.Rate), fmtF(tokens))
	} else {
		refill = "advance: last is the zero time, the bucket is full"
		tokens = b.burst
	}
	if tokens > b.burst {
		refill += fmt.Sprintf(", capped at burst %d", b.cfg.Burst)
		tokens = b.burst
	}
	left := tokens - 1
	cp := s
	e.Pass = cp.take(now, 1, b.cfg.Rate, b.burst) // why refuses a trace with costs: AllowN(t, 1)
	switch {
	case left >= 0:
		e.Math = fmt.Sprintf("%s; tokens − 1 = %s ≥ 0 → pass", refill, fmtF(left))
	case e.Pass:
		e.Math = fmt.Sprintf("%s; tokens − 1 = %s < 0 but durationFromTokens(%s) truncates to 0ns → pass", refill, fmtF(left), fmtF(-left))
	default:
		e.Math = fmt.Sprintf("%s; tokens − 1 = %s < 0: the next token is %v away → reject (Allow does not wait)", refill, fmtF(left), waitForTokens(-left, b.cfg.Rate))
	}
	return e
}
