package simulator

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Sharded rows (Config.Workers > 1).
//
// A row on the fast path whose limiter is per-key with independent keys
// (algorithms.Sharder: the registry's CapShard families with an unbounded
// table, nginx-limit-req with one unbounded zone, sentinel-param with an
// unbounded cache) is decided by Workers goroutines: the row's goroutine
// hands each batch to every shard, each shard decides the arrivals whose
// key it owns, in arrival order, into dense slices of its own (no two
// goroutines write one cache line), and the row's goroutine gathers the
// decisions back in arrival order before its accumulator takes the batch
// as it always does (while the shards decide the next batch). A key's
// decisions read that key's state only, so they are the same as on one
// goroutine. Each shard also records the per-key statistics of the
// arrivals it decided (shardKeys: its own KeyStat per key, at local index
// id / n, and its own windows for Over), which are that key's alone and
// come in that key's order, so the random per-key memory traffic of a
// million keys runs on every shard; the row's goroutine keeps what needs
// the arrival order of every key (the bins, the window maximum, the
// waits, the users, decisions.csv), and at the end the shards' statistics
// merge into the one table by global id. Every file is byte-identical for
// every Workers. Every other row is decided on its own goroutine as
// before, and says why (RowWorkers).

// RowWorkers says how one row was decided.
type RowWorkers struct {
	// Shards is the number of goroutines that decided the row (1 when it
	// was not split).
	Shards int
	// Why is, for a row not split while Workers > 1, the one-line reason.
	Why string
}

// shardRow decides a row's batches on its shards, one helper goroutine
// each, started once; each shard then records its arrivals' per-key
// statistics (keys.csv's counters). The row's goroutine overlaps them
// with its own work: while the shards decide batch k, it gathers batch
// k−1's decisions back in arrival order and records them (the
// accumulator, the users, decisions.csv), so the row holds one batch more
// than an unsplit row (the pool has eight).
type shardRow struct {
	lim    algorithms.Limiter
	set    algorithms.Shards
	n      int
	keys   []*shardKeys // per shard, nil when the row keeps no per-key statistics
	jobs   []chan []scenarios.Arrival
	wg     sync.WaitGroup
	slots  [2]shardSlot // the batch being decided and the one pending
	cur    int
	mu     sync.Mutex
	panics []string
}

// shardSlot is one batch's decisions: shard s decided arrivals idx[s], in
// order, as out[s].
type shardSlot struct {
	b   *batch
	idx [][]int32
	out [][]algorithms.Decision
	ds  []algorithms.Decision
	ns  []int64 // per shard, the wall time of its decisions
}

func newShardRow(lim algorithms.Limiter, set algorithms.Shards, n int, ks *keyStats) *shardRow {
	s := &shardRow{lim: lim, set: set, n: n}
	if ks != nil {
		ks.sharded = true
		s.keys = make([]*shardKeys, n)
		for i := range s.keys {
			s.keys[i] = &shardKeys{n: int32(n), col: ks.col, acct: ks.acct, res: -1,
				over: overTracker{m: ks.over.m, w: ks.over.w}}
		}
	}
	for i := range s.slots {
		sl := &s.slots[i]
		sl.idx, sl.out = make([][]int32, n), make([][]algorithms.Decision, n)
		sl.ns = make([]int64, n)
		sl.ds = make([]algorithms.Decision, batchSize)
		for j := range n {
			sl.idx[j] = make([]int32, 0, batchSize/n+64) // append grows a hot shard
			sl.out[j] = make([]algorithms.Decision, 0, batchSize/n+64)
		}
	}
	s.jobs = make([]chan []scenarios.Arrival, n)
	for i := range s.jobs {
		s.jobs[i] = make(chan []scenarios.Arrival, 1)
		go func(sh int, in <-chan []scenarios.Arrival) {
			for arr := range in {
				s.run(sh, arr)
				s.wg.Done()
			}
		}(i, s.jobs[i])
	}
	return s
}

