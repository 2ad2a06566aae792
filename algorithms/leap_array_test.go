package algorithms_test

import (
	"testing"
)

// TestLeapArrayTable replays docs/algorithms.md's leap-array section
// (Sentinel 1.8's LeapArray with DefaultController): the window slides
// bucket by bucket, a request passes iff (int)(R/intervalSec)+1 ≤ limit,
// and a clock stepping back meets Sentinel's throw-away buckets and
// buckets "in the future" that still count.
func TestLeapArrayTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example", "leap-array:limit=4,sample-count=2,interval=1s", []arrival{
			pass(dms(100)), pass(dms(200)), pass(dms(600)), pass(dms(700)),
			block(dms(900)),                  // 4 in [0, 1000)
			pass(dms(1100)), pass(dms(1200)), // [500, 1500) holds 2
			block(dms(1300)), block(dms(1499)),
			pass(dms(1500)), // the window is [1000, 2000)
		}},
		{"a fractional limit is rounded down for a 1 s interval", "leap-array:limit=2.5", []arrival{
			pass(0), pass(1), block(2), block(dms(999)), pass(dms(1000)),
		}},
		{"a longer interval truncates the QPS: 20 per 2 s at limit 10", "leap-array:limit=10,interval=2s", script(
			repeat(20, pass(0)), // the 20th: (int)(19/2.0)+1 = 10
			one(block(0)),       // (int)(20/2.0)+1 = 11
			one(block(dms(1999))),
			repeat(20, pass(dms(2000))),
		)},
		{"one bucket is a fixed window", "leap-array:limit=2,sample-count=1", []arrival{
			pass(dms(999)), pass(dms(999)), block(dms(999)), pass(dms(1000)), pass(dms(1000)), block(dms(1001)),
		}},
		// The Java column of the clock-back rows of "Where the two Sentinels differ".
		{"clock back: a bucket in the future still counts", "leap-array:limit=10", script(
			repeat(10, pass(dms(900))), repeat(10, block(dms(400))),
		)},
		{"clock back: a pass in a slot holding a newer bucket is lost", "leap-array:limit=10", script(
			repeat(10, pass(dms(100))), one(pass(dms(1100))), repeat(10, pass(dms(300))),
		)},
		{"clock back before creation", "leap-array:limit=10", script(
			repeat(10, pass(dms(-5000))), repeat(10, block(dms(-5000))),
		)},
		{"clock back after a long gap", "leap-array:limit=10", script(
			repeat(10, pass(dms(250))), repeat(10, pass(dms(9750))), one(block(dms(10250))), repeat(10, block(dms(250))),
		)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestLeapArraySpec(t *testing.T) {
	for spec, want := range map[string]string{
		"leap-array:limit=100":                 "leap-array:limit=100,sample-count=2,interval=1s",
		"sliding-window:limit=100,interval=2s": "leap-array:limit=100,sample-count=2,interval=2s",
	} {
		l := mustNew(t, spec)
		if got := l.Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
		if got := mustNew(t, l.Spec()).Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, not a fixed point", want, got)
		}
	}
	if got := mustNew(t, "leap-array:limit=10,interval=2s").Rate(); got != 10 {
		t.Errorf("Rate = %v, want 10: the limit is a QPS", got)
	}
}

func TestLeapArrayErrors(t *testing.T) {
	checkErrors(t, map[string][]string{
		"leap-array:limit=10,sample-count=3":                 {"sample-count 3 does not divide interval 1s", "pick a divisor of 1000 such as 2 or 4"},
		"leap-array:limit=10,sample-count=7,interval=1s":     {"such as 5 or 8"},
		"leap-array:limit=10,sample-count=0":                 {"sample-count must be at least 1, got 0"},
		"leap-array:limit=10,interval=1500us":                {"interval must be whole milliseconds from 1ms to 2147483647ms"},
		"leap-array:limit=10,interval=2147483648ms":          {"from 1ms to 2147483647ms", "Sentinel counts it in an int of ms"},
		"leap-array:limit=10,flavor=rust":                    {`flavor "rust" is not known; allowed: java`, "go (sentinel-golang)"},
		"leap-array:limit=10,flavor=go,occupy-timeout=100ms": {"occupy-timeout applies only with flavor=java"},
		"leap-array:limit=10,occupy-timeout=1500ms":          {"occupy-timeout 1.5s is longer than the interval 1s; Sentinel ignores such a value", "give at most 1s"},
		"leap-array:limit=10,sample-count=2.5":               {`sample-count "2.5" is not a whole number`},
	})
}
