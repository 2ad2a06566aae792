package algorithms

import (
	"fmt"
	"math"
	"time"
)

// This file holds what the flavor=go limiters share: sentinel-golang's
// clock and the resource's global statistic (core/stat/base's
// BucketLeapArray read through a SlidingWindowMetric), as sentinel-golang
// (github.com/alibaba/sentinel-golang, master) builds them for a flow rule.
//
// The lab configures sentinel-golang with MetricStatisticIntervalMs = I
// (the spec's interval) and MetricStatisticSampleCount = S (sample-count),
// and the global statistic with 10·S buckets over 10·I
// (GlobalStatisticSampleCountTotal, GlobalStatisticIntervalMsTotal). The
// rule's StatIntervalInMs is I, so the rule reuses the resource's default
// metric: a sliding window of S buckets of w = I/S ms over a ring of 10·S
// buckets.

// goEpochMs is the absolute millisecond (util.CurrentTimeMillis) that
// virtual time 0 maps to for a flavor=go limiter whose bucket length is
// bucketMs: the same epoch as the Java limiters (epochMs, about 2020-09 in
// Unix ms, a multiple of the bucket and of 1000 ms). The nanosecond clock
// (util.CurrentTimeNano) reads goEpochMs·10⁶ + t, and the millisecond clock
// its floor, epoch + ⌊t⌋ms. The limiter is created at virtual time 0.
func goEpochMs(bucketMs int64) int64 { return epochMs(bucketMs) }

// goStat is the resource node's global statistic in sentinel-golang: the
// ring of 10·S MetricBuckets (pass counts only) of w ms each, created at
// the limiter's creation time, read through the SlidingWindowMetric of S
// buckets over I.
//
// The ring is NewAtomicBucketWrapArrayWithTime: at creation (absolute ms
// c) the slot of c holds the bucket starting at c − c mod w and the other
// slots the following 10·S − 1 bucket starts, so every bucket is "now or
// later". Adding at t (LeapArray.currentBucketOfTime) uses slot (t/w) mod
// 10·S: the same start adds there, a newer start resets the slot first,
// and an older start (the clock went back behind the slot's bucket) is an
// error and the pass is lost. Reading at t (getSatisfiedBuckets) sums the
// slots whose stored start lies in [ws − I + w, ws], ws = t − t mod w: a
// bucket "in the future" never counts (its uint64 age wraps around and
// the predicate excludes it), and reading does not reset any slot.
//
// sentinel-golang scans the ring on every read. Here a running sum of the
// window ending at end gives the same number: it slides bucket by bucket
// as the clock moves on and is rebuilt (O(S)) after a step back or a
// jump of a whole interval with passes in it.
type goStat struct {
	w, interval int64 // bucket length and I, in ms
	s           int64 // buckets in the read window (S)
	start       []int64
	count       []int64

	valid bool
	end   int64 // the window [end − I + w, end] that sum covers
	sum   int64
	// newest is the newest start of a slot that holds a pass.
	newest int64
}

func newGoStat(s int, w int64, created int64) *goStat {
	n := int64(10 * s)
	g := &goStat{
		w:        w,
		interval: int64(s) * w,
		s:        int64(s),
		start:    make([]int64, n),
		count:    make([]int64, n),
		newest:   math.MinInt64,
	}
	idx := (created / w) % n
	st := created - created%w
	for k := int64(0); k < n; k++ {
		g.start[(idx+k)%n] = st + k*w
	}
	return g
}

func (g *goStat) stateBytes() int { return 16*len(g.start) + 80 }

func (g *goStat) slot(ws int64) int64 { return (ws / g.w) % int64(len(g.start)) }

// at is the count of the bucket starting at ws, 0 when its slot holds
// another bucket.
func (g *goStat) at(ws int64) int64 {
	i := g.slot(ws)
	if g.start[i] != ws {
		return 0
	}
	return g.count[i]
}

// inWindow reports whether a bucket starting at st is in the cached window.
func (g *goStat) inWindow(st int64) bool { return st <= g.end && st > g.end-g.interval }

