package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// GoThrottling is sentinel-golang's flow rule with TokenCalculateStrategy
// Direct and ControlBehavior Throttling (leaky-bucket:flavor=go): the
// ThrottlingChecker of github.com/alibaba/sentinel-golang (master,
// core/flow/tc_throttling.go), which keeps no statistics.
//
// Everything is in nanoseconds. With the threshold T (Limit) and the stat
// interval I, requests are spaced intervalNs = ceil(1/T · I_ns) apart,
// computed in float64 dividing first, exactly as sentinel-golang does.
// lastPassedTime starts at 0. For a request at cur (ns): if last +
// intervalNs ≤ cur it passes at once and last = cur; otherwise, if last +
// intervalNs − cur > MaxQueue it is blocked; else last += intervalNs and it
// passes after waiting last − cur. A threshold below 1 blocks every request
// (a batch of 1 is larger than the threshold). last never moves back, so
// after a clock step back the waits grow by the step, as in Java.
//
// Against Java's ThrottlingController: no millisecond path (Java floors the
// clock to ms and uses a cost of round(I/T) ms whenever I mod round(T) = 0
// and T/I ≤ 1 per ms), a ceiling where Java rounds, and no rounding of the
// threshold (Java rejects T < 0.5 and treats 0.5 ≤ T < 1 as 1).
type GoThrottling struct {
	cfg   ThrottlingConfig
	clock goClock
	q     goThrottle
}

// goThrottle is ThrottlingChecker.DoCheck, in ns.
type goThrottle struct {
	maxQueueNs, statIntervalNs int64
	lastPassed                 int64
}

// check decides a batch of n at cur (ns) with the threshold given by the
// calculator (sentinel-golang v1.0.4 core/flow/tc_throttling.go,
// ThrottlingChecker.DoCheck): a batch larger than the threshold is
// blocked, else it is spaced intervalNs = ceil(n/threshold · statIntervalNs)
// after the last pass.
func (c *goThrottle) check(threshold float64, cur int64, n int32) (int64, bool) {
	if threshold <= 0.0 || float64(n) > threshold {
		return 0, false
	}
	intervalNs := int64(math.Ceil(float64(n) / threshold * float64(c.statIntervalNs)))
	if expected := c.lastPassed + intervalNs; expected <= cur {
		c.lastPassed = cur
		return 0, true
	}
	if c.lastPassed+intervalNs-cur > c.maxQueueNs {
		return 0, false
	}
	c.lastPassed += intervalNs
	// estimated = lastPassed − cur > 0 here; the re-check against the
	// maximum only matters to a concurrent caller.
	return c.lastPassed - cur, true
}

// goDurationMs checks a whole-millisecond uint32 field of the rule.
func goDurationMs(name, key string, d time.Duration, minMs int64) (int64, error) {
	if d%time.Millisecond != 0 || d < time.Duration(minMs)*time.Millisecond || d > math.MaxUint32*time.Millisecond {
		return 0, fmt.Errorf("%s: %s must be whole milliseconds from %dms to %dms, got %v (sentinel-golang holds it in uint32 ms)", name, key, minMs, int64(math.MaxUint32), d)
	}
	return int64(d / time.Millisecond), nil
}

// NewGoThrottling validates c and builds the limiter.
func NewGoThrottling(c ThrottlingConfig) (*GoThrottling, error) {
	const name = "leaky-bucket"
	if err := positiveLimit(name, "limit", c.Limit); err != nil {
		return nil, err
	}
	ims, err := goDurationMs(name, "interval", c.Interval, 1)
	if err != nil {
		return nil, err
	}
	qms, err := goDurationMs(name, "max-queue", c.MaxQueue, 0)
	if err != nil {
		return nil, err
	}
	return &GoThrottling{
		cfg:   c,
		clock: goClock{goEpochMs(1)},
		q:     goThrottle{maxQueueNs: qms * 1_000_000, statIntervalNs: ims * 1_000_000},
	}, nil
}

// Decide implements Limiter.
func (t *GoThrottling) Decide(now time.Duration) Decision { return t.Check(now) }

// Check implements Stage: it moves lastPassedTime for every pass.
func (t *GoThrottling) Check(now time.Duration) Decision { return t.check(now, 1) }

// DecideRequest implements RequestLimiter: an entry with BatchCount = the
// request's cost (see goThrottle.check).
func (t *GoThrottling) DecideRequest(now time.Duration, r *Request) Decision {
	return t.check(now, r.cost())
}

func (t *GoThrottling) check(now time.Duration, n int32) Decision {
	wait, ok := t.q.check(t.cfg.Limit, t.clock.ns(now), n)
	if !ok {
		return Decision{}
	}
	return Decision{Pass: true, Wait: time.Duration(wait)}
}

// Record implements Stage; the Direct + Throttling rule reads no
// statistics.
func (t *GoThrottling) Record(time.Duration) {}

// Spec implements Limiter.
func (t *GoThrottling) Spec() string {
	return fmt.Sprintf("leaky-bucket:limit=%s,interval=%s,max-queue=%s,flavor=go",
		formatFloat(t.cfg.Limit), FormatDuration(t.cfg.Interval), FormatDuration(t.cfg.MaxQueue))
}

// Rate implements Limiter.
func (t *GoThrottling) Rate() float64 { return t.cfg.Limit / t.cfg.Interval.Seconds() }

// StateBytes implements Limiter.
func (t *GoThrottling) StateBytes() int { return int(unsafe.Sizeof(*t)) }
