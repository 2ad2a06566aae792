package algorithms_test

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestConcurrencyTable replays docs/algorithms.md's concurrency section
// (Sentinel's THREAD grade): block iff (int)curThreadNum + 1 > count, the
// count excluding the current request; an error frees its slot as a
// success does.
func TestConcurrencyTable(t *testing.T) {
	ms := dms(1)
	cases := []struct {
		name, spec string
		evs        []adaptiveEvent
	}{
		{"doc worked example", "concurrency:limit=2", []adaptiveEvent{
			in(0), in(1 * ms), refused(2 * ms), done(3*ms, 0, algorithms.Failure), in(4 * ms),
		}},
		{"limit=2.5 admits 2", "concurrency:limit=2.5", []adaptiveEvent{
			in(0), in(0), refused(0), done(ms, 1, algorithms.Success), in(ms), refused(ms),
		}},
		{"flavor=go decides alike", "concurrency:limit=2,flavor=go", []adaptiveEvent{
			in(0), in(1 * ms), refused(2 * ms), done(3*ms, 0, algorithms.Timeout), in(4 * ms),
		}},
		{"limit below 1 admits nothing", "concurrency:limit=0.5", []adaptiveEvent{refused(0), refused(ms)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replayAdaptive(t, completer(t, c.spec, nil), c.evs) })
	}
}

func TestConcurrencyInFlightAndSpec(t *testing.T) {
	c := completer(t, "concurrency:limit=3", nil)
	replayAdaptive(t, c, []adaptiveEvent{in(0), in(0), done(dms(5), 0, algorithms.Success)})
	if c.InFlight() != 1 || c.CurrentLimit(0) != 3 {
		t.Errorf("InFlight() = %d, CurrentLimit = %v, want 1 and 3", c.InFlight(), c.CurrentLimit(0))
	}
	if got, want := c.Spec(), "concurrency:limit=3,flavor=java"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if msg := newErr("concurrency:limit=2.5,flavor=go", 0); msg == "" {
		t.Errorf("flavor=go takes a whole limit (a uint32 threshold); 2.5 builds")
	}
}
