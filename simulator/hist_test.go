package simulator

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// nearestRank is the definition: sorted[ceil(p/100·n)−1].
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	return sorted[ceilRank(p, int64(len(sorted)))-1]
}

func TestPercentilesOnKnownData(t *testing.T) {
	var h waitHist
	for i := 1; i <= 100; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	q := h.quantiles(50, 99, 100, 0)
	want := []time.Duration{50 * time.Millisecond, 99 * time.Millisecond, 100 * time.Millisecond, time.Millisecond}
	if !slices.Equal(q, want) {
		t.Fatalf("got %v, want %v", q, want)
	}
	// Mostly zero waits: p50 is 0, p99 picks the tail.
	var z waitHist
	for range 990 {
		z.add(0)
	}
	for range 10 {
		z.add(400 * time.Millisecond)
	}
	if q := z.quantiles(50, 99, 99.1); q[0] != 0 || q[1] != 0 || q[2] != 400*time.Millisecond {
		t.Fatalf("got %v", q)
	}
	// Three values: nearest rank of p50 is the 2nd.
	var s waitHist
	for _, w := range []time.Duration{5 * time.Millisecond, time.Millisecond, 3 * time.Millisecond} {
		s.add(w)
	}
	if q := s.quantiles(50); q[0] != 3*time.Millisecond {
		t.Fatalf("p50 of 1,3,5 ms = %v", q[0])
	}
	var empty waitHist
	if q := empty.quantiles(50, 99); q[0] != 0 || q[1] != 0 {
		t.Fatal("empty histogram")
	}
}

func TestWholeMillisecondWaitsAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var h waitHist
	var all []time.Duration
	for range 5000 {
		// Include waits past the dense range.
		w := time.Duration(rng.Int64N(200_000)) * time.Millisecond
		h.add(w)
		all = append(all, w)
	}
	slices.Sort(all)
	for _, p := range []float64{1, 25, 50, 90, 99, 99.9, 100} {
		if got, want := h.quantiles(p)[0], nearestRank(all, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
}

func TestOtherWaitsWithinATenthOfAPercent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var h waitHist
	var all []time.Duration
	for range 20000 {
		// Log-uniform from 1 ns to about 100 s, never whole ms.
		w := time.Duration(rng.ExpFloat64() * float64(rng.Int64N(1e11)))
		if w%time.Millisecond == 0 {
			w++
		}
		h.add(w)
		all = append(all, w)
	}
	slices.Sort(all)
	for _, p := range []float64{1, 10, 50, 90, 99, 99.99} {
		got, want := h.quantiles(p)[0], nearestRank(all, p)
		if diff := float64(got-want) / float64(want); diff > 0.001 || diff < -0.001 {
			t.Errorf("p%v = %v, want %v (%.4f%%)", p, got, want, 100*diff)
		}
	}
	if h.max != all[len(all)-1] {
		t.Errorf("max %v, want %v", h.max, all[len(all)-1])
	}
	// Every bucket's value is within 0.05% of every value it holds.
	for v := uint64(1); v < 1<<40; v = v*3/2 + 1 {
		got := hdrValue(hdrIndex(v))
		if d := float64(int64(got)-int64(v)) / float64(v); d > 0.0005 || d < -0.0005 {
			t.Fatalf("value %d reported as %d", v, got)
		}
	}
}
