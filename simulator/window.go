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
}

func newWindowMax(window, reorder time.Duration) *windowMax {
	if reorder < 0 {
		reorder = 0
	}
	return &windowMax{w: int64(window), reorder: int64(reorder)}
}

// add records one admission at time t (nanoseconds).
func (m *windowMax) add(t int64) {
	// The common case, inlined: in order (t is the newest admission, so
	// not late and it goes last), after the first settle, with room to
	// append and nothing to settle yet.
	if n := len(m.pts); m.bSet && t >= m.hi && n < cap(m.pts) && t-m.reorder-m.b <= m.w/4 {
		m.pts = m.pts[:n+1]
		m.pts[n] = t
		m.hi = t
		return
	}
	m.addSlow(t)
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
func (m *windowMax) busiest() (int64, bool) { return m.settledAt, m.settled > 0 }

// result settles the remaining windows and returns the maximum and the
// number of late admissions (0 means the maximum is exact).
func (m *windowMax) result() (max, late int64) {
	if m.any {
		m.settle(m.hi + 1)
	}
	return m.settled, m.late
}
