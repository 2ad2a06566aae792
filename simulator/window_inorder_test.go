package simulator

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sortedTracker is a windowMax that uses the sorted-slice structure from
// its first admission on (the in-order mode switches to it at once), the
// reference for the in-order mode.
func sortedTracker(w, reorder int64, first int64) *windowMax {
	m := newWindowMax(time.Duration(w), time.Duration(reorder))
	m.add(first)
	m.toSorted()
	return m
}

// feedChunks adds ts to m, alternating add and addMany on random chunks.
func feedChunks(rng *rand.Rand, m *windowMax, ts []int64) {
	for len(ts) > 0 {
		k := 1 + rng.IntN(min(len(ts), 40))
		if rng.IntN(2) == 0 {
			m.addMany(ts[:k])
		} else {
			for _, t := range ts[:k] {
				m.add(t)
			}
		}
		ts = ts[k:]
	}
}

// mostlyInOrder returns n times that rise with gaps of 0..gap and, with
// probability pBack per time, step back by up to back.
func mostlyInOrder(rng *rand.Rand, n int, gap, back int64, pBack float64) []int64 {
	ts := make([]int64, n)
	t := rng.Int64N(1000) - 500
	for i := range ts {
		t += rng.Int64N(gap + 1)
		x := t
		if rng.Float64() < pBack {
			x -= rng.Int64N(back + 1)
		}
		ts[i] = x
	}
	return ts
}

// TestWindowMaxInOrderModeMatchesSorted checks that the in-order mode (and
// its switch to the sorted slice at the first admission out of order) gives
// exactly what the sorted-slice structure alone gives: the maximum, the
// late admissions and the busiest window, on random traces that are in
// order, in order for a long stretch then not, or often out of order, with
// every reorder tolerance from none to the whole span.
func TestWindowMaxInOrderModeMatchesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	defer func(r int) { ringMin = r }(ringMin)
	switched := 0
	for iter := range 3000 {
		ringMin = 1 << rng.IntN(11) // so that the ring fills, is trimmed and grows
		n := 1 + rng.IntN(600)
		w := int64(1 + rng.IntN(200))
		gap := int64(rng.IntN(8))
		var ts []int64
		switch iter % 3 {
		case 0:
			ts = mostlyInOrder(rng, n, gap, 0, 0)
		case 1:
			ts = mostlyInOrder(rng, n, gap, w*int64(rng.IntN(4)), 0.01)
			// In order for a random first stretch.
			k := rng.IntN(n)
			slices.Sort(ts[:k])
		default:
			ts = mostlyInOrder(rng, n, gap, 3*w, 0.3)
		}
		span := slices.Max(ts) - slices.Min(ts) + 1
		reorder := []int64{0, rng.Int64N(w + 1), w, 2*w + 3, span}[rng.IntN(5)]

		fast := newWindowMax(time.Duration(w), time.Duration(reorder))
		feedChunks(rng, fast, ts)
		if fast.ring == nil {
			switched++
		}
		ref := sortedTracker(w, reorder, ts[0])
		for _, x := range ts[1:] {
			ref.add(x)
		}
		gm, gl := fast.result()
		wm, wl := ref.result()
		ga, gok := fast.busiest()
		wa, wok := ref.busiest()
		if gm != wm || gl != wl || ga != wa || gok != wok {
			t.Fatalf("iter %d (w=%d reorder=%d): in-order mode max %d late %d busiest %d,%v; sorted slice %d %d %d,%v; ts=%v",
				iter, w, reorder, gm, gl, ga, gok, wm, wl, wa, wok, ts)
		}
		if wl == 0 {
			if want := bruteMax(ts, w); gm != want {
				t.Fatalf("iter %d: max %d, want %d", iter, gm, want)
			}
		}
	}
	if switched < 1000 {
		t.Fatalf("only %d traces switched to the sorted slice", switched)
	}
}

