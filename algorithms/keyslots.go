package algorithms

import (
	"time"
	"unsafe"
)

// keySlots is the table behind every per-key limiter: it maps an interned
// key id to a slot holding that key's state T, and keeps the live slots in
// an LRU list with intrusive int32 links. A slot's links, key and state sit
// side by side in one array element, so a decision touches one cache line
// for its key (plus the index and, when the key moves to the head, its two
// neighbours'). Nothing in it is a pointer (for pointer-free T) but the
// directories of its fixed-size pages, so however many keys a run sees,
// the garbage collector walks a few hundred words of it.
//
// Memory: 8 bytes per key id ever seen (its slot and evictions), and per
// live slot 12 bytes of key and links plus T
// (rounded up to T's alignment).
type keySlots[T any] struct {
	// idx is by key id: the key's slot+1 (0 when it has none) and the
	// times it lost its slot, side by side, so that an eviction writes
	// one place (issue 27). It is paged, so that it grows without
	// copying; it covers idx.n = max id + 1 inserted. evLen is max id + 1
	// evicted, for bytes.
	idx        paged[slotIdx]
	evLen      int
	nodes      []slotNode[T]
	head, tail int32   // most and least recently used slot, -1 when empty
	free       []int32 // released slots, reused before new ones
	live, peak int
	evictions  int64
	// direct: a table that never removes a slot (an unbounded nginx zone
	// or Sentinel cache, the shadow twins among them) keeps key id's
	// state at states[id], bare (no key, no links), with a bit in has
	// for "id has a state", no id → slot index and no LRU order (issue
	// 27: one cache line a lookup, and half the bytes of a node or less).
	// Its slot for key id is id.
	direct bool
	states paged[T]
	has    []uint64
	// nodeBytes is what a live slot counts for in bytes: the size of a
	// node (slotNode[T]) unless the owner set the size of the layout
	// its figures were defined with (nginx: its page moved out of T).
	nodeBytes int
}

type slotNode[T any] struct {
	key, prev, next int32
	st              T
}

func newKeySlots[T any]() keySlots[T] {
	return keySlots[T]{head: -1, tail: -1, nodeBytes: int(unsafe.Sizeof(slotNode[T]{}))}
}

// newDirectKeySlots is a table that never removes a slot (see direct):
// remove, touch and the LRU order are not for it.
func newDirectKeySlots[T any]() keySlots[T] {
	s := newKeySlots[T]()
	s.direct = true
	return s
}

// lookup returns id's slot, or -1.
func (s *keySlots[T]) lookup(id int32) int32 {
	if s.direct {
		if w := int(id >> 6); w < len(s.has) && s.has[w]&(1<<(id&63)) != 0 {
			return id
		}
		return -1
	}
	if int(id) < s.idx.n {
		return s.idx.at(id).slot - 1
	}
	return -1
}

// at returns slot's state.
func (s *keySlots[T]) at(slot int32) *T {
	if s.direct {
		return s.states.at(slot)
	}
	return &s.nodes[slot].st
}

// touch moves slot to the head of the LRU list.
func (s *keySlots[T]) touch(slot int32) {
	if s.head == slot {
		return
	}
	s.unlink(slot)
	s.pushHead(slot)
}

func (s *keySlots[T]) unlink(slot int32) {
	n := &s.nodes[slot]
	p, x := n.prev, n.next
	if p >= 0 {
		s.nodes[p].next = x
	} else {
		s.head = x
	}
	if x >= 0 {
		s.nodes[x].prev = p
	} else {
		s.tail = p
	}
}

func (s *keySlots[T]) pushHead(slot int32) {
	n := &s.nodes[slot]
	n.prev, n.next = -1, s.head
	if s.head >= 0 {
		s.nodes[s.head].prev = slot
	} else {
		s.tail = slot
	}
	s.head = slot
}

// insert gives id a slot, with a zero state, at the head of the list.
func (s *keySlots[T]) insert(id int32) int32 {
	if s.direct {
		s.states.extend(int(id) + 1)
		if w := int(id>>6) + 1; w > len(s.has) {
			s.has = growUint64(s.has, w)
		}
		s.has[id>>6] |= 1 << (id & 63)
		var zero T
		*s.states.at(id) = zero
		s.live++
		s.peak = max(s.peak, s.live)
		return id
	}
	var slot int32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
		s.nodes[slot] = slotNode[T]{key: id}
	} else {
		slot = int32(len(s.nodes))
		if len(s.nodes) == cap(s.nodes) {
			// Double (append grows a large slice by a quarter, copying
			// the whole table every few thousand keys).
			nodes := make([]slotNode[T], len(s.nodes), max(2*len(s.nodes), 64))
			copy(nodes, s.nodes)
			s.nodes = nodes
		}
		s.nodes = append(s.nodes, slotNode[T]{key: id})
	}
	s.idx.extend(int(id) + 1)
	s.idx.at(id).slot = slot + 1
	s.pushHead(slot)
	s.live++
	s.peak = max(s.peak, s.live)
	return slot
}

// remove releases slot: its key has no state any more. evict counts it as
// an eviction of that key.
func (s *keySlots[T]) remove(slot int32, evict bool) {
	id := s.nodes[slot].key
	s.unlink(slot)
	x := s.idx.at(id)
	x.slot = 0
	s.free = append(s.free, slot)
	s.live--
	if evict {
		s.evLen = max(s.evLen, int(id)+1)
		x.evicted++
		s.evictions++
	}
}

