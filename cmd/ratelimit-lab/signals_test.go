package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceSignalsReachRules: a trace's cpu column scripts the signal a
// CPU-gated rule reads, from the CLI; without the column the rule is
// refused in one line.
func TestTraceSignalsReachRules(t *testing.T) {
	dir := t.TempDir()
	with := filepath.Join(dir, "cpu.csv")
	os.WriteFile(with, []byte("t_ms,rt_ms,error,cpu\n0,10,0,0.5\n100,10,0,0.9\n2000,10,0,0.95\n"), 0o644)
	if _, stderr, code := binary(t, "run", "--trace", with, "--limit", "10", "--algo", "aegis-bbr", "--chart", "none", "--quiet", "--out", filepath.Join(dir, "a")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	without := filepath.Join(dir, "nocpu.csv")
	os.WriteFile(without, []byte("t_ms,rt_ms,error\n0,10,0\n"), 0o644)
	checkBadInput(t, filepath.Join(dir, "b"), "reads cpu, but the run has no cpu signal", "run", "--trace", without, "--limit", "10", "--algo", "aegis-bbr", "--out", filepath.Join(dir, "b"))
}

// TestConstantKey: key=* keeps one state for every request, with or
// without key columns in the traffic.
func TestConstantKey(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"plain.csv": "t_ms\n0\n0\n5\n", "keyed.csv": "t_ms,ip\n0,a\n0,b\n5,c\n"} {
		trace := filepath.Join(dir, name)
		os.WriteFile(trace, []byte(body), 0o644)
		out := filepath.Join(dir, name+".out")
		if _, stderr, code := binary(t, "run", "--trace", trace, "--limit", "10", "--algo", "nginx-limit-req:rate=1r/s,key=*", "--chart", "none", "--quiet", "--out", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if s := string(readFile(t, filepath.Join(out, "summary.json"))); !strings.Contains(s, `"passed": 1,`) {
			t.Errorf("%s: one shared state at 1r/s passes 1 of 3, summary:\n%s", name, s)
		}
	}
}

// A YAML scenario's name is printed as written, lower case included, in
// the run's context line and report title (an audit read "My-retry-storm"
// off a transcript that capitalised the first letter of the output).
func TestScenarioNameAsWritten(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := binary(t, "run", "../../scenarios/examples/retry-storm.yaml", "--duration", "2s", "--chart", "none", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "my-retry-storm · ") {
		t.Errorf("context line: %q", strings.SplitN(stdout, "\n", 2)[0])
	}
	if html := string(readFile(t, filepath.Join(out, "report.html"))); !strings.Contains(html, "<title>ratelimit-lab report · my-retry-storm</title>") {
		t.Errorf("report.html title is not the name as written")
	}
}
