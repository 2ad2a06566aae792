package simulator

import (
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// KongSyncFigures are a kong sync-rate row's Redis traffic over a run, the
// timers still pending at the end run as the nodes would.
type KongSyncFigures struct {
	// Reads are usage()'s EVALs (INCR, EXPIRE on a new key): one round
	// trip each.
	Reads int64
	// Syncs are the sync timers' pipelines (one round trip each) and
	// SyncEvals the EVALs they carried (EXISTS, INCRBY, EXPIREAT).
	Syncs, SyncEvals int64
	// Realtime is what sync_rate = -1 sends for the same arrivals: one
	// EVAL and round trip per arrival and configured unit.
	Realtime int64
	// Beyond counts the passes that found a configured unit's window
	// already holding its limit of passes over all nodes.
	Beyond int64
	// Nodes, SyncRate and RTT are the row's configuration (the terminal
	// table's; summary.json has them in the spec).
	Nodes         int
	SyncRate, RTT time.Duration
}

// kongSyncFigures are the figures of kong with policy=redis and
// sync-rate > 0 (algorithms.KongSync, issue 30), with or without a key
// column; nil for any other row.
func kongSyncFigures(lim algorithms.Limiter) *KongSyncFigures {
	f := algorithms.KongSyncOf(lim)
	if f == nil {
		return nil
	}
	var k KongSyncFigures
	k.Reads, k.Syncs, k.SyncEvals, k.Realtime, k.Beyond = f.KongSyncFigures()
	k.Nodes, k.SyncRate, k.RTT = f.Nodes(), f.SyncRate(), f.RTT()
	return &k
}

// kongSyncSummaryJS is what summary.json adds for a kong sync-rate row.
type kongSyncSummaryJS struct {
	KongRedisEvals      int64 `json:"kong_redis_evals"`
	KongRedisRoundTrips int64 `json:"kong_redis_round_trips"`
	KongRealtimeEvals   int64 `json:"kong_realtime_evals"`
	KongEvalsSaved      int64 `json:"kong_evals_saved"`
	KongBeyondLimit     int64 `json:"kong_beyond_limit"`
}

func kongSyncSummary(k *KongSyncFigures) *kongSyncSummaryJS {
	if k == nil {
		return nil
	}
	evals := k.Reads + k.SyncEvals
	return &kongSyncSummaryJS{evals, k.Reads + k.Syncs, k.Realtime, k.Realtime - evals, k.Beyond}
}

// KongSyncTable is the kong sync-rate rows' figures, one row each (none
// when the run has no such row), for the terminal and Markdown summaries:
// the nodes and sync_rate, the Redis EVALs sent, those saved against
// sync_rate = -1 (which sends one per arrival and configured unit), the
// passes beyond the limit, the round trips and rtt (the last columns go
// first when the terminal is narrow).
func KongSyncTable(r *Result) (header []string, rows [][]string) {
	header = []string{"kong sync", "nodes", "sync_rate", "Redis EVALs", "saved vs -1", "beyond limit", "round trips", "rtt"}
	for _, a := range r.Algorithms {
		k := a.KongSync
		if k == nil {
			continue
		}
		js := kongSyncSummary(k)
		saved := itoa(js.KongEvalsSaved)
		if k.Realtime > 0 {
			saved += " (" + strconv.FormatFloat(100*float64(js.KongEvalsSaved)/float64(k.Realtime), 'f', 1, 64) + "%)"
		}
		rows = append(rows, []string{a.Spec, strconv.Itoa(k.Nodes), algorithms.FormatDuration(k.SyncRate),
			itoa(js.KongRedisEvals), saved, itoa(k.Beyond), itoa(js.KongRedisRoundTrips), algorithms.FormatDuration(k.RTT)})
	}
	return header, rows
}
