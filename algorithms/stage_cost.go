package algorithms

import "time"

// This file makes every chain stage whose reference takes a count charge
// the request's cost (RequestStage), so a chain A+B charges the trace's
// cost column in each such stage as the reference's slot chain does.
//
// Sentinel 1.8 passes the entry's count to every slot: FlowSlot.checkFlow
// hands it to FlowRuleChecker.canPassCheck(rule, context, node,
// acquireCount, prioritized) and so to the controller's canPass(node,
// acquireCount, prioritized); ParamFlowSlot.checkFlow(resource, count,
// args) to ParamFlowChecker.passCheck(…, count, …); StatisticSlot adds
// count with node.addPassRequest(count) after the whole chain passed;
// DegradeSlot.entry calls performChecking(context, resourceWrapper), whose
// CircuitBreaker.tryPass(context) takes no count (sentinel-core
// slots/block/degrade/DegradeSlot.java). sentinel-golang v1.0.4 likewise:
// core/flow/slot.go (Slot.Check: canPassCheck(tc, ctx.StatNode,
// ctx.Input.BatchCount)), core/hotspot/slot.go (batch :=
// int64(ctx.Input.BatchCount)), core/stat/stat_slot.go (OnEntryPassed
// adds BatchCount); core/circuitbreaker/slot.go has no count.
//
// So CheckRequest is the stage's Check with acquireCount = the request's
// cost (Request.cost: at least 1), and RecordRequest is its Record adding
// the cost where Record adds 1. A stage whose reference takes no count
// (circuit-breaker, nginx-limit-req, kong, traefik, haproxy, uber, the
// lab's own windows, the adaptive ones) stays a plain Stage and charges 1
// as its reference does, and so do a redis-* stage and a check-to-add
// wrapper (CheckToAdd queues passes, not costs); StageChargesCost tells
// which is which.
//
// A prioritized request is asked as an ordinary one inside a chain, as
// before: the occupiable leap array's borrowing (leap_array_priority.go)
// is the single limiter's only.

var (
	_ RequestStage = (*LeapArray)(nil)
	_ RequestStage = (*Throttling)(nil)
	_ RequestStage = (*WarmUp)(nil)
	_ RequestStage = (*WarmUpRateLimiter)(nil)
	_ RequestStage = (*GoLeapArray)(nil)
	_ RequestStage = (*GoThrottling)(nil)
	_ RequestStage = (*GoWarmUp)(nil)
	_ RequestStage = (*GoWarmUpRateLimiter)(nil)
	_ RequestStage = (*TokenBucket)(nil)
	_ RequestStage = (*GuavaBursty)(nil)
	_ RequestStage = (*GuavaWarmingUp)(nil)
	_ RequestStage = (*Bucket4j)(nil)
	_ RequestStage = (*EnvoyLocal)(nil)
	_ RequestStage = (*Resilience4j)(nil)
	_ RequestStage = (*SentinelParam)(nil)
)

// CheckRequest implements RequestStage: DefaultController.canPass(node,
// acquireCount = the cost) on the window's passQps, not prioritized.
func (l *LeapArray) CheckRequest(now time.Duration, r *Request) Decision {
	n := r.cost()
	if n == 1 {
		return l.Check(now)
	}
	t := l.epoch + floorMs(now)
	var c int64
	if l.slow {
		c = l.passCount(t)
	} else {
		c = l.statistics.sum(t)
	}
	return Decision{Pass: l.passes(c, n)}
}

// RecordRequest implements RequestStage: StatisticSlot's
// addPassRequest(acquireCount) at at.
func (l *LeapArray) RecordRequest(at time.Duration, r *Request) {
	n := int64(r.cost())
	t := l.epoch + floorMs(at)
	if l.slow {
		if i := l.current(t); i >= 0 {
			l.statistics.count[i] += n
		}
		return
	}
	l.statistics.add(t, n)
}

// CheckRequest implements RequestStage: ThrottlingController.canPass(node,
// acquireCount = the cost), which moves latestPassedTime by its costTime.
func (t *Throttling) CheckRequest(now time.Duration, r *Request) Decision {
	return t.check(now, r.cost())
}

