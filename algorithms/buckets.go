package algorithms

import "math"

// buckets is Sentinel's LeapArray of pass counters (Sentinel 1.8,
// slots/statistic/base/LeapArray.java with ArrayMetric.pass and
// previousWindowPass), on absolute milliseconds.
//
// The array has n slots of length w ms; interval = n·w. A time t maps to
// slot (t/w) mod n and window start ws = t − t mod w. currentWindow(t)
// returns t's slot after creating it (empty slot) or resetting it (stored
// start older than ws); when the stored start is newer than ws (the clock
// went back) Sentinel hands out a throw-away bucket, so a pass recorded
// there is lost. The window count at t sums every stored slot with
// t − start ≤ interval, so buckets "in the future" count too.
//
// Sentinel sums all n slots on every request. Here, while the clock does
// not go back past the newest bucket, a running total of the valid slots
// gives the same number: moving from one window to the next subtracts the
// slot that falls out of the interval (the one the new window reuses, and
// any skipped over), so the cost is O(1) per window the clock moves through
// and O(1) for a jump of a whole interval or more, never O(n) per request.
// When the clock goes back, the exact O(n) scan is used until it catches up
// again.
type buckets struct {
	w, interval int64
	start       []int64 // window start per slot; emptySlot when absent
	count       []int64

	maxStart int64 // newest window start ever stored
	// fast: total is the sum of count over the slots with start in
	// [curWs − interval + w, curWs], and curWs is the newest start stored
	// (the clock has not gone back past it). cur: curWs and curIdx are set.
	fast, cur bool
	total     int64
	curWs     int64
	curIdx    int
}

// emptySlot marks a slot that Sentinel still holds as null. It is older
// than any real window start, so "create" behaves as "reset" and the slot
// never counts.
const emptySlot = math.MinInt64 / 4

func newBuckets(n int, w int64) *buckets {
	b := &buckets{
		w:        w,
		interval: int64(n) * w,
		start:    make([]int64, n),
		count:    make([]int64, n),
		maxStart: emptySlot,
		fast:     true,
	}
	for i := range b.start {
		b.start[i] = emptySlot
	}
	return b
}

func (b *buckets) stateBytes() int {
	return 8*len(b.start) + 8*len(b.count) + 80
}

// current is LeapArray.currentWindow(t): the slot that t's statistics go
// to, or -1 for a throw-away bucket.
func (b *buckets) current(t int64) int {
	ws := t - t%b.w
	return b.currentAt(ws, int((t/b.w)%int64(len(b.start))))
}

// currentAt is current for a time whose window start is ws and slot idx.
func (b *buckets) currentAt(ws int64, idx int) int {
	old := b.start[idx]
	switch {
	case ws == old:
		return idx
	case ws > old:
		b.start[idx] = ws
		b.count[idx] = 0
		if ws > b.maxStart {
			b.maxStart = ws
		}
		return idx
	default:
		return -1
	}
}

// hot reports whether t is in the current bucket of the running total:
// then sum(t) is total and add(t, k) adds k to it and to curIdx's count.
func (b *buckets) hot(t int64) bool {
	return b.cur && uint64(t-b.curWs) < uint64(b.w)
}

// sum is ArrayMetric.pass() at t: currentWindow(t), then the sum over the
// slots that are not deprecated at t.
func (b *buckets) sum(t int64) int64 {
	if b.cur && uint64(t-b.curWs) < uint64(b.w) {
		return b.total
	}
	if b.advance(t) {
		return b.total
	}
	return b.scan(t)
}

// scan is the sum over the slots that are not deprecated at t, slot by
// slot, as Sentinel computes it (after advance reported the total stale).
func (b *buckets) scan(t int64) int64 {
	var s int64
	for i, st := range b.start {
		if t-st <= b.interval {
			s += b.count[i]
		}
	}
	return s
}

// add records k passes at t (ArrayMetric.addPass).
func (b *buckets) add(t, k int64) {
	if b.cur && uint64(t-b.curWs) < uint64(b.w) {
		// Same window as the last fast advance: t's slot is curIdx, a
		// valid slot, so the pass counts in the total.
		b.total += k
		b.count[b.curIdx] += k
		return
	}
	fast := b.advance(t)
	i := b.current(t)
	if i < 0 {
		return
	}
	if fast {
		b.total += k
	}
	b.count[i] += k
}

// advance does currentWindow(t). It reports whether the running total is
// valid at t: true while t's window is at or after the newest stored
// bucket. Otherwise (the clock is behind the newest bucket) it marks the
// total stale, to be rebuilt once the clock catches up.
func (b *buckets) advance(t int64) bool {
	n := int64(len(b.start))
	if d := t - b.curWs; b.cur && b.curWs >= 0 && d >= 0 {
		// Moving forward from the current window by k windows: the slots
		// stepped into held the windows that leave the interval.
		var k int64
		switch {
		case d < b.w:
			return true
		case b.w == 1:
			k = d
		case d < 2*b.w:
			k = 1
		default:
			k = d / b.w
		}
		ws, idx := b.curWs, b.curIdx
		if k >= n {
			b.total = 0
			ws += k * b.w
			idx = int((int64(idx) + k%n) % n)
		} else {
			for ; k > 0; k-- {
				ws += b.w
				if idx++; idx == int(n) {
					idx = 0
				}
				if b.start[idx] == ws-b.interval {
					b.total -= b.count[idx]
				}
			}
		}
		// currentWindow resets the slot: its start (≤ the old curWs, the
		// newest stored) is older than ws.
		b.start[idx], b.count[idx], b.maxStart = ws, 0, ws
		b.curIdx, b.curWs = idx, ws
		return true
	}
	ws := t - t%b.w
	idx := int((t / b.w) % n)
	if ws < b.maxStart {
		b.fast, b.cur = false, false
		b.currentAt(ws, idx)
		return false
	}
	if !b.fast {
		b.rebuild(ws)
	} else if b.cur {
		// Only reached for times before 0 (truncating division): rebuild
		// rather than step.
		b.rebuild(ws)
	}
	// Every stored start is ≤ ws; the slot t's window reuses held a start
	// ≤ ws − interval, outside the total, before currentWindow resets it.
	b.curIdx = b.currentAt(ws, idx)
	b.curWs, b.cur = ws, true
	return true
}

// rebuild recomputes the running total at window start ws, once every
// stored start is again at or before it.
func (b *buckets) rebuild(ws int64) {
	b.total = 0
	oldest := ws - b.interval + b.w
	for i, st := range b.start {
		if st >= oldest && st <= ws {
			b.total += b.count[i]
		}
	}
	b.fast = true
}

// previous is ArrayMetric.previousWindowPass() at t: currentWindow(t),
// then the bucket one window length before t if it is neither deprecated
// nor older than that window.
func (b *buckets) previous(t int64) int64 {
	b.advance(t)
	p := t - b.w
	idx := int((p / b.w) % int64(len(b.start)))
	st := b.start[idx]
	if st == emptySlot || t-st > b.interval || st+b.w < p {
		return 0
	}
	return b.count[idx]
}
