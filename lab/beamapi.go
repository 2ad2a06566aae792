package lab

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// This file is the library's side of a run decided shard by shard on
// another engine (ratelimit-lab-beam, in the beam/ module): Plan.Sharding
// reads the plan's arrivals once, in order, and says how each row may be
// split (by the key id of the column it keeps a state per key of, or not
// at all); Sharding.Decide has a fresh copy of a row's limiter decide one
// shard's arrivals; Plan.ReplayDecided brings every row's decisions back,
// in the stream's order, into one pass of the accumulators Replay uses, so
// the files are Replay's.

// Sharding is a plan's arrivals read once: the key table of the whole
// stream, and per row the key column it may be split by.
type Sharding struct {
	plan    *Plan
	raw     scenarios.Stream // the source's stream, read to its end
	cols    []int
	notes   []string
	arrived int64
	mu      sync.Mutex // Decide binds fresh limiters through raw's key table
}

// Sharding reads the plan's arrivals once, in order, handing each to each
// (when not nil) with its sequence number in the stream, bound as Replay
// binds them (the constant key of key=*), and every row's column (see
// Column). Every row must be one that can
// be decided shard by shard (simulator.Shardable). A row is split by its
// key column when it keeps an independent state per key of one column and
// no bound on its keys (no capacity, no zone: an eviction there depends on
// the other keys); any other row is decided in one shard, and Notes says
// so.
func (p *Plan) Sharding(ctx context.Context, each func(seq int64, a *scenarios.Arrival, cols []int) error) (_ *Sharding, err error) {
	raw, err := p.src.Open()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			raw.Close()
		}
	}()
	fresh, err := p.freshLimiters()
	if err != nil {
		return nil, err
	}
	st, _, err := bindKeys(raw, p.src.Name, fresh)
	if err != nil {
		return nil, err
	}
	s := &Sharding{plan: p, raw: raw, cols: make([]int, len(fresh))}
	for i, l := range fresh {
		s.cols[i] = shardColumn(l)
		if s.cols[i] < 0 {
			s.notes = append(s.notes, fmt.Sprintf("%s is decided in one shard: it is not per-key, or its keys share a bound (a capacity, a zone) or a fallback column", l.Spec()))
		}
	}
	var seq int64
	for {
		if seq%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		a, ok := st.Next()
		if !ok {
			break
		}
		if seq == 0 {
			for _, l := range p.limiters {
				if why := simulator.Shardable(l, p.cfg, &a); why != "" {
					return nil, fmt.Errorf("%s cannot be decided shard by shard: %s; replay it with ratelimit-lab run", l.Spec(), why)
				}
			}
		}
		if each != nil {
			if err := each(seq, &a, s.cols); err != nil {
				return nil, err
			}
		}
		seq++
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	s.arrived = seq
	return s, nil
}

// shardColumn is the index in Arrival.Keys that l may be split by, or -1.
func shardColumn(l algorithms.Limiter) int {
	rep := algorithms.KeyReporterOf(l)
	ku, ok := l.(algorithms.KeyColumnUser)
	if rep == nil || !ok {
		return -1
	}
	if cols := ku.KeyColumns(); len(cols) != 1 || cols[0] == ConstKey {
		return -1
	}
	if rep.KeyFigures().HasShadow {
		return -1 // bounded: TrackShadow gave it an unbounded twin
	}
	return rep.KeyIndex()
}

// freshLimiters builds the plan's rows again, fresh.
func (p *Plan) freshLimiters() ([]algorithms.Limiter, error) {
	out := make([]algorithms.Limiter, len(p.limiters))
	for i, l := range p.limiters {
		f, err := newLimiter(l.Spec(), p.cfg.Limit, p.rs)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// Close releases the stream Sharding read.
func (s *Sharding) Close() error { return s.raw.Close() }

// Rows is the number of rows of the plan.
func (s *Sharding) Rows() int { return len(s.cols) }

// Arrived is the number of arrivals read.
func (s *Sharding) Arrived() int64 { return s.arrived }

// Column is the index in Arrival.Keys that row i is split by, or -1 when
// it is decided in one shard.
func (s *Sharding) Column(i int) int { return s.cols[i] }

// Notes say which rows are decided in one shard.
func (s *Sharding) Notes() []string { return slices.Clone(s.notes) }

// Decide has a fresh copy of row i's limiter, bound to the stream's key
// columns and names, decide arr: the arrivals of one shard, in the order
// of the stream. A row split by a key column must be given every arrival
// of each of its keys in the shard, and a row in one shard every arrival.
// Decide may be called from several goroutines.
func (s *Sharding) Decide(i int, arr []scenarios.Arrival) ([]algorithms.Decision, simulator.RowState, error) {
	l, err := s.fresh(i)
	if err != nil {
		return nil, simulator.RowState{}, err
	}
	return simulator.DecideShard(l, arr)
}

// fresh is row i's limiter, new and bound.
func (s *Sharding) fresh(i int) (algorithms.Limiter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := newLimiter(s.plan.limiters[i].Spec(), s.plan.cfg.Limit, s.plan.rs)
	if err != nil {
		return nil, err
	}
	if _, err := bindKeyColumns(&peekStream{Stream: s.raw}, s.plan.src.Name, []algorithms.Limiter{l}); err != nil {
		return nil, err
	}
	return l, nil
}

// ReplayDecided is Replay with the decisions made elsewhere: decided(i,
// seq) is row i's decision of the stream's arrival seq, states the rows'
// limiter states at the end (simulator.MergeRowStates of their shards).
// The result, its warnings and notes are Replay's when the decisions are
// (h.Decisions is not written: no decisions.csv).
func (p *Plan) ReplayDecided(ctx context.Context, h Hooks, decided func(row int, seq int64) algorithms.Decision, states []simulator.RowState) (*Result, error) {
	return p.replay(ctx, h, func(st scenarios.Stream, cfg simulator.Config) (*simulator.Result, error) {
		return simulator.AssembleDecided(ctx, st, p.limiters, cfg, decided, states)
	})
}
