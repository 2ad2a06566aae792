package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// goldenRuns are the commands whose every output is pinned by
// testdata/catalog.golden: each catalog scenario with every file the run
// writes (decisions.csv included), and the examples the docs show with
// rule files, traces, access logs and tune. A change to the code that moves
// one byte of one of them fails here; -update rewrites the file when the
// change is intended.
func goldenRuns() [][]string {
	var runs [][]string
	for _, name := range scenarios.Names() {
		runs = append(runs, []string{"run", name, "--decisions"})
	}
	return append(runs,
		[]string{"run", "poisson", "--rules", "../../examples/rules/sentinel-flow-rules.json"},
		[]string{"run", "--trace", "../../scenarios/examples/access.log", "--key", "ip", "--rules", "../../examples/rules/nginx.conf"},
		[]string{"run", "poisson", "--rules", "../../examples/rules/envoy-local.yaml", "--rules", "../../examples/rules/resilience4j.yml"},
		[]string{"tune", "poisson", "--rules", "../../examples/rules/sentinel-flow-rules.json"},
		[]string{"run", "--trace", "../../scenarios/examples/access.log", "--key", "ip", "--limit", "10", "--algo", "nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m"},
		[]string{"run", "--trace", "../../scenarios/examples/calls.csv", "--limit", "50"},
		[]string{"run", "../../scenarios/examples/keys.yaml"},
		[]string{"run", "../../scenarios/examples/retry-storm.yaml", "--algo", "none", "--algo", "concurrency:limit=16"},
		[]string{"run", "boundary-burst", "--format", "json"},
		[]string{"run", "adversarial", "--algo", "leap-array:sample-count=1000", "--algo", "fixed-window", "--chart", "overlay", "--format", "md"},
		[]string{"tune", "poisson"},
		[]string{"tune", "boundary-burst-small"},
	)
}

// TestCatalogOutputsGolden runs every golden command in-process and
// compares the SHA-256 of its stdout and of every file it writes with
// testdata/catalog.golden.
func TestCatalogOutputsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("the catalog golden runs every scenario; not with -short")
	}
	if raceOn {
		t.Skip("the catalog golden runs without -race (.ci/run runs it so); under -race it takes minutes")
	}
	runs := goldenRuns()
	lines := make([][]string, len(runs))
	errs := make([]error, len(runs))
	root := t.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, args := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			lines[i], errs[i] = goldenRun(filepath.Join(root, fmt.Sprint(i)), args)
		}()
	}
	wg.Wait()
	var b bytes.Buffer
	for i, args := range runs {
		if errs[i] != nil {
			t.Fatalf("ratelimit-lab %s: %v", strings.Join(args, " "), errs[i])
		}
		fmt.Fprintf(&b, "# ratelimit-lab %s\n", strings.Join(args, " "))
		for _, l := range lines[i] {
			fmt.Fprintln(&b, l)
		}
	}
	path := filepath.Join("testdata", "catalog.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/ratelimit-lab -run TestCatalogOutputsGolden -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		got, exp := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
		var diff []string
		for i := 0; i < max(len(got), len(exp)) && len(diff) < 20; i++ {
			g, e := "", ""
			if i < len(got) {
				g = got[i]
			}
			if i < len(exp) {
				e = exp[i]
			}
			if g != e {
				diff = append(diff, fmt.Sprintf("line %d:\n  got  %s\n  want %s", i+1, g, e))
			}
		}
		t.Errorf("outputs differ from %s (-update if intended):\n%s", path, strings.Join(diff, "\n"))
	}
}

// goldenRun runs one command with --quiet and --out dir and returns a line
// per output: "stdout", "stderr" and each file, with its size and SHA-256.
// The output directory's name is replaced in stdout so that the lines do
// not depend on where the test runs.
func goldenRun(dir string, args []string) ([]string, error) {
	var out, errOut bytes.Buffer
	cmd := newRootCmd(&IOStreams{Out: &out, ErrOut: &errOut, Width: 100})
	cmd.SetArgs(append(slices.Clone(args), "--quiet", "--out", dir))
	if err := cmd.Execute(); err != nil {
		return nil, fmt.Errorf("%v; stderr: %s", err, errOut.String())
	}
	sum := func(name string, b []byte) string {
		return fmt.Sprintf("%-14s %9d %x", name, len(b), sha256.Sum256(b))
	}
	clean := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(filepath.ToSlash(dir)), []byte("OUT")) }
	lines := []string{sum("stdout", clean(out.Bytes())), sum("stderr", clean(errOut.Bytes()))}
	tune := args[0] == "tune"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if tune {
			b = maskTiming(e.Name(), b)
		}
		lines = append(lines, sum(e.Name(), b))
	}
	return lines, nil
}

// tuneRow is the end of a row of tune's table in report.html, whose last
// cell is ns_per_decision.
var tuneRow = regexp.MustCompile(`,"[0-9.]+"\]`)

// maskTiming blanks what tune measures on the wall clock (ns_per_decision,
// the last column of tune.csv and of its table in report.html), the only
// figures of an output that differ between two runs.
func maskTiming(name string, b []byte) []byte {
	switch name {
	case "tune.csv":
		lines := bytes.Split(b, []byte("\n"))
		for i, l := range lines {
			if j := bytes.LastIndexByte(l, ','); j >= 0 && i > 0 {
				lines[i] = append(l[:j:j], ",NS"...)
			}
		}
		return bytes.Join(lines, []byte("\n"))
	case "report.html":
		return tuneRow.ReplaceAll(b, []byte(`,"NS"]`))
	}
	return b
}
