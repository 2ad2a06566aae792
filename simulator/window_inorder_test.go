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