// RecordRequest implements RequestStage: nothing (no statistics).
func (t *Throttling) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: WarmUpController.canPass(node,
// acquireCount = the cost).
func (u *WarmUp) CheckRequest(now time.Duration, r *Request) Decision {
	return u.check(now, int64(r.cost()))
}

// RecordRequest implements RequestStage: addPassRequest(acquireCount) in
// the window and the minute.
func (u *WarmUp) RecordRequest(at time.Duration, r *Request) { u.record(at, int64(r.cost())) }

// CheckRequest implements RequestStage: WarmUpRateLimiterController.canPass
// (node, acquireCount = the cost).
func (u *WarmUpRateLimiter) CheckRequest(now time.Duration, r *Request) Decision {
	return u.check(now, r.cost())
}

// RecordRequest implements RequestStage: the pass counts acquireCount in
// the minute behind previousPassQps.
func (u *WarmUpRateLimiter) RecordRequest(at time.Duration, r *Request) {
	u.minute.add(u.epoch+floorMs(at), int64(r.cost()))
}

// CheckRequest implements RequestStage: the reject checker with
// BatchCount = the cost (core/flow/tc_default.go).
func (l *GoLeapArray) CheckRequest(now time.Duration, r *Request) Decision {
	return l.check(now, r.cost())
}

// RecordRequest implements RequestStage: the stat slot adds BatchCount.
func (l *GoLeapArray) RecordRequest(at time.Duration, r *Request) {
	l.statistics.addN(l.clock.ms(at), int64(r.cost()))
}

// CheckRequest implements RequestStage: ThrottlingChecker.DoCheck with
// BatchCount = the cost (core/flow/tc_throttling.go).
func (t *GoThrottling) CheckRequest(now time.Duration, r *Request) Decision {
	return t.check(now, r.cost())
}

// RecordRequest implements RequestStage: nothing, as Record.
func (t *GoThrottling) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: the warm-up calculator and the
// reject checker with BatchCount = the cost.
func (u *GoWarmUp) CheckRequest(now time.Duration, r *Request) Decision {
	return u.check(now, r.cost())
}

// RecordRequest implements RequestStage: the stat slot adds BatchCount.
func (u *GoWarmUp) RecordRequest(at time.Duration, r *Request) {
	u.statistics.addN(u.clock.ms(at), int64(r.cost()))
}

// CheckRequest implements RequestStage: the warm-up calculator and the
// throttling checker with BatchCount = the cost.
func (u *GoWarmUpRateLimiter) CheckRequest(now time.Duration, r *Request) Decision {
	return u.check(now, r.cost())
}

// RecordRequest implements RequestStage: the stat slot adds BatchCount.
func (u *GoWarmUpRateLimiter) RecordRequest(at time.Duration, r *Request) {
	u.statistics.addN(u.clock.ms(at), int64(r.cost()))
}

// CheckRequest implements RequestStage: AllowN(now, cost), which spends
// the tokens on a pass (x/time/rate rate.go, Limiter.reserveN).
func (b *TokenBucket) CheckRequest(now time.Duration, r *Request) Decision {
	return b.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing, AllowN spent the tokens.
func (b *TokenBucket) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: tryAcquire(permits = the cost,
// timeout), which reserves them.
func (l *GuavaBursty) CheckRequest(now time.Duration, r *Request) Decision {
	return l.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing, Check reserved them.
func (l *GuavaBursty) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: tryAcquire(permits = the cost,
// timeout), which reserves them.
func (l *GuavaWarmingUp) CheckRequest(now time.Duration, r *Request) Decision {
	return l.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing, Check reserved them.
func (l *GuavaWarmingUp) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: tryConsume(cost).
func (b *Bucket4j) CheckRequest(now time.Duration, r *Request) Decision {
	return b.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing, the tokens are taken.
func (b *Bucket4j) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: the atomic mode consumes
// hits_addend = the cost, the timer mode one token (DecideRequest).
func (e *EnvoyLocal) CheckRequest(now time.Duration, r *Request) Decision {
	return e.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing, the tokens are taken.
func (e *EnvoyLocal) RecordRequest(time.Duration, *Request) {}

// CheckRequest implements RequestStage: acquirePermission(cost).
func (r *Resilience4j) CheckRequest(now time.Duration, q *Request) Decision {
	return r.DecideRequest(now, q)
}

// RecordRequest implements RequestStage: nothing, the permits are
// reserved.
func (r *Resilience4j) RecordRequest(time.Duration, *Request) {}

// StageChargesCost reports whether s charges a request's cost when a
// chain asks it: it reads the request (RequestStage) and its family takes
// a count (caps has CapCost; the caller passes the spec's capabilities, as
// algorithms knows no registry). A per-key stage charges what its kind
// charges.
func StageChargesCost(s Stage, caps Caps) bool {
	_, ok := s.(RequestStage)
	return ok && caps.Has(CapCost)
}

// ChainCostNotCharged is the warning of a chain on a trace with a cost
// column when the stages named in stages count every request as 1 (their
// references take no count, or the lab asks them one request at a time:
// redis-* stages, check-to-add); all says that no stage charges it.
func ChainCostNotCharged(spec string, stages []string, all bool) string {
	if all {
		return spec + ": the trace's cost column is not charged; every stage counts every request as 1 (docs/algorithms.md, Costs, says why)"
	}
	return spec + ": the trace's cost column is charged by every stage but " + joinNames(stages) + ", where every request counts 1 (docs/algorithms.md, Costs, says why)"
}

// CheckToAddCostNotCharged is the warning of a row whose family charges a
// cost but which check-to-add wraps: the wrapper asks the wrapped limiter
// with Check and Record, one request each, so every request counts 1.
func CheckToAddCostNotCharged(spec string) string {
	return spec + ": the trace's cost column is not charged; with check-to-add every request counts 1 (run it without check-to-add to charge the cost)"
}

func joinNames(s []string) string {
	out := ""
	for i, n := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}
