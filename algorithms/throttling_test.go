package algorithms_test

import (
	"testing"
	"time"
)

// TestThrottlingTable replays docs/algorithms.md's leaky-bucket section
// (Sentinel 1.8's ThrottlingController): passes spaced interval/limit
// apart, a request queued up to max-queue, on the millisecond path when
// the interval divides by Math.round(limit), on the nanosecond path else.
func TestThrottlingTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example (cost 100 ms)", "leaky-bucket:limit=10,interval=1s,max-queue=500ms", []arrival{
			pass(0),
			passAfter(0, dms(100)), passAfter(0, dms(200)), passAfter(0, dms(300)), passAfter(0, dms(400)), passAfter(0, dms(500)),
			block(0), block(0), // would wait 600 ms
			pass(dms(650)), // its turn, 600 ms, has come
		}},
		{"the nanosecond path: limit=3", "leaky-bucket:limit=3", []arrival{
			pass(0), passAfter(0, 333333333*time.Nanosecond), block(0),
		}},
		{"the millisecond path floors the arrival", "leaky-bucket:limit=10", []arrival{
			pass(0), passAfter(dms(99.5), dms(1)),
		}},
		{"nanosecond cost Math.round(1e6·100/3125) = 32000 ns", "leaky-bucket:limit=3125,interval=100ms,max-queue=0s", []arrival{
			pass(0), pass(32000 * time.Nanosecond), block(32001 * time.Nanosecond),
		}},
		{"cost 333333333 ns on the ns path with no queue", "leaky-bucket:limit=3,max-queue=0s", []arrival{
			pass(0), pass(333333333 * time.Nanosecond),
		}},
		{"a limit of 0.7 rounds to 1: the ms path, cost round(1428.57) = 1429 ms", "leaky-bucket:limit=0.7,max-queue=0s", []arrival{
			pass(0), block(dms(1428)), pass(dms(1429)), pass(dms(4000)),
		}},
		{"a fractional limit on the ms path: cost round(96.15) = 96 ms", "leaky-bucket:limit=10.4,max-queue=0s", []arrival{
			pass(0), block(dms(95.999)), pass(dms(96)),
		}},
		{"throttling is an alias", "throttling:limit=10,max-queue=0s", []arrival{
			pass(0), block(dms(99)), pass(dms(100)),
		}},
		{"clock back: latest never moves back", "leaky-bucket:limit=10,max-queue=500ms", []arrival{
			pass(dms(1200)),                // latest = 1200
			block(dms(500)),                // due 1300: 800 ms away
			passAfter(dms(1100), dms(200)), // latest = 1300
			passAfter(dms(1000), dms(400)), // latest = 1400
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestThrottlingSpecAndErrors(t *testing.T) {
	l := mustNew(t, "throttling:limit=10")
	if got, want := l.Spec(), "leaky-bucket:limit=10,interval=1s,max-queue=500ms"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	// occupy-timeout is taken and ignored: the same decisions.
	a, b := mustNew(t, "leaky-bucket:limit=10"), mustNew(t, "leaky-bucket:limit=10,occupy-timeout=100ms")
	ats := at(0, 0, 0, 0, 0, 0, 0, 150, 160, 700)
	if p, q := pattern(a, ats), pattern(b, ats); p != q || p != "++++++.+.+" {
		t.Errorf("without occupy-timeout %s, with it %s, want ++++++.+.+ for both (160 ms would wait 540 ms)", p, q)
	}
	checkErrors(t, map[string][]string{
		"leaky-bucket:limit=0.4":                 {"limit 0.4 rounds to 0 per interval and Sentinel rejects it"},
		"leaky-bucket:limit=10,max-queue=1500us": {"max-queue must be whole milliseconds"},
		"leaky-bucket:limit=10,occupy-timeout=x": {`occupy-timeout "x" is not a duration`},
	})
}