// run decides shard sh's arrivals of arr, in order, into the current
// slot, then records their per-key statistics. Every shard reads the
// whole batch and keeps its own arrivals.
func (s *shardRow) run(sh int, arr []scenarios.Arrival) {
	defer func() {
		if r := recover(); r != nil {
			s.mu.Lock()
			s.panics = append(s.panics, fmt.Sprint(r))
			s.mu.Unlock()
		}
	}()
	sl := &s.slots[s.cur]
	idx, out := sl.idx[sh][:0], sl.out[sh][:0]
	t0 := time.Now()
	var r algorithms.Request
	for j := range arr {
		requestOf(&arr[j], &r)
		if s.set.Of(&r) != sh {
			continue
		}
		idx = append(idx, int32(j))
		out = append(out, s.set.DecideOn(sh, arr[j].Clock, &r))
	}
	sl.idx[sh], sl.out[sh] = idx, out
	sl.ns[sh] = int64(time.Since(t0))
	if s.keys != nil {
		s.keys[sh].addBatch(arr, idx, out)
	}
}

// process starts b's decisions, records the batch before it meanwhile,
// and waits for b's. release returns a batch to the pool once recorded.
func (s *shardRow) process(acc *accumulator, b *batch, rows *decisionWriter, release func(*batch)) error {
	sl := &s.slots[s.cur]
	sl.b = b
	s.wg.Add(s.n)
	for _, in := range s.jobs {
		in <- b.arr
	}
	err := s.record(acc, rows, &s.slots[1-s.cur], release)
	s.wg.Wait()
	if len(s.panics) > 0 {
		return fmt.Errorf("algorithm %s panicked in batch at arrival %d: %v", s.lim.Spec(), b.seq, s.panics[0])
	}
	s.cur = 1 - s.cur
	return err
}

// record gathers slot sl's decisions in arrival order, records them and
// releases its batch; a slot without one does nothing.
func (s *shardRow) record(acc *accumulator, rows *decisionWriter, sl *shardSlot, release func(*batch)) error {
	b := sl.b
	if b == nil {
		return nil
	}
	sl.b = nil
	defer release(b)
	ds := sl.ds[:len(b.arr)]
	for sh := range s.n {
		out := sl.out[sh]
		for k, j := range sl.idx[sh] {
			ds[j] = out[k]
		}
	}
	acc.decideNs += slices.Max(sl.ns) // the shards decide at once
	acc.decisions += int64(len(b.arr))
	if err := limiterErr(s.lim); err != nil {
		return err
	}
	return recordDecided(s.lim, acc, b.seq, b.arr, ds, rows)
}

// finish records the last batch (record is false after an error: the
// batch is only released), merges the shards' per-key statistics into
// the row's and ends the helpers.
func (s *shardRow) finish(acc *accumulator, rows *decisionWriter, release func(*batch), record bool) error {
	var err error
	if record {
		err = s.record(acc, rows, &s.slots[1-s.cur], release)
		if err == nil && s.keys != nil {
			if err = acc.keys.merge(s.keys); err != nil {
				err = fmt.Errorf("%s: %w", s.lim.Spec(), err)
			}
		}
	}
	for i := range s.slots {
		if b := s.slots[i].b; b != nil {
			release(b)
			s.slots[i].b = nil
		}
	}
	for _, in := range s.jobs {
		close(in)
	}
	return err
}

// maxWorkers bounds Config.Workers: a shard number fits a byte.
const maxWorkers = 256

// startShards splits lim over cfg.Workers shards when it can, for a row on
// the fast path, and says how the row is decided.
func startShards(lim algorithms.Limiter, cfg *Config, ks *keyStats) (*shardRow, RowWorkers) {
	sp, ok := lim.(algorithms.Sharder)
	if !ok {
		return nil, RowWorkers{Shards: 1, Why: "not a per-key limiter with independent keys"}
	}
	set, why := sp.Shard(cfg.Workers)
	if set == nil {
		return nil, RowWorkers{Shards: 1, Why: why}
	}
	return newShardRow(lim, set, cfg.Workers, ks), RowWorkers{Shards: cfg.Workers}
}

