package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// GoLeapArray is sentinel-golang's flow rule with TokenCalculateStrategy
// Direct and ControlBehavior Reject (leap-array:flavor=go): the
// RejectTrafficShapingChecker on the resource's default metric
// (github.com/alibaba/sentinel-golang, master, core/flow/tc_default.go).
//
// At t (whole ms on sentinel-golang's clock) the count R is the passes in
// the S buckets of Interval/S ending with t's bucket, read from a ring of
// 10·S buckets (goStat). The request passes iff R + 1 ≤ Limit: the Go rule's
// Threshold is compared with the count of one stat interval, not with a
// per-second QPS as Java's DefaultController does, so with interval=500ms
// limit=10 admits 10 per 500 ms where Java admits 5. After the clock steps
// back only the buckets up to t's own count (Java also counts buckets "in
// the future"), and a pass whose slot already holds a newer bucket is lost;
// before the limiter's creation (t < 0) every slot holds a newer bucket.
type GoLeapArray struct {
	cfg        LeapArrayConfig
	clock      goClock
	statistics *goStat
}

// NewGoLeapArray validates c and builds the limiter.
func NewGoLeapArray(c LeapArrayConfig) (*GoLeapArray, error) {
	if err := positiveLimit("leap-array", "limit", c.Limit); err != nil {
		return nil, err
	}
	w, err := goStatParams("leap-array", c.SampleCount, c.Interval)
	if err != nil {
		return nil, err
	}
	e := goEpochMs(w)
	return &GoLeapArray{cfg: c, clock: goClock{e}, statistics: newGoStat(c.SampleCount, w, e)}, nil
}

// Decide implements Limiter.
func (l *GoLeapArray) Decide(now time.Duration) Decision {
	d := l.Check(now)
	if d.Pass {
		l.Record(now)
	}
	return d
}

// Check implements Stage: RejectTrafficShapingChecker.DoCheck with the
// threshold from DirectTrafficShapingCalculator. A block is counted by the
// stat slot at once, which resets t's slot of the ring if it holds an
// older bucket.
func (l *GoLeapArray) Check(now time.Duration) Decision { return l.check(now, 1) }

// DecideRequest implements RequestLimiter: an entry with BatchCount = the
// request's cost. RejectTrafficShapingChecker.DoCheck (sentinel-golang
// v1.0.4 core/flow/tc_default.go) blocks iff curCount + batchCount >
// threshold, and the stat slot adds BatchCount passes
// (StandaloneStatSlot.OnEntryPassed, stat slot recordPassFor); a cost above
// the threshold never passes.
func (l *GoLeapArray) DecideRequest(now time.Duration, r *Request) Decision {
	n := r.cost()
	d := l.check(now, n)
	if d.Pass {
		l.statistics.addN(l.clock.ms(now), int64(n))
	}
	return d
}

func (l *GoLeapArray) check(now time.Duration, n int32) Decision {
	t := l.clock.ms(now)
	if cur := float64(l.statistics.window(t)); cur+float64(n) > l.cfg.Limit {
		l.statistics.touch(t) // the stat slot counts the block
		return Decision{}
	}
	return Decision{Pass: true}
}

// Record implements Stage: the stat slot's AddCount(MetricEventPass, 1) on
// the resource node at at.
func (l *GoLeapArray) Record(at time.Duration) { l.statistics.add(l.clock.ms(at)) }

// SampleCount is the number of buckets in the window.
func (l *GoLeapArray) SampleCount() int { return l.cfg.SampleCount }

// Spec implements Limiter.
func (l *GoLeapArray) Spec() string {
	return fmt.Sprintf("leap-array:limit=%s,sample-count=%d,interval=%s,flavor=go",
		formatFloat(l.cfg.Limit), l.cfg.SampleCount, FormatDuration(l.cfg.Interval))
}

// Rate implements Limiter: Limit per Interval.
func (l *GoLeapArray) Rate() float64 { return l.cfg.Limit / l.cfg.Interval.Seconds() }

// StateBytes implements Limiter.
func (l *GoLeapArray) StateBytes() int { return int(unsafe.Sizeof(*l)) + l.statistics.stateBytes() }
