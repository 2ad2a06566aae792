package lab

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// A run without arrivals says so once, with the scenario's reason when it
// has one; a row without arrivals beside rows with some says so; a phase
// that sends nothing in a run with arrivals is a note of its own.
func TestEmptyNotes(t *testing.T) {
	row := func(spec string, arrived int64) simulator.AlgoResult {
		return simulator.AlgoResult{Spec: spec, Name: strings.Split(spec, ":")[0], Arrived: arrived}
	}
	silent := []string{"phase 1 (constant) starts at 5s, at or after the end of the run (duration 3s), so it sends nothing"}
	none := &simulator.Result{Algorithms: []simulator.AlgoResult{row("fixed-window:limit=1", 0), row("sliding-log:limit=1", 0)}}
	if got := emptyNotes(none, silent); len(got) != 1 || !strings.HasPrefix(got[0], "the run has no arrivals (phase 1 (constant) starts at 5s") {
		t.Errorf("no arrivals: %q", got)
	}
	if got := emptyNotes(none, nil); len(got) != 1 || !strings.Contains(got[0], "(the traffic sends nothing within the run)") {
		t.Errorf("no arrivals, no reason known: %q", got)
	}
	some := &simulator.Result{Algorithms: []simulator.AlgoResult{row("fixed-window:limit=1", 5), row("sliding-log:limit=1", 0)}}
	got := emptyNotes(some, silent)
	if len(got) != 2 || got[0] != silent[0] || !strings.HasPrefix(got[1], "sliding-log has no arrivals while other rows have") {
		t.Errorf("a row without arrivals: %q", got)
	}
	all := &simulator.Result{Algorithms: []simulator.AlgoResult{row("fixed-window:limit=1", 5)}}
	if got := emptyNotes(all, nil); len(got) != 0 {
		t.Errorf("nothing to say: %q", got)
	}
}