// evictedOf is how many times id lost its slot.
func (s *keySlots[T]) evictedOf(id int32) int32 {
	if id >= 0 && int(id) < s.idx.n {
		return s.idx.at(id).evicted
	}
	return 0
}

// bytes is the table's memory for the live slots and the ids seen (the
// same figure for a direct table, whose states stand for the index and
// whose slots count as nodes: peak_state_bytes does not depend on the
// layout).
func (s *keySlots[T]) bytes() int {
	return 4*s.idsLen() + s.live*s.nodeBytes + 4*s.evLen
}

// idsLen is how many key ids the table's index covers, as bytes counts
// them (4 bytes each): max id + 1 inserted.
func (s *keySlots[T]) idsLen() int {
	if s.direct {
		return s.states.n
	}
	return s.idx.n
}

type slotIdx struct{ slot, evicted int32 }

// paged is an array of E indexed by int32 that grows without copying
// (beyond its first page): fixed-size pages of pageLen entries, zero
// until written, behind a directory of a few hundred pointers at 10⁶
// entries. The first page starts small and doubles up to pageLen, so a
// small table stays small.
type paged[E any] struct {
	pages [][]E
	n     int // entries covered: at(i) is valid for 0 ≤ i < n
}

const (
	pageShift = 12
	pageLen   = 1 << pageShift
	pageMask  = pageLen - 1
)

// at returns entry i (0 ≤ i < n).
func (p *paged[E]) at(i int32) *E { return &p.pages[i>>pageShift][i&pageMask] }

// extend makes p cover at least n entries; the new ones are zero.
func (p *paged[E]) extend(n int) {
	if n <= p.n {
		return
	}
	for n > pageLen*len(p.pages) || (len(p.pages) == 1 && n > len(p.pages[0])) {
		if len(p.pages) == 1 && len(p.pages[0]) < pageLen {
			// The first page, short: double it (up to a page).
			a := p.pages[0]
			b := make([]E, min(pageLen, max(2*len(a), n, 64)))
			copy(b, a)
			p.pages[0] = b
			continue
		}
		size := pageLen
		if len(p.pages) == 0 {
			size = min(pageLen, max(n, 64))
		}
		p.pages = append(p.pages, make([]E, size))
	}
	p.n = n
}

// growUint64 extends a to n entries of 0, at least doubling its capacity.
func growUint64(a []uint64, n int) []uint64 {
	if n <= cap(a) {
		return a[:n]
	}
	b := make([]uint64, n, max(n, 2*cap(a), 64))
	copy(b, a)
	return b
}

// growInt32 extends a to n entries of 0, at least doubling its capacity.
func growInt32(a []int32, n int) []int32 {
	if n <= cap(a) {
		return a[:n]
	}
	b := make([]int32, n, max(n, 2*cap(a), 64))
	copy(b, a)
	return b
}

// KeyFigures are a per-key limiter's own figures for summary.json.
type KeyFigures struct {
	// Evictions counts the times a key lost its state: the LRU's
	// evictions, or nginx's expired and forcibly removed states.
	Evictions int64
	// PeakKeys is the largest number of keys with state at once;
	// PeakStateBytes the largest state, in bytes, at once (the limiter's
	// flat arrays, not the interned strings).
	PeakKeys       int
	PeakStateBytes int64
	// AllocFailures counts nginx's "could not allocate node" rejects.
	AllocFailures int64
	// ShadowPasses is what the same limiter with an unbounded table passed
	// on the same requests; HasShadow is false when none ran (an unbounded
	// limiter is its own shadow).
	ShadowPasses int64
	HasShadow    bool
}

// KeyReporter is a per-key limiter, seen by the per-key results
// (keys.csv and summary.json): the key column it accounts by, its
// nominal limit per key (for innocent_keys_hurt), and its table's
// figures.
type KeyReporter interface {
	// KeyIndex is the index in Request.Keys that its results are
	// accounted by (bound by BindKeyColumns; its first key column).
	KeyIndex() int
	// KeyNominal is the limit per key: at most Limit requests in any
	// window of length Window (0, 0 when it has none).
	KeyNominal() (limit float64, window time.Duration)
	// KeyEvictions is how many times key id lost its state.
	KeyEvictions(id int32) int32
	KeyFigures() KeyFigures
	// TrackShadow runs the same limiter with an unbounded table beside
	// this one, for ShadowPasses (extra_passes_from_eviction). Call it
	// before the first decision.
	TrackShadow()
}

// KeyNameUser is a limiter that reads the strings behind key ids: nginx's
// zone charges a state by the key's length, and sentinel-param's items
// name values. The caller binds the stream's KeyTable.Name before the run.
type KeyNameUser interface {
	BindKeyNames(name func(id int32) string)
}

// RequestStage is a Stage that reads the request: a per-key limiter in a
// chain A+B. The chain executor calls CheckRequest and RecordRequest
// instead of Check and Record.
type RequestStage interface {
	Stage
	CheckRequest(now time.Duration, r *Request) Decision
	RecordRequest(at time.Duration, r *Request)
}

// bindOne checks BindKeyColumns' argument for a limiter of one column.
func bindOne(name string, idx []int) (int, error) {
	if len(idx) != 1 || idx[0] < 0 || idx[0] >= MaxKeyColumns {
		return 0, errBind(name, idx)
	}
	return idx[0], nil
}
