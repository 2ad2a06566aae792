package scenarios

import (
	"math/rand/v2"
	"testing"
	"time"
)

// drainNext and drainFill read a whole stream, through Next alone and
// through Fill in random sizes mixed with Next.
func drainNext(t *testing.T, s Scenario) []Arrival {
	t.Helper()
	st, err := s.Stream()
	if err != nil {
		t.Fatal(err)
	}
	var out []Arrival
	for {
		a, ok := st.Next()
		if !ok {
			return out
		}
		out = append(out, a)
	}
}

func drainFill(t *testing.T, s Scenario, rng *rand.Rand) ([]Arrival, bool) {
	t.Helper()
	st, err := s.Stream()
	if err != nil {
		t.Fatal(err)
	}
	bs, ok := st.(BatchStream)
	if !ok {
		return nil, false // read through Next by the engine
	}
	var out []Arrival
	buf := make([]Arrival, 300)
	for {
		if rng.IntN(8) == 0 {
			a, ok := st.Next()
			if !ok {
				return out, true
			}
			out = append(out, a)
			continue
		}
		n := 1 + rng.IntN(len(buf))
		k := bs.Fill(buf[:n])
		out = append(out, buf[:k]...)
		if k < n {
			if a, ok := st.Next(); ok {
				t.Fatalf("Fill wrote %d of %d, then Next returned %+v", k, n, a)
			}
			return out, true
		}
	}
}

// Fill hands out exactly Next's arrivals, in the same order, for every
// catalog scenario and for a Poisson phase left alone after another
// phase ends, across clock steps (back and forward) and cut by the
// scenario's end.
func TestFillMatchesNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var list []Scenario
	for _, s := range Catalog() {
		list = append(list, s.WithDuration(5*time.Second))
	}
	list = append(list, Scenario{
		Name: "poisson-alone-with-steps", Limit: 100, Duration: 6 * time.Second, Seed: 3,
		Phases: []Phase{
			{Type: PhaseConstant, Rate: 40, Duration: 1500 * time.Millisecond},
			{Type: PhasePoisson, Rate: 300, Start: 500 * time.Millisecond},
			{Type: PhaseClockStep, Start: 2 * time.Second, Offset: -800 * time.Millisecond},
			{Type: PhaseClockStep, Start: 2 * time.Second, Offset: 300 * time.Millisecond},
			{Type: PhaseClockStep, Start: 4100 * time.Millisecond, Offset: 2 * time.Second},
		},
	})
	fast, batched := 0, 0
	for _, s := range list {
		want := drainNext(t, s)
		for range 3 {
			got, ok := drainFill(t, s, rng)
			if !ok {
				break
			}
			batched++
			if len(got) != len(want) {
				t.Fatalf("%s: Fill gave %d arrivals, Next %d", s.Name, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: arrival %d: Fill %+v, Next %+v", s.Name, i, got[i], want[i])
				}
			}
		}
		// Count the scenarios that reach fillPoisson: one Poisson source
		// left, nothing tagged.
		st, _ := s.Stream()
		if m, ok := st.(*mergeStream); ok {
			buf := make([]Arrival, 1)
			for m.Fill(buf) == 1 {
				if len(m.heap) == 1 && m.cols.Keys == nil && !m.cols.User && m.tags[m.heap[0].src] == nil {
					if _, ok := m.srcs[m.heap[0].src].(*poissonSource); ok {
						fast++
						break
					}
				}
			}
		}
	}
	if batched < 3*len(list)/2 {
		t.Fatalf("only %d of %d streams checked", batched/3, len(list))
	}
	if fast < 3 {
		t.Fatalf("only %d scenarios reach fillPoisson; the test does not check it", fast)
	}
}
