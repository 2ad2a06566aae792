package algorithms

import (
	"math"
	"sort"
)

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
// not go back past the newest bucket, a running total over a FIFO of the
// non-empty slots gives the same number in O(1) amortized time. When the
// clock goes back, the exact O(n) scan is used until it catches up again.
type buckets struct {
	w, interval int64
	start       []int64 // window start per slot; emptySlot when absent
	count       []int64

	maxStart int64 // newest window start ever stored
	fast     bool  // fifo and total are valid
	total    int64 // sum of count over the slots in fifo
	// fifo is a ring of the non-empty valid slots, oldest first: size
	// entries from fifo[head], wrapping at len(fifo) = n.
	fifo       []int32
	head, size int

	// The window of the last fast advance: while t stays in
	// [curWs, curWs+w) and nothing went back, advance(t) would change
	// nothing, so it is skipped (no division on the hot path).
	curWs  int64
	curIdx int
	cur    bool
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
		fifo:     make([]int32, n),
	}
	for i := range b.start {
		b.start[i] = emptySlot
	}
	return b
}

func (b *buckets) stateBytes() int {
	return 8*len(b.start) + 8*len(b.count) + 4*cap(b.fifo) + 80
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

// sum is ArrayMetric.pass() at t: currentWindow(t), then the sum over the
// slots that are not deprecated at t.
func (b *buckets) sum(t int64) int64 {
	if b.cur && uint64(t-b.curWs) < uint64(b.w) {
		return b.total
	}
	if b.advance(t) {
		return b.total
	}
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
		// Same window as the last fast advance: t's slot is curIdx and it
		// is the newest bucket.
		i := b.curIdx
		if b.count[i] == 0 {
			b.push(i)
		}
		b.total += k
		b.count[i] += k
		return
	}
	fast := b.advance(t)
	i := b.current(t)
	if i < 0 {
		return
	}
	if fast && b.count[i] == 0 {
		b.push(i)
	}
	if fast {
		b.total += k
	}
	b.count[i] += k
}

// push appends slot i, the newest bucket, to the FIFO.
func (b *buckets) push(i int) {
	j := b.head + b.size
	if j >= len(b.fifo) {
		j -= len(b.fifo)
	}
	b.fifo[j] = int32(i)
	b.size++
}

// advance does currentWindow(t). It reports whether the running total is
// valid at t: true while t's window is at or after the newest stored
// bucket, after dropping from the FIFO the slots that are deprecated at t.
// Otherwise (the clock is behind the newest bucket) it marks the total
// stale, to be rebuilt once the clock catches up.
func (b *buckets) advance(t int64) bool {
	var ws int64
	var idx int
	if d := t - b.curWs; b.cur && b.curWs >= 0 && d >= 0 && d < 4*b.w {
		// A few windows after the last one: step there without dividing.
		if b.w == 1 {
			// 1 ms buckets (sample-count = interval in ms): the window is
			// the millisecond itself; no data-dependent loop to mispredict.
			ws, idx = t, b.curIdx+int(d)
			for idx >= len(b.start) {
				idx -= len(b.start)
			}
		} else {
			ws, idx = b.curWs, b.curIdx
			for ; d >= b.w; d -= b.w {
				ws += b.w
				if idx++; idx == len(b.start) {
					idx = 0
				}
			}
		}
	} else {
		ws = t - t%b.w
		idx = int((t / b.w) % int64(len(b.start)))
	}
	if ws < b.maxStart {
		b.fast, b.cur = false, false
		b.currentAt(ws, idx)
		return false
	}
	if !b.fast {
		b.rebuild()
	}
	// Every stored start is ≤ ws. The valid slots are those with start in
	// [ws − (n−1)w, ws]; an older slot in t's own position (start ≤ ws − n·w)
	// is dropped here before currentWindow resets it.
	oldest := ws - b.interval + b.w
	for b.size > 0 {
		i := b.fifo[b.head]
		if b.start[i] >= oldest {
			break
		}
		b.total -= b.count[i]
		if b.head++; b.head == len(b.fifo) {
			b.head = 0
		}
		b.size--
	}
	b.curIdx = b.currentAt(ws, idx)
	b.curWs, b.cur = ws, true
	return true
}

// rebuild restores the FIFO and running total once every stored start is
// again at or before the current window.
func (b *buckets) rebuild() {
	b.head, b.size, b.total = 0, 0, 0
	for i, c := range b.count {
		if c != 0 && b.start[i] != emptySlot {
			b.fifo[b.size] = int32(i)
			b.size++
		}
	}
	live := b.fifo[:b.size]
	sort.Slice(live, func(x, y int) bool { return b.start[live[x]] < b.start[live[y]] })
	for _, i := range live {
		b.total += b.count[i]
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
