package simulator

import (
	"slices"
	"sort"
	"time"
)

// windowMax computes, exactly, the largest number of admissions in any
// window (t−W, t] of length W.
//
// # Design
//
// The maximum over all windows is reached with the window's right end on an
// admission (the count only rises when t reaches an admission), so it is
// enough to evaluate, for every admission time r, the number of admissions
// in (r−W, r]. The tracker keeps the admission times it still needs in a
// slice sorted by time and evaluates them lazily:
//
//   - settled is the largest count over all windows whose right end r is
//     below the boundary b; those windows are final.
//   - pts holds every admission time above b−W in ascending order: exactly
//     the admissions that windows ending at or after b can contain.
//   - When the newest admission hi is more than reorder+W/4 past b, the
//     windows ending in [b, hi−reorder) are evaluated with a two-pointer
//     sweep, b moves to hi−reorder and admissions at or below the new b−W
//     are dropped.
//
// For admission times that never decrease (every limiter here on a clock
// that does not step back) an add is an append and each admission is swept
// once as a right end and once as a left end: O(1) amortized time, and the
// memory is the admissions of the last 1.25W+reorder (at most twice that
// while a dead prefix waits to be reclaimed), independent of the run's
// length.
//
// While admissions come in order, the tracker does not build that slice: it
// runs an in-order mode (see add) that counts the window ending at each
// admission as it comes, with a two-pointer running count over a ring of
// admission times, and keeps just enough (the boundary b the slice would
// have, the admissions above b−W, the record counts) to switch to the
// slice, in the state the slice would have reached by itself, at the first
// admission out of order. Both give the same results; the in-order mode
// touches each admission twice (written, then passed by the window's left
// end) instead of sweeping it twice and moving it once.
//
// An admission that arrives out of order (earlier than the previous one) is
// inserted at its place by binary search. As long as it is at or above b,
// i.e. at most reorder behind the newest admission, no window it belongs to
// has been settled yet and the result stays exact. An admission below b
// ("late") would belong to windows already settled; it is still counted in
// the windows that are not, and counted in late, and MaxWindowPassed is then
// a lower bound. Config.Reorder sets the tolerance (default: one Window);
// a run whose Reorder covers its whole duration is exact whatever the order,
// at the cost of memory proportional to its admissions.
type windowMax struct {
	w       int64
	reorder int64
	pts     []int64 // ascending; all > b−w (plus late ones in (b−w, b))
	head    int     // pts[head:] is live; the prefix is reclaimed on compaction
	b       int64   // boundary: windows with right end < b are settled
	bSet    bool    // b is meaningful (something was settled); else b = −∞
	hi      int64
	any     bool
	settled int64
	// settledAt is the right end of the first window that holds settled.
	settledAt int64
	late      int64

	// The in-order mode (see add): ring[i&(len(ring)−1)] for i in
	// [tail, n) are the admissions kept, in order; the window (t−W, t] of
	// the newest admission t holds those from lo on. best is the largest
	// count so far, first reached at bestAt. The records (each count
	// larger than every earlier one) at or above b are runs[rh:], and
	// below is the last record below b (once b is set). ring is nil
	// before the first admission and after the switch to the sorted slice.
	ring        []int64
	tail, lo, n int64
	best        int64
	bestAt      int64
	runs        []recordRun
	rh          int
	below       windowRecord
}

// recordRun is k records at consecutive admissions from index i on (in the
// ring), each one more than the one before: the window ending at admission
// i+j holds count+j. While the traffic climbs (the first window of a run,
// every admission a record) a run is one entry instead of one per
// admission; the records' times are the ring's, which keeps every
// admission above b−W, so every record at or above b.
type recordRun struct{ i, count, k int64 }

// windowRecord is a window count larger than every earlier one, with the
// right end of its window.
type windowRecord struct{ at, count int64 }

// ringMin is the initial length of the in-order mode's ring, a power of two
// (a variable so that tests can make the ring fill and grow).
var ringMin = 1024

func newWindowMax(window, reorder time.Duration) *windowMax {
	if reorder < 0 {
		reorder = 0
	}
	return &windowMax{w: int64(window), reorder: int64(reorder)}
}

