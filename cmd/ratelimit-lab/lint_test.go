package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// TestRulesLintDemonstrations replays each trap's demonstration, its
// command on its trace, and checks that it shows the trap.
func TestRulesLintDemonstrations(t *testing.T) {
	want := map[string][]string{ // ID → what the replay prints
		"ingress-burst":                {"#1 at 1ms: pass", "≤ burst 30000 → pass"},
		"traefik-burst-1":              {"#1 at 1000ms: block", "> maxDelay 500ms → reject (429"},
		"spring-burst-zero":            {",0,0,pass,", ",1,0,block,"},
		"sentinel-ms-rounding":         {"│ warm-up-rate-limiter │      2 │  100.0 │"},
		"slow-ratio-1":                 {`"breaker_opens": 0`, `"breaker_opens": 1`},
		"spring-requested-above-burst": {",0,0,block,", ",1,1000000000,block,"},
	}
	files := []string{"../../examples/rules/ingress.yaml", "../../examples/rules/traefik-dynamic.yml",
		"../../rules/testdata/lint/spring-burst-zero.yml", "../../rules/testdata/lint/sentinel-warm-up-qps.json",
		"../../rules/testdata/lint/sentinel-slow-ratio-default.json", "../../rules/testdata/lint/spring-requested-above-burst.yml"}
	seen := map[string]bool{}
	for _, f := range files {
		rs, err := rules.Load(f, "auto")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range rules.LintRules(rs) {
			if seen[l.ID] {
				continue
			}
			seen[l.ID] = true
			t.Run(l.ID, func(t *testing.T) {
				dir := t.TempDir()
				demo := filepath.Join(dir, "demo.csv")
				if err := os.WriteFile(demo, []byte(l.Trace), 0o644); err != nil {
					t.Fatal(err)
				}
				var args []string
				for _, w := range strings.Fields(strings.TrimPrefix(l.Command, "ratelimit-lab ")) {
					w = strings.Trim(w, "'")
					if w == "demo.csv" {
						w = demo
					}
					args = append(args, w)
				}
				if args[0] == "run" {
					args = append(args, "--quiet", "--out", filepath.Join(dir, "out"))
					if l.ID == "slow-ratio-1" {
						args = append(args, "--format", "json")
					}
				}
				out, stderr, err := execute(t, args...)
				if err != nil {
					t.Fatalf("%s: %v %s", l.Command, err, stderr)
				}
				if strings.Contains(l.Command, "--decisions") {
					b, err := os.ReadFile(filepath.Join(dir, "out", "decisions.csv"))
					if err != nil {
						t.Fatal(err)
					}
					out = string(b)
				}
				for _, w := range want[l.ID] {
					if !strings.Contains(out, w) {
						t.Errorf("%s does not show %q:\n%s", l.Command, w, out)
					}
				}
			})
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("no file shows the trap %s", id)
		}
	}
}

// TestRulesLintFailOnLint: --fail-on-lint exits 3 with one line when a
// trap is found, 0 when none is.
func TestRulesLintFailOnLint(t *testing.T) {
	out, stderr, code := binary(t, "rules", "lint", "--fail-on-lint", "../../examples/rules/traefik-dynamic.yml")
	if code != 3 || stderr != "ratelimit-lab: 1 trap(s) found (--fail-on-lint); fix them or drop --fail-on-lint\n" || !strings.Contains(out, "[traefik-burst-1]") {
		t.Errorf("exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
	out, stderr, code = binary(t, "rules", "lint", "--fail-on-lint", "../../examples/rules/envoy-local.yaml")
	if code != 0 || stderr != "" || out != "../../examples/rules/envoy-local.yaml: no trap found\n" {
		t.Errorf("exit %d, stderr %q, out %q", code, stderr, out)
	}
}

// TestRunNotesLints: run --rules prints each trap once, among its notes.
func TestRunNotesLints(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "two.csv")
	if err := os.WriteFile(trace, []byte("t_ms,ip\n0,a\n1000,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := execute(t, "run", "--trace", trace, "--rules", "../../examples/rules/traefik-dynamic.yml", "--quiet", "--out", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(strings.Fields(out+stderr), " ") // notes wrap to the width
	if n := strings.Count(all, "[traefik-burst-1]"); n != 1 || !strings.Contains(all, "rule login-ratelimit (../../examples/rules/traefik-dynamic.yml:10): lint [traefik-burst-1] average=6") {
		t.Errorf("the trap appears %d times in\n%s", n, all)
	}
}
