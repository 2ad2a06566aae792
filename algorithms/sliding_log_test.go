package algorithms_test

import (
	"testing"
)

// TestSlidingLogTable replays docs/algorithms.md's sliding-log section:
// a request at t passes iff fewer than limit passes are stamped in
// (t − window, t], exact to the nanosecond.
func TestSlidingLogTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example", "sliding-log:limit=2,window=1s", []arrival{
			pass(0), pass(dms(500)), block(dms(900)),
			pass(dms(1000)), // 0 is no longer in (0, 1000]
			block(dms(1200)), pass(dms(1500)),
		}},
		{"the window is open on the left, to the nanosecond", "sliding-log:limit=1,window=1s", []arrival{
			pass(dms(10)), block(dms(1009.999999)), pass(dms(1010)),
		}},
		{"a fractional limit: count+1 ≤ 2.7 admits 2", "sliding-log:limit=2.7", []arrival{
			pass(0), pass(0), block(0), block(dms(999)), pass(dms(1000)),
		}},
		{"clock back: passes stamped later than t are ignored", "sliding-log:limit=2", []arrival{
			pass(dms(1000)), pass(dms(1001)),
			pass(dms(500)), // (−500, 500] holds no pass
			pass(dms(600)), // 500 is in (−400, 600], one pass: 1 + 1 ≤ 2
			block(dms(700)),
			block(dms(1002)), // 500, 600, 1000, 1001 are in (2, 1002]
			block(dms(1601)), // 1000 and 1001 are in (601, 1601]
			pass(dms(2001)),  // (1001, 2001] is empty
		}},
		{"history: a step back within it is exact", "sliding-log:limit=1,window=1s,history=10s", []arrival{
			pass(0), pass(dms(5000)), block(dms(500)),
		}},
		{"history: a step back beyond it has forgotten the old passes", "sliding-log:limit=1,window=1s,history=1s", []arrival{
			pass(0), pass(dms(5000)), // 0 is older than 5000 − 1s − 1s
			pass(dms(500)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestSlidingLogErrors(t *testing.T) {
	checkErrors(t, map[string][]string{
		"sliding-log:limit=0":             {"limit must be a positive number"},
		"sliding-log:limit=1,window=-1s":  {"window must be positive, got -1s"},
		"sliding-log:limit=1,history=-1s": {"history must not be negative, got -1s"},
		"sliding-log:limit=1,history=1 s": {`history "1 s" is not a duration`},
	})
}
