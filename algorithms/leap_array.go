package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// LeapArrayConfig configures a LeapArray.
type LeapArrayConfig struct {
	// Limit is the QPS threshold of the flow rule; it may be fractional.
	Limit float64
	// SampleCount is the number of buckets (Sentinel's SAMPLE_COUNT).
	SampleCount int
	// Interval is the statistic interval (Sentinel's INTERVAL); it must be
	// whole milliseconds and divisible by SampleCount.
	Interval time.Duration
	// OccupyTimeout is Sentinel's OccupyTimeoutProperty for prioritized
	// requests (whole ms, at most Interval unless it is the 500 ms default);
	// 0 turns prioritized handling off. See leap_array_priority.go.
	OccupyTimeout time.Duration
}

// LeapArray is Sentinel's sliding window: a StatisticNode's LeapArray of
// SampleCount buckets of Interval/SampleCount each, checked by the
// DefaultController (QPS grade, reject), as in Alibaba Sentinel 1.8.
//
// At time t (whole ms on Sentinel's clock) the count R is the passes
// recorded in the bucket holding t and the SampleCount−1 buckets before it,
// so the window slides bucket by bucket, not continuously. The request
// passes iff (int)(R / interval-in-seconds) + 1 ≤ Limit; a request of cost
// n (Sentinel's acquireCount, SphU.entry(resource, type, n)) passes iff
// (int)(R / interval-in-seconds) + n ≤ Limit and adds n passes, so a cost
// above the limit never passes. With one bucket it
// is a fixed window; with 1 ms buckets it is a sliding log on whole
// milliseconds. Between the two, a burst pair straddling a bucket edge can
// still pass up to twice the limit within one interval.
//
// When the clock goes back, the buckets behave as Sentinel's do: a bucket
// newer than t's window in t's slot makes t's pass go to a throw-away bucket
// (it is lost), and buckets "in the future" still count.
type LeapArray struct {
	cfg        LeapArrayConfig
	epoch      int64
	intervalS  float64
	statistics *buckets
	// passUpTo and passFrom fold the check into two integer comparisons:
	// the window count R passes iff R ≤ passUpTo or R ≥ passFrom (see
	// passThresholds).
	passUpTo, passFrom int64
	// occ is the prioritized-entry state, built at the first borrow;
	// slow is set then: from then on every decision runs Sentinel's exact
	// path (decideExact). reported: the caller reports exits (Exit).
	occ            *occupy
	slow, reported bool
}

// NewLeapArray validates c and builds the limiter.
func NewLeapArray(c LeapArrayConfig) (*LeapArray, error) {
	if err := positiveLimit("leap-array", "limit", c.Limit); err != nil {
		return nil, err
	}
	w, err := bucketLength("leap-array", c.SampleCount, c.Interval)
	if err != nil {
		return nil, err
	}
	ims := int64(c.Interval / time.Millisecond)
	l := &LeapArray{
		cfg:        c,
		epoch:      epochMs(w),
		intervalS:  float64(ims) / 1000.0,
		statistics: newBuckets(c.SampleCount, w),
	}
	l.passUpTo, l.passFrom = passThresholds(func(r int64) bool { return leapPasses(r, l.intervalS, c.Limit) }, saturation(l.intervalS))
	if err := l.initOccupy(ims); err != nil {
		return nil, err
	}
	return l, nil
}

// leapPasses is DefaultController.canPass for a window count r:
// (int) (r / interval) + 1 ≤ limit, in Java int arithmetic (so at a rate of
// 2³¹−1 and above the +1 wraps negative and the request passes, as in Java).
func leapPasses(r int64, intervalS, limit float64) bool {
	return leapPassesN(r, 1, intervalS, limit)
}

