package simulator

import (
	"math"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// This file is the clients' retries on the chain executor. When an
// attempt ends (blocked by the limiter, failed, timed out, or answered)
// and the clients retry that outcome, have retries left and the budget
// holds a token, the same request arrives again after the backoff: an
// arrival event on the row's own queue (Seq = the request, Round = the
// attempt), so each row sees the retries its own decisions cause and
// rows stay independent. A retry attempt is counted in the series when it
// ends (its arrival, pass or block, response), not in decisions.csv,
// which keeps one row per request of the stream (its first attempt).
// The run is the span of the traffic: a retry whose backoff ends at or
// after the run's end is not sent (ChainResult.RetriesDroppedAtEnd), nor
// is a closed user's next request; attempts already sent still complete.

// Attempt outcomes, as the clients see them.
const (
	outcomeSuccess = iota
	outcomeReject
	outcomeError
	outcomeTimeout
)

// initRetries sets the clients up from the downstream.
func (u *chainUnit) initRetries(ds *scenarios.Downstream) {
	if ds.Clients == nil || (ds.Clients.Retries == 0 && ds.Clients.Users == 0) {
		return
	}
	u.clients = ds.Clients
	u.seed = ds.Seed
	u.tokens = ds.Clients.Budget.Max
}

// closedSeq numbers user's n-th request of a closed population, apart
// from the stream's arrival numbers.
func closedSeq(user int32, n int64) int64 { return math.MinInt64/2 + int64(user)<<32 + n }

// startUsers sets the end of the run (end: the scenario's end, in true
// time) and sends each closed-population user's first request after an
// exponential think time.
func (u *chainUnit) startUsers(end time.Duration) {
	u.runEnd = end
	c := u.clients
	if c == nil || c.Users == 0 {
		return
	}
	for i := 0; i < c.Users; i++ {
		u.sendUser(int32(i), 0, 0)
	}
}

// sendUser schedules user's n-th request one think time after t.
func (u *chainUnit) sendUser(user int32, n int64, t time.Duration) {
	seq := closedSeq(user, n)
	uf := unitFloat(u.seed^0x27d4eb2f165667c5, uint64(seq))
	at := t + time.Duration(-math.Log(1-uf)*float64(u.clients.Think))
	if at >= u.runEnd {
		return // the run is over: the user sends nothing more
	}
	slot := u.newRetry()
	u.retries[slot] = outcome{seq: seq, at: at, clock: at, user: user, keyUser: scenarios.NoKey, req: algorithms.Request{Keys: noKeys, Cost: 1}}
	u.schedule(&u.retries[slot], t, eventq.Key{At: at, Class: classArrival, Seq: seq}, chainEvent{retry: slot + 1}, "the think time before its next request", "shorten clients: think")
}

// event is the outcome an event is about: the stream's arrival seq, or
// retry slot retry−1.
func (u *chainUnit) event(seq int64, retry int32) *outcome {
	if retry > 0 {
		return &u.retries[retry-1]
	}
	return u.get(seq)
}

// attemptEnded is called once per attempt when its outcome is final at t
// (the limiters' clock).
func (u *chainUnit) attemptEnded(o *outcome, retry int32, kind int, t time.Duration) {
	c := u.clients
	if c == nil {
		return
	}
	if kind == outcomeSuccess && c.Budget.Ratio > 0 {
		u.tokens = min(c.Budget.Max, u.tokens+c.Budget.Ratio)
	}
	again := int(o.attempt) < c.Retries
	switch kind {
	case outcomeSuccess:
		again = false
	case outcomeReject:
		again = again && c.RetryOnReject
	case outcomeError:
		again = again && c.RetryOnError
	case outcomeTimeout:
		again = again && c.RetryOnTimeout
	}
	if again && c.Budget.Ratio > 0 {
		if u.tokens < 1 {
			again = false
		} else {
			u.tokens--
		}
	}
	var sleep, at time.Duration
	if again {
		n := int(o.attempt) // the n-th retry waits Sleep(n) (0-based)
		uf := unitFloat(u.seed^0x5bd1e995, uint64(o.seq)*131+uint64(o.attempt))
		sleep = c.Backoff.Sleep(n, uf, o.sleep)
		at = t + sleep
		if at+(o.at-o.clock) >= u.runEnd {
			// The run ends before the backoff does: the retry is not
			// sent (a closed user is still waiting for it: it sends
			// nothing more either), and the request keeps the outcome
			// of this attempt.
			u.endDropped++
			if retry > 0 {
				u.finishRetry(retry)
			}
			return
		}
	}
	if !again && o.user >= 0 {
		// The user has its answer: think, then the next request.
		user, n := o.user, o.seq-closedSeq(o.user, 0)+1
		u.sendUser(user, n, t)
	}
	if again {
		next := outcome{seq: o.seq, at: at + (o.at - o.clock), clock: at,
			traceResp: o.traceResp, traceFailed: o.traceFailed, traceRT: o.traceRT,
			attempt: o.attempt + 1, sleep: sleep, user: o.user,
			prio: o.prio, req: o.req, keyUser: o.keyUser} // a retry is the same request

		slot := u.newRetry()
		u.retries[slot] = next
		u.schedule(&u.retries[slot], t, eventq.Key{At: at, Class: classArrival, Seq: o.seq, Round: int(next.attempt)}, chainEvent{retry: slot + 1}, "the backoff before its retry", "shorten clients: backoff")
		// newRetry may have moved u.retries: o is not used after this.
	}
	if retry > 0 {
		u.finishRetry(retry)
	}
}

// finishRetry accounts the retry attempt in slot retry−1, which has
// ended, and frees the slot.
func (u *chainUnit) finishRetry(retry int32) {
	r := &u.retries[retry-1]
	if u.outRetry != nil {
		u.outRetry(r)
	}
	u.freeRty = append(u.freeRty, retry-1)
}

func (u *chainUnit) newRetry() int32 {
	if n := len(u.freeRty); n > 0 {
		s := u.freeRty[n-1]
		u.freeRty = u.freeRty[:n-1]
		return s
	}
	u.retries = append(u.retries, outcome{})
	return int32(len(u.retries) - 1)
}

// sampleAdaptive records the adaptive stages' in-flight count and limit
// after the arrival at true time at (clock: the limiters' clock).
func (u *chainUnit) sampleAdaptive(at, clock time.Duration) {
	if u.sample == nil || len(u.completers) == 0 {
		return
	}
	c := u.stages[u.completers[0]].(algorithms.Completer)
	u.sample(at, c.InFlight(), c.CurrentLimit(clock))
}

// hasUsers reports whether the run has a closed population.
func hasUsers(cfg *Config) bool {
	return cfg.Downstream != nil && cfg.Downstream.Clients != nil && cfg.Downstream.Clients.Users > 0
}

// noKeys is a closed user's request's keys: none (the population has no
// key columns).
var noKeys = [algorithms.MaxKeyColumns]int32{scenarios.NoKey, scenarios.NoKey, scenarios.NoKey, scenarios.NoKey}
