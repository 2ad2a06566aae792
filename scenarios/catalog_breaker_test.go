package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestBreakerScenariosHaveDownstreams(t *testing.T) {
	for _, name := range []string{"slow-downstream", "flapping"} {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Downstream == nil {
			t.Fatalf("%s has no downstream", name)
		}
		if err := s.Downstream.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := Lookup("slow-downstream")
	if svc, errs := s.Downstream.At(15 * time.Second); svc != 400*time.Millisecond || errs != 0 {
		t.Errorf("slow-downstream at 15 s: %v, %v", svc, errs)
	}
	if svc, _ := s.Downstream.At(20 * time.Second); svc != 20*time.Millisecond {
		t.Errorf("slow-downstream at 20 s: %v", svc)
	}
}

func TestYAMLDownstream(t *testing.T) {
	s, err := Parse([]byte("limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream:\n  servers: 3\n  service: 20ms\n  timeout: 1s\n  phases:\n    - {from: 10s, to: 20s, service: 400ms, errors: 0.3}\n    - {from: 30s, to: 31s, errors: 1}\n"), "d.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := s.Downstream
	if d == nil || d.Servers != 3 || d.Service != 20*time.Millisecond || d.Timeout != time.Second || d.Seed != 1 || len(d.Phases) != 2 {
		t.Fatalf("%+v", d)
	}
	if d.Phases[0] != (DownstreamPhase{From: 10 * time.Second, To: 20 * time.Second, Service: 400 * time.Millisecond, Errors: 0.3}) ||
		d.Phases[1] != (DownstreamPhase{From: 30 * time.Second, To: 31 * time.Second, Service: 20 * time.Millisecond, Errors: 1}) {
		t.Fatalf("phases %+v", d.Phases)
	}
	for body, want := range map[string]string{
		"downstream:\n  servers: 0\n  service: 1ms\n":                              "d.yaml:5: downstream servers 0 is out of range",
		"downstream:\n  servers: 2\n":                                              "d.yaml:4: downstream has no service",
		"downstream:\n  service: 1ms\n  timeout: 0s\n":                             "d.yaml:6: downstream timeout 0s is not positive",
		"downstream:\n  service: 1ms\n  phases: [{from: 1s}]\n":                    "a downstream phase needs from: and to:",
		"downstream:\n  service: 1ms\n  phases: [{from: 1s, to: 2s, errors: 2}]\n": "errors 2 is not a share between 0 and 1",
		"downstream:\n  service: 1ms\n  servers: 2.5\n":                            `servers: "2.5" is not a whole number`,
	} {
		_, err := Parse([]byte("limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\n"+body), "d.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// Issue 21, item 2: every duration of downstream: and clients: is at most
// a year (MaxTime), checked in one place with the field's line; a year
// itself is fine.
func TestYAMLDownstreamDurationsAtMostAYear(t *testing.T) {
	const head = "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\n"
	for _, tc := range []struct{ name, body, want string }{
		{"service", "downstream:\n  servers: 4\n  service: 100000h\n  timeout: 1s\n", "d.yaml:6: downstream service 100000h0m0s is longer than 8760h0m0s (one year)"},
		{"timeout", "downstream:\n  service: 1ms\n  timeout: 8761h\n", "d.yaml:6: downstream timeout 8761h0m0s is longer than 8760h0m0s"},
		{"phase from", "downstream:\n  service: 1ms\n  phases:\n    - {from: 1s, to: 2s}\n    - {from: 9000h, to: 9001h}\n", "d.yaml:8: downstream phase from 9000h0m0s is longer than 8760h0m0s"},
		{"phase to", "downstream:\n  service: 1ms\n  phases:\n    - {from: 1s,\n       to: 9000h}\n", "d.yaml:8: downstream phase to 9000h0m0s is longer"},
		{"phase service", "downstream:\n  service: 1ms\n  phases: [{from: 1s, to: 2s, service: 9000h}]\n", "d.yaml:6: downstream phase service 9000h0m0s is longer"},
		{"clients timeout", "downstream: {service: 1ms}\nclients:\n  timeout: 9000h\n", "d.yaml:6: clients timeout 9000h0m0s is longer"},
		{"clients think", "downstream: {service: 1ms}\nclients:\n  users: 5\n  think: 9000h\n", "d.yaml:7: clients think 9000h0m0s is longer"},
		{"backoff base", "downstream: {service: 1ms, timeout: 1s}\nclients:\n  retries: 1\n  backoff:\n    base: 9000h\n", "d.yaml:8: clients backoff base 9000h0m0s is longer"},
		{"backoff cap", "downstream: {service: 1ms, timeout: 1s}\nclients:\n  retries: 1\n  backoff: {cap: 9000h}\n", "d.yaml:7: clients backoff cap 9000h0m0s is longer"},
	} {
		_, err := Parse([]byte(head+tc.body), "d.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "; shorten it") {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	s, err := Parse([]byte(head+"downstream:\n  service: 8760h\n  timeout: 8760h\n  phases: [{from: 0s, to: 8760h, service: 8760h}]\nclients:\n  timeout: 8760h\n  retries: 1\n  backoff: {base: 8760h, cap: 8760h}\n"), "d.yaml")
	if err != nil || s.Downstream.Service != MaxTime || s.Downstream.Timeout != MaxTime || s.Downstream.Clients.Backoff.Cap != MaxTime {
		t.Errorf("a year: %v", err)
	}
}

// Issue 21, item 12: overlapping downstream phases are an error (with the
// later phase's line in YAML), not the later one silently in force;
// phases that only touch ([1s, 10s) then [10s, 12s)) are fine, in any
// order.
func TestDownstreamPhasesMayNotOverlap(t *testing.T) {
	const head = "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream:\n  servers: 4\n  service: 20ms\n  phases:\n"
	for _, tc := range []struct{ name, phases, want string }{
		{"the issue's", "    - {from: 1s, to: 10s, service: 60ms}\n    - {from: 5s, to: 12s, service: 90ms}\n", "d.yaml:9: downstream phase 2 [5s, 12s) overlaps phase 1 [1s, 10s) at line 8; end one before"},
		{"inside", "    - {from: 1s, to: 10s}\n    - {from: 20s, to: 30s}\n    - {from: 2s, to: 3s, servers: 2}\n", "d.yaml:10: downstream phase 3 [2s, 3s) overlaps phase 1 [1s, 10s) at line 8"},
		{"earlier in the file, later in time", "    - {from: 5s, to: 12s}\n    - {from: 1s, to: 6s}\n", "d.yaml:9: downstream phase 2 [1s, 6s) overlaps phase 1 [5s, 12s) at line 8"},
		{"same span", "    - {from: 1s, to: 2s, errors: 1}\n    - {from: 1s, to: 2s, service: 1s}\n", "d.yaml:9: downstream phase 2 [1s, 2s) overlaps phase 1"},
		{"the longest one before", "    - {from: 0s, to: 10s}\n    - {from: 1s, to: 2s}\n", "overlaps phase 1 [0s, 10s)"},
		{"negative from", "    - {from: -1s, to: 2s}\n", "d.yaml:8: downstream phase: from -1s is negative"},
	} {
		_, err := Parse([]byte(head+tc.phases), "d.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	s, err := Parse([]byte(head+"    - {from: 10s, to: 12s, service: 90ms}\n    - {from: 1s, to: 10s, service: 60ms}\n    - {from: 12s, to: 13s, errors: 1}\n"), "d.yaml")
	if err != nil {
		t.Fatalf("touching phases: %v", err)
	}
	for at, want := range map[time.Duration]time.Duration{time.Second: 60 * time.Millisecond, 10 * time.Second: 90 * time.Millisecond, 13 * time.Second: 20 * time.Millisecond} {
		if svc, _ := s.Downstream.At(at); svc != want {
			t.Errorf("service at %v: %v, want %v", at, svc, want)
		}
	}
	// The Go API says the same.
	d := Downstream{Servers: 1, Service: time.Millisecond, Phases: []DownstreamPhase{{From: 0, To: 2 * time.Second}, {From: time.Second, To: 3 * time.Second}}}
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "phases 1 [0s, 2s) and 2 [1s, 3s) overlap") {
		t.Errorf("Validate: %v", err)
	}
}

// No built-in scenario has overlapping downstream phases (nor any other
// invalid downstream).
func TestCatalogDownstreamsValidate(t *testing.T) {
	n := 0
	for _, s := range Catalog() {
		if s.Downstream == nil {
			continue
		}
		n++
		if err := s.Downstream.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if n < 3 {
		t.Errorf("only %d catalog scenarios have a downstream", n)
	}
}
