package algorithms_test

import (
	"testing"
)

// TestWarmUpRateLimiterTable replays docs/algorithms.md's
// warm-up-rate-limiter section (Sentinel 1.8's WarmUpRateLimiterController):
// the warm-up rate, turned into a cost of Math.round(1000/rate) ms, paces a
// queue as leaky-bucket's millisecond path does.
func TestWarmUpRateLimiterTable(t *testing.T) {
	var seventeen []arrival
	for i := range 17 {
		seventeen = append(seventeen, passAfter(0, dms(float64(30*i))))
	}
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example: cold at 33.3/s, cost round(30.0) = 30 ms", "warm-up-rate-limiter:limit=100", []arrival{
			pass(0), passAfter(0, dms(30)), passAfter(0, dms(60)), passAfter(0, dms(90)), passAfter(0, dms(120)),
		}},
		{"a wait over max-queue is blocked: 17 wait up to 480 ms, the 18th would wait 510", "warm-up-rate-limiter:limit=100",
			script(seventeen, one(block(0)))},
		{"warming rate 3.33/s: cost 300 ms on a floored arrival", "warm-up-rate-limiter:limit=10,warm-up=1s,cold-factor=3", []arrival{
			pass(0), passAfter(dms(299.5), dms(1)),
		}},
		{"a cold rate of 2/3: cost round(1500) ms, every 2 s passes", "warm-up-rate-limiter:limit=2", []arrival{
			pass(0), pass(dms(2000)), pass(dms(4000)), pass(dms(60000)),
		}},
		{"above 2000/s the cost rounds to 0 ms: nothing is limited", "warm-up-rate-limiter:limit=7000",
			repeat(50, pass(0))},
		{"clock back: latestPassedTime never moves back", "warm-up-rate-limiter:limit=100", []arrival{
			pass(dms(1000)), passAfter(dms(800), dms(230)), block(dms(400)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestWarmUpRateLimiterSpecAndErrors(t *testing.T) {
	if got, want := mustNew(t, "warm-up-rate-limiter:limit=100").Spec(), "warm-up-rate-limiter:limit=100,warm-up=10s,cold-factor=3,max-queue=500ms"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	checkErrors(t, map[string][]string{
		"warm-up-rate-limiter:limit=10,sample-count=4": {"sample-count and interval apply only with flavor=go"},
		"warm-up-rate-limiter:limit=10,interval=2s":    {"apply only with flavor=go"},
		"warm-up-rate-limiter:limit=10,cold-factor=1":  {"cold-factor must be larger than 1"},
	})
}
