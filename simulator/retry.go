package simulator

import (
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

// Attempt outcomes, as the clients see them.
const (
	outcomeSuccess = iota
	outcomeReject
	outcomeError
	outcomeTimeout
)

// initRetries sets the clients up from the downstream.
func (u *chainUnit) initRetries(ds *scenarios.Downstream) {
	if ds.Clients == nil || ds.Clients.Retries == 0 {
		return
	}
	u.clients = ds.Clients
	u.seed = ds.Seed
	u.tokens = ds.Clients.Budget.Max
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
	if again {
		n := int(o.attempt) // the n-th retry waits Sleep(n) (0-based)
		uf := unitFloat(u.seed^0x5bd1e995, uint64(o.seq)*131+uint64(o.attempt))
		sleep := c.Backoff.Sleep(n, uf, o.sleep)
		at := t + sleep
		next := outcome{seq: o.seq, at: at + (o.at - o.clock), clock: at,
			traceResp: o.traceResp, traceFailed: o.traceFailed, traceRT: o.traceRT,
			attempt: o.attempt + 1, sleep: sleep}
		slot := u.newRetry()
		u.retries[slot] = next
		u.q.Push(eventq.Key{At: at, Class: classArrival, Seq: o.seq, Round: int(next.attempt)}, chainEvent{retry: slot + 1})
		// newRetry may have moved u.retries: o is not used after this.
	}
	if retry > 0 {
		r := &u.retries[retry-1]
		if u.outRetry != nil {
			u.outRetry(r)
		}
		u.freeRty = append(u.freeRty, retry-1)
	}
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
