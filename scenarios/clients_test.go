package scenarios

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The AWS backoff simulator's formulas, with base 100 ms and cap 1 s.
func TestBackoffFormulas(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		j    Jitter
		n    int
		u    float64
		prev time.Duration
		want time.Duration
	}{
		{JitterNone, 0, 0.5, 0, 100 * ms},
		{JitterNone, 2, 0.5, 0, 400 * ms},
		{JitterNone, 5, 0.5, 0, time.Second},             // capped
		{JitterFull, 2, 0.25, 0, 100 * ms},               // 0.25 · 400
		{JitterEqual, 2, 0.5, 0, 300 * ms},               // 200 + 0.5 · 200
		{JitterDecorrelated, 0, 0.5, 0, 200 * ms},        // base + 0.5·(3·base − base)
		{JitterDecorrelated, 1, 0.5, 200 * ms, 350 * ms}, // 100 + 0.5·(600 − 100)
		{JitterDecorrelated, 1, 0.99, 500 * ms, time.Second},
	} {
		b := Backoff{Base: 100 * ms, Cap: time.Second, Jitter: tc.j}
		if got := b.Sleep(tc.n, tc.u, tc.prev); got != tc.want {
			t.Errorf("%v n=%d u=%v prev=%v: %v, want %v", tc.j, tc.n, tc.u, tc.prev, got, tc.want)
		}
	}
}

func TestDisciplineYAML(t *testing.T) {
	s, err := Parse([]byte("limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {discipline: ps, cores: 4, kappa: 0.05, service: 10ms, io: 0.2, cancel-on-timeout: true, phases: [{from: 0s, to: 1s, cores: 2, io: 0.5}]}\n"), "d.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := s.Downstream
	if !d.PS || d.Cores != 4 || d.Kappa != 0.05 || d.IOShare != 0.2 || !d.CancelOnTimeout || d.CoresAt(0) != 2 || d.IOAt(0) != 0.5 || d.CoresAt(time.Second) != 4 {
		t.Errorf("parsed %+v", d)
	}
}

func TestClientsYAML(t *testing.T) {
	base := "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {servers: 2, service: 10ms}\n"
	s, err := Parse([]byte(base+"clients: {timeout: 1s, retries: 2, backoff: {base: 50ms, cap: 1s, jitter: equal}, retry-on: [timeout], budget: {ratio: 0.2}}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Downstream.Clients
	if s.Downstream.Timeout != time.Second || c.Retries != 2 || c.Backoff.Jitter != JitterEqual || c.Backoff.Base != 50*time.Millisecond ||
		c.RetryOnReject || c.RetryOnError || !c.RetryOnTimeout || c.Budget.Ratio != 0.2 || c.Budget.Max != 10 {
		t.Errorf("parsed %+v, timeout %v", c, s.Downstream.Timeout)
	}
	for _, tc := range []struct{ yaml, want string }{
		{base + "clients: {timeout: 1s, retries: 2, backoff: {jitter: fancy}}\n", `c.yaml:5: clients backoff jitter "fancy" does not exist; use none, full, equal or decorrelated`},
		{base + "clients: {retries: 3}\n", "c.yaml:5: clients retries need a timeout"},
		{base + "clients: {timeout: 1s, retry-on: [crash]}\n", `clients retry-on "crash" is not an outcome`},
		{base + "clients: {timeout: 1s, retries: -1}\n", "clients retries -1 is out of range"},
		{base + "clients: {timeout: 1s, retrys: 1}\n", `unknown key "retrys" in clients; did you mean "retries"?`},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\nclients: {timeout: 1s}\n", "clients: needs a downstream"},
		{base + "clients: {timeout: 1s, budget: {ratio: -1}}\n", "budget ratio -1 is out of range"},
		{base + "clients: {users: 10}\n", "clients users need a think time"},
		{base + "clients: {users: 10, think: 0s}\n", "c.yaml:5: clients think 0s is not positive: a user without a pause"},
		{base + "clients: {users: 0, think: 1s}\n", "c.yaml:5: clients users 0 is no population; leave users out"},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {service: 10ms, phases: [{from: 0s, to: 1s, servers: 0}]}\n", "downstream phase: servers 0 is out of range"},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {discipline: ps, service: 10ms, phases: [{from: 0s, to: 1s, servers: 2}]}\n", "sets servers, which applies to discipline: fifo"},
		{base + "clients: {think: 1s}\n", "clients think applies to a closed population"},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {discipline: ps, cores: -2, service: 10ms}\n", "c.yaml:4: downstream cores -2 is not positive"},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {discipline: lifo, service: 10ms}\n", `downstream discipline "lifo" does not exist`},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {kappa: 0.1, service: 10ms}\n", "kappa applies to discipline: ps"},
		{"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream: {discipline: ps, kappa: 2, service: 10ms}\n", "kappa 2 is out of range"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", tc.yaml, err, tc.want)
		}
	}
}

// The hint for a numeric key given a value that is not a number is a value
// the key accepts: written back into the file, it parses.
func TestNumberHintsAreValid(t *testing.T) {
	re := regexp.MustCompile(`write e\.g\. ([A-Za-z]+): (\S+)$`)
	base := "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\n"
	for _, tc := range []struct{ file, key string }{
		{base + "downstream: {servers: 1, service: 10ms}\nclients:\n  timeout: 1s\n  retries: BAD\n", "retries"},
		{base + "downstream: {servers: 1, service: 10ms}\nclients:\n  users: BAD\n  think: 1s\n", "users"},
		{base + "downstream: {servers: BAD, service: 10ms}\n", "servers"},
		{base + "downstream: {servers: 1, service: 10ms, phases: [{from: 0s, to: 1s, errors: BAD}]}\n", "errors"},
		{base + "downstream: {servers: 1, service: 10ms, io: BAD}\n", "io"},
		{base + "downstream: {discipline: ps, service: 10ms, kappa: BAD}\n", "kappa"},
		{base + "downstream: {servers: 1, service: 10ms}\nclients:\n  timeout: 1s\n  budget: {ratio: BAD}\n", "ratio"},
		{"limit: BAD\nduration: 1s\nphases: [{type: constant, rate: 5}]\n", "limit"},
		{"limit: 10\nduration: 1s\nphases: [{type: burst, start: 0s, count: BAD}]\n", "count"},
	} {
		for _, bad := range []string{`"three"`, "three"} {
			_, err := Parse([]byte(strings.Replace(tc.file, "BAD", bad, 1)), "h.yaml")
			if err == nil {
				t.Fatalf("%s: %s accepted", tc.key, bad)
			}
			m := re.FindStringSubmatch(err.Error())
			if m == nil || m[1] != tc.key {
				t.Errorf("%s: %s: %v, want a hint \"write e.g. %s: N\"", tc.key, bad, err, tc.key)
				continue
			}
			if _, err := Parse([]byte(strings.Replace(tc.file, "BAD", m[2], 1)), "h.yaml"); err != nil {
				t.Errorf("%s: the hint %s: %s is refused: %v", tc.key, m[1], m[2], err)
			}
		}
	}
}
