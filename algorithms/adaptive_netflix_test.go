package algorithms_test

import (
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestNetflixLimits replays the worked examples of docs/algorithms.md's
// "aimd, vegas, gradient2": each sample's inflight is the count the call
// saw at acquire (its ticket), and the limit after each completion is
// checked.
func TestNetflixLimits(t *testing.T) {
	ms := dms(1)
	S, T := algorithms.Success, algorithms.Timeout
	type step struct {
		at    time.Duration
		call  int
		o     algorithms.Outcome
		limit float64
	}
	cases := []struct {
		name, spec string
		calls      int // admitted at 0, inflight 1..calls
		steps      []step
	}{
		// Ten in flight; the tenth completes with inflight 10: 20 ≥ 20,
		// so 21; a timeout then gives (int)(21·0.9) = 18.
		{"aimd", "aimd:min=10", 10, []step{{5 * ms, 9, S, 21}, {6 * ms, 0, T, 18}}},
		{"aimd: inflight·2 < limit leaves it", "aimd:min=10", 10, []step{{5 * ms, 8, S, 20}}},
		{"aimd: an RTT above the timeout backs off", "aimd:min=10,timeout=100ms", 10, []step{{101 * ms, 9, S, 18}}},
		// The first sets rtt_noload = 10 ms; the last, inflight 20, RTT
		// 20 ms: queue = ceil(20·0.5) = 10 > beta = 6·1: 20 − 1 = 19.
		{"vegas", "vegas:probe=off", 20, []step{{10 * ms, 0, S, 20}, {20 * ms, 19, S, 19}}},
		// An RTT equal to the long RTT: gradient 1, new = L + 4, smoothed
		// L·0.8 + (L+4)·0.2 = L + 0.8: 20.8, 21.6, 22.4.
		{"gradient2", "gradient2", 20, []step{{10 * ms, 19, S, 20}, {10 * ms, 18, S, 21}, {10 * ms, 17, S, 22}}},
		{"gradient2: inflight < L/2 leaves it", "gradient2", 20, []step{{10 * ms, 8, S, 20}, {10 * ms, 19, S, 20}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := completer(t, c.spec, nil)
			var tickets []algorithms.Ticket
			for i := range c.calls {
				if !l.Check(0).Pass {
					t.Fatalf("call %d refused", i)
				}
				tickets = append(tickets, l.Begin(0, 0))
			}
			for _, s := range c.steps {
				l.Complete(s.at, tickets[s.call], s.o)
				if got := l.CurrentLimit(s.at); got != s.limit {
					t.Fatalf("after call %d completes at %v: limit %v, want %v", s.call, s.at, got, s.limit)
				}
			}
		})
	}
}

// TestNetflixSemaphore: a call passes iff the semaphore has a permit
// (limit − calls acquired and not released).
func TestNetflixSemaphore(t *testing.T) {
	evs := []adaptiveEvent{}
	for range 20 {
		evs = append(evs, in(0))
	}
	evs = append(evs, refused(0), done(dms(1), 0, algorithms.Success), in(dms(1)), refused(dms(1)))
	replayAdaptive(t, completer(t, "aimd:min=10,initial=20", nil), evs)
}
