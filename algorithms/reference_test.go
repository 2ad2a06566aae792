package algorithms

import (
	"math"
	"math/rand/v2"
	"time"
)

// This file holds straightforward ports of the reference classes, written
// for clarity and not speed: Sentinel's LeapArray with its O(n) sum and
// null slots, and the controllers on top of it. The optimized limiters
// must make exactly the same decisions on every trace.

type refWrap struct{ start, pass int64 }

type refLeap struct {
	w, interval int64
	arr         []*refWrap
}

func newRefLeap(n int, w int64) *refLeap {
	return &refLeap{w: w, interval: int64(n) * w, arr: make([]*refWrap, n)}
}

func (r *refLeap) currentWindow(t int64) *refWrap {
	idx := (t / r.w) % int64(len(r.arr))
	ws := t - t%r.w
	old := r.arr[idx]
	switch {
	case old == nil:
		r.arr[idx] = &refWrap{start: ws}
		return r.arr[idx]
	case ws == old.start:
		return old
	case ws > old.start:
		old.start, old.pass = ws, 0
		return old
	default:
		return &refWrap{start: ws}
	}
}

func (r *refLeap) pass(t int64) int64 {
	r.currentWindow(t)
	var s int64
	for _, x := range r.arr {
		if x != nil && !(t-x.start > r.interval) {
			s += x.pass
		}
	}
	return s
}

func (r *refLeap) addPass(t int64) { r.currentWindow(t).pass++ }

// addPassN is addPass(acquireCount n).
func (r *refLeap) addPassN(t, n int64) { r.currentWindow(t).pass += n }

func (r *refLeap) previousWindowPass(t int64) int64 {
	r.currentWindow(t)
	p := t - r.w
	x := r.arr[(p/r.w)%int64(len(r.arr))]
	if x == nil || t-x.start > r.interval || x.start+r.w < p {
		return 0
	}
	return x.pass
}

// refDefault is DefaultController on a StatisticNode.
type refDefault struct {
	count float64
	sec   *refLeap
	ims   int64
	epoch int64
}

func (r *refDefault) decide(now time.Duration) bool { return r.decideN(now, 1) }

// decideN is canPass(node, acquireCount n), then addPassRequest(n).
func (r *refDefault) decideN(now time.Duration, n int32) bool {
	t := r.epoch + floorMs(now)
	passQps := float64(r.sec.pass(t)) / (float64(r.ims) / 1000.0)
	if float64(int32(passQps)+n) > r.count {
		return false
	}
	r.sec.addPassN(t, int64(n))
	return true
}

// refWarm is WarmUpController and, with queue set, WarmUpRateLimiterController.
type refWarm struct {
	count              float64
	coldFactor         int
	warning, max       int64
	slope              float64
	stored, lastFilled int64
	sec, minute        *refLeap
	ims, epoch         int64
	queue              bool
	latest, timeout    int64
	pendingAt          []int64
	pendingN           []int64
}

func newRefWarm(count float64, warmSec, coldFactor, n int, ims int64) *refWarm {
	r := &refWarm{count: count, coldFactor: coldFactor, ims: ims, latest: -1}
	r.warning = int64(int32(float64(warmSec)*count) / int32(coldFactor-1))
	r.max = r.warning + int64(int32(float64(2*warmSec)*count/(1.0+float64(coldFactor))))
	r.slope = (float64(coldFactor) - 1.0) / count / float64(r.max-r.warning)
	r.sec = newRefLeap(n, ims/int64(n))
	r.minute = newRefLeap(60, 1000)
	r.epoch = epochMs(ims / int64(n))
	return r
}

func (r *refWarm) syncToken(t, passQps int64) {
	cur := t - t%1000
	if cur <= r.lastFilled {
		return
	}
	old := r.stored
	nv := old
	if old < r.warning {
		nv = int64(float64(old) + float64(cur-r.lastFilled)*r.count/1000)
	} else if old > r.warning && passQps < int64(int32(r.count)/int32(r.coldFactor)) {
		nv = int64(float64(old) + float64(cur-r.lastFilled)*r.count/1000)
	}
	nv = min(nv, r.max)
	r.stored = nv - passQps
	if r.stored < 0 {
		r.stored = 0
	}
	r.lastFilled = cur
}

func (r *refWarm) rate() float64 {
	if r.stored >= r.warning {
		return math.Nextafter(1.0/(float64(r.stored-r.warning)*r.slope+1.0/r.count), math.Inf(1))
	}
	return r.count
}

func (r *refWarm) decide(now time.Duration) (bool, int64) { return r.decideN(now, 1) }

// decideN is canPass(node, acquireCount n) and the pass of n.
func (r *refWarm) decideN(now time.Duration, n int64) (bool, int64) {
	t := r.epoch + floorMs(now)
	if !r.queue {
		passQps := int64(float64(r.sec.pass(t)) / (float64(r.ims) / 1000.0))
		r.syncToken(t, r.minute.previousWindowPass(t))
		if float64(passQps+n) <= r.rate() {
			r.sec.addPassN(t, n)
			r.minute.addPassN(t, n)
			return true, 0
		}
		return false, 0
	}
	kept, keptN := r.pendingAt[:0], r.pendingN[:0]
	for i, at := range r.pendingAt {
		if at <= t {
			r.minute.addPassN(at, r.pendingN[i])
		} else {
			kept, keptN = append(kept, at), append(keptN, r.pendingN[i])
		}
	}
	r.pendingAt, r.pendingN = kept, keptN
	r.syncToken(t, r.minute.previousWindowPass(t))
	cost := int64(math.Floor(1.0*float64(n)/r.rate()*1000 + 0.5))
	if cost+r.latest <= t {
		r.latest = t
		r.minute.addPassN(t, n)
		return true, 0
	}
	if cost+r.latest-t > r.timeout {
		return false, 0
	}
	r.latest += cost
	r.pendingAt, r.pendingN = append(r.pendingAt, r.latest), append(r.pendingN, n)
	return true, r.latest - t
}

// trace kinds for the shared table.
type traceGen func(rng *rand.Rand) []time.Duration

// poissonTrace is a Poisson trace at rate per second for d.
func poissonTrace(rng *rand.Rand, rate float64, d time.Duration) []time.Duration {
	var out []time.Duration
	t := 0.0
	for {
		t += rng.ExpFloat64() / rate
		if time.Duration(t*1e9) >= d {
			return out
		}
		out = append(out, time.Duration(t*1e9))
	}
}

// jumpyTrace is a trace with bursts on bucket edges, idle gaps, and clock
// steps backwards, in ns or whole ms.
func jumpyTrace(rng *rand.Rand, n int, wholeMs bool) []time.Duration {
	out := make([]time.Duration, 0, n)
	t := time.Duration(rng.Int64N(3000)) * time.Millisecond
	for len(out) < n {
		switch rng.IntN(20) {
		case 0: // step back
			t -= time.Duration(rng.Int64N(2500)) * time.Millisecond
		case 1: // idle gap
			t += time.Duration(rng.Int64N(5000)) * time.Millisecond
		case 2: // a burst at one instant
			for k := rng.IntN(30); k > 0 && len(out) < n; k-- {
				out = append(out, t)
			}
		case 3: // jump to a bucket edge
			t = t - t%(100*time.Millisecond) + 100*time.Millisecond
		default:
			t += time.Duration(rng.Int64N(int64(20 * time.Millisecond)))
		}
		if wholeMs {
			t = t.Truncate(time.Millisecond)
		}
		out = append(out, t)
	}
	return out
}
