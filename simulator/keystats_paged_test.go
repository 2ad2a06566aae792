package simulator

import (
	"math/rand/v2"
	"testing"
)

// statSlice copies a KeyStats into one slice, for tests.
func statSlice(s *KeyStats) []KeyStat {
	out := make([]KeyStat, s.Len())
	for id := range out {
		out[id] = *s.At(id)
	}
	return out
}

// TestKeyStatsLikeASlice grows a KeyStats by random ids, small and past
// several pages, beside a slice grown the old way, writing every id it
// touches, and compares every entry after each step; entries once written
// never move (a pointer taken before growing still sees later writes).
func TestKeyStatsLikeASlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := range 20 {
		var s KeyStats
		var model []KeyStat
		max := 1 + rng.IntN(5*keyStatPage)
		if trial < 5 {
			max = 1 + rng.IntN(300) // a first page that stays small
		}
		var pinned *KeyStat
		pinnedID := -1
		for step := range 400 {
			id := rng.IntN(max)
			if id >= len(model) {
				model = append(model, make([]KeyStat, id+1-len(model))...)
			}
			if id >= s.Len() {
				s.grow(id + 1)
			}
			if s.Len() != len(model) {
				t.Fatalf("trial %d step %d: Len %d, want %d", trial, step, s.Len(), len(model))
			}
			s.At(id).Requests++
			model[id].Requests++
			if pinned == nil && id >= keyStatPage {
				pinned, pinnedID = s.At(id), id
			}
			if pinned != nil {
				pinned.Rejected++
				model[pinnedID].Rejected++
			}
			if step%50 == 0 || step == 399 {
				got := statSlice(&s)
				for i := range model {
					if got[i] != model[i] {
						t.Fatalf("trial %d step %d: id %d = %+v, want %+v", trial, step, i, got[i], model[i])
					}
				}
			}
		}
	}
}

// TestKeyStatsOf keeps a slice's entries at their ids.
func TestKeyStatsOf(t *testing.T) {
	in := make([]KeyStat, keyStatPage+3)
	for i := range in {
		in[i].Requests = uint32(i + 1)
	}
	s := KeyStatsOf(in)
	if s.Len() != len(in) {
		t.Fatalf("Len %d, want %d", s.Len(), len(in))
	}
	for i := range in {
		if *s.At(i) != in[i] {
			t.Fatalf("id %d: %+v, want %+v", i, *s.At(i), in[i])
		}
	}
}
