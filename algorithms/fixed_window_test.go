package algorithms_test

import (
	"testing"
)

// TestFixedWindowTable replays docs/algorithms.md's fixed-window section:
// one counter per window [kW, (k+1)W) from t = 0, a pass while count+1 ≤
// limit, and a clock that steps back judged on the newest window's counter
// without counting its pass.
func TestFixedWindowTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example: six passes within 13 ms across the boundary", "fixed-window:limit=3,window=1s", []arrival{
			pass(dms(990)), pass(dms(995)), pass(dms(999)),
			pass(dms(1000)), pass(dms(1001)), pass(dms(1002)), block(dms(1003)),
		}},
		{"window edges are [kW, (k+1)W)", "fixed-window:limit=1,window=100ms", []arrival{
			pass(0), block(dms(99.999999)), pass(dms(100)), block(dms(199)), pass(dms(200)),
		}},
		{"a fractional limit admits floor(limit): count+1 ≤ 2.5", "fixed-window:limit=2.5", []arrival{
			pass(0), pass(1), block(2), pass(dms(1000)), pass(dms(1000)), block(dms(1000)),
		}},
		{"a limit below 1 admits nothing", "fixed-window:limit=0.5", []arrival{block(0), block(dms(1000))}},
		{"clock back: the newest window's counter decides, the pass is counted nowhere", "fixed-window:limit=2", []arrival{
			pass(dms(1000)),
			pass(dms(500)), // window 0 is older: 1 < 2 in window 1, not counted
			pass(dms(1001)), block(dms(1002)),
			block(dms(400)), // window 1 is full now
		}},
		{"clock back then forward into a new window", "fixed-window:limit=1", []arrival{
			pass(dms(1500)), block(dms(200)), block(dms(1999)), pass(dms(2000)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

// TestFixedWindowCheckToAdd is the section on check-to-add's example for
// fixed-window: limit=1 per 10 ms with arrivals at 8 and 14 ms passes both
// with no gap, and only the first with a 5 ms gap, because its record lands
// at 13 ms, in the window of the second.
func TestFixedWindowCheckToAdd(t *testing.T) {
	for spec, want := range map[string]string{
		"fixed-window:limit=1,window=10ms":                  "++",
		"fixed-window:limit=1,window=10ms,check-to-add=0s":  "++",
		"fixed-window:limit=1,window=10ms,check-to-add=5ms": "+.",
	} {
		if got := pattern(mustNew(t, spec), at(8, 14)); got != want {
			t.Errorf("%s: %s, want %s", spec, got, want)
		}
	}
}

func TestFixedWindowErrors(t *testing.T) {
	checkErrors(t, map[string][]string{
		"fixed-window":                   {"fixed-window needs a limit", "limit=N"},
		"fixed-window:limit=0":           {"limit must be a positive number, got 0"},
		"fixed-window:limit=-3":          {"positive", "-3"},
		"fixed-window:limit=x":           {`limit "x" is not a number`},
		"fixed-window:limit=1,window=0s": {"window"},
		"fixed-window:limit=1,window=5":  {`window "5" is not a duration`},
		"fixed-window:limit=1,windw=1s":  {`unknown parameter "windw"`, "allowed: limit, window, check-to-add"},
	})
	// The scenario's limit fills a missing limit.
	l, err := algorithmsNew("fixed-window", 50)
	if err != nil || l != "fixed-window:limit=50,window=1s" {
		t.Errorf("New(fixed-window, 50) = %q, %v", l, err)
	}
}
