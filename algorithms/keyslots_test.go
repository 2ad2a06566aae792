package algorithms

import (
	"slices"
	"testing"
)

// lruOrder lists the keys of s from the most to the least recently used,
// and checks the back links agree.
func lruOrder(t *testing.T, s *keySlots[int64]) []int32 {
	t.Helper()
	var keys []int32
	prev := int32(-1)
	for i := s.head; i >= 0; i = s.nodes[i].next {
		if s.nodes[i].prev != prev {
			t.Fatalf("slot %d: prev %d, want %d", i, s.nodes[i].prev, prev)
		}
		keys = append(keys, s.nodes[i].key)
		prev = i
	}
	if s.tail != prev {
		t.Fatalf("tail %d, want %d", s.tail, prev)
	}
	return keys
}

// TestKeySlotsTable holds the per-key table's contract: insert puts a key
// at the head with a zero state, touch moves it to the head, remove frees
// its slot for reuse (counting an eviction when asked), and lookup finds a
// key's slot or -1.
func TestKeySlotsTable(t *testing.T) {
	type op struct {
		kind byte // 'i' insert, 't' touch, 'r' remove, 'e' evict
		key  int32
	}
	cases := []struct {
		name      string
		ops       []op
		order     []int32 // head first
		live      int
		evictions int64
		evicted   map[int32]int32
	}{
		{"inserts go to the head", []op{{'i', 1}, {'i', 5}, {'i', 3}}, []int32{3, 5, 1}, 3, 0, nil},
		{"touch moves to the head", []op{{'i', 1}, {'i', 5}, {'i', 3}, {'t', 1}, {'t', 1}, {'t', 5}}, []int32{5, 1, 3}, 3, 0, nil},
		{"remove the tail, the head and the middle", []op{{'i', 1}, {'i', 2}, {'i', 3}, {'i', 4}, {'r', 1}, {'r', 4}, {'i', 9}, {'r', 2}}, []int32{9, 3}, 2, 0, nil},
		{"evictions count per key", []op{{'i', 7}, {'e', 7}, {'i', 7}, {'e', 7}, {'i', 8}, {'e', 8}, {'i', 7}}, []int32{7}, 1, 3, map[int32]int32{7: 2, 8: 1, 0: 0, 100: 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newKeySlots[int64]()
			for _, o := range c.ops {
				switch o.kind {
				case 'i':
					if s.lookup(o.key) >= 0 {
						t.Fatalf("insert %d: already has a slot", o.key)
					}
					slot := s.insert(o.key)
					if *s.at(slot) != 0 {
						t.Fatalf("insert %d: state %d, want 0", o.key, *s.at(slot))
					}
					*s.at(slot) = int64(o.key) * 10
				case 't':
					s.touch(s.lookup(o.key))
				case 'r', 'e':
					s.remove(s.lookup(o.key), o.kind == 'e')
					if s.lookup(o.key) != -1 {
						t.Fatalf("remove %d: still found", o.key)
					}
				}
			}
			if got := lruOrder(t, &s); !slices.Equal(got, c.order) {
				t.Errorf("order %v, want %v", got, c.order)
			}
			for _, k := range c.order {
				if got := *s.at(s.lookup(k)); got != int64(k)*10 {
					t.Errorf("key %d: state %d, want %d", k, got, k*10)
				}
			}
			if s.live != c.live || s.evictions != c.evictions {
				t.Errorf("live %d, evictions %d; want %d, %d", s.live, s.evictions, c.live, c.evictions)
			}
			for k, n := range c.evicted {
				if got := s.evictedOf(k); got != n {
					t.Errorf("evictedOf(%d) = %d, want %d", k, got, n)
				}
			}
			if s.lookup(1000) != -1 {
				t.Errorf("lookup of an unseen id found a slot")
			}
		})
	}
}

// TestKeySlotsReuseFreedSlots: a freed slot is reused before the table
// grows, so a table bounded by evictions never grows past its bound.
func TestKeySlotsReuseFreedSlots(t *testing.T) {
	s := newKeySlots[int64]()
	for id := range int32(1000) {
		if s.live == 3 {
			s.remove(s.tail, true)
		}
		s.insert(id)
	}
	if len(s.nodes) != 3 || s.live != 3 || s.peak != 3 || s.evictions != 997 {
		t.Errorf("nodes %d, live %d, peak %d, evictions %d; want 3, 3, 3, 997", len(s.nodes), s.live, s.peak, s.evictions)
	}
	if got := lruOrder(t, &s); !slices.Equal(got, []int32{999, 998, 997}) {
		t.Errorf("order %v", got)
	}
}