// touch is LeapArray.currentBucketOfTime at absolute ms t, which every
// write to the ring does first (the stat slot's block count for a blocked
// request, its concurrency and pass counts for a pass): t's slot is reset
// when it holds an older bucket. It returns the slot, or -1 when the slot
// holds a newer bucket ("Provided time ... is already behind
// old.BucketStart", and the write is lost).
func (g *goStat) touch(t int64) int64 {
	ws := t - t%g.w
	i := g.slot(ws)
	old := g.start[i]
	switch {
	case ws == old:
	case ws > old:
		if g.valid && g.inWindow(old) {
			g.sum -= g.count[i]
		}
		g.start[i], g.count[i] = ws, 0
	default:
		return -1
	}
	return i
}

// add is BucketLeapArray.AddCount(MetricEventPass, 1) at absolute ms t.
func (g *goStat) add(t int64) { g.addN(t, 1) }

// addN is BucketLeapArray.AddCount(MetricEventPass, n) at absolute ms t
// (the stat slot adds the entry's BatchCount).
func (g *goStat) addN(t, n int64) {
	i := g.touch(t)
	if i < 0 {
		return
	}
	ws := g.start[i]
	g.count[i] += n
	if g.valid && g.inWindow(ws) {
		g.sum += n
	}
	if ws > g.newest {
		g.newest = ws
	}
}

// window is SlidingWindowMetric.GetSum(MetricEventPass) at absolute ms t:
// the passes of the S buckets ending with t's bucket.
func (g *goStat) window(t int64) int64 {
	ws := t - t%g.w
	switch {
	case g.valid && ws == g.end:
	case g.valid && ws > g.end && ws-g.end < g.interval:
		for g.end < ws {
			g.end += g.w
			g.sum += g.at(g.end) - g.at(g.end-g.interval)
		}
	case g.newest <= ws-g.interval:
		// No bucket of the window holds a pass.
		g.valid, g.end, g.sum = true, ws, 0
	default:
		g.valid, g.end, g.sum = true, ws, 0
		for k := int64(0); k < g.s; k++ {
			g.sum += g.at(ws - k*g.w)
		}
	}
	return g.sum
}

// previous is SlidingWindowMetric.GetPreviousQPS's sum at absolute ms t:
// the window read at t − w, that is the S buckets ending just before t's
// bucket.
func (g *goStat) previous(t int64) int64 {
	ws := t - t%g.w
	return g.window(t) - g.at(ws) + g.at(ws-g.interval)
}

// goStatParams checks a flavor=go statistic (sample-count S, interval I)
// and returns the bucket length in ms. sentinel-golang holds I and 10·I in
// uint32 ms and requires S to divide I.
func goStatParams(name string, sampleCount int, interval time.Duration) (int64, error) {
	if interval%time.Millisecond != 0 || interval < time.Millisecond || interval > math.MaxUint32/10*time.Millisecond {
		return 0, fmt.Errorf("%s: interval must be whole milliseconds from 1ms to %dms, got %v (sentinel-golang holds 10·interval in uint32 ms)", name, math.MaxUint32/10, interval)
	}
	ims := int64(interval / time.Millisecond)
	if sampleCount < 1 || sampleCount > maxGoSampleCount {
		return 0, fmt.Errorf("%s: sample-count must be from 1 to %d with flavor=go, got %d (sentinel-golang keeps a ring of 10·sample-count buckets)", name, maxGoSampleCount, sampleCount)
	}
	if ims%int64(sampleCount) != 0 {
		return 0, fmt.Errorf("%s: sample-count %d does not divide interval %v, and sentinel-golang requires the interval to be evenly divided; pick a divisor of %d such as %s",
			name, sampleCount, interval, ims, divisorsNear(ims, sampleCount))
	}
	return ims / int64(sampleCount), nil
}

// maxGoSampleCount bounds the ring (10·S buckets of 16 bytes) to 16 MB.
const maxGoSampleCount = 100_000

// goClock maps virtual time to sentinel-golang's clocks.
type goClock struct{ epochMs int64 }

func (c goClock) ms(now time.Duration) int64 { return c.epochMs + floorMs(now) }
func (c goClock) ns(now time.Duration) int64 { return c.epochMs*1_000_000 + int64(now) }
