package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// ThrottlingConfig configures a Throttling limiter.
type ThrottlingConfig struct {
	// Limit is the number of requests per Interval; it may be fractional
	// but must round to at least 1.
	Limit float64
	// Interval is Sentinel's statDurationMs: whole milliseconds.
	Interval time.Duration
	// MaxQueue is the longest a request may queue (maxQueueingTimeMs):
	// whole milliseconds.
	MaxQueue time.Duration
}

// Throttling is Sentinel's ThrottlingController (formerly
// RateLimiterController, Sentinel 1.8): a leaky bucket that spaces passes
// evenly, cost = Interval/Limit apart, and queues a request until its turn
// if that turn is at most MaxQueue away, else rejects it.
//
// latestPassedTime starts at −1, so the first request passes at once. For
// a request at now: due = latest + cost. If due ≤ now it passes with no
// wait and latest = now. Otherwise, if due − now > MaxQueue it is blocked
// and latest is unchanged; else latest = due and it passes after waiting
// due − now. Sentinel measures in whole milliseconds (cost =
// round(Interval/Limit) ms) unless Interval mod round(Limit) ≠ 0 or
// Limit/Interval > 1 per ms, in which case it measures in nanoseconds (cost
// = round(1e6·Interval/Limit) ns) on System.nanoTime. latest never moves
// back, so when the clock steps back the waits grow by the size of the step.
type Throttling struct {
	cfg      ThrottlingConfig
	nanos    bool
	cost     int64 // in ms, or ns when nanos
	maxQueue int64 // in the same unit
	epoch    int64 // in the same unit
	latest   int64
}

// NewThrottling validates c and builds the limiter.
func NewThrottling(c ThrottlingConfig) (*Throttling, error) {
	const name = "leaky-bucket"
	if err := positiveLimit(name, "limit", c.Limit); err != nil {
		return nil, err
	}
	ims, err := wholeMs(name, "interval", c.Interval, 1)
	if err != nil {
		return nil, err
	}
	qms, err := wholeMs(name, "max-queue", c.MaxQueue, 0)
	if err != nil {
		return nil, err
	}
	r := javaRound(c.Limit)
	if r == 0 {
		// Sentinel computes statDurationMs % Math.round(count), which throws.
		return nil, fmt.Errorf("%s: limit %s rounds to 0 per interval and Sentinel rejects it; use a limit of at least 0.5 per interval or a longer interval", name, formatNumber(c.Limit))
	}
	t := &Throttling{cfg: c, latest: -1}
	t.nanos = ims%r != 0 || c.Limit/float64(ims) > 1
	if t.nanos {
		t.cost = javaRound(1.0 * 1e6 * float64(ims) * 1 / c.Limit)
		t.maxQueue = qms * 1_000_000
		t.epoch = epochMs(1) * 1_000_000
	} else {
		t.cost = javaRound(1.0 * float64(ims) * 1 / c.Limit)
		t.maxQueue = qms
		t.epoch = epochMs(1)
	}
	return t, nil
}

// Decide implements Limiter.
func (t *Throttling) Decide(now time.Duration) Decision { return t.Check(now) }

// Record implements Stage; ThrottlingController keeps no statistics.
func (t *Throttling) Record(time.Duration) {}

// Check implements Stage: it moves latestPassedTime for every pass.
func (t *Throttling) Check(now time.Duration) Decision { return t.check(now, 1) }

// DecideRequest implements RequestLimiter: canPass(node, acquireCount = the
// request's cost). ThrottlingController (Sentinel 1.8) spaces a request by
// its own costTime, Math.round(1.0 · statDurationMs · acquireCount / count)
// ms (checkPassUsingCachedMs), or Math.round(1.0 · 10⁶ · statDurationMs ·
// acquireCount / count) ns (checkPassUsingNanoSeconds), and queues it like
// any other: a cost above the limit passes when the queue allows its time.
func (t *Throttling) DecideRequest(now time.Duration, r *Request) Decision {
	return t.check(now, r.cost())
}

// check is canPass(node, n): the cost of n is computed as Sentinel does,
// in the same float order, n = 1 being the cached cost.
func (t *Throttling) check(now time.Duration, n int32) Decision {
	cost := t.cost
	if n != 1 {
		ims := float64(int64(t.cfg.Interval / time.Millisecond))
		if t.nanos {
			cost = javaRound(1.0 * 1e6 * ims * float64(n) / t.cfg.Limit)
		} else {
			cost = javaRound(1.0 * ims * float64(n) / t.cfg.Limit)
		}
	}
	var cur int64
	if t.nanos {
		cur = t.epoch + int64(now)
	} else {
		cur = t.epoch + floorMs(now)
	}
	wait, ok := queue(&t.latest, cost, t.maxQueue, cur)
	if !ok {
		return Decision{}
	}
	if t.nanos {
		return Decision{Pass: true, Wait: time.Duration(wait)}
	}
	return Decision{Pass: true, Wait: time.Duration(wait) * time.Millisecond}
}

// queue is Sentinel's uniform-pacing check on latestPassedTime, in one
// unit (ms or ns) throughout, shared with WarmUpRateLimiter: pass now,
// pass after a wait, or block. It returns the wait of a pass, which is
// positive when the pass queues (due > cur).
func queue(latest *int64, cost, maxQueue, cur int64) (int64, bool) {
	if due := cost + *latest; due <= cur {
		*latest = cur
		return 0, true
	}
	if cost+*latest-cur > maxQueue {
		return 0, false
	}
	*latest += cost
	return *latest - cur, true
}

// Spec implements Limiter.
func (t *Throttling) Spec() string {
	return fmt.Sprintf("leaky-bucket:limit=%s,interval=%s,max-queue=%s",
		formatFloat(t.cfg.Limit), FormatDuration(t.cfg.Interval), FormatDuration(t.cfg.MaxQueue))
}

// Rate implements Limiter.
func (t *Throttling) Rate() float64 { return t.cfg.Limit / t.cfg.Interval.Seconds() }

// StateBytes implements Limiter.
func (t *Throttling) StateBytes() int { return int(unsafe.Sizeof(*t)) }

// Warnings implements Warner: with max-queue=0, Sentinel's rule loader
// (FlowRuleUtil.isValidRule, checkControlBehaviorField) requires
// maxQueueingTimeMs > 0 and drops the rule, which leaves the resource
// unlimited.
func (t *Throttling) Warnings() []string {
	if t.cfg.MaxQueue == 0 {
		return []string{maxQueueZero("leaky-bucket")}
	}
	return nil
}

// keyedTable implements keyedStater: a Throttling has no pointers and is
// kept whole per key.
func (t *Throttling) keyedTable() keyedTable { return flatTable[Throttling](*t) }
