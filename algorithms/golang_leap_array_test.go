package algorithms_test

import (
	"testing"
)

// TestGoLeapArrayTable replays the sentinel-golang Direct + Reject rule of
// docs/algorithms.md (leap-array:flavor=go): a request passes iff the sum
// of passes in the rule's stat interval + 1 ≤ limit, a count of one
// interval compared as floats, with no (int) cast of a QPS.
func TestGoLeapArrayTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"leap-array's worked example decides alike at a 1 s interval", "leap-array:limit=4,sample-count=2,interval=1s,flavor=go", []arrival{
			pass(dms(100)), pass(dms(200)), pass(dms(600)), pass(dms(700)),
			block(dms(900)), pass(dms(1100)), pass(dms(1200)),
			block(dms(1300)), block(dms(1499)), pass(dms(1500)),
		}},
		{"the threshold is the count of one stat interval: 10 per 500 ms", "leap-array:limit=10,sample-count=1,interval=500ms,flavor=go", script(
			repeat(10, pass(dms(5))), repeat(2, block(dms(11))), repeat(10, pass(dms(500))),
		)},
		{"10 per 2 s at limit=10, interval=2s (Java passes 20)", "leap-array:limit=10,interval=2s,flavor=go", script(
			repeat(10, pass(0)), one(block(dms(1999))), repeat(10, pass(dms(2000))), one(block(dms(2000))),
		)},
		{"a fractional threshold: 2 + 1 > 2.5", "leap-array:limit=2.5,flavor=go", []arrival{
			pass(0), pass(0), block(0), pass(dms(1000)),
		}},
		{"a threshold below 1 blocks everything", "leap-array:limit=0.5,flavor=go", []arrival{
			block(0), block(dms(1000)), block(dms(60000)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestGoLeapArraySpecAndErrors(t *testing.T) {
	l := mustNew(t, "sliding-window:limit=10,flavor=GO")
	if got, want := l.Spec(), "leap-array:limit=10,sample-count=2,interval=1s,flavor=go"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
	checkErrors(t, map[string][]string{
		"leap-array:limit=10,flavor=go,occupy-timeout=0s": {"occupy-timeout applies only with flavor=java", "drop it or drop flavor=go"},
		"leap-array:limit=10,flavor=go,sample-count=3":    {"sample-count"},
	})
}