// leapPassesN is DefaultController.canPass(node, acquireCount=n) for a
// window count r (Sentinel 1.8 DefaultController.canPass: curCount =
// (int) node.passQps(); curCount + acquireCount > count blocks): the sum is
// Java int arithmetic, which wraps, compared with the double count.
func leapPassesN(r int64, n int32, intervalS, limit float64) bool {
	qps := float64(r) / intervalS
	return !(float64(javaD2I(qps)+n) > limit)
}

// passThresholds returns the two edges of DefaultController's check on a
// window count r ≥ 0: pass(r) iff r ≤ upTo or r ≥ from. Below the count
// sat at which (int) of the rate saturates at 2³¹−1, pass holds up to some
// count and fails above it; from sat on the +1 wraps and it holds again.
// Both edges are found by binary search on pass itself, so the fast check
// is the same function, not an approximation of it.
func passThresholds(pass func(r int64) bool, sat int64) (upTo, from int64) {
	lo, hi := int64(0), sat // the first failure below sat is in [lo, hi]
	for lo < hi {
		m := lo + (hi-lo)/2
		if pass(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1, sat
}

// saturation is the smallest window count whose rate r / intervalS is at
// least 2³¹−1, where javaD2I saturates.
func saturation(intervalS float64) int64 {
	lo, hi := int64(0), int64(1)<<62
	for lo < hi {
		m := lo + (hi-lo)/2
		if float64(m)/intervalS >= math.MaxInt32 {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// Decide implements Limiter.
func (l *LeapArray) Decide(now time.Duration) Decision {
	// Check then Record at the same instant, on one clock reading.
	t := l.epoch + floorMs(now)
	if l.slow {
		return l.decideExact(t, 1, false)
	}
	b := l.statistics
	var r int64
	switch {
	case b.hot(t), b.advance(t):
		r = b.total // sum(t), inlined
	default:
		r = b.scan(t)
	}
	if r <= l.passUpTo || r >= l.passFrom {
		if b.hot(t) {
			b.total++ // add(t, 1), inlined likewise
			b.count[b.curIdx]++
		} else {
			b.add(t, 1)
		}
		return Decision{Pass: true}
	}
	return Decision{}
}

// Check implements Stage: DefaultController.canPass on the node's passQps.
func (l *LeapArray) Check(now time.Duration) Decision {
	t := l.epoch + floorMs(now)
	// DefaultController: (int) passQps + acquireCount > count blocks, in
	// Java int arithmetic (leapPasses), folded into two thresholds.
	var r int64
	if l.slow {
		r = l.passCount(t)
	} else {
		r = l.statistics.sum(t)
	}
	return Decision{Pass: r <= l.passUpTo || r >= l.passFrom}
}

// Record implements Stage: StatisticSlot's addPassRequest at at.
func (l *LeapArray) Record(at time.Duration) {
	t := l.epoch + floorMs(at)
	if l.slow {
		if i := l.current(t); i >= 0 {
			l.statistics.count[i]++
		}
		return
	}
	l.statistics.add(t, 1)
}

// SampleCount is the number of buckets.
func (l *LeapArray) SampleCount() int { return l.cfg.SampleCount }

// Spec implements Limiter.
func (l *LeapArray) Spec() string {
	s := fmt.Sprintf("leap-array:limit=%s,sample-count=%d,interval=%s",
		formatFloat(l.cfg.Limit), l.cfg.SampleCount, FormatDuration(l.cfg.Interval))
	if l.cfg.OccupyTimeout != DefaultOccupyTimeout {
		// Like flavor, the default is left out, so specs written before
		// the parameter existed keep their canonical form.
		s += ",occupy-timeout=" + FormatDuration(l.cfg.OccupyTimeout)
	}
	return s
}

// Rate implements Limiter.
func (l *LeapArray) Rate() float64 { return l.cfg.Limit }

// StateBytes implements Limiter.
func (l *LeapArray) StateBytes() int {
	return int(unsafe.Sizeof(*l)) + l.statistics.stateBytes() + l.occ.stateBytes()
}
