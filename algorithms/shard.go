package algorithms

import (
	"fmt"
	"time"
)

// This file splits a per-key limiter over n goroutines (run --workers N).
//
// A per-key limiter whose table never evicts decides a key's request from
// that key's own state alone: no other key's request changes it. Its keys
// can then be decided by n shards at once, shard s owning the table ids
// ≡ s (mod n) and keeping them at local index id / n, so that the ids
// index of the n shards together is as large as the one table's, not n
// times larger. Each shard sees its keys' requests in arrival order, so it
// makes the same decisions as the one table; the shards' figures (live
// keys, state bytes, the peak) merge into the one table's figures exactly
// (see mergedBytes).
//
// What does not shard, and why (the reason is the row's note):
//   - a bounded table (capacity=, a reference's own bound, nginx's zone,
//     sentinel-param's LRU): which key is evicted depends on every key's
//     requests in their global order;
//   - a kind whose per-key decisions share something across keys (Envoy's
//     random draws, kong's synchronised nodes, Traefik's TTL map with its
//     bound): the registry does not give its family CapShard;
//   - a table of several key columns (nginx's several zones), a chain, an
//     adaptive limiter (a closed loop), sentinel-param with items= (its
//     value names are resolved lazily, so its state bytes depend on the
//     order of every key).

// Sharder is a per-key limiter that can be split over n goroutines.
type Sharder interface {
	// Shard splits the limiter, fresh and before its first decision, into
	// n ≥ 2 shards, and returns how to route and decide requests on them;
	// the limiter itself then decides (sequentially) as before and
	// reports its figures merged over the shards. It returns nil and a
	// one-line reason when the split would not be exact.
	Shard(n int) (Shards, string)
}

// Shards are a split limiter's shards.
type Shards interface {
	// Of is the shard, in [0, n), that decides r.
	Of(r *Request) int
	// DecideOn decides r on shard s. Calls for different shards may run
	// at once on different goroutines; a shard's own calls come in
	// arrival order, and only for the requests Of routes to it.
	DecideOn(s int, now time.Duration, r *Request) Decision
}

// kindCanShard reports whether spec's kind declares CapShard.
func kindCanShard(spec string) bool {
	k, err := findKind(registryNameOf(spec))
	return err == nil && k.info.Caps.Has(CapShard)
}

// noShardReason is the reason of a kind without CapShard.
func noShardReason(spec string) string {
	return fmt.Sprintf("%s shares state across keys", registryNameOf(spec))
}

// splitter is a table that can split into n shards of the same state
// type (table[T]; kongSyncTable and traefikTable cannot).
type splitter interface {
	split(n int) keyedTable
}

// split implements splitter: n empty tables of t's kind. The tables share
// fresh and run, which read the configuration only.
func (t *table[T]) split(n int) keyedTable {
	s := &shardedTable[T]{n: int32(n), parts: make([]*table[T], n)}
	for i := range s.parts {
		s.parts[i] = &table[T]{slots: newKeySlots[T](), fresh: t.fresh, run: t.run}
	}
	return s
}

// shardedTable is an unbounded table split over n shards: table id id is
// id / n in shard id % n.
type shardedTable[T any] struct {
	n     int32
	parts []*table[T]
}

func (t *shardedTable[T]) decide(id int32, now time.Duration, _ int, r *Request) Decision {
	return t.parts[id%t.n].decide(id/t.n, now, 0, r)
}

func (t *shardedTable[T]) live() int {
	n := 0
	for _, p := range t.parts {
		n += p.live()
	}
	return n
}

func (t *shardedTable[T]) bytes() int {
	parts := make([]*keySlots[T], len(t.parts))
	for i, p := range t.parts {
		parts[i] = &p.slots
	}
	return mergedBytes(parts)
}

// figures: an unbounded table never evicts, so its peak is its live keys
// and its peak bytes its bytes now (both only grow, at each insert).
func (t *shardedTable[T]) figures() (int64, int, int64) {
	return 0, t.live(), int64(t.bytes())
}

func (t *shardedTable[T]) evictedOf(int32) int32 { return 0 }

