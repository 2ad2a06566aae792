package algorithms_test

import (
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// noKeyReq is a request without keys, of cost c, prioritized or not.
func noKeyReq(c int32, prio bool) *algorithms.Request {
	return &algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{algorithms.NoKey, algorithms.NoKey, algorithms.NoKey, algorithms.NoKey}, Cost: c, Priority: prio}
}

// TestRequestDecideIsDecideRequest holds RequestLimiter's contract:
// Decide(now) equals DecideRequest(now, &Request{Cost: 1}) with every key
// NoKey, on limiters that read the cost or the priority flag.
func TestRequestDecideIsDecideRequest(t *testing.T) {
	ats := at(0, 0, 0, 0, 10, 50, 100, 100, 450, 999, 1000, 1000, 1500, 700, 2500, 2500, 2500)
	for _, spec := range []string{
		"leap-array:limit=2",
		"envoy-local:max-tokens=2,fill-interval=100ms",
		"resilience4j:limit-for-period=2,refresh-period=100ms,timeout=150ms",
		"bucket4j:capacity=2,refill-tokens=2",
	} {
		t.Run(spec, func(t *testing.T) {
			a := mustNew(t, spec)
			b, ok := mustNew(t, spec).(algorithms.RequestLimiter)
			if !ok {
				t.Fatalf("%s is not a RequestLimiter", spec)
			}
			for i, now := range ats {
				if da, db := a.Decide(now), b.DecideRequest(now, noKeyReq(1, false)); da != db {
					t.Fatalf("arrival %d at %v: Decide %+v, DecideRequest %+v", i, now, da, db)
				}
			}
		})
	}
}

// TestRequestCostAndPriority: a request's cost is charged where the
// reference takes a count (a cost below 1 counts as 1), and its priority
// flag lets leap-array borrow from the next bucket (docs/algorithms.md's
// occupy-timeout example: D at 600 ms waits 400 ms).
func TestRequestCostAndPriority(t *testing.T) {
	type step struct {
		at   time.Duration
		cost int32
		prio bool
		pass bool
		wait time.Duration
	}
	cases := []struct {
		name, spec string
		steps      []step
	}{
		{"bucket4j tryConsume(cost)", "bucket4j:capacity=10,refill-tokens=10", []step{
			{0, 4, false, true, 0}, {0, 4, false, true, 0}, {0, 4, false, false, 0}, {0, 2, false, true, 0}, {0, 0, false, false, 0},
		}},
		{"envoy-local hits_addend", "envoy-local:max-tokens=5", []step{
			{0, 3, false, true, 0}, {0, 3, false, false, 0}, {0, 2, false, true, 0},
		}},
		{"a cost of 0 counts as 1", "bucket4j:capacity=2,refill-tokens=2", []step{
			{0, 0, false, true, 0}, {0, -5, false, true, 0}, {0, 1, false, false, 0},
		}},
		{"a prioritized request borrows from the next bucket", "leap-array:limit=2,sample-count=2,interval=1s", []step{
			{0, 1, false, true, 0}, {dms(100), 1, false, true, 0}, {dms(200), 1, false, false, 0},
			{dms(600), 1, true, true, dms(400)}, {dms(700), 1, true, true, dms(300)}, {dms(800), 1, true, false, 0},
		}},
		{"a prioritized request is ordinary without occupy-timeout", "leap-array:limit=2,occupy-timeout=0s", []step{
			{0, 1, false, true, 0}, {dms(100), 1, false, true, 0}, {dms(600), 1, true, false, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := mustNew(t, c.spec).(algorithms.RequestLimiter)
			for i, s := range c.steps {
				d := l.DecideRequest(s.at, noKeyReq(s.cost, s.prio))
				if d.Pass != s.pass || d.Wait != s.wait {
					t.Fatalf("step %d at %v cost %d: %+v, want pass=%v wait=%v", i, s.at, s.cost, d, s.pass, s.wait)
				}
			}
		})
	}
	if algorithms.MaxKeyColumns != 4 || algorithms.NoKey != -1 {
		t.Errorf("MaxKeyColumns %d, NoKey %d", algorithms.MaxKeyColumns, algorithms.NoKey)
	}
}
