package main

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

func TestBenchFlags(t *testing.T) {
	var got *BenchOptions
	cmd := NewCmdBench(&IOStreams{Out: os.Stdout, ErrOut: os.Stderr}, func(_ context.Context, o *BenchOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--goroutines", "3,5", "--duration", "150ms", "--impl", "mutex-ring", "--limit", "7"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Lab.Goroutines, []int{3, 5}) || got.Lab.Duration != 150*time.Millisecond || !slices.Equal(got.Lab.Impls, []string{"mutex-ring"}) ||
		got.Lab.Limit != 7 || got.Lab.Window != 100*time.Millisecond || got.Lab.SampleCount != 2 || got.Lab.Out != filepath.Join("out", "bench") {
		t.Errorf("options %+v", got)
	}
	cmd = NewCmdBench(&IOStreams{}, func(_ context.Context, o *BenchOptions) error { got = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Lab.Goroutines, DefaultGoroutines) || got.Lab.Duration != 2*time.Second {
		t.Errorf("defaults %+v", got)
	}
	if !strings.Contains(cmd.Long, "wall clock") || !strings.Contains(cmd.Long, "virtual clock") {
		t.Error("--help does not say that bench leaves the virtual clock for the wall clock")
	}
}

// TestBenchWritesItsFiles runs a very short bench through the real
// command: the table, and bench.csv with one row per hammer.
func TestBenchWritesItsFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	stdout, stderr, err := execute(t, "bench", "--goroutines", "1,4", "--duration", "20ms", "--out", out, "--quiet")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	for _, impl := range concurrent.Names() {
		if !strings.Contains(stdout, impl) {
			t.Errorf("table lacks %s:\n%s", impl, stdout)
		}
	}
	f, err := os.Open(filepath.Join(out, "bench.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*len(concurrent.Impls) || !slices.Equal(rows[0], concurrent.CSVHeader) {
		t.Errorf("bench.csv has %d rows, header %v", len(rows), rows[0])
	}
	jf, err := os.Open(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	rep, err := concurrent.ReadReport(jf)
	if err != nil || len(rep.Results) != 2*len(concurrent.Impls) || rep.Limit != 100 || rep.CPUs < 1 {
		t.Errorf("bench.json: %v, %+v", err, rep)
	}
	if st, err := os.Stat(filepath.Join(out, "bench.png")); err != nil || st.Size() < 1000 {
		t.Errorf("bench.png: %v", err)
	}
}

// TestBenchBadInput: one line on stderr, a non-zero exit, nothing written.
func TestBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zero goroutines", []string{"bench", "--goroutines", "0"}, "--goroutines must be between 1 and 100000, got 0"},
		{"negative goroutines", []string{"bench", "--goroutines", "1,-2"}, "--goroutines must be between 1 and 100000, got -2"},
		// 10^8 goroutines used to die of Go's out-of-memory stack trace.
		{"huge goroutines", []string{"bench", "--goroutines", "1,100000000", "--duration", "50ms"}, "--goroutines must be between 1 and 100000, got 100000000"},
		{"huge sample-count", []string{"bench", "--window", "100000000ms", "--sample-count", "100000000", "--duration", "50ms"}, "--sample-count must be between 1 and 100000, got 100000000"},
		{"huge limit", []string{"bench", "--limit", "100000000"}, "--limit must be between 1 and 16777215"},
		{"zero duration", []string{"bench", "--duration", "0s"}, "--duration must be positive, got 0s"},
		{"zero limit", []string{"bench", "--limit", "0"}, "--limit must be between 1"},
		{"odd window", []string{"bench", "--window", "1500us"}, "--window must be a positive whole number of milliseconds"},
		{"unknown impl", []string{"bench", "--impl", "mutex-rign"}, `did you mean "mutex-ring"`},
		{"negative check-to-add", []string{"run", "boundary-burst", "--algo", "leap-array:check-to-add=-1ms"}, "check-to-add must not be negative, got -1ms"},
		{"non-duration check-to-add", []string{"run", "boundary-burst", "--algo", "sliding-log:check-to-add=5"}, `check-to-add "5" is not a duration`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			checkBadInput(t, out, tc.want, append(tc.args, "--out", out)...)
		})
	}
}

// bench --format json|csv prints bench.json / bench.csv alone on stdout,
// the notes on stderr; an unknown format fails before anything runs.
func TestBenchFormats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	for _, f := range []struct{ format, file string }{{"json", "bench.json"}, {"csv", "bench.csv"}} {
		stdout, stderr, code := run100(t, nil, "bench", "--duration", "10ms", "--goroutines", "1", "--impl", "mutex-ring",
			"--out", dir, "--quiet", "--format", f.format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f.format, code, stderr)
		}
		if stdout != string(readFile(t, filepath.Join(dir, f.file))) {
			t.Errorf("--format %s is not %s's content:\n%s", f.format, f.file, stdout)
		}
		if !strings.Contains(stderr, "wrote ") || !strings.Contains(stderr, "GOMAXPROCS") {
			t.Errorf("--format %s: notes not on stderr: %q", f.format, stderr)
		}
	}
	other := filepath.Join(t.TempDir(), "none")
	stdout, stderr, code := run100(t, nil, "bench", "--format", "yaml", "--out", other)
	if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `--format "yaml" is unknown`) {
		t.Errorf("bad format: exit %d, %q %q", code, stdout, stderr)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a bad --format wrote its directory")
	}
}

// A hammer's error names its goroutine count with the right noun: "with 1
// goroutine", "with 8 goroutines".
func TestBenchFailedCountsGoroutines(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{1, "bench mutex-ring with 1 goroutine: boom"}, {8, "bench mutex-ring with 8 goroutines: boom"}} {
		if got := lab.BenchFailed("mutex-ring", c.n, errors.New("boom")).Error(); got != c.want {
			t.Errorf("%d: %q, want %q", c.n, got, c.want)
		}
	}
}

// bench --help states the peak memory at the most goroutines, from the
// bound package concurrent holds it to (TestBenchMemoryPerGoroutine).
func TestBenchHelpStatesPeakMemory(t *testing.T) {
	out, _, code := run100(t, nil, "bench", "--help")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, "each goroutine takes at most about 4 KB while it hammers") || !strings.Contains(flat, "the peak is about 391 MB at the most goroutines, --goroutines 100000") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
