package algorithms_test

import (
	"testing"
	"time"
)

// TestGoThrottlingTable replays sentinel-golang's Direct + Throttling rule
// of docs/algorithms.md (leaky-bucket:flavor=go): always in ns, the
// interval ceil(1/threshold · interval_ns) dividing first, lastPassedTime
// from 0, a threshold below 1 blocking every request.
func TestGoThrottlingTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"leaky-bucket's worked example: interval 1e8 ns", "leaky-bucket:limit=10,max-queue=500ms,flavor=go", []arrival{
			pass(0),
			passAfter(0, dms(100)), passAfter(0, dms(200)), passAfter(0, dms(300)), passAfter(0, dms(400)), passAfter(0, dms(500)),
			block(0), block(0),
			pass(dms(650)),
		}},
		{"rounded up: ceil(1e9/3) = 333333334 ns", "leaky-bucket:limit=3,max-queue=0s,flavor=go", []arrival{
			pass(0), block(333333333 * time.Nanosecond), pass(333333334 * time.Nanosecond),
		}},
		{"dividing first: ceil(1/3125 · 1e8) = 32001 ns", "leaky-bucket:limit=3125,interval=100ms,max-queue=0s,flavor=go", []arrival{
			pass(0), block(32000 * time.Nanosecond), pass(32001 * time.Nanosecond),
		}},
		{"in ns, never floored: 99.5 ms waits 500 µs", "leaky-bucket:limit=10,flavor=go", []arrival{
			pass(0), passAfter(dms(99.5), 500*time.Microsecond),
		}},
		{"a fractional limit: ceil(1e9/10.4) = 96153847 ns (Java: 96 ms)", "leaky-bucket:limit=10.4,max-queue=0s,flavor=go", []arrival{
			pass(0), block(96153846 * time.Nanosecond), pass(96153847 * time.Nanosecond),
		}},
		{"a threshold below 1 blocks", "leaky-bucket:limit=0.7,flavor=go", []arrival{
			block(0), block(dms(2000)), block(dms(4000)),
		}},
		{"the first request passes even 3 hours before t = 0", "leaky-bucket:limit=1,max-queue=0s,flavor=go", []arrival{
			pass(-3 * time.Hour), block(-3*time.Hour + dms(999)), pass(-3*time.Hour + dms(1000)),
		}},
		{"clock back: lastPassedTime never moves back", "leaky-bucket:limit=10,max-queue=500ms,flavor=go", []arrival{
			pass(dms(1200)), block(dms(500)), passAfter(dms(1100), dms(200)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestGoThrottlingSpec(t *testing.T) {
	l := mustNew(t, "throttling:limit=10,flavor=go")
	if got, want := l.Spec(), "leaky-bucket:limit=10,interval=1s,max-queue=500ms,flavor=go"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	// Java rejects a limit rounding to 0; sentinel-golang builds it and
	// blocks.
	if _, err := algorithmsNew("leaky-bucket:limit=0.4,flavor=go", 0); err != nil {
		t.Errorf("leaky-bucket:limit=0.4,flavor=go: %v", err)
	}
}
