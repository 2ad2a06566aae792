package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// At 80 and 100 columns a table keeps the columns that carry its
// scenario's point and drops the generic ones first: breaker rows keep
// opens, errors and RT p99; Redis rows their commands; tune its
// overshoot, smooth bound and state size.
func TestNarrowTablesKeepThePoint(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		keep []string
	}{
		{[]string{"run", "slow-downstream"}, []string{"overshoot", "opens", "errors", "rt p99"}},
		{[]string{"run", "flapping"}, []string{"overshoot", "opens", "errors", "rt p99"}},
		{[]string{"run", "redis-race"}, []string{"overshoot", "redis commands", "commands/arrival"}},
		{[]string{"tune", "poisson"}, []string{"N", "overshoot", "smooth", "state B"}},
	} {
		for _, cols := range []int{80, 100} {
			name := strings.Join(c.args, " ") + " at " + strconv.Itoa(cols)
			// One --out per command and width: a tune may not write into a
			// run's directory (nor the other way round).
			args := append(c.args, "--quiet", "--html=false", "--out", filepath.Join(dir, strings.NewReplacer(" ", "_", "/", "_", ":", "_").Replace(name)))
			if c.args[0] == "run" {
				args = append(args, "--chart", "none")
			}
			out, stderr, code := runIn(t, nil, cols, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			for _, want := range c.keep {
				if !strings.Contains(out, " "+want+" ") {
					t.Errorf("%s: the table lost %q:\n%s", name, want, out)
				}
			}
		}
	}
}

// The root --help names every limiter the registry builds, and `list`
// gives each its row.
func TestHelpAndListNameEveryLimiter(t *testing.T) {
	help, _, err := execute(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	help = strings.Join(strings.Fields(help), " ") // the names wrap
	list, _, err := execute(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range lab.Limiters() {
		if !strings.Contains(help, " "+a.Name+",") && !strings.Contains(help, " "+a.Name+".") {
			t.Errorf("--help does not name %s", a.Name)
		}
		if !strings.Contains(list, "│ "+a.Name+" ") {
			t.Errorf("list has no row for %s", a.Name)
		}
	}
	for _, family := range []string{"windows", "buckets", "Sentinel", "breakers", "Redis", "report.html"} {
		if !strings.Contains(help, family) {
			t.Errorf("--help does not mention %s", family)
		}
	}
}
