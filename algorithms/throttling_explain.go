package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: Sentinel 1.8's ThrottlingController
// (sentinel-core, slots/block/flow/controller/ThrottlingController.java,
// canPass): costTime = Math.round(1.0 · statDurationMs · acquireCount /
// count) in ms, or in ns (on System.nanoTime) when the interval is not a
// multiple of Math.round(count) or the rate passes one per ms; a request
// whose turn, latestPassedTime + costTime, is more than
// maxQueueingTimeMs away is blocked.
func (t *Throttling) Explain(now time.Duration, _ *Request) Explanation {
	unit, cur := "ms", t.epoch+floorMs(now)
	if t.nanos {
		unit, cur = "ns", t.epoch+int64(now)
	}
	rel := func(x int64) string {
		if t.nanos {
			return fmtMs(time.Duration(x - t.epoch))
		}
		return fmtMs(time.Duration(x-t.epoch) * time.Millisecond)
	}
	e := Explanation{Rule: fmt.Sprintf("FlowRule count=%s (controlBehavior 2, throttling) per %v, maxQueueingTimeMs=%d: costTime = Math.round(%v / %s) = %d%s",
		fmtF(t.cfg.Limit), t.cfg.Interval, t.cfg.MaxQueue/time.Millisecond, t.cfg.Interval, fmtF(t.cfg.Limit), t.cost, unit)}
	if t.latest < 0 {
		e.State = "latestPassedTime=-1 (no pass yet)"
	} else {
		e.State = "latestPassedTime=" + rel(t.latest)
	}
	latest := t.latest
	wait, ok := queue(&latest, t.cost, t.maxQueue, cur)
	e.Pass = ok
	if ok {
		if t.nanos {
			e.Wait = time.Duration(wait)
		} else {
			e.Wait = time.Duration(wait) * time.Millisecond
		}
	}
	due := t.cost + t.latest
	dueS := fmt.Sprintf("expected = latestPassedTime + %d%s", t.cost, unit)
	if t.latest >= 0 {
		dueS += " = " + rel(due)
	}
	switch {
	case due <= cur:
		e.Math = fmt.Sprintf("%s ≤ now %s → pass at once", dueS, rel(cur))
	case ok:
		e.Math = fmt.Sprintf("%s > now %s: waits %v ≤ maxQueueingTimeMs → pass after the wait", dueS, rel(cur), e.Wait)
	default:
		e.Math = fmt.Sprintf("%s > now %s: the wait %d%s is over maxQueueingTimeMs %d%s → reject", dueS, rel(cur), due-cur, unit, t.maxQueue, unit)
	}
	return e
}
