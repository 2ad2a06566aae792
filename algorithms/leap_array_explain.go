package algorithms

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Explain implements Explainer: Sentinel 1.8's DefaultController.canPass
// (sentinel-core, slots/block/flow/controller/DefaultController.java:
// (int) node.passQps() + acquireCount > count blocks) over the
// StatisticNode's LeapArray (slots/statistic/base/LeapArray.java:
// currentWindow resets t's bucket when its start is older; values()
// skips buckets with t − start > interval). passQps is pass / interval in
// seconds, a double, truncated by the (int) cast.
func (l *LeapArray) Explain(now time.Duration, r *Request) Explanation {
	b := l.statistics
	n := len(b.start)
	t := l.epoch + floorMs(now)
	ws := t - t%b.w
	idx := int((t / b.w) % int64(n))
	e := Explanation{Rule: fmt.Sprintf("FlowRule count=%s (QPS, reject) over %d bucket(s) of %dms (interval %v)", fmtF(l.cfg.Limit), n, b.w, l.cfg.Interval)}
	type bk struct{ start, count int64 }
	var live []bk
	var sum int64
	for i, st := range b.start {
		if st == emptySlot {
			continue
		}
		if i == idx && st < ws {
			continue // currentWindow resets it for t
		}
		if t-st <= b.interval && b.count[i] != 0 {
			live = append(live, bk{st, b.count[i]})
			sum += b.count[i]
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].start < live[j].start })
	var parts []string
	for i, x := range live {
		if i == 8 && len(live) > 10 {
			parts = append(parts, fmt.Sprintf("… %d more", len(live)-9))
			x = live[len(live)-1]
		} else if i > 8 && len(live) > 10 {
			continue
		}
		s := x.start - l.epoch
		parts = append(parts, fmt.Sprintf("[%dms,%dms)=%d", s, s+b.w, x.count))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	e.State = fmt.Sprintf("t=%dms in bucket [%dms,%dms); buckets counted at t: %s", t-l.epoch, ws-l.epoch, ws-l.epoch+b.w, strings.Join(parts, " "))
	qps := float64(sum) / l.intervalS
	e.Pass = sum <= l.passUpTo || sum >= l.passFrom
	cmp := "≤"
	if !e.Pass {
		cmp = ">"
	}
	e.Math = fmt.Sprintf("pass = %d; passQps = %d / %ss = %s; (int) %s + 1 = %d %s count %s → %s",
		sum, sum, fmtF(l.intervalS), fmtF(qps), fmtF(qps), javaD2I(qps)+1, cmp, fmtF(l.cfg.Limit), verdict(e.Pass))
	if r != nil && r.Priority && l.cfg.OccupyTimeout > 0 {
		e.Math += " (a prioritized entry may still borrow from the next bucket: DefaultController.tryOccupyNext)"
	}
	return e
}
