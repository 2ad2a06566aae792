package algorithms_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// This file tests the Limiter and Stage contract of limiter.go and holds
// the small helpers the per-file tables of this package share: a limiter
// built through the public spec API, and a script of arrivals with the
// pass/block and wait each one must get.

// dms is a duration of v milliseconds (fractions allowed, to the ns).
func dms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// mustNew builds spec with no default limit, failing the test on an error.
func mustNew(t *testing.T, spec string) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(spec, 0)
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	return l
}

// arrival is one scripted request: its time, and the decision it must get.
type arrival struct {
	at   time.Duration
	pass bool
	wait time.Duration
}

// pass, passAfter and block build arrivals; repeat makes n copies of one.
func pass(at time.Duration) arrival            { return arrival{at: at, pass: true} }
func passAfter(at, wait time.Duration) arrival { return arrival{at: at, pass: true, wait: wait} }
func block(at time.Duration) arrival           { return arrival{at: at} }

func repeat(n int, a arrival) []arrival {
	s := make([]arrival, n)
	for i := range s {
		s[i] = a
	}
	return s
}

// one is a part of a script of one arrival.
func one(a arrival) []arrival { return []arrival{a} }

// script joins parts of a script.
func script(parts ...[]arrival) []arrival {
	var out []arrival
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// at lists instants given in milliseconds.
func at(ms ...float64) []time.Duration {
	var out []time.Duration
	for _, v := range ms {
		out = append(out, dms(v))
	}
	return out
}

// times is n copies of one instant.
func times(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// replay decides every arrival of steps on l with Decide and checks the
// decision and the wait of each.
func replay(t *testing.T, l algorithms.Limiter, steps []arrival) {
	t.Helper()
	for i, s := range steps {
		d := l.Decide(s.at)
		if d.Pass != s.pass || d.Wait != s.wait {
			t.Fatalf("%s: arrival %d at %v: got pass=%v wait=%v, want pass=%v wait=%v",
				l.Spec(), i, s.at, d.Pass, d.Wait, s.pass, s.wait)
		}
	}
}

// pattern decides the arrivals on l and writes '+' for a pass and '.' for
// a block, the notation docs/algorithms.md uses.
func pattern(l algorithms.Limiter, ats []time.Duration) string {
	var b strings.Builder
	for _, a := range ats {
		if l.Decide(a).Pass {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// newErr is New's error for spec, or "" when it builds.
func newErr(spec string, defaultLimit float64) string {
	_, err := algorithms.New(spec, defaultLimit)
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkErrors checks that each spec is refused with an error containing
// every fragment given for it.
func checkErrors(t *testing.T, cases map[string][]string) {
	t.Helper()
	for spec, frags := range cases {
		msg := newErr(spec, 0)
		if msg == "" {
			t.Errorf("New(%q) built a limiter, want an error", spec)
			continue
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("New(%q): the error is not one line: %q", spec, msg)
		}
		for _, f := range frags {
			if !strings.Contains(msg, f) {
				t.Errorf("New(%q) = %q, want it to contain %q", spec, msg, f)
			}
		}
	}
}

// TestStageDecideIsCheckThenRecord holds Stage's contract: Decide(now) is
// Check(now) followed, for a pass, by Record(now + Wait). Two instances of
// each spec, one driven by Decide and one by Check and Record, must agree
// on every arrival of a script with bursts, gaps and a step back.
func TestStageDecideIsCheckThenRecord(t *testing.T) {
	specs := []string{
		"fixed-window:limit=3",
		"leap-array:limit=4,sample-count=2",
		"sliding-log:limit=3",
		"token-bucket:rate=10,burst=2",
		"leaky-bucket:limit=10,max-queue=300ms",
		"warm-up:limit=20,warm-up=2s",
		"warm-up-rate-limiter:limit=20,warm-up=2s",
		"sliding-window-counter:limit=5",
		"decaying-window:limit=5",
		"seed-ring:limit=3,buckets=10",
		"guava-bursty:rate=5",
	}
	ats := at(0, 0, 0, 0, 1, 50, 99, 100, 400, 400, 401, 999, 1000, 1000, 1001, 1500, 700, 700, 2100, 2100, 2100, 5000, 5001)
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			a, b := mustNew(t, spec), mustNew(t, spec)
			s, ok := b.(algorithms.Stage)
			if !ok {
				t.Fatalf("%s is not a Stage", spec)
			}
			for i, now := range ats {
				da := a.Decide(now)
				db := s.Check(now)
				if db.Pass {
					s.Record(now + db.Wait)
				}
				if da != db {
					t.Fatalf("arrival %d at %v: Decide %+v, Check+Record %+v", i, now, da, db)
				}
			}
		})
	}
}

// TestLimiterSpecRebuildsTheSameLimiter holds Limiter.Spec's contract:
// Spec names every parameter with its default filled in, and New(Spec())
// builds a limiter with the same spec and the same decisions.
func TestLimiterSpecRebuildsTheSameLimiter(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"fixed-window:limit=3", "fixed-window:limit=3,window=1s"},
		{"sliding-log:limit=2,window=500ms", "sliding-log:limit=2,window=500ms,history=10s"},
		{"token-bucket:limit=2.5", "token-bucket:rate=2.5,burst=3"},
		{"sliding-window-counter:limit=7", "sliding-window-counter:limit=7,window=1s"},
	}
	ats := at(0, 0, 0, 10, 300, 300, 999, 1000, 1001, 1400, 2500)
	for _, c := range cases {
		l := mustNew(t, c.spec)
		if got := l.Spec(); got != c.want {
			t.Errorf("New(%q).Spec() = %q, want %q", c.spec, got, c.want)
		}
		r := mustNew(t, l.Spec())
		if r.Spec() != l.Spec() {
			t.Errorf("New(%q).Spec() = %q, not %q", l.Spec(), r.Spec(), l.Spec())
		}
		if p, q := pattern(l, ats), pattern(r, ats); p != q {
			t.Errorf("%s decides %s, rebuilt from its spec %s", c.spec, p, q)
		}
	}
}

// TestLimiterRateAndStateBytes: Rate is the limit in requests per second,
// whatever the window; StateBytes is positive.
func TestLimiterRateAndStateBytes(t *testing.T) {
	cases := []struct {
		spec string
		rate float64
	}{
		{"fixed-window:limit=10,window=2s", 5},
		{"sliding-log:limit=3,window=100ms", 30},
		{"token-bucket:rate=2.5", 2.5},
		{"leaky-bucket:limit=10,interval=500ms", 20},
		{"leap-array:limit=7", 7},
	}
	for _, c := range cases {
		l := mustNew(t, c.spec)
		if got := l.Rate(); got != c.rate {
			t.Errorf("%s: Rate() = %v, want %v", c.spec, got, c.rate)
		}
		if l.StateBytes() <= 0 {
			t.Errorf("%s: StateBytes() = %d, want > 0", c.spec, l.StateBytes())
		}
	}
}

// algorithmsNew builds spec with defaultLimit and returns its Spec.
func algorithmsNew(spec string, defaultLimit float64) (string, error) {
	l, err := algorithms.New(spec, defaultLimit)
	if err != nil {
		return "", err
	}
	return l.Spec(), nil
}

// keyReq is a request of cost 1 whose first key column holds id.
func keyReq(id int32) *algorithms.Request {
	return &algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{id, algorithms.NoKey, algorithms.NoKey, algorithms.NoKey}, Cost: 1}
}

