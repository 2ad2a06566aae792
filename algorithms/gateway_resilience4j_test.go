package algorithms_test

import (
	"testing"
)

// TestResilience4jTable replays docs/algorithms.md's resilience4j section
// (AtomicRateLimiter): cycles of refresh-period from creation, permissions
// refilled to limitForPeriod per cycle and reserved ahead by waiting
// callers, a wait of ⌈(permits − permissions − limit)/limit⌉·period plus
// the time to the next cycle, refused above the timeout.
func TestResilience4jTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example", "resilience4j:limit-for-period=2,refresh-period=100ms,timeout=150ms", []arrival{
			pass(0), pass(0),
			passAfter(0, dms(100)), passAfter(0, dms(100)), // reserve cycle 1
			block(0),                     // would wait 200 ms
			passAfter(dms(120), dms(80)), // cycle 1 has 0 left: wait for cycle 2
		}},
		{"timeout=0s: fixed windows from creation", "resilience4j:limit-for-period=2,refresh-period=1s,timeout=0s", []arrival{
			pass(dms(999)), pass(dms(999)), block(dms(999)), pass(dms(1000)), pass(dms(1000)), block(dms(1999)),
		}},
		{"idle cycles do not store more than limitForPeriod", "resilience4j:limit-for-period=2,refresh-period=100ms,timeout=0s", []arrival{
			pass(dms(1000)), pass(dms(1000)), block(dms(1000)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestResilience4jSpec(t *testing.T) {
	l := mustNew(t, "resilience4j")
	if got, want := l.Spec(), "resilience4j:limit-for-period=50,refresh-period=500ns,timeout=5s"; got != want {
		t.Errorf("Spec() = %q, want %q (the library's defaults)", got, want)
	}
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
}