// add records one admission at time t (nanoseconds).
//
// While admissions come in order (t never below the newest) the tracker
// runs in its in-order mode: a ring of admission times and a running
// two-pointer count of the window (t−W, t] ending at each admission, so an
// add is a store, (amortized) one comparison to move the window's left end
// and one to update the maximum. It also keeps, without evaluating
// anything, what the sorted-slice structure described on windowMax would
// hold at that point (the boundary b, the admissions above b−W, and the
// largest count below b via the records), so that the first out-of-order
// admission switches to that structure (toSorted) in exactly the state it
// would have reached by itself: results, the busiest window and the late
// count are the same as if it had been used from the start.
func (m *windowMax) add(t int64) {
	if n := m.n; t >= m.hi && n-m.tail < int64(len(m.ring)) {
		r := m.ring
		mask := int64(len(r) - 1)
		r[n&mask] = t
		n++
		m.n, m.hi = n, t
		// The window's left end moves by about one admission per admission:
		// one step without a branch (a conditional move), then a loop for
		// the rarer longer moves, so that the loop's branch is predictable.
		lo, tw := m.lo, t-m.w
		var step int64
		if r[lo&mask] <= tw {
			step = 1
		}
		lo += step
		for r[lo&mask] <= tw {
			lo++
		}
		m.lo = lo
		if n-lo > m.best {
			m.record(n-lo, t, n-1)
		}
		if t-m.reorder-m.b > m.w/4 {
			m.advance(t - m.reorder)
		}
		return
	}
	m.addOther(t)
}

// addMany is add for each time of ts in turn. In the in-order mode it keeps
// the ring's indexes in registers across admissions and moves the window's
// left end without a data-dependent branch for up to two admissions (the
// two comparisons load independently), which is what an admission costs
// once the ring is in cache.
//
// Most admissions of a long run cannot make a new maximum: the window
// ending at each of them holds fewer than best. addQuiet takes such a
// stretch at once (see there); the loop below takes the rest, and after
// quietEvery admissions gives addQuiet another try.
func (m *windowMax) addMany(ts []int64) {
	for len(ts) > 0 {
		r := m.ring
		if r == nil || ts[0] < m.hi || m.n-m.tail >= int64(len(r)) {
			m.add(ts[0])
			ts = ts[1:]
			continue
		}
		if k := m.addQuiet(ts); k > 0 {
			ts = ts[k:]
			continue
		}
		mask := int64(len(r) - 1)
		n, lo, hi, tail := m.n, m.lo, m.hi, m.tail
		w, w4, reorder, b := m.w, m.w/4, m.reorder, m.b
		k := 0
		for stop := min(len(ts), quietEvery); k < stop; k++ {
			t := ts[k]
			if t < hi || n-tail >= int64(len(r)) {
				break
			}
			r[n&mask] = t
			n++
			hi = t
			tw := t - w
			// r[n−1] = t > tw, so the second index, clamped to n−1, never
			// steps past the newest admission.
			var s1, s2, s3, s4 int64
			if r[lo&mask] <= tw {
				s1 = 1
			}
			if r[min(lo+1, n-1)&mask] <= tw {
				s2 = 1
			}
			if r[min(lo+2, n-1)&mask] <= tw {
				s3 = 1
			}
			if r[min(lo+3, n-1)&mask] <= tw {
				s4 = 1
			}
			lo += s1 + s2 + s3 + s4
			if s4 != 0 {
				for r[lo&mask] <= tw {
					lo++
				}
			}
			if n-lo > m.best {
				m.record(n-lo, t, n-1)
			}
			if t-reorder-b > w4 {
				m.advance(t - reorder)
				b = m.b
			}
		}
		m.n, m.lo, m.hi = n, lo, hi
		ts = ts[k:]
	}
}

// quietMin is the shortest stretch addQuiet takes, and quietEvery how many
// admissions addMany takes one by one before it tries addQuiet again
// (variables so that tests can make addQuiet take every stretch).
var quietMin, quietEvery = 64, 64