// isBoxed reports whether t keeps one Limiter instance per key (whose
// StateBytes Keyed adds per live key).
func isBoxed(t keyedTable) bool {
	switch t.(type) {
	case *table[Limiter], *shardedTable[Limiter]:
		return true
	}
	return false
}

// mergedBytes is what one unbounded keySlots holding the keys of the
// shards parts (shard s of n = len(parts) holding id at id / n) reports
// as bytes: each shard's own bytes, with its ids index (4 bytes per local
// id) replaced by the one index of the largest global id.
func mergedBytes[T any](parts []*keySlots[T]) int {
	n := len(parts)
	total, ids := 0, 0
	for s, p := range parts {
		total += p.bytes() - 4*p.idsLen()
		if l := p.idsLen(); l > 0 {
			ids = max(ids, (l-1)*n+s+1)
		}
	}
	return total + 4*ids
}

// Shard implements Sharder: an unbounded table of a kind with CapShard.
func (k *Keyed) Shard(n int) (Shards, string) {
	switch {
	case n < 2:
		return nil, "one worker"
	case !kindCanShard(k.inner):
		return nil, noShardReason(k.inner)
	case k.capacity > 0:
		return nil, fmt.Sprintf("its key table is bounded (%d keys) and evicts in the order of every key's requests", k.capacity)
	}
	sp, ok := k.table.(splitter)
	if !ok {
		return nil, noShardReason(k.inner)
	}
	k.table = sp.split(n)
	return keyedShards{k, int32(n)}, ""
}

// keyedShards routes a Keyed's requests by table id.
type keyedShards struct {
	k *Keyed
	n int32
}

// tableID is the table id r is decided on, -1 when none (passed
// unaccounted or refused: shard 0 answers those).
func (s keyedShards) tableID(r *Request) int32 {
	tid, ok, _ := s.k.empty.tableID(r.Keys[s.k.col], r)
	if !ok {
		return -1
	}
	return tid
}

func (s keyedShards) Of(r *Request) int {
	tid := s.tableID(r)
	if tid < 0 {
		return 0
	}
	return int(tid % s.n)
}

// DecideOn decides on the Keyed itself, whose sharded table sends the
// request to shard Of(r): only that shard's state is touched.
func (s keyedShards) DecideOn(_ int, now time.Duration, r *Request) Decision {
	return s.k.DecideRequest(now, r)
}

// Shard implements Sharder for the adaptive per-key limiter: refused (its
// completions come back on one event queue, and its family has no
// CapShard); without it the embedded Keyed's Shard would split the table
// its completions are looked up in.
func (kc *KeyedCompleter) Shard(int) (Shards, string) {
	return nil, "an adaptive limiter reads completions on one event queue"
}

// Shard implements Sharder for a chain's per-key stage: refused, a chain
// checks its stages in turn.
func (s *keyedStage) Shard(int) (Shards, string) {
	return nil, "a chain checks its stages in turn, on one event queue"
}

// KeyIndexer is a per-key limiter whose StateBytes counts 4 bytes of id
// index for every key id up to the largest it holds (IndexedIDs of them).
// A row decided in pieces elsewhere (the Beam module, each piece a limiter
// of its own over some of the keys) adds up the pieces' StateBytes with
// their indexes replaced by one over the largest IndexedIDs, which is what
// the one limiter of a whole run reports.
type KeyIndexer interface {
	IndexedIDs() int
}

// idsLener is a key table that reports the ids its index covers.
type idsLener interface{ idsLen() int }

func (t *table[T]) idsLen() int { return t.slots.idsLen() }

// IndexedIDs implements KeyIndexer (0 for a table that keeps no index
// this way).
func (k *Keyed) IndexedIDs() int {
	if t, ok := k.table.(idsLener); ok {
		return t.idsLen()
	}
	return 0
}

// IndexedIDs implements KeyIndexer: the zones' id indexes.
func (l *NginxLimitReq) IndexedIDs() int {
	n := 0
	for _, z := range l.zones {
		n += z.slots.idsLen()
	}
	return n
}

// IndexedIDs implements KeyIndexer: the cache's id index.
func (p *SentinelParam) IndexedIDs() int { return p.slots.idsLen() }
