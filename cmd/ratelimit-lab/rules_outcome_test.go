package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `rules explain` lists a file whose rules are all inactive, with each
// one's outcome and why; `run` with it alone stops in one line saying
// there is no active rule and what to do; with --algo it runs and its
// notes name the inactive rule once.
func TestRulesAllInactive(t *testing.T) {
	dir := t.TempDir()
	rf := filepath.Join(dir, "traefik.yml")
	if err := os.WriteFile(rf, []byte("http:\n  middlewares:\n    off:\n      rateLimit:\n        average: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(tr, []byte("t_ms,ip\n0,a\n1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := execute(t, "rules", "explain", rf)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"(traefik): 0 row(s), 1 inactive", "no rule of this file is active", "off  [", "inactive: average 0: Traefik applies no rate limit"} {
		if !strings.Contains(out, w) {
			t.Errorf("explain lacks %q:\n%s", w, out)
		}
	}
	checkBadInput(t, filepath.Join(dir, "o"), "no rule of the --rules files is active", "run", "--trace", tr, "--limit", "10", "--rules", rf, "--out", filepath.Join(dir, "o"))
	_, stderr, code := binary(t, "run", "--trace", tr, "--limit", "10", "--rules", rf, "--algo", "token-bucket:rate=1,burst=1", "--out", filepath.Join(dir, "p"), "--chart", "none", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(stderr, "rule off (") != 1 || !strings.Contains(stderr, "inactive, no row") {
		t.Errorf("the run's notes do not name the inactive rule once: %q", stderr)
	}
}
