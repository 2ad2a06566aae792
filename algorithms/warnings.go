package algorithms

import "fmt"

// Warnings returns what a user should know before trusting a limiter's
// numbers: settings that Sentinel would not apply as written, or under which
// the limiter cannot limit. The limiter still runs exactly as specified; an
// empty result means nothing to say.
//
//   - leaky-bucket and warm-up-rate-limiter with max-queue=0: Sentinel's
//     rule loader (FlowRuleUtil.isValidRule, checkControlBehaviorField)
//     requires maxQueueingTimeMs > 0 for both behaviours and drops such a
//     rule, which leaves the resource unlimited.
//   - warm-up-rate-limiter above 2000/s: its cost is Math.round(1000/rate)
//     whole milliseconds, 0 above 2000/s, so once warm it passes everything.
func Warnings(l Limiter) []string {
	var out []string
	switch x := l.(type) {
	case *Throttling:
		if x.cfg.MaxQueue == 0 {
			out = append(out, maxQueueZero("leaky-bucket"))
		}
	case *WarmUpRateLimiter:
		if x.cfg.MaxQueue == 0 {
			out = append(out, maxQueueZero("warm-up-rate-limiter"))
		}
		if x.cfg.Limit > maxWarmUpRateLimiterRate {
			out = append(out, fmt.Sprintf("warm-up-rate-limiter at %s/s limits nothing once warm: its cost, Math.round(1000/limit) ms, is 0 above %d/s (Sentinel's own arithmetic); use leaky-bucket, which counts in nanoseconds at such rates",
				formatNumber(x.cfg.Limit), maxWarmUpRateLimiterRate))
		}
	}
	// Limiters outside this package (the redis-* ones) say their own.
	if w, ok := l.(Warner); ok {
		out = append(out, w.Warnings()...)
	}
	return out
}

// Warner is a limiter that has warnings of its own to give, such as
// distributed's redis-spring-gateway with a burst below its rate.
type Warner interface {
	Warnings() []string
}

// maxWarmUpRateLimiterRate is the largest limit at which
// WarmUpRateLimiterController's cost, Math.round(1000/limit) ms, is not 0.
const maxWarmUpRateLimiterRate = 2000

func maxQueueZero(name string) string {
	return name + " with max-queue=0s: Sentinel's rule loader drops such a rule (maxQueueingTimeMs must be > 0) and leaves the resource unlimited; the lab runs it as written, queueing nothing"
}
