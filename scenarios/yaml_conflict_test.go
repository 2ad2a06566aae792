package scenarios

import (
	"strings"
	"testing"
	"time"
)

// downstream.timeout and clients.timeout are one caller's one timeout:
// two different values are refused with both lines (before, the clients'
// value was used without a word); the same value, or either alone, runs.
func TestClientsTimeoutConflictsWithDownstreams(t *testing.T) {
	head := "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\n"
	for _, c := range []struct {
		name, yaml string
		want       time.Duration
		err        string
	}{
		{"both, different", head + "downstream:\n  servers: 2\n  service: 10ms\n  timeout: 500ms\nclients:\n  timeout: 1s\n", 0,
			"c.yaml:9: clients timeout 1s conflicts with downstream timeout 500ms (line 7)"},
		{"both, the same", head + "downstream: {servers: 2, service: 10ms, timeout: 1s}\nclients: {timeout: 1s}\n", time.Second, ""},
		{"downstream only", head + "downstream: {servers: 2, service: 10ms, timeout: 500ms}\nclients: {retries: 1}\n", 500 * time.Millisecond, ""},
		{"clients only", head + "downstream: {servers: 2, service: 10ms}\nclients: {timeout: 1s}\n", time.Second, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse([]byte(c.yaml), "c.yaml")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Downstream.Timeout != c.want {
				t.Errorf("timeout %v, want %v", s.Downstream.Timeout, c.want)
			}
		})
	}
}