// TestWindowMaxInOrderMemoryIsBounded: in order, the ring holds the
// admissions of at most W + reorder + W/4 (rounded up to a power of two)
// and the records stay few, however long the run.
func TestWindowMaxInOrderMemoryIsBounded(t *testing.T) {
	const w, reorder = 10_000, 10_000
	m := newWindowMax(w, reorder)
	ts := make([]int64, 1000)
	var now int64
	for range 5000 {
		for i := range ts {
			ts[i] = now
			now++
		}
		m.addMany(ts)
	}
	for i := range int64(100_000) {
		m.add(now + i)
	}
	if m.ring == nil {
		t.Fatal("in-order admissions left the in-order mode")
	}
	if len(m.ring) > 32768 {
		t.Fatalf("ring of %d times for %d admissions per W+reorder+W/4", len(m.ring), w+reorder+w/4)
	}
	if len(m.runs) > 2*(w+reorder) {
		t.Fatalf("%d runs of records kept", len(m.runs))
	}
	if got, late := m.result(); got != w || late != 0 {
		t.Fatalf("got %d (late %d), want %d", got, late, w)
	}
}

// sameState reports whether two in-order trackers hold the same state: the
// ring's live admissions and indexes, the boundary, the maximum and its
// records.
func sameState(a, b *windowMax) bool {
	if (a.ring == nil) != (b.ring == nil) || a.n != b.n || a.lo != b.lo || a.tail != b.tail || a.hi != b.hi ||
		a.b != b.b || a.bSet != b.bSet || a.best != b.best || a.bestAt != b.bestAt || a.below != b.below ||
		!slices.Equal(a.runs[a.rh:], b.runs[b.rh:]) {
		return false
	}
	for i := a.tail; a.ring != nil && i < a.n; i++ {
		if a.ring[i&int64(len(a.ring)-1)] != b.ring[i&int64(len(b.ring)-1)] {
			return false
		}
	}
	return true
}

// TestWindowMaxAddQuietKeepsState: addMany, which takes stretches that
// cannot make a new maximum at once (addQuiet), leaves after every call
// the state that adding the same admissions one at a time leaves, on
// traces that climb to a peak and then run below it (where addQuiet takes
// nearly everything), and on the random traces above.
func TestWindowMaxAddQuietKeepsState(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	defer func(r, q, e int) { ringMin, quietMin, quietEvery = r, q, e }(ringMin, quietMin, quietEvery)
	quiet := 0
	for iter := range 2000 {
		ringMin = 1 << rng.IntN(11)
		quietMin, quietEvery = 1+rng.IntN(4), 1+rng.IntN(8)
		n := 1 + rng.IntN(2000)
		w := int64(1 + rng.IntN(300))
		var ts []int64
		if iter%2 == 0 {
			// A burst (gaps 0..1), then sparser traffic (gaps 0..7).
			ts = mostlyInOrder(rng, n/3+1, 1, 0, 0)
			rest := mostlyInOrder(rng, n, 7, w*int64(rng.IntN(3)), 0.002*float64(rng.IntN(2)))
			last := ts[len(ts)-1]
			for _, x := range rest {
				ts = append(ts, last+1+x-rest[0])
			}
		} else {
			ts = mostlyInOrder(rng, n, int64(rng.IntN(8)), w, 0.01*float64(rng.IntN(2)))
		}
		reorder := []int64{0, rng.Int64N(w + 1), w, 2*w + 3}[rng.IntN(4)]
		many := newWindowMax(time.Duration(w), time.Duration(reorder))
		one := newWindowMax(time.Duration(w), time.Duration(reorder))
		for len(ts) > 0 {
			k := 1 + rng.IntN(min(len(ts), 200))
			before := many.n
			many.addMany(ts[:k])
			for _, x := range ts[:k] {
				one.add(x)
			}
			if many.ring != nil && many.n-before == int64(k) && k > 1 {
				quiet++
			}
			if !sameState(many, one) {
				t.Fatalf("iter %d (w=%d reorder=%d): after addMany of %v the state differs from add's", iter, w, reorder, ts[:k])
			}
			ts = ts[k:]
		}
		gm, gl := many.result()
		wm, wl := one.result()
		ga, _ := many.busiest()
		wa, _ := one.busiest()
		if gm != wm || gl != wl || ga != wa {
			t.Fatalf("iter %d: addMany max %d late %d at %d; add %d %d %d", iter, gm, gl, ga, wm, wl, wa)
		}
	}
	if quiet < 1000 {
		t.Fatalf("only %d addMany calls stayed in order", quiet)
	}
}
