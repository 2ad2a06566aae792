package scenarios

import (
	"math"
	"testing"
)

// priority-mix marks about 30% of its arrivals prioritized, the same ones
// on every run and at any --limit, and nothing else changes them.
func TestPriorityMixShare(t *testing.T) {
	s, err := Lookup("priority-mix")
	if err != nil {
		t.Fatal(err)
	}
	a, b := drain(t, s), drain(t, s)
	plain := s
	plain.PriorityShare = 0
	base := drain(t, plain)
	if len(a) != len(base) {
		t.Fatalf("%d arrivals, %d without priority", len(a), len(base))
	}
	n := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("arrival %d differs between two runs: %+v, %+v", i, a[i], b[i])
		}
		c := a[i]
		c.Priority = false
		if c != base[i] || base[i].Priority {
			t.Fatalf("arrival %d: %+v, without priority %+v", i, a[i], base[i])
		}
		if a[i].Priority {
			n++
		}
	}
	share := float64(n) / float64(len(a))
	// 1500 draws at p = 0.3: the standard deviation is 0.012.
	if math.Abs(share-0.3) > 0.05 {
		t.Errorf("share %.3f, want about 0.3", share)
	}
	scaled := drain(t, s.WithLimit(10))
	m := 0
	for _, x := range scaled {
		if x.Priority {
			m++
		}
	}
	if m == 0 || m == len(scaled) {
		t.Errorf("at --limit 10: %d of %d prioritized", m, len(scaled))
	}
}
