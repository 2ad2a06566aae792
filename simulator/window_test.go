package simulator

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// bruteMax is the O(n²) definition: the largest number of times in any
// window (t−w, t], over every t (it suffices to try each time as t).
func bruteMax(ts []int64, w int64) int64 {
	var best int64
	for _, r := range ts {
		var c int64
		for _, x := range ts {
			if x > r-w && x <= r {
				c++
			}
		}
		best = max(best, c)
	}
	return best
}

func trackerMax(ts []int64, w, reorder int64) (int64, int64) {
	m := newWindowMax(time.Duration(w), time.Duration(reorder))
	for _, t := range ts {
		m.add(t)
	}
	return m.result()
}

func TestWindowMaxMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		n := 1 + rng.IntN(300)
		w := int64(1 + rng.IntN(50))
		span := int64(1 + rng.IntN(500))
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = rng.Int64N(span) - span/3 // negative times too
		}
		// Unsorted, with a reorder tolerance covering the whole span: exact.
		got, late := trackerMax(ts, w, span+1)
		if want := bruteMax(ts, w); got != want || late != 0 {
			t.Fatalf("iter %d unsorted: got %d (late %d), want %d; w=%d ts=%v", iter, got, late, want, w, ts)
		}
		// Monotone, with no reorder tolerance at all: exact.
		sorted := slices.Clone(ts)
		slices.Sort(sorted)
		for _, reorder := range []int64{0, w / 2, 3 * w} {
			got, late := trackerMax(sorted, w, reorder)
			if want := bruteMax(sorted, w); got != want || late != 0 {
				t.Fatalf("iter %d sorted reorder=%d: got %d (late %d), want %d", iter, reorder, got, late, want)
			}
		}
		// Locally shuffled (jitter of at most d behind): exact when the
		// tolerance covers d.
		d := int64(1 + rng.IntN(20))
		jit := make([]int64, len(sorted))
		for i, x := range sorted {
			jit[i] = x + rng.Int64N(d+1)
		}
		// Every value is at most d behind the running maximum only if the
		// base is sorted; so tolerance d suffices.
		got, late = trackerMax(jit, w, d)
		if want := bruteMax(jit, w); got != want || late != 0 {
			t.Fatalf("iter %d jitter d=%d: got %d (late %d), want %d", iter, d, got, late, want)
		}
	}
}

func TestWindowMaxLateIsCountedAndLowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sawLate := false
	for range 200 {
		ts := make([]int64, 200)
		for i := range ts {
			ts[i] = rng.Int64N(2000)
		}
		got, late := trackerMax(ts, 10, 0)
		want := bruteMax(ts, 10)
		if late == 0 && got != want {
			t.Fatalf("no late admissions but got %d, want %d", got, want)
		}
		if got > want {
			t.Fatalf("got %d above the true maximum %d", got, want)
		}
		sawLate = sawLate || late > 0
	}
	if !sawLate {
		t.Fatal("random order with no tolerance never reported a late admission")
	}
}

func TestWindowMaxEqualTimesAndBounds(t *testing.T) {
	// Windows are (t−W, t]: 0 and 10 are not in one window of length 10.
	if got, _ := trackerMax([]int64{0, 10}, 10, 0); got != 1 {
		t.Errorf("0 and 10 with W=10: got %d, want 1", got)
	}
	if got, _ := trackerMax([]int64{0, 9}, 10, 0); got != 2 {
		t.Errorf("0 and 9 with W=10: got %d, want 2", got)
	}
	ts := []int64{5, 5, 5, 5, 20, 20, 29, 30}
	if got, _ := trackerMax(ts, 10, 0); got != 4 {
		t.Errorf("got %d, want 4", got)
	}
	if got, _ := trackerMax(nil, 10, 0); got != 0 {
		t.Errorf("empty: got %d", got)
	}
}

func TestWindowMaxMemoryIsBoundedForMonotoneInput(t *testing.T) {
	m := newWindowMax(100, 100)
	for i := range int64(1_000_000) {
		m.add(i)
	}
	if live := len(m.pts) - m.head; live > 400 {
		t.Fatalf("holds %d times for a window of 100 admissions", live)
	}
	if cap(m.pts) > 2000 {
		t.Fatalf("slice capacity grew to %d", cap(m.pts))
	}
	if got, _ := m.result(); got != 100 {
		t.Fatalf("got %d, want 100", got)
	}
}
