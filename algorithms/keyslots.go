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
// neighbours'). Nothing in it is a pointer (for pointer-free T), so however
// many keys a run sees, the garbage collector never walks the table.
//
// Memory: 8 bytes per key id ever seen (its slot and evictions), and per
// live slot 12 bytes of key and links plus T
// (rounded up to T's alignment).
type keySlots[T any] struct {
	// idx is by key id: the key's slot+1 (0 when it has none) and the
	// times it lost its slot, side by side, so that an eviction writes
	// one place (issue 27). idLen and evLen are the ids the index and
	// the eviction counts cover (max id + 1 inserted, evicted), for bytes.
	idx          []slotIdx
	idLen, evLen int
	nodes        []slotNode[T]
	head, tail   int32   // most and least recently used slot, -1 when empty
	free         []int32 // released slots, reused before new ones
	live, peak   int
	evictions    int64
	// direct: a table that never removes a slot (an unbounded nginx zone
	// or Sentinel cache, the shadow twins among them) keeps key id's
	// slot at nodes[id], with no index and no LRU order (issue 27: one
	// cache line a lookup instead of two).
	direct bool
}

// directLive marks a live node of a direct table in its prev link.
const directLive = -2

type slotNode[T any] struct {
	key, prev, next int32
	st              T
}

func newKeySlots[T any]() keySlots[T] { return keySlots[T]{head: -1, tail: -1} }

// newDirectKeySlots is a table that never removes a slot (see direct):
// remove, touch and the LRU order are not for it.
func newDirectKeySlots[T any]() keySlots[T] {
	return keySlots[T]{head: -1, tail: -1, direct: true}
}

// lookup returns id's slot, or -1.
func (s *keySlots[T]) lookup(id int32) int32 {
	if s.direct {
		if int(id) < len(s.nodes) && s.nodes[id].prev == directLive {
			return id
		}
		return -1
	}
	if int(id) < len(s.idx) {
		return s.idx[id].slot - 1
	}
	return -1
}

// at returns slot's state.
func (s *keySlots[T]) at(slot int32) *T { return &s.nodes[slot].st }

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
		if int(id) >= len(s.nodes) {
			s.nodes = growNodes(s.nodes, int(id)+1)
		}
		s.nodes[id] = slotNode[T]{key: id, prev: directLive}
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
	if int(id) >= len(s.idx) {
		s.idx = growIdx(s.idx, int(id)+1)
	}
	s.idLen = max(s.idLen, int(id)+1)
	s.idx[id].slot = slot + 1
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
	x := &s.idx[id]
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
	if id >= 0 && int(id) < len(s.idx) {
		return s.idx[id].evicted
	}
	return 0
}

// bytes is the table's memory for the live slots and the ids seen (the
// same figure for a direct table, whose nodes array stands for the
// index: peak_state_bytes does not depend on the layout).
func (s *keySlots[T]) bytes() int {
	return 4*s.idsLen() + s.live*int(unsafe.Sizeof(slotNode[T]{})) + 4*s.evLen
}

// idsLen is how many key ids the table's index covers, as bytes counts
// them (4 bytes each): max id + 1 inserted (a direct table's nodes).
func (s *keySlots[T]) idsLen() int {
	if s.direct {
		return len(s.nodes)
	}
	return s.idLen
}

type slotIdx struct{ slot, evicted int32 }

// growIdx extends a to n entries of zero, at least doubling its capacity.
func growIdx(a []slotIdx, n int) []slotIdx {
	if n <= cap(a) {
		return a[:n]
	}
	b := make([]slotIdx, n, max(n, 2*cap(a), 64))
	copy(b, a)
	return b
}

// growNodes extends a direct table's nodes to n (zero: no slot), at least
// doubling its capacity.
func growNodes[T any](a []slotNode[T], n int) []slotNode[T] {
	if n <= cap(a) {
		return a[:n]
	}
	b := make([]slotNode[T], n, max(n, 2*cap(a), 64))
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
