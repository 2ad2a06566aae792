package simulator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// This file splits Run in two for a runner that decides somewhere else
// (the Beam pipeline of beam/): DecideShard has a fresh limiter decide a
// shard's arrivals the way Run's fast path does, and AssembleDecided runs
// the arrivals once more, in order, through Run's accumulators with the
// decisions given, so the Result is the one Run builds when every shard's
// decisions are the ones the whole row would have made.

// RowState is what a row's limiter knows at the end of a shard beyond its
// decisions: its state's size and per-key figures. MergeRowStates makes
// a sharded row's figures those of the one limiter of a whole run.
type RowState struct {
	StateBytes int
	// Keyed is true when the limiter is per-key; Figures and Evicted are
	// then its table's figures and the evictions of each key that had any.
	Keyed   bool
	Figures algorithms.KeyFigures
	Evicted map[int32]int32
	// IndexedIDs is the ids the limiter's id index covers
	// (algorithms.KeyIndexer; 0 when it has none), 4 bytes each in
	// StateBytes and PeakStateBytes.
	IndexedIDs int
	// Arrivals is how many arrivals the shard decided: a shard that
	// decided none (a row that is not split has all its arrivals in one)
	// adds nothing to the row's state.
	Arrivals int
}

// MergeRowStates adds up the states of a row's shards that decided
// arrivals: the sizes (their id indexes replaced by one over the largest
// id, IndexedIDs), the evictions, the peaks (an unbounded table's peak is
// its size at the end, so the keys split by id add up to the one table's
// figures; a bounded table is never split).
func MergeRowStates(states []RowState) RowState {
	var m RowState
	if slices.ContainsFunc(states, func(s RowState) bool { return s.Arrivals > 0 }) {
		states = slices.DeleteFunc(slices.Clone(states), func(s RowState) bool { return s.Arrivals == 0 })
	} else if len(states) > 1 {
		states = states[:1]
	}
	for _, s := range states {
		// The shards' id indexes become one over the largest id, as the
		// whole run's one table has it.
		s.StateBytes -= 4 * s.IndexedIDs
		s.Figures.PeakStateBytes -= 4 * int64(s.IndexedIDs)
		m.IndexedIDs = max(m.IndexedIDs, s.IndexedIDs)
		m.StateBytes += s.StateBytes
		m.Keyed = m.Keyed || s.Keyed
		m.Figures.Evictions += s.Figures.Evictions
		m.Figures.PeakKeys += s.Figures.PeakKeys
		m.Figures.PeakStateBytes += s.Figures.PeakStateBytes
		m.Figures.AllocFailures += s.Figures.AllocFailures
		m.Figures.ShadowPasses += s.Figures.ShadowPasses
		m.Figures.HasShadow = m.Figures.HasShadow || s.Figures.HasShadow
		for id, n := range s.Evicted {
			if m.Evicted == nil {
				m.Evicted = map[int32]int32{}
			}
			m.Evicted[id] += n
		}
	}
	m.StateBytes += 4 * m.IndexedIDs
	if m.Keyed {
		m.Figures.PeakStateBytes += 4 * int64(m.IndexedIDs)
	}
	return m
}

// Shardable says why lim cannot be decided shard by shard on Run's fast
// path, or "" when it can: a chain, a circuit breaker, a downstream, a
// trace's recorded responses or a limiter that waits on later arrivals
// (sentinel-cluster) need the evented row of the whole stream; the Redis
// family and the adaptive family read a shared server or the closed
// loop. first is the stream's first arrival (recorded responses).
func Shardable(lim algorithms.Limiter, cfg Config, first *scenarios.Arrival) string {
	name, _, _ := strings.Cut(lim.Spec(), ":")
	switch {
	case evented(lim):
		return "it is a chain or has a circuit breaker"
	case cfg.Downstream != nil:
		return "the run has a downstream"
	case first != nil && first.HasResponse:
		return "the trace records responses (rt_ms, error)"
	}
	if _, ok := lim.(carryDecider); ok {
		return name + " decides a request only once later arrivals are known"
	}
	if redisFigures(lim) != nil || strings.HasPrefix(name, "redis-") {
		return name + " keeps its state in Redis"
	}
	if _, ok := lim.(algorithms.Completer); ok {
		return name + " reads completions (the closed loop)"
	}
	if _, ok := lim.(algorithms.SignalReader); ok {
		return name + " reads host signals"
	}
	return ""
}