// keyPattern decides arrival i at ats[i] with key keys[i] on a per-key
// limiter (bound to the first key column) and writes '+' or '.'.
func keyPattern(t *testing.T, l algorithms.Limiter, ats []time.Duration, keys []int32) string {
	t.Helper()
	rl, ok := l.(algorithms.RequestLimiter)
	if !ok {
		t.Fatalf("%s is not a RequestLimiter", l.Spec())
	}
	if len(ats) != len(keys) {
		t.Fatalf("%d instants, %d keys", len(ats), len(keys))
	}
	var b strings.Builder
	for i, a := range ats {
		if rl.DecideRequest(a, keyReq(keys[i])).Pass {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// keyArrival is one scripted request of a per-key limiter.
type keyArrival struct {
	at   time.Duration
	key  int32
	cost int32
	pass bool
	wait time.Duration
}

// replayKeys decides every arrival with DecideRequest (its key in the
// first key column, cost 1 unless given) and checks decision and wait.
func replayKeys(t *testing.T, l algorithms.Limiter, steps []keyArrival) {
	t.Helper()
	rl, ok := l.(algorithms.RequestLimiter)
	if !ok {
		t.Fatalf("%s is not a RequestLimiter", l.Spec())
	}
	for i, s := range steps {
		r := keyReq(s.key)
		if s.cost != 0 {
			r.Cost = s.cost
		}
		d := rl.DecideRequest(s.at, r)
		if d.Pass != s.pass || d.Wait != s.wait {
			t.Fatalf("%s: arrival %d at %v key %d: got pass=%v wait=%v, want pass=%v wait=%v",
				l.Spec(), i, s.at, s.key, d.Pass, d.Wait, s.pass, s.wait)
		}
	}
}

// kp, kpw and kb are a per-key pass, pass after a wait, and block.
func kp(at time.Duration, key int32) keyArrival { return keyArrival{at: at, key: key, pass: true} }
func kpw(at time.Duration, key int32, wait time.Duration) keyArrival {
	return keyArrival{at: at, key: key, pass: true, wait: wait}
}
func kb(at time.Duration, key int32) keyArrival { return keyArrival{at: at, key: key} }

// adaptiveEvent is one step of an adaptive limiter's script: an arrival
// (Check, then Begin on a pass) that must pass or be blocked, or the
// completion of the call-th admitted call (0-based) with an outcome.
type adaptiveEvent struct {
	at      time.Duration
	done    bool
	pass    bool
	call    int
	outcome algorithms.Outcome
}

func in(at time.Duration) adaptiveEvent      { return adaptiveEvent{at: at, pass: true} }
func refused(at time.Duration) adaptiveEvent { return adaptiveEvent{at: at} }
func done(at time.Duration, call int, o algorithms.Outcome) adaptiveEvent {
	return adaptiveEvent{at: at, done: true, call: call, outcome: o}
}

// completer builds spec as a Completer, binding signals when it reads any.
func completer(t *testing.T, spec string, sig algorithms.Signals) algorithms.Completer {
	t.Helper()
	c, ok := mustNew(t, spec).(algorithms.Completer)
	if !ok {
		t.Fatalf("%s is not a Completer", spec)
	}
	if r, ok := c.(algorithms.SignalReader); ok && sig != nil {
		r.BindSignals(sig)
	}
	return c
}

// replayAdaptive runs the events on c in order, admitted calls beginning
// at their arrival, and checks every arrival's decision.
func replayAdaptive(t *testing.T, c algorithms.Completer, evs []adaptiveEvent) {
	t.Helper()
	var tickets []algorithms.Ticket
	for i, e := range evs {
		if e.done {
			if e.call >= len(tickets) {
				t.Fatalf("%s: event %d completes call %d of %d", c.Spec(), i, e.call, len(tickets))
			}
			c.Complete(e.at, tickets[e.call], e.outcome)
			continue
		}
		d := c.Check(e.at)
		if d.Pass != e.pass {
			t.Fatalf("%s: event %d, arrival at %v: pass=%v, want %v (in flight %d)", c.Spec(), i, e.at, d.Pass, e.pass, c.InFlight())
		}
		if d.Pass {
			tickets = append(tickets, c.Begin(e.at, e.at+d.Wait))
		}
	}
}
