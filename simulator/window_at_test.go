package simulator

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// bruteFirstMax is the definition of the busiest window's time: the
// smallest admission time r whose window (r−w, r] holds the maximum.
func bruteFirstMax(ts []int64, w int64) (int64, bool) {
	best, at, found := int64(0), int64(0), false
	for _, r := range ts {
		var c int64
		for _, x := range ts {
			if x > r-w && x <= r {
				c++
			}
		}
		if c > best || c == best && found && r < at {
			best, at, found = c, r, true
		}
	}
	return at, found
}

func TestWindowMaxBusiestMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 300 {
		n := 1 + rng.IntN(200)
		w := int64(1 + rng.IntN(50))
		span := int64(1 + rng.IntN(400))
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = rng.Int64N(span) - span/4
		}
		sorted := slices.Clone(ts)
		slices.Sort(sorted)
		for name, c := range map[string]struct {
			ts      []int64
			reorder int64
		}{"unsorted": {ts, span + 1}, "sorted": {sorted, 0}} {
			m := newWindowMax(time.Duration(w), time.Duration(c.reorder))
			for _, x := range c.ts {
				m.add(x)
			}
			m.result()
			got, ok := m.busiest()
			want, wok := bruteFirstMax(c.ts, w)
			if got != want || ok != wok {
				t.Fatalf("iter %d %s: busiest window ends at %d (%v), want %d; w=%d ts=%v", iter, name, got, ok, want, w, c.ts)
			}
		}
	}
	if _, ok := newWindowMax(time.Second, 0).busiest(); ok {
		t.Error("an empty tracker has a busiest window")
	}
}