// DecideShard has lim, fresh and bound to its key columns, decide arr (a
// shard's arrivals in the order of the stream) exactly as Run's fast path
// does, and returns the decisions and the limiter's state at the end.
func DecideShard(lim algorithms.Limiter, arr []scenarios.Arrival) (ds []algorithms.Decision, st RowState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("algorithm %s panicked: %v", lim.Spec(), r)
		}
	}()
	ds = make([]algorithms.Decision, len(arr))
	for lo := 0; lo < len(arr); lo += batchSize {
		hi := min(lo+batchSize, len(arr))
		a, d := arr[lo:hi], ds[lo:hi]
		if !decideBatch(lim, a, d) {
			if rl, ok := lim.(algorithms.RequestLimiter); ok {
				var r algorithms.Request
				for j := range a {
					requestOf(&a[j], &r)
					d[j] = rl.DecideRequest(a[j].Clock, &r)
				}
			} else {
				for j := range a {
					d[j] = lim.Decide(a[j].Clock)
				}
			}
		}
		if err := limiterErr(lim); err != nil {
			return nil, st, err
		}
	}
	if err := finishLimiter(lim); err != nil {
		return nil, st, err
	}
	st.StateBytes, st.Arrivals = lim.StateBytes(), len(arr)
	if ix, ok := lim.(algorithms.KeyIndexer); ok {
		st.IndexedIDs = ix.IndexedIDs()
	}
	if rep := algorithms.KeyReporterOf(lim); rep != nil {
		st.Keyed, st.Figures = true, rep.KeyFigures()
		col := rep.KeyIndex()
		for j := range arr {
			id := arr[j].Keys[col]
			if id < 0 {
				continue
			}
			if n := rep.KeyEvictions(id); n > 0 {
				if st.Evicted == nil {
					st.Evicted = map[int32]int32{}
				}
				st.Evicted[id] = n
			}
		}
	}
	return ds, st, nil
}

// AssembleDecided is Run for rows whose decisions were made elsewhere:
// it reads src once, in order, and hands arrival seq's decision of row i,
// decided(i, seq), to Run's accumulators, then assembles the Result as
// Run does. limiters are the rows' limiters, fresh and bound to their key
// columns: they give the specs, rates and per-key settings, and states
// (one per row) the figures of their state at the end. A limiter that
// Shardable refuses is an error.
func AssembleDecided(ctx context.Context, src scenarios.Stream, limiters []algorithms.Limiter, cfg Config, decided func(row int, seq int64) algorithms.Decision, states []RowState) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(limiters) == 0 {
		return nil, errors.New("no algorithms to run")
	}
	if len(states) != len(limiters) {
		return nil, fmt.Errorf("%d row states for %d limiters", len(states), len(limiters))
	}
	if cfg.Reorder == 0 {
		cfg.Reorder = cfg.Window
	}
	requested := cfg.Bin
	cfg.Bin = PlanBin(cfg.End-cfg.Start, cfg.Bin, cfg.maxBins())
	n := len(limiters)
	accs := make([]*accumulator, n)
	for i, lim := range limiters {
		accs[i] = newAccumulator(&cfg)
		accs[i].prio = newPrioAcc(lim)
		accs[i].keys = newKeyStats(lim)
	}
	var steps clockSteps
	maxAt := time.Duration(-1 << 63)
	var fed int64
	arr := make([]scenarios.Arrival, 0, batchSize)
	ds := make([]algorithms.Decision, batchSize)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		arr = arr[:0]
		for len(arr) < batchSize {
			a, ok := src.Next()
			if !ok {
				break
			}
			if fed == 0 && len(arr) == 0 {
				for _, lim := range limiters {
					if why := Shardable(lim, cfg, &a); why != "" {
						return nil, fmt.Errorf("%s: cannot be decided shard by shard: %s; replay it with ratelimit-lab run", lim.Spec(), why)
					}
				}
			}
			maxAt = max(maxAt, a.At)
			steps.see(a.At, a.Clock)
			arr = append(arr, a)
		}
		if len(arr) == 0 {
			break
		}
		for i, lim := range limiters {
			d := ds[:len(arr)]
			for j := range arr {
				d[j] = decided(i, fed+int64(j))
			}
			if err := recordDecided(lim, accs[i], fed, arr, d, nil); err != nil {
				return nil, err
			}
		}
		fed += int64(len(arr))
		if len(arr) < batchSize {
			break
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	res := assemble(&cfg, limiters, accs, maxAt, fed)
	res.RequestedBin = requested
	res.ClockSteps, res.ClockStepCount = steps.list, steps.n
	for i := range res.Algorithms {
		a, st := &res.Algorithms[i], states[i]
		a.StateBytes = st.StateBytes
		if a.Keys == nil || !st.Keyed {
			continue
		}
		a.Keys.Figures = st.Figures
		for id := range a.Keys.Stats.Len() {
			a.Keys.Stats.At(id).Evicted = st.Evicted[int32(id)]
		}
		if st.Figures.HasShadow {
			a.Keys.ExtraPassesFromEviction = a.Passed - st.Figures.ShadowPasses
		}
	}
	return res, nil
}
