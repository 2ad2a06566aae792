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

// --limit scales a closed loop's capacity with its traffic: retry-storm
// is Poisson at 0.8 times the capacity of 8 servers of 20 ms; at twice
// the limit it is 16 servers, service, timeout and phases unchanged, so
// the offered load stays 0.8 times the capacity; processor sharing scales
// its cores; a scaling that would make servers fractional is refused.
func TestWithCapacityKeepsLoadOverCapacity(t *testing.T) {
	storm, err := Lookup("retry-storm")
	if err != nil {
		t.Fatal(err)
	}
	capacity := func(s Scenario) float64 {
		return float64(s.Downstream.Servers) / s.Downstream.Service.Seconds()
	}
	scaled, err := storm.WithCapacity(2)
	if err != nil {
		t.Fatal(err)
	}
	scaled = scaled.WithLimit(2 * storm.Limit)
	before := storm.Phases[0].Rate / capacity(storm)
	after := scaled.Phases[0].Rate / capacity(scaled)
	if before != 0.8 || after != 0.8 || scaled.Downstream.Servers != 16 || scaled.Downstream.Service != storm.Downstream.Service ||
		scaled.Downstream.Timeout != storm.Downstream.Timeout || scaled.Downstream.Phases[0] != storm.Downstream.Phases[0] {
		t.Errorf("load/capacity %v → %v; downstream %+v", before, after, scaled.Downstream)
	}
	if storm.Downstream.Servers != 8 {
		t.Error("WithCapacity changed the scenario it copied")
	}
	ramp, _ := Lookup("overload-ramp")
	if r, err := ramp.WithCapacity(0.5); err != nil || r.Downstream.Cores != 4 {
		t.Errorf("ps: %v, cores %v", err, r.Downstream.Cores)
	}
	if _, err := storm.WithCapacity(1.05); err == nil || !strings.Contains(err.Error(), "servers: 8 would become 8.4 servers; pick a limit that keeps them whole (a multiple of 50/s)") {
		t.Errorf("fractional servers: %v", err)
	}
	// A scenario without a downstream is unchanged.
	if p, _ := Lookup("poisson"); p.Downstream != nil {
		t.Fatal("poisson has a downstream")
	} else if q, err := p.WithCapacity(3); err != nil || q.Downstream != nil {
		t.Errorf("open loop: %v", err)
	}
}