// unsharded is the reason of a row that is not on the fast path.
func unsharded(lim algorithms.Limiter, evented bool) RowWorkers {
	if !evented {
		return RowWorkers{Shards: 1, Why: "decides a request only once later arrivals are known"}
	}
	if _, chain := lim.(*algorithms.Chain); chain {
		return RowWorkers{Shards: 1, Why: "a chain checks its stages in turn, on one event queue"}
	}
	return RowWorkers{Shards: 1, Why: "an evented row (a downstream, recorded responses, a closed loop or a breaker) runs on one event queue"}
}

// shardKeys is one shard's per-key statistics: the KeyStat of each key it
// decides, at local index id / n, and that key's window for Over in its
// own tracker. A key's figures depend on that key's requests alone, in
// their order, which is the order its shard decides them in; so the
// shards' statistics, put back at their global ids, are the one table's.
// The shards route by table id (id % n for nginx-limit-req and
// sentinel-param, id + 1 for a Keyed that holds a state for the empty
// key), so the ids of one shard are all ≡ res (mod n); addBatch checks
// it, and merge that no two shards hold the same residue.
type shardKeys struct {
	n     int32
	col   int
	acct  algorithms.KeyAccounter // as keyStats.acct (read-only: safe on every shard)
	res   int32                   // id % n of this shard's ids, -1 before the first
	stats KeyStats
	over  overTracker
	empty int64 // requests whose key column was empty
}

// addBatch records shard's decisions out of the arrivals idx of arr, as
// keyStats.add does but for the users (counted on the row's goroutine).
func (k *shardKeys) addBatch(arr []scenarios.Arrival, idx []int32, out []algorithms.Decision) {
	for i, j := range idx {
		a := &arr[j]
		id := a.Keys[k.col]
		if id < 0 {
			k.empty++
			if k.acct == nil {
				continue
			}
			if id = k.acct.AccountKey(&a.Keys); id < 0 {
				continue
			}
		}
		if r := id % k.n; r != k.res {
			if k.res >= 0 {
				panic(fmt.Sprintf("per-key statistics: key id %d (≡ %d mod %d) decided on the shard of the ids ≡ %d", id, r, k.n, k.res))
			}
			k.res = r
		}
		l := int(id / k.n)
		if l >= k.stats.Len() {
			k.stats.grow(l + 1)
		}
		addKey(k.stats.At(l), &k.over, a.At, max(a.Weight(), 1), out[i])
	}
}

// merge puts the shards' statistics back at their global ids (local l of
// the shard of residue r is id l·n + r) as the one table of an unsplit
// row holds them: as long as the largest id, every other field as
// recorded.
func (k *keyStats) merge(parts []*shardKeys) error {
	size := 0
	seen := map[int32]bool{}
	for _, p := range parts {
		k.empty += p.empty
		if p.stats.Len() == 0 {
			continue
		}
		if seen[p.res] {
			return fmt.Errorf("per-key statistics: two shards hold the key ids ≡ %d (mod %d)", p.res, p.n)
		}
		seen[p.res] = true
		size = max(size, (p.stats.Len()-1)*int(p.n)+int(p.res)+1)
	}
	k.stats = KeyStats{}
	k.stats.grow(size)
	for _, p := range parts {
		n, r := int(p.n), int(p.res)
		for l := range p.stats.Len() {
			*k.stats.At(l*n + r) = *p.stats.At(l)
			if l&keyStatMask == keyStatMask {
				p.stats.pages[l>>keyStatShift] = nil // copied: let it go
			}
		}
		p.stats = KeyStats{}
	}
	return nil
}
