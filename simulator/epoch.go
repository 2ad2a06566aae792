package simulator

import "github.com/ratelimit-lab/ratelimit-lab/algorithms"

// wallEpoch returns the Unix ms of virtual time 0 of a limiter that reads
// a wall clock (an algorithms.EpochReader: Kong's calendar windows,
// Traefik's whole-second expiry, HAProxy's ms grid).
func wallEpoch(lim algorithms.Limiter) (int64, bool) {
	if e, ok := lim.(algorithms.EpochReader); ok {
		return e.EpochMs(), true
	}
	return 0, false
}

// epochMs is summary.json's epoch_ms of a row: a Redis limiter's or a
// wall-clock limiter's, nil (left out) for the others.
func epochMs(a *AlgoResult) *int64 {
	switch {
	case a.Redis != nil:
		e := a.Redis.EpochMs
		return &e
	case a.HasEpochMs:
		e := a.EpochMs
		return &e
	}
	return nil
}
