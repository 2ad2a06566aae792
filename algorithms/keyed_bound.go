package algorithms

import "time"

// This file holds the per-key tables whose reference evicts by its own
// rule when the table is full. Envoy's max_dynamic_descriptors is an LRU
// (DynamicDescriptor::addOrGetDescriptor: a hit is spliced to the front, a
// new descriptor is put at the front and, when the list is then longer than
// lru_size, the back is erased), which is the plain table's order. Traefik
// is not an LRU: traefikTable.

// traefikTable is Traefik's bucket map: mailgun/ttlmap's TtlMap of
// maxSources entries (NewConcurrent(65536)) with a min-heap of expiry
// seconds (mailgun/minheap over container/heap). Every request does Get
// then Set:
//
//   - a source in the map (expired or not) is taken out of the heap and
//     pushed back with its new expiry (Get's RemoveEl then Set's PushEl, or
//     Set's UpdateEl, which is heap.Remove then heap.Push): the map's size
//     does not change;
//   - a new source, when the map holds capacity entries, first frees one:
//     freeSpace(1) pops the heap's minimum, expired (removeExpired) or not
//     (removeLastUsed), so the entry closest to expiry goes, and among equal
//     expiry seconds the one container/heap has at the root, not the least
//     recently used.
//
// The heap below makes the same swaps as container/heap with Less
// a.expiry < b.expiry, so the entry it pops is the one Traefik pops.
type traefikTable struct {
	table[traefikState]
	heap []int32 // slots, a binary min-heap on the state's expiry
	pos  []int32 // by slot: its index in heap
}

func newTraefikTable(proto *Traefik) *traefikTable {
	t := &traefikTable{}
	p := proto.cfg
	t.slots = newKeySlots[traefikState]()
	t.fresh = func() traefikState { return traefikState{fresh: true} }
	t.run = func(st *traefikState, now time.Duration, _ *Request) Decision { return st.check(now, p) }
	return t
}

func (t *traefikTable) decide(id int32, now time.Duration, capacity int, r *Request) Decision {
	if capacity <= 0 {
		return t.table.decide(id, now, 0, r)
	}
	s := t.slots.lookup(id)
	if s >= 0 {
		t.heapRemove(s)
	} else {
		if t.slots.live >= capacity {
			victim := t.heap[0]
			t.heapRemove(victim)
			t.slots.remove(victim, true)
		}
		s = t.slots.insert(id)
		*t.slots.at(s) = t.fresh()
		if t.slots.live == t.slots.peak {
			t.peakBytes = max(t.peakBytes, int64(t.bytes()))
		}
	}
	d := t.run(t.slots.at(s), now, r)
	t.heapPush(s)
	return d
}

func (t *traefikTable) bytes() int { return t.table.bytes() + 4*cap(t.heap) + 4*cap(t.pos) }

func (t *traefikTable) less(i, j int) bool {
	return t.slots.at(t.heap[i]).expiry < t.slots.at(t.heap[j]).expiry
}

func (t *traefikTable) swap(i, j int) {
	t.heap[i], t.heap[j] = t.heap[j], t.heap[i]
	t.pos[t.heap[i]], t.pos[t.heap[j]] = int32(i), int32(j)
}

// heapPush is heap.Push.
func (t *traefikTable) heapPush(slot int32) {
	if int(slot) >= len(t.pos) {
		t.pos = growInt32(t.pos, int(slot)+1)
	}
	t.pos[slot] = int32(len(t.heap))
	t.heap = append(t.heap, slot)
	t.up(len(t.heap) - 1)
}

// heapRemove is heap.Remove(h, pos[slot]).
func (t *traefikTable) heapRemove(slot int32) {
	i := int(t.pos[slot])
	n := len(t.heap) - 1
	if n != i {
		t.swap(i, n)
		if !t.down(i, n) {
			t.up(i)
		}
	}
	t.heap = t.heap[:n]
}

func (t *traefikTable) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !t.less(j, i) {
			break
		}
		t.swap(i, j)
		j = i
	}
}

func (t *traefikTable) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && t.less(j2, j1) {
			j = j2
		}
		if !t.less(j, i) {
			break
		}
		t.swap(i, j)
		i = j
	}
	return i > i0
}
