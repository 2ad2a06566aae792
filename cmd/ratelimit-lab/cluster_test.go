package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sentinel-cluster is exact only on the fast path, where a decision may
// wait for the arrivals before its token server's answer: a run whose rows
// decide each arrival when it comes (a downstream, recorded responses) is
// refused with one line, and writes nothing.
func TestSentinelClusterRefusesEventedRuns(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "rt.csv")
	os.WriteFile(trace, []byte("t_ms,rt_ms\n0,5\n10,5\n"), 0o644)
	for _, args := range [][]string{
		{"run", "--trace", trace, "--limit", "10", "--algo", "sentinel-cluster", "-q", "--out", filepath.Join(dir, "a")},
		{"run", "slow-downstream", "--algo", "sentinel-cluster", "-q", "--out", filepath.Join(dir, "b")},
	} {
		stdout, stderr, code := binary(t, args...)
		if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "sentinel-cluster decides a request only when") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line refusing the run", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Errorf("a refused run left its --out directory")
	}
}
