package simulator

import "github.com/ratelimit-lab/ratelimit-lab/algorithms"

// kongSyncFigurer is kong with policy=redis and sync-rate > 0
// (algorithms.KongSync, issue 30).
type kongSyncFigurer interface {
	KongSyncFigures() (reads, syncs, syncEvals, realtime, beyond int64)
}

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
}

func kongSyncFigures(lim algorithms.Limiter) *KongSyncFigures {
	f, ok := lim.(kongSyncFigurer)
	if !ok {
		return nil
	}
	var k KongSyncFigures
	k.Reads, k.Syncs, k.SyncEvals, k.Realtime, k.Beyond = f.KongSyncFigures()
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
