package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestRealFiles pins what each file of testdata/real becomes: files
// hand-written in the shapes real repositories hold (an Ingress with
// snippets, manifests mixing a Deployment, a Service and rules, Traefik's
// TOML, envoyproxy/ratelimit in a ConfigMap, sentinel-golang's CRDs and
// its ext/datasource JSON, Sentinel's dashboard entities, gateway rules
// and rules its validation drops). Each rule prints its format, source,
// outcome, spec or why, key columns and notes; every translated spec must
// build. go test ./rules -run TestRealFiles -update rewrites the goldens.
func TestRealFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/real/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			rules, err := Load(f, "")
			if err != nil {
				t.Fatal(err)
			}
			got := dumpRules(rules)
			for _, r := range rules {
				if r.Active() && !strings.HasPrefix(r.Spec, "redis-") { // the Redis family builds in package distributed
					if _, err := algorithms.New(r.Spec, 100); err != nil {
						t.Errorf("%s: spec %q does not build: %v", r.Source, r.Spec, err)
					}
				}
			}
			golden := f + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./rules -run TestRealFiles -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s changed (go test ./rules -run TestRealFiles -update to accept):\n--- got\n%s--- want\n%s", f, got, want)
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d real files", n)
	}
}

func dumpRules(rules []Rule) string {
	var b strings.Builder
	for _, r := range rules {
		outcome := string(r.Outcome)
		if outcome == "" {
			outcome = "translated"
		}
		fmt.Fprintf(&b, "%s  [%s %s] %s\n", r.Name, r.Format, filepath.ToSlash(r.Source), outcome)
		if r.What != "" {
			fmt.Fprintf(&b, "  rule:  %s\n", r.What)
		}
		if r.Spec != "" {
			fmt.Fprintf(&b, "  spec:  %s\n", r.Spec)
		}
		if r.Why != "" {
			fmt.Fprintf(&b, "  why:   %s\n", r.Why)
		}
		if len(r.KeyColumns) > 0 {
			fmt.Fprintf(&b, "  keys:  %s\n", strings.Join(r.KeyColumns, ", "))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  note:  %s\n", n)
		}
	}
	return b.String()
}
