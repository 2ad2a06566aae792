package main

import (
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// wroteRE is the "wrote DIR/{a,b}" line of a run, tune or bench.
var wroteRE = regexp.MustCompile(`(?m)^wrote .*/\{([^}]*)\}$`)

// A run into the --out of an earlier one leaves only its own files (and
// files that are not the lab's): what it does not write this time goes,
// and the directory holds exactly what the "wrote" line lists. A run that
// fails leaves the earlier files as they were.
func TestOutKeepsOnlyThisRunsFiles(t *testing.T) {
	accessLog := "../../scenarios/examples/access.log"
	for _, tc := range []struct {
		name        string
		first, then []string
	}{
		{"run", []string{"run", "slow-downstream", "--decisions"}, []string{"run", "poisson", "--chart", "none", "--html=false"}},
		{"run keys", []string{"run", "--trace", accessLog, "--key", "ip", "--limit", "5", "--algo", "token-bucket:key=ip"},
			[]string{"run", "--trace", accessLog, "--limit", "5", "--algo", "token-bucket", "--chart", "none"}},
		{"tune", []string{"tune", "poisson"}, []string{"tune", "poisson", "--html=false"}},
		{"bench", []string{"bench", "--duration", "5ms", "--goroutines", "1"}, []string{"bench", "--duration", "5ms", "--goroutines", "1", "--html=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
			ran := func(args []string) []string {
				stdout, stderr, code := run100(t, nil, append(args, "--quiet", "--out", out)...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
				m := wroteRE.FindStringSubmatch(stdout + stderr)
				if m == nil {
					t.Fatalf("%v: no wrote line:\n%s", args, stdout)
				}
				wrote := append(strings.Split(m[1], ","), "notes.txt")
				slices.Sort(wrote)
				return wrote
			}
			first := ran(tc.first)
			if got := names(t, out); !slices.Equal(got, first) {
				t.Fatalf("after %v: %v, want %v", tc.first, got, first)
			}
			then := ran(tc.then)
			if len(then) >= len(first) {
				t.Fatalf("%v writes %v, no fewer files than %v", tc.then, then, first)
			}
			if got := names(t, out); !slices.Equal(got, then) {
				t.Errorf("after %v: %v, want %v (an earlier run's file stayed)", tc.then, got, then)
			}
		})
	}
	// A failed run removes nothing.
	out := t.TempDir()
	if _, stderr, code := run100(t, nil, "run", "slow-downstream", "--decisions", "--quiet", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	before := names(t, out)
	if _, _, code := run100(t, nil, "run", "poisson", "--chart", "none", "--format", "xml", "--quiet", "--out", out); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if got := names(t, out); !slices.Equal(got, before) {
		t.Errorf("a failed run changed %v into %v", before, got)
	}
}

// Two commands never share an --out silently: each writes its own
// report.html, so tune into a run's directory (or run into a tune's, a
// bench into either) is refused before anything runs, and the earlier
// files stay byte for byte; the same command again is fine (issue 34).
func TestOutRefusesAnotherCommandsFiles(t *testing.T) {
	cmds := map[string][]string{
		"run":   {"run", "boundary-burst-small"},
		"tune":  {"tune", "boundary-burst-small", "--sample-counts", "2"},
		"bench": {"bench", "--duration", "5ms", "--goroutines", "1"},
	}
	for _, c := range []struct{ first, then, holds string }{
		{"run", "tune", "a run's files (summary.json, series.csv)"},
		{"tune", "run", "a tune's files (tune.csv, tune.png)"},
		{"run", "bench", "a run's files"},
		{"bench", "tune", "a bench's files (bench.csv, bench.json)"},
		{"tune", "tune", ""},
	} {
		t.Run(c.first+" then "+c.then, func(t *testing.T) {
			out := t.TempDir()
			if _, stderr, code := run100(t, nil, append(cmds[c.first], "--quiet", "--out", out)...); code != 0 {
				t.Fatal(stderr)
			}
			page, _ := os.ReadFile(filepath.Join(out, "report.html"))
			_, stderr, code := run100(t, nil, append(cmds[c.then], "--quiet", "--out", out)...)
			if c.holds == "" {
				if code != 0 {
					t.Fatalf("the same command again: exit %d: %s", code, stderr)
				}
				return
			}
			if code != 1 || !strings.Contains(stderr, "holds "+c.holds) || !strings.Contains(stderr, "this "+c.then+" would replace its report.html") {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
			if now, _ := os.ReadFile(filepath.Join(out, "report.html")); string(now) != string(page) {
				t.Error("the earlier report.html changed")
			}
		})
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// Each command's help names every file it may write (the lists its runs
// clean up by), and run's names every column of a CSV trace.
func TestHelpNamesEveryOutput(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		names []string
	}{
		{"run", append(slices.Clone(lab.RunFiles), "t_ms", "rt_ms", "error", "cost", "user", "priority", "cpu", "load1", "key columns")},
		{"tune", lab.TuneFiles},
		{"bench", lab.BenchFiles},
	} {
		stdout, _, err := execute(t, tc.cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		long, _, _ := strings.Cut(stdout, "Usage:")
		long = strings.Join(strings.Fields(long), " ")
		for _, n := range tc.names {
			if !regexp.MustCompile(`(^|[\s(,])` + regexp.QuoteMeta(n) + `\b`).MatchString(long) {
				t.Errorf("%s --help does not name %s:\n%s", tc.cmd, n, long)
			}
		}
	}
}
