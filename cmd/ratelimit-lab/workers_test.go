package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --workers given names, under the summary, the rows split and why the
// others are not;
// a bad count is one line naming the flag.
func TestRunWorkersFlag(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := binary(t, "run", "nat-office", "--quiet", "--html=false", "--chart", "none", "--workers", "3",
		"--out", filepath.Join(dir, "a"),
		"--algo", "token-bucket:rate=10,key=key", "--algo", "token-bucket:rate=10,key=key,capacity=50", "--algo", "leap-array:limit=100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"decided by key on 3 workers: token-bucket (every file",
		"row token-bucket capacity=50: its key table is bounded (50 keys) and evicts in the order of every key's requests, decided on one worker",
		"row leap-array N=2: not a per-key limiter with independent keys, decided on one worker",
	} {
		if !strings.Contains(strings.Join(strings.Fields(stdout), " "), want) {
			t.Errorf("the summary lacks %q:\n%s", want, stdout)
		}
	}
	// Without --workers (the CPUs), no note.
	stdout, _, _ = binary(t, "run", "nat-office", "--quiet", "--html=false", "--chart", "none", "--out", filepath.Join(dir, "b"),
		"--algo", "token-bucket:rate=10,key=key")
	if strings.Contains(stdout, "worker") {
		t.Errorf("a run without --workers notes its workers:\n%s", stdout)
	}
	for _, bad := range []string{"-1", "257"} {
		_, stderr, code := binary(t, "run", "nat-office", "--quiet", "--workers", bad, "--out", filepath.Join(dir, "c"))
		if code == 0 || !strings.Contains(stderr, "--workers must be between 1 and 256, got "+bad) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--workers %s: exit %d, %q", bad, code, stderr)
		}
	}
}
