package algorithms

// Warnings returns what a user should know before trusting a limiter's
// numbers: settings that its reference would not apply as written, or
// under which the limiter cannot limit. The limiter still runs exactly as
// specified; an empty result means nothing to say. Each limiter says its
// own (Warner): leaky-bucket and warm-up-rate-limiter with max-queue=0,
// warm-up-rate-limiter from 2000/s (where its cost rounds to 0 ms), distributed's redis-spring-gateway
// with a burst below its rate, ….
func Warnings(l Limiter) []string {
	if w, ok := l.(Warner); ok {
		return append([]string(nil), w.Warnings()...) // nil when empty, never the limiter's own slice
	}
	return nil
}

// Warner is a limiter that has warnings to give about its configuration.
type Warner interface {
	Warnings() []string
}

// maxQueueZero is the warning of a Sentinel queueing limiter with
// max-queue=0: Sentinel's rule loader (FlowRuleUtil.isValidRule,
// checkControlBehaviorField) requires maxQueueingTimeMs > 0 for both
// behaviours and drops such a rule, which leaves the resource unlimited.
func maxQueueZero(name string) string {
	return name + " with max-queue=0s: Sentinel's rule loader drops such a rule (maxQueueingTimeMs must be > 0) and leaves the resource unlimited; the lab runs it as written, queueing nothing"
}

// CostNotCharged is the warning of a row that counts every request as 1
// on a trace whose cost column says some weigh more: its reference takes
// no count (go.uber.org/ratelimit's Take, nginx's limit_req, the lab's own
// windows, the adaptive limiters, …: docs/algorithms.md, "Costs"), or
// it is a chain, whose stages are asked one request at a time. The run
// says it once per such row.
func CostNotCharged(spec string, chain bool) string {
	if chain {
		return spec + ": the trace's cost column is not charged; a chain asks its stages for one request each, so every request counts 1 (run the stage alone to charge the cost)"
	}
	return spec + ": the trace's cost column is not charged; " + registryNameOf(spec) + " counts every request as 1 (docs/algorithms.md, Costs, says why)"
}
