package algorithms

import (
	"fmt"
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
}

// LeapArray is Sentinel's sliding window: a StatisticNode's LeapArray of
// SampleCount buckets of Interval/SampleCount each, checked by the
// DefaultController (QPS grade, reject), as in Alibaba Sentinel 1.8.
//
// At time t (whole ms on Sentinel's clock) the count R is the passes
// recorded in the bucket holding t and the SampleCount−1 buckets before it,
// so the window slides bucket by bucket, not continuously. The request
// passes iff (int)(R / interval-in-seconds) + 1 ≤ Limit. With one bucket it
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
	return &LeapArray{
		cfg:        c,
		epoch:      epochMs(w),
		intervalS:  float64(ims) / 1000.0,
		statistics: newBuckets(c.SampleCount, w),
	}, nil
}

// Decide implements Limiter.
func (l *LeapArray) Decide(now time.Duration) Decision {
	d := l.Check(now)
	if d.Pass {
		l.Record(now)
	}
	return d
}

// Check implements Stage: DefaultController.canPass on the node's passQps.
func (l *LeapArray) Check(now time.Duration) Decision {
	t := l.epoch + floorMs(now)
	qps := float64(l.statistics.sum(t)) / l.intervalS
	// DefaultController: (int) passQps + acquireCount > count blocks, in
	// Java int arithmetic.
	if float64(javaD2I(qps)+1) > l.cfg.Limit {
		return Decision{}
	}
	return Decision{Pass: true}
}

// Record implements Stage: StatisticSlot's addPassRequest at at.
func (l *LeapArray) Record(at time.Duration) { l.statistics.add(l.epoch+floorMs(at), 1) }

// SampleCount is the number of buckets.
func (l *LeapArray) SampleCount() int { return l.cfg.SampleCount }

// Spec implements Limiter.
func (l *LeapArray) Spec() string {
	return fmt.Sprintf("leap-array:limit=%s,sample-count=%d,interval=%s",
		formatFloat(l.cfg.Limit), l.cfg.SampleCount, formatDuration(l.cfg.Interval))
}

// Rate implements Limiter.
func (l *LeapArray) Rate() float64 { return l.cfg.Limit }

// StateBytes implements Limiter.
func (l *LeapArray) StateBytes() int { return int(unsafe.Sizeof(*l)) + l.statistics.stateBytes() }