// addQuiet adds the first admissions of ts in the in-order mode (ts[0] at
// or after the newest admission, the ring not full) when none of them can
// make a new maximum, and returns how many it added (0: it added none).
//
// The window ending at the k-th of them (from 0) holds at most n+k+1−lo
// admissions, with n the admissions so far and lo the left end of the
// window ending at ts[0], since the left end only moves forward. While
// that is at most best, no admission is a record, so the stretch is just
// stored in the ring, advance is called where add would call it (it does
// not depend on the window's count), and the left end is found once, for
// the last admission, by binary search: the state is the one add would
// leave, admission by admission.
func (m *windowMax) addQuiet(ts []int64) int {
	r := m.ring
	mask := int64(len(r) - 1)
	n, lo, hi := m.n, m.lo, m.hi
	tw := ts[0] - m.w
	for lo < n && r[lo&mask] <= tw {
		lo++
	}
	room := min(int64(len(ts)), int64(len(r))-(n-m.tail), m.best-(n-lo))
	if room < int64(quietMin) {
		return 0
	}
	w4, reorder := m.w/4, m.reorder
	k := 0
	for ; k < int(room); k++ {
		t := ts[k]
		if t < hi {
			break
		}
		r[n&mask] = t
		n++
		hi = t
		if t-reorder-m.b > w4 {
			m.advance(t - reorder)
		}
	}
	if k == 0 {
		return 0
	}
	tw = hi - m.w
	lo += int64(sort.Search(int(n-lo), func(i int) bool { return r[(lo+int64(i))&mask] > tw }))
	m.n, m.lo, m.hi = n, lo, hi
	return k
}

// record notes a new maximum c for the window ending at t, the admission
// of index i in the ring. Records at one time are kept in one run or
// several: the last of them, the largest, is the one the sorted slice
// would evaluate, and advance keeps the last record below b.
func (m *windowMax) record(c, t, i int64) {
	m.best, m.bestAt = c, t
	if k := len(m.runs) - 1; k >= m.rh {
		if r := &m.runs[k]; r.i+r.k == i && r.count+r.k == c {
			r.k++
			return
		}
	}
	m.runs = append(m.runs, recordRun{i: i, count: c, k: 1})
}

// advance moves the in-order mode's boundary b to nb, as a settle of the
// sorted-slice structure would, and forgets the records that no longer
// matter (all but the last one below nb).
func (m *windowMax) advance(nb int64) {
	m.b, m.bSet = nb, true
	r := m.ring
	mask := int64(len(r) - 1)
	for m.rh < len(m.runs) {
		run := &m.runs[m.rh]
		// The records of the run below nb (their times rise with j).
		k := int64(sort.Search(int(run.k), func(j int) bool { return r[(run.i+int64(j))&mask] >= nb }))
		if k == 0 {
			break
		}
		m.below = windowRecord{at: r[(run.i+k-1)&mask], count: run.count + k - 1}
		if k < run.k {
			run.i, run.count, run.k = run.i+k, run.count+k, run.k-k
			break
		}
		m.rh++
	}
	if m.rh > 0 && m.rh >= len(m.runs)/2 {
		k := copy(m.runs, m.runs[m.rh:])
		m.runs = m.runs[:k]
		m.rh = 0
	}
}

// addOther is add when the in-order mode's inlined path does not apply:
// the first admission, a full ring, an admission out of order, or the
// sorted-slice structure already in use.
func (m *windowMax) addOther(t int64) {
	switch {
	case !m.any:
		// The first admission: b holds the base of the first settle (the
		// earliest admission) until something is settled.
		m.any, m.hi, m.b = true, t, t
		m.ring = make([]int64, ringMin)
	case m.ring == nil:
		// The sorted-slice structure, with its own in-order fast path.
		if n := len(m.pts); m.bSet && t >= m.hi && n < cap(m.pts) && t-m.reorder-m.b <= m.w/4 {
			m.pts = m.pts[:n+1]
			m.pts[n] = t
			m.hi = t
			return
		}
		m.addSlow(t)
		return
	case t < m.hi:
		m.toSorted()
		m.addSlow(t)
		return
	default:
		m.makeRoom()
	}
	m.add(t)
}

// makeRoom frees a slot in the full ring: it drops the admissions at or
// below b−W (no window the sorted-slice structure would still evaluate
// holds them), or doubles the ring.
func (m *windowMax) makeRoom() {
	r := m.ring
	mask := int64(len(r) - 1)
	if m.bSet {
		// The kept times are sorted: find the first above b−W by binary
		// search (a scan would read every dropped time once more).
		cut := m.b - m.w
		m.tail += int64(sort.Search(int(m.lo-m.tail), func(i int) bool { return r[(m.tail+int64(i))&mask] > cut }))
	}
	if m.n-m.tail < int64(len(r)) {
		return
	}
	nr := make([]int64, m.grownLen())
	nmask := int64(len(nr) - 1)
	for i := m.tail; i < m.n; i++ {
		nr[i&nmask] = r[i&mask]
	}
	m.ring = nr
}

