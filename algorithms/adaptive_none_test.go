package algorithms_test

import (
	"math"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestNoneTable: none lets every call through and counts it in flight
// (docs/algorithms.md's "none"); it has no limit.
func TestNoneTable(t *testing.T) {
	cases := []struct {
		name     string
		evs      []adaptiveEvent
		inFlight int64
	}{
		{"a burst", []adaptiveEvent{in(0), in(0), in(0), in(0)}, 4},
		{"completions free their calls", []adaptiveEvent{in(0), in(0), done(dms(1), 0, algorithms.Success), done(dms(2), 1, algorithms.Timeout), in(dms(3))}, 1},
		{"a clock that steps back", []adaptiveEvent{in(dms(1000)), in(dms(10)), in(-dms(10))}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := completer(t, "none", nil)
			replayAdaptive(t, l, c.evs)
			if got := l.InFlight(); got != c.inFlight {
				t.Errorf("InFlight() = %d, want %d", got, c.inFlight)
			}
			if got := l.CurrentLimit(0); !math.IsNaN(got) {
				t.Errorf("CurrentLimit = %v, want NaN", got)
			}
		})
	}
	if got := mustNew(t, "none").Spec(); got != "none" {
		t.Errorf("Spec() = %q, want none", got)
	}
	checkErrors(t, map[string][]string{"none:limit=1": {`unknown parameter "limit"`}})
}
