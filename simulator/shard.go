package simulator

import (
	"fmt"
	"sync"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Sharded rows (Config.Workers > 1).
//
// A row on the fast path whose limiter is per-key with independent keys
// (algorithms.Sharder: the registry's CapShard families with an unbounded
// table, nginx-limit-req with one unbounded zone, sentinel-param with an
// unbounded cache) is decided by Workers goroutines: the row's goroutine
// routes each arrival of a batch to the shard owning its key, every shard
// decides its own arrivals in arrival order into its own dense slice (no
// two goroutines write one cache line), and the row's goroutine gathers
// the decisions back in arrival order before its accumulator takes the
// batch as it always does. A key's decisions read that key's state only,
// so they are the same as on one goroutine; the bookkeeping is unchanged,
// so every file is byte-identical for every Workers. Every other row is
// decided on its own goroutine as before, and says why (RowWorkers).

// RowWorkers says how one row was decided.
type RowWorkers struct {
	// Shards is the number of goroutines that decided the row (1 when it
	// was not split).
	Shards int
	// Why is, for a row not split while Workers > 1, the one-line reason.
	Why string
}

// shardRow decides a row's batches on its shards. Shard 0 runs on the
// row's goroutine, the others on helpers started once.
type shardRow struct {
	set    algorithms.Shards
	n      int
	route  []uint8
	out    [][]algorithms.Decision
	jobs   []chan []scenarios.Arrival
	wg     sync.WaitGroup
	mu     sync.Mutex
	panics []string
}

func newShardRow(set algorithms.Shards, n int) *shardRow {
	s := &shardRow{set: set, n: n, route: make([]uint8, 0, batchSize), out: make([][]algorithms.Decision, n)}
	for i := range s.out {
		s.out[i] = make([]algorithms.Decision, 0, batchSize/n+batchSize/8)
	}
	s.jobs = make([]chan []scenarios.Arrival, n-1)
	for i := range s.jobs {
		s.jobs[i] = make(chan []scenarios.Arrival, 1)
		go func(sh int, in <-chan []scenarios.Arrival) {
			for arr := range in {
				s.run(sh, arr)
				s.wg.Done()
			}
		}(i+1, s.jobs[i])
	}
	return s
}

// decide fills ds with the decisions of arr.
func (s *shardRow) decide(arr []scenarios.Arrival, ds []algorithms.Decision) {
	s.route = s.route[:len(arr)]
	var r algorithms.Request
	for j := range arr {
		requestOf(&arr[j], &r)
		s.route[j] = uint8(s.set.Of(&r))
	}
	s.wg.Add(s.n - 1)
	for _, in := range s.jobs {
		in <- arr
	}
	s.run(0, arr)
	s.wg.Wait()
	if len(s.panics) > 0 {
		panic(s.panics[0])
	}
	next := make([]int, s.n)
	for j, sh := range s.route {
		ds[j] = s.out[sh][next[sh]]
		next[sh]++
	}
}

// run decides shard sh's arrivals of arr, in order, into s.out[sh].
func (s *shardRow) run(sh int, arr []scenarios.Arrival) {
	defer func() {
		if r := recover(); r != nil {
			s.mu.Lock()
			s.panics = append(s.panics, fmt.Sprint(r))
			s.mu.Unlock()
		}
	}()
	out := s.out[sh][:0]
	var r algorithms.Request
	for j, to := range s.route {
		if int(to) != sh {
			continue
		}
		requestOf(&arr[j], &r)
		out = append(out, s.set.DecideOn(sh, arr[j].Clock, &r))
	}
	s.out[sh] = out
}

// stop ends the helpers.
func (s *shardRow) stop() {
	for _, in := range s.jobs {
		close(in)
	}
}

// maxWorkers bounds Config.Workers: a shard number fits a byte.
const maxWorkers = 256

// startShards splits lim over cfg.Workers shards when it can, for a row on
// the fast path, and says how the row is decided.
func startShards(lim algorithms.Limiter, cfg *Config) (*shardRow, RowWorkers) {
	sp, ok := lim.(algorithms.Sharder)
	if !ok {
		return nil, RowWorkers{Shards: 1, Why: "not a per-key limiter with independent keys"}
	}
	set, why := sp.Shard(cfg.Workers)
	if set == nil {
		return nil, RowWorkers{Shards: 1, Why: why}
	}
	return newShardRow(set, cfg.Workers), RowWorkers{Shards: cfg.Workers}
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
