package simulator

import (
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Optional interfaces of limiters that talk to a server (the redis-*
// limiters of package distributed); the simulator does not import them.
type (
	// failer reports the first error a limiter met while deciding (a clock
	// that steps back, a server error); Run stops with it.
	failer interface{ Err() error }
	// finisher runs what a limiter still has queued once every arrival is
	// decided (its costs count in the figures) and cleans up.
	finisher interface{ Finish() error }
	// redisFigurer reports a Redis limiter's figures; peakBytes is -1 when
	// not measured.
	redisFigurer interface {
		RedisFigures() (commands, peakMembers, peakBytes, epochMs int64)
	}
	// batchDecider decides consecutive arrivals at once, exactly as Decide
	// one by one would (a Redis limiter pipelines them).
	batchDecider interface {
		DecideBatch(clocks []time.Duration, out []algorithms.Decision)
	}
	// keyedBatchDecider is a batchDecider bound to a key column (a redis-*
	// spec with key=COLUMN): it also reads each arrival's key id in that
	// column; KeyColumnIndex is -1 when it has none.
	keyedBatchDecider interface {
		KeyColumnIndex() int
		DecideBatchKeys(clocks []time.Duration, keys []int32, out []algorithms.Decision)
	}
	// costBatchDecider is a keyedBatchDecider that charges each arrival's
	// cost when ChargesCost (redis-gcra, redis-cell); keys is nil without
	// a key column.
	costBatchDecider interface {
		keyedBatchDecider
		ChargesCost() bool
		DecideBatchCosts(clocks []time.Duration, keys, costs []int32, out []algorithms.Decision)
	}
)

// decideBatch lets a batchDecider decide arr into ds; false if lim is not
// one.
func decideBatch(lim algorithms.Limiter, arr []scenarios.Arrival, ds []algorithms.Decision) bool {
	if decideRequests(lim, arr, ds) {
		return true
	}
	b, ok := lim.(batchDecider)
	if !ok {
		return false
	}
	clocks := make([]time.Duration, len(arr))
	for j := range arr {
		clocks[j] = arr[j].Clock
	}
	if cb, ok := lim.(costBatchDecider); ok && cb.ChargesCost() {
		var keys []int32
		if col := cb.KeyColumnIndex(); col >= 0 {
			keys = make([]int32, len(arr))
			for j := range arr {
				keys[j] = arr[j].Keys[col]
			}
		}
		costs := make([]int32, len(arr))
		for j := range arr {
			costs[j] = arr[j].Weight()
		}
		cb.DecideBatchCosts(clocks, keys, costs, ds)
		return true
	}
	if kb, ok := lim.(keyedBatchDecider); ok && kb.KeyColumnIndex() >= 0 {
		col := kb.KeyColumnIndex()
		keys := make([]int32, len(arr))
		for j := range arr {
			keys[j] = arr[j].Keys[col]
		}
		kb.DecideBatchKeys(clocks, keys, ds)
		return true
	}
	b.DecideBatch(clocks, ds)
	return true
}

// RedisFigures are a Redis limiter's costs over a run.
type RedisFigures struct {
	// Commands is the number of commands the gateway instances sent.
	Commands int64
	// PeakMembers is the largest member (or key) count seen.
	PeakMembers int64
	// PeakBytes is the largest MEMORY USAGE sampled, -1 when not measured
	// (the embedded server).
	PeakBytes int64
	// EpochMs is the Unix ms of virtual time 0.
	EpochMs int64
}

// limiterErr is the limiter's own error, if it reports one.
func limiterErr(lim algorithms.Limiter) error {
	if f, ok := lim.(failer); ok {
		return f.Err()
	}
	return nil
}

// finishLimiter finishes a limiter that has queued work.
func finishLimiter(lim algorithms.Limiter) error {
	if f, ok := lim.(finisher); ok {
		return f.Finish()
	}
	return nil
}

// redisFigures returns the limiter's Redis figures, or nil.
func redisFigures(lim algorithms.Limiter) *RedisFigures {
	f, ok := lim.(redisFigurer)
	if !ok {
		return nil
	}
	var r RedisFigures
	r.Commands, r.PeakMembers, r.PeakBytes, r.EpochMs = f.RedisFigures()
	return &r
}

// redisSummaryJS is the part of a summary.json entry that only Redis
// limiters have; redis_peak_bytes is null on the embedded server.
type redisSummaryJS struct {
	RedisCommands    int64   `json:"redis_commands"`
	RedisPeakMembers int64   `json:"redis_peak_members"`
	RedisPeakBytes   jsonNum `json:"redis_peak_bytes"`
}

func redisSummary(a *AlgoResult) *redisSummaryJS {
	if a.Redis == nil {
		return nil
	}
	js := &redisSummaryJS{
		RedisCommands:    a.Redis.Commands,
		RedisPeakMembers: a.Redis.PeakMembers,
	}
	if a.Redis.PeakBytes >= 0 {
		js.RedisPeakBytes = jsonNum(strconv.FormatInt(a.Redis.PeakBytes, 10))
	}
	return js
}

// RedisTable returns a table of the Redis limiters' figures, or no rows
// when the run has none.
func RedisTable(r *Result) (header []string, rows [][]string) {
	header = []string{"algorithm", "redis commands", "commands/arrival", "peak members", "peak bytes"}
	for _, a := range r.Algorithms {
		if a.Redis == nil {
			continue
		}
		bytes := "-"
		if a.Redis.PeakBytes >= 0 {
			bytes = strconv.FormatInt(a.Redis.PeakBytes, 10)
		}
		per := 0.0
		if a.Arrived > 0 {
			per = float64(a.Redis.Commands) / float64(a.Arrived)
		}
		rows = append(rows, []string{a.Spec, itoa(a.Redis.Commands), strconv.FormatFloat(per, 'f', 2, 64),
			itoa(a.Redis.PeakMembers), bytes})
	}
	return header, rows
}
