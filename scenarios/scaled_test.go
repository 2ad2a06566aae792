package scenarios

import (
	"strings"
	"testing"
	"time"
)

// The YAML refuses count: 0 (a burst needs at least one arrival); --limit
// scaling a burst's count to 0 is refused the same way, naming the limit
// that keeps one arrival (issue 34: it ran "0 arrivals" and gated on 0/0).
func TestScaledBurstKeepsOneArrivalOrRefuses(t *testing.T) {
	s, err := Parse([]byte("limit: 100\nduration: 2s\nphases:\n  - {type: burst, count: 3, from: 1s}\n"), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.WithLimit(10).Validate()
	want := `scenario "b": phase 1 (burst): --limit 10 scales the traffic by 0.1 (the scenario's limit is 100), so its count 3 becomes 0.3, which rounds to 0; a burst needs at least one arrival: give --limit 16.67 or more`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// The limit named keeps one arrival, and just below it none.
	one := s.WithLimit(16.67)
	if err := one.Validate(); err != nil || one.Phases[0].Count != 1 {
		t.Errorf("at 16.67: %v, count %d", err, one.Phases[0].Count)
	}
	if err := s.WithLimit(16.6).Validate(); err == nil {
		t.Error("at 16.6 the count rounds to 0 and was accepted")
	}
	// Scaled twice (--limit after a scenario's own scaling), the reason
	// still names the file's limit.
	if err := s.WithLimit(50).WithLimit(10).Validate(); err == nil || !strings.Contains(err.Error(), "the scenario's limit is 100), so its count 3 becomes 0.3") {
		t.Errorf("scaled twice: %v", err)
	}
}

// A phase that starts at or after the run's end sends nothing: Silent
// says which, so that the run can say why it has no arrivals.
func TestSilentPhases(t *testing.T) {
	s, err := Parse([]byte("limit: 10\nduration: 3s\nphases:\n  - {type: constant, rate: 5, start: 1s}\n  - {type: burst, count: 5, from: 3s}\n  - {type: poisson, rate: 5, start: 5s}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Silent()
	if len(got) != 2 || got[0] != "phase 2 (burst) starts at 3s, at or after the end of the run (duration 3s), so it sends nothing" ||
		!strings.HasPrefix(got[1], "phase 3 (poisson) starts at 5s") {
		t.Errorf("silent: %q", got)
	}
	if got := s.WithDuration(10 * time.Second).Silent(); len(got) != 0 {
		t.Errorf("every phase inside 10s: %q", got)
	}
}
