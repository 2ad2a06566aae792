package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBreakerBadInput: breaker specs, chains, response columns and the
// downstream block, each wrong in one way: one line, non-zero exit,
// nothing written.
func TestBreakerBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	badRT := write("rt.csv", "t_ms,rt_ms,error\n0,20,0\n5,fast,0\n")
	badErr := write("err.csv", "t_ms,rt_ms,error\n0,20,0\n5,20,2\n")
	shortLine := write("short.csv", "t_ms,rt_ms,error\n0,20\n")
	badDs := write("ds.yaml", "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream:\n  servers: 2\n  service: 20ms\n  phases:\n    - {from: 2s, to: 1s}\n")
	dsKey := write("dskey.yaml", "limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\ndownstream:\n  server: 2\n  service: 20ms\n")
	// Issue 21, item 1: each time is in range, their sum is past int64.
	wrapRT := write("wrap.csv", "t_ms,rt_ms,error\n5000000000000,5000000000000,1\n5000000000000,1,0\n")
	// Issue 21, item 2: a service of more than a year wrapped the run.
	longService := write("long.yaml", "phases: [{type: poisson, rate: 50}]\nduration: 2s\nlimit: 100\ndownstream: {servers: 4, service: 100000h, timeout: 1s}\n")
	// Issue 21, item 12: the later phase silently replaced the earlier.
	overlap := write("overlap.yaml", "phases: [{type: poisson, rate: 50}]\nduration: 2s\nlimit: 100\ndownstream:\n  servers: 4\n  service: 20ms\n  timeout: 1s\n  phases:\n    - {from: 1s, to: 10s, service: 60ms}\n    - {from: 5s, to: 12s, service: 90ms}\n")
	const cb = "circuit-breaker:"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown strategy", []string{"run", "poisson", "--algo", cb + "strategy=latency"}, `unknown strategy "latency"`},
		{"threshold out of range", []string{"run", "poisson", "--algo", cb + "strategy=error-ratio,threshold=1.5"}, "between 0 and 1"},
		{"max-rt on an error strategy", []string{"run", "poisson", "--algo", cb + "strategy=error-count,threshold=3,max-rt=100ms"}, "max-rt applies to strategy=slow-ratio only"},
		{"recovery not whole seconds", []string{"run", "poisson", "--algo", cb + "strategy=error-count,threshold=3,recovery=1500ms"}, "recovery must be whole seconds"},
		{"two breakers", []string{"run", "poisson", "--algo", "leap-array+" + cb + "strategy=error-count,threshold=3+" + cb + "strategy=error-ratio,threshold=0.5"}, "2 circuit breakers"},
		{"breaker not last", []string{"run", "poisson", "--algo", cb + "strategy=error-count,threshold=3+leap-array"}, "put it last"},
		{"malformed rt", []string{"run", "--trace", badRT, "--limit", "10", "--algo", cb + "strategy=error-count,threshold=3"}, `rt.csv:3: rt_ms: "fast"`},
		{"malformed error", []string{"run", "--trace", badErr, "--limit", "10"}, `err.csv:3: error is "2"`},
		{"missing column", []string{"run", "--trace", shortLine, "--limit", "10"}, "short.csv:2: 2 columns"},
		{"downstream phase reversed", []string{"run", badDs}, "ds.yaml:8: downstream phase: to (1s) is not after from (2s)"},
		{"rt whose end wraps", []string{"run", "--trace", wrapRT, "--limit", "10", "--algo", cb + "strategy=error-count,threshold=0,min-requests=1", "--decisions"}, `wrap.csv:2: rt_ms: response time "5000000000000" would end the call past 7000000000000 ms`},
		{"downstream service past a year", []string{"run", longService, "--algo", "leap-array"}, "long.yaml:4: downstream service 100000h0m0s is longer than 8760h0m0s (one year)"},
		{"downstream phases overlap", []string{"run", overlap}, "overlap.yaml:10: downstream phase 2 [5s, 12s) overlaps phase 1 [1s, 10s) at line 9"},
		{"downstream key typo", []string{"run", dsKey}, `dskey.yaml:5: unknown key "server" in downstream; did you mean "servers"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			checkBadInput(t, out, tc.want, append(tc.args, "--out", out)...)
		})
	}
}

// A trace with responses through a breaker chain writes breaker.csv and
// the response columns.
func TestRunTraceWithResponses(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "calls.csv")
	// Five slow calls (one failed, which slow-ratio ignores) open a
	// slow-ratio breaker (max-rt 100 ms, min-requests 5) at the fifth
	// completion, 204 ms; 1 s later the probe passes and, fast, closes it.
	os.WriteFile(trace, []byte("t_ms,rt_ms,error\n0,200,0\n1,200,0\n2,200,0\n3,200,0\n4,200,1\n300,5,0\n1205,5,0\n1206,5,0\n1300,5,0\n"), 0o644)
	out := filepath.Join(dir, "out")
	_, stderr, code := binary(t, "run", "--trace", trace, "--limit", "100", "--algo", "circuit-breaker:strategy=slow-ratio,max-rt=100ms,recovery=1s", "--decisions", "--quiet", "--out", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	br := string(readFile(t, filepath.Join(out, "breaker.csv")))
	const spec = `"circuit-breaker:strategy=slow-ratio,max-rt=100ms,threshold=1,min-requests=5,stat-interval=1s,recovery=1s"`
	want := "algorithm,t_ns,from,to\n" +
		spec + ",204000000,CLOSED,OPEN\n" +
		spec + ",1205000000,OPEN,HALF_OPEN\n" +
		spec + ",1210000000,HALF_OPEN,CLOSED\n"
	if br != want {
		t.Errorf("breaker.csv:\n%s\nwant:\n%s", br, want)
	}
	dec := string(readFile(t, filepath.Join(out, "decisions.csv")))
	for _, row := range []string{
		spec + ",4,4000000,pass,0,,200000000,1,0\n",
		spec + ",5,300000000,block,0,breaker,,,0\n",
		spec + ",6,1205000000,pass,0,,5000000,0,0\n",
		spec + ",7,1206000000,block,0,breaker,,,0\n",
		spec + ",8,1300000000,pass,0,,5000000,0,0\n",
	} {
		if !strings.Contains(dec, row) {
			t.Errorf("decisions.csv lacks %q:\n%s", row, dec)
		}
	}
	series := string(readFile(t, filepath.Join(out, "series.csv")))
	if !strings.HasPrefix(series, "algorithm,bin_start_ms,arrived,passed,blocked,wait_mean_ms,wait_max_ms,errors,timeouts,rt_mean_ms,rt_max_ms\n") {
		t.Errorf("series.csv header: %.150s", series)
	}
	sum := string(readFile(t, filepath.Join(out, "summary.json")))
	for _, w := range []string{`"breaker_opens": 1`, `"probes": 1`, `"open_ms": 1001`, `"errors": 1`} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary.json lacks %s", w)
		}
	}
}