// grownLen is the length of the full ring's successor: the power of two
// that holds the admissions of the span the ring keeps (reorder + 5W/4, see
// windowMax) at the rate of the admissions it holds, at least twice and at
// most eight times its length. While the traffic keeps its rate, the ring
// reaches its size in one or two steps instead of one doubling after
// another, each a copy into memory written for the first time.
func (m *windowMax) grownLen() int {
	r := m.ring
	mask := int64(len(r) - 1)
	size := 2 * len(r)
	d := r[(m.n-1)&mask] - r[m.tail&mask] // the time the ring's admissions span
	span := float64(m.reorder) + 1.25*float64(m.w)
	if d > 0 {
		for size < 8*len(r) && float64(size) < float64(len(r))*span/float64(d) {
			size *= 2
		}
	}
	return size
}

// toSorted switches from the in-order mode to the sorted-slice structure,
// in the state that structure would have reached on the same admissions:
// pts holds the admissions above b−W (all of them before the first
// settle), and settled the largest count of a window ending below b, first
// reached at settledAt (the last record below b).
func (m *windowMax) toSorted() {
	r := m.ring
	mask := int64(len(r) - 1)
	i := m.tail
	for m.bSet && i < m.n && r[i&mask] <= m.b-m.w {
		i++
	}
	pts := make([]int64, 0, max(2*(m.n-i), 64))
	for ; i < m.n; i++ {
		pts = append(pts, r[i&mask])
	}
	m.pts, m.head = pts, 0
	if m.bSet {
		m.settled, m.settledAt = m.below.count, m.below.at
	} else {
		m.b = 0
	}
	m.ring, m.runs, m.rh = nil, nil, 0
	m.tail, m.lo, m.n = 0, 0, 0
}

// addSlow is add for every case.
func (m *windowMax) addSlow(t int64) {
	if !m.any {
		m.any, m.hi = true, t
	}
	if m.bSet && t < m.b {
		m.late++
		if t <= m.b-m.w {
			// It shares no unsettled window with anything: every window that
			// contains it ends before b and is settled.
			return
		}
	}
	n := len(m.pts)
	if n == m.head || t >= m.pts[n-1] {
		m.pts = append(m.pts, t)
	} else {
		live := m.pts[m.head:]
		i := sort.Search(len(live), func(i int) bool { return live[i] > t })
		m.pts = slices.Insert(m.pts, m.head+i, t)
	}
	if t > m.hi {
		m.hi = t
		base := m.b
		if !m.bSet {
			base = m.pts[m.head]
		}
		if m.hi-m.reorder-base > m.w/4 {
			m.settle(m.hi - m.reorder)
		}
	}
}

// settle evaluates every window whose right end lies in [b, nb) and moves
// the boundary to nb.
func (m *windowMax) settle(nb int64) {
	live := m.pts[m.head:]
	i0 := 0
	if m.bSet {
		i0 = sort.Search(len(live), func(i int) bool { return live[i] >= m.b })
	}
	lo := 0
	if i0 < len(live) {
		first := live[i0]
		lo = sort.Search(len(live), func(i int) bool { return live[i] > first-m.w })
	}
	w, best := m.w, m.settled
	for i := i0; i < len(live); i++ {
		r := live[i]
		if r >= nb {
			break
		}
		// Evaluate a run of equal times once, at its last element, so that
		// the count includes all of them.
		if i+1 < len(live) && live[i+1] == r {
			continue
		}
		for live[lo] <= r-w {
			lo++
		}
		if c := int64(i + 1 - lo); c > best {
			best, m.settledAt = c, r
		}
	}
	m.settled = best
	m.b, m.bSet = nb, true
	// Drop what no window ending at or after nb can contain.
	cut := sort.Search(len(live), func(i int) bool { return live[i] > nb-w })
	m.head += cut
	// Reclaim the dead prefix once it is at least half the slice.
	if m.head > 0 && m.head >= len(m.pts)/2 {
		k := copy(m.pts, m.pts[m.head:])
		m.pts = m.pts[:k]
		m.head = 0
	}
}

// busiest returns the right end r of the first window (r−W, r] that holds
// the maximum (call it after result); false when nothing was admitted.
func (m *windowMax) busiest() (int64, bool) {
	if m.ring != nil {
		return m.bestAt, m.best > 0
	}
	return m.settledAt, m.settled > 0
}

// result settles the remaining windows and returns the maximum and the
// number of late admissions (0 means the maximum is exact).
func (m *windowMax) result() (max, late int64) {
	if m.ring != nil {
		// In order: every window has been evaluated, none is late.
		return m.best, 0
	}
	if m.any {
		m.settle(m.hi + 1)
	}
	return m.settled, m.late
}
