package algorithms_test

import (
	"testing"
	"time"
)

// TestWarmUpTable replays docs/algorithms.md's warm-up section (Sentinel
// 1.8's WarmUpController). For limit=100, warm-up 10 s, cold factor 3:
// warningToken = 500, maxToken = 1000, slope = 0.00004; full, the allowed
// QPS is nextUp(1/(500·0.00004 + 0.01)) = 33.33…, so one request a
// millisecond passes 33 in the first second. At 1 s the previous second's
// 33 passes are not below (int)100/3 = 33, so there is no refill and the
// tokens drop to 967: 1/(467·0.00004 + 0.01) = 34.87 allowed, 34 passes.
func TestWarmUpTable(t *testing.T) {
	perMs := func(from, to, passes int) []arrival {
		var s []arrival
		for ms := from; ms < to; ms++ {
			if ms-from < passes {
				s = append(s, pass(time.Duration(ms)*time.Millisecond))
			} else {
				s = append(s, block(time.Duration(ms)*time.Millisecond))
			}
		}
		return s
	}
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example: the first second passes 33, the second 34", "warm-up:limit=100",
			script(perMs(0, 1000, 33), perMs(1000, 2000, 34))},
		// warningToken = 10/2 = 5, maxToken = 5 + (int)(20/4.0) = 10,
		// slope = 2/10/5 = 0.04: full, 1/(5·0.04 + 0.1) = 3.33 allowed. At
		// 1700 ms the second [0, 1 s) passed 3 (not below (int)10/3 = 3):
		// 10 tokens → 7, 1/(2·0.04 + 0.1) = 5.55 allowed.
		{"Java's previous QPS is the previous aligned second", "warm-up:limit=10,warm-up=1s,cold-factor=3", script(
			repeat(3, pass(0)), repeat(2, block(0)),
			repeat(5, pass(dms(1700))), repeat(2, block(dms(1700))),
		)},
		{"clock back: the LeapArray counts the bucket in the future", "warm-up:limit=10,warm-up=1s,cold-factor=3", script(
			repeat(3, pass(dms(5000))), repeat(2, block(dms(5000))),
			// An older window: the LeapArray's bucket [5000, 5500) is "in
			// the future" and still counts, as in leap-array.
			repeat(2, block(dms(2000))),
			// Second 6 syncs from second 5 (3 passes, not below 3): 7
			// tokens, 5.55 allowed; the window [5500, 6500) holds none.
			repeat(5, pass(dms(6000))), one(block(dms(6000))),
		)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestWarmUpSpecAndErrors(t *testing.T) {
	if got, want := mustNew(t, "warm-up:limit=100").Spec(), "warm-up:limit=100,warm-up=10s,cold-factor=3,sample-count=2,interval=1s"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	checkErrors(t, map[string][]string{
		"warm-up:limit=10,cold-factor=1":      {"cold-factor must be larger than 1, got 1"},
		"warm-up:limit=10,warm-up=1500ms":     {"warm-up must be whole seconds from 1s to 2147483647s", "got 1.5s"},
		"warm-up:limit=10,warm-up=0s":         {"warm-up must be whole seconds from 1s"},
		"warm-up:limit=10,sample-count=3":     {"sample-count 3 does not divide interval 1s"},
		"warm-up:limit=10,occupy-timeout=1us": {"occupy-timeout must be whole milliseconds"},
	})
}
