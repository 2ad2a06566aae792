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
