package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMain lets the test binary act as the real command, so exit status
// and stderr are tested end to end.
func TestMain(m *testing.M) {
	if os.Getenv("RATELIMIT_LAB_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// execute runs the command tree with fake IO.
func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCmd(&IOStreams{Out: &out, ErrOut: &errOut})
	root.SetArgs(args)
	err = root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// binary runs the command as main does (its exit status, its one-line
// errors on stderr), in process: stdin is empty and there is no terminal.
func binary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runIn(t, nil, 0, args...)
}

// runIn runs the command in process as main does, reading stdin (empty
// when nil), with tables fitted to cols columns (0: no terminal, 100).
// Only the signal tests start the real command in a child process
// (startChild).
func runIn(t *testing.T, stdin io.Reader, cols int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut bytes.Buffer
	ctx := context.Background()
	code = runMain(ctx, ctx, &IOStreams{Out: &out, ErrOut: &errOut, Width: cols, In: stdin}, args)
	return out.String(), errOut.String(), code
}

// runAt runs the command with tables fitted to cols columns and returns
// its stdout, failing the test on an error.
func runAt(t *testing.T, cols int, args ...string) string {
	t.Helper()
	out, stderr, code := runIn(t, nil, cols, args...)
	if code != 0 {
		t.Fatalf("%s at %d: exit %d: %s", strings.Join(args, " "), cols, code, stderr)
	}
	return out
}

// realCommand runs the real command in a child process, with stdin and
// COLUMNS=cols, for what only a process has (its own /dev/stdin).
func realCommand(t *testing.T, stdin io.Reader, cols int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RATELIMIT_LAB_AS_MAIN=1", "COLUMNS="+strconv.Itoa(cols))
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/ratelimit-lab -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s; run with -update if the change is intended\ngot:\n%s", name, path, firstLines(got, 20))
	}
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(string(b), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunBoundaryBurstGolden(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := execute(t, "run", "boundary-burst", "--quiet", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "boundary-burst.summary.json", readFile(t, filepath.Join(dir, "summary.json")))
	golden(t, "boundary-burst.series.csv", readFile(t, filepath.Join(dir, "series.csv")))
	for _, want := range []string{"fixed-window:limit=500,window=1s", "leap-array:limit=500,sample-count=2,interval=1s", "wrote "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "chart.png")); err != nil {
		t.Errorf("no chart.png: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "decisions.csv")); err == nil {
		t.Error("decisions.csv written without --decisions")
	}
}

// The seed scenarios' pinned results, through the whole command.
func TestRunPinsSeedScenarios(t *testing.T) {
	for _, tc := range []struct {
		scenario, algo string
		want           string // in the summary.json of that algorithm
	}{
		{"boundary-burst", "fixed-window", `"passed": 1000`},
		{"boundary-burst", "leap-array:sample-count=2", `"passed": 500`},
		{"boundary-burst", "leap-array:sample-count=1000", `"passed": 500`},
		{"boundary-burst-small", "fixed-window", `"passed": 160`},
		{"boundary-burst-small", "leap-array", `"passed": 100`},
		{"adversarial", "fixed-window", `"max_window_passed": 200`},
		{"adversarial", "leap-array:sample-count=10", `"max_window_passed": 200`},
		{"adversarial", "leap-array:sample-count=1000", `"max_window_passed": 100`},
		{"adversarial", "sliding-log", `"max_window_passed": 100`},
	} {
		dir := t.TempDir()
		if _, _, err := execute(t, "run", tc.scenario, "--algo", tc.algo, "--quiet", "--chart", "none", "--out", dir); err != nil {
			t.Fatalf("%s %s: %v", tc.scenario, tc.algo, err)
		}
		if s := string(readFile(t, filepath.Join(dir, "summary.json"))); !strings.Contains(s, tc.want) {
			t.Errorf("%s with %s: summary lacks %s:\n%s", tc.scenario, tc.algo, tc.want, s)
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	var prev map[string][]byte
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		if _, _, err := execute(t, "run", "spikes", "--duration", "5s", "--decisions", "--quiet", "--out", dir); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, name := range []string{"series.csv", "summary.json", "decisions.csv", "chart.png", "report.html"} {
			files[name] = readFile(t, filepath.Join(dir, name))
		}
		for name, b := range prev {
			if !bytes.Equal(b, files[name]) {
				t.Errorf("%s differs between two identical runs", name)
			}
		}
		prev = files
		entries, _ := os.ReadDir(dir)
		if len(entries) != 5 {
			t.Errorf("out dir holds %d entries, want the 5 files (no temporaries)", len(entries))
		}
	}
	dec := string(prev["decisions.csv"])
	if !strings.HasPrefix(dec, "algorithm,seq,t_ns,verdict,wait_ns,stage,rt_ns,error,priority\n") || !strings.Contains(dec, ",pass,") {
		t.Errorf("decisions.csv: %.200s", dec)
	}
}

func TestRunLimitScalesTraffic(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := execute(t, "run", "steady-overload", "--limit", "1000", "--duration", "2s", "--algo", "sliding-log", "--quiet", "--chart", "none", "--out", dir); err != nil {
		t.Fatal(err)
	}
	s := string(readFile(t, filepath.Join(dir, "summary.json")))
	for _, want := range []string{`"arrived": 4000`, `"passed": 2000`, `sliding-log:limit=1000,`} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %s:\n%s", want, s)
		}
	}
}

func TestRunTrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "my-trace.csv")
	os.WriteFile(trace, []byte("t_ms\n0\n0.5\n1\n1.5\n1000\n999\n2000.25\n"), 0o644)
	out := filepath.Join(dir, "out")
	if _, _, err := execute(t, "run", "--trace", trace, "--limit", "2", "--algo", "fixed-window", "--decisions", "--quiet", "--out", out); err != nil {
		t.Fatal(err)
	}
	dec := string(readFile(t, filepath.Join(out, "decisions.csv")))
	// 999 ms is back in the first window: the counter belongs to the
	// newest window (1 pass so far), so it passes and is counted nowhere.
	want := "algorithm,seq,t_ns,verdict,wait_ns,stage,rt_ns,error,priority\n" +
		"\"fixed-window:limit=2,window=1s\",0,0,pass,0,,,,0\n" +
		"\"fixed-window:limit=2,window=1s\",1,500000,pass,0,,,,0\n" +
		"\"fixed-window:limit=2,window=1s\",2,1000000,block,0,flow,,,0\n" +
		"\"fixed-window:limit=2,window=1s\",3,1500000,block,0,flow,,,0\n" +
		"\"fixed-window:limit=2,window=1s\",4,1000000000,pass,0,,,,0\n" +
		"\"fixed-window:limit=2,window=1s\",5,999000000,pass,0,,,,0\n" +
		"\"fixed-window:limit=2,window=1s\",6,2000250000,pass,0,,,,0\n"
	if dec != want {
		t.Errorf("decisions.csv:\n%s\nwant:\n%s", dec, want)
	}
}

func TestTuneGolden(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := execute(t, "tune", "boundary-burst-small", "--quiet", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	// The table has no measured time per decision; tune.csv has, masked.
	stdout = strings.ReplaceAll(stdout, dir, "OUT")
	golden(t, "tune-boundary-burst-small.txt", []byte(stdout))
	csv := string(readFile(t, filepath.Join(dir, "tune.csv")))
	csv = regexp.MustCompile(`,[0-9.]+\n`).ReplaceAllString(csv, ",(ns)\n")
	golden(t, "tune-boundary-burst-small.csv", []byte(csv))
	if _, err := os.Stat(filepath.Join(dir, "tune.png")); err != nil {
		t.Error(err)
	}
}

func TestListAndVersion(t *testing.T) {
	out, _, err := execute(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"boundary-burst", "clock-rollback", "leap-array (sliding-window)", "sample-count=2", "x/time/rate", "warm-up-rate-limiter"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	out, _, err = execute(t, "version")
	if err != nil || !strings.HasPrefix(out, "ratelimit-lab ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: %q, %v", out, err)
	}
}

// TestBadInput runs every bad input through the real binary: one line on
// stderr naming the problem, a non-zero exit, no stack trace, no files.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	badYAML := write("bad.yaml", "name: x\nlimit: [1\n")
	unknownKey := write("key.yaml", "name: x\nlimit: 10\nduration: 1s\nphases:\n  - type: constant\n    rat: 5\n")
	badTrace := write("bad.csv", "t_ms\n1\nabc\n")
	emptyLine := write("empty.csv", "t_ms\n1\n\n3\n")
	notDir := write("file.txt", "x")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown scenario", []string{"run", "boundry-burst"}, `did you mean "boundary-burst"`},
		{"unknown algorithm", []string{"run", "poisson", "--algo", "leap-arry"}, `did you mean "leap-array"`},
		{"unknown parameter", []string{"run", "poisson", "--algo", "leap-array:samples=4"}, `unknown parameter "samples"`},
		{"bad parameter", []string{"run", "poisson", "--algo", "leap-array:sample-count=3"}, "does not divide interval"},
		{"malformed yaml", []string{"run", badYAML}, "bad.yaml"},
		{"unknown yaml key", []string{"run", unknownKey}, "rat"},
		{"non-numeric trace", []string{"run", "--trace", badTrace, "--limit", "10"}, "bad.csv:3"},
		{"empty trace line", []string{"run", "--trace", emptyLine, "--limit", "10"}, "empty.csv:3"},
		{"missing trace", []string{"run", "--trace", filepath.Join(dir, "nope.csv"), "--limit", "10"}, "nope.csv"},
		{"missing yaml", []string{"run", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"zero limit", []string{"run", "poisson", "--limit", "0"}, "--limit must be a positive"},
		{"negative limit", []string{"run", "poisson", "--limit=-5"}, "--limit must be a positive"},
		{"zero rate", []string{"run", "poisson", "--algo", "token-bucket:rate=0"}, "rate must be a positive"},
		{"unknown flavor", []string{"run", "poisson", "--algo", "warm-up:flavor=python"}, `flavor "python" is not known; allowed: java (Alibaba Sentinel 1.8, the default), go (sentinel-golang)`},
		{"zero bin", []string{"run", "poisson", "--bin", "0s"}, "--bin must be positive"},
		{"negative window", []string{"run", "poisson", "--window=-1s"}, "--window must be positive"},
		{"unwritable out", []string{"run", "poisson", "--out", filepath.Join(notDir, "sub")}, "file.txt"},
		{"zoom outside", []string{"run", "boundary-burst", "--from", "5s"}, "--from 5s is outside the run"},
		{"zoom reversed", []string{"run", "boundary-burst", "--from", "2s", "--to", "1s"}, "--from 2s is after --to 1s"},
		// --to 0s is the flag's default value, but given it is an empty
		// zoom, refused as --from 1s --to 1s is (issue 34).
		{"zoom to 0s", []string{"run", "boundary-burst", "--to", "0s"}, "--to 0s ends the zoom where it starts"},
		{"zoom 0s to 0s", []string{"run", "boundary-burst", "--from", "0s", "--to", "0s"}, "--to 0s ends the zoom where it starts"},
		{"zoom 1s to 1s", []string{"run", "boundary-burst", "--from", "1s", "--to", "1s"}, "--from and --to are both 1s"},
		{"zoom 1s to 0s", []string{"run", "boundary-burst", "--from", "1s", "--to", "0s"}, "--from 1s is after --to 0s"},
		{"zoom to 0s without a chart", []string{"run", "boundary-burst", "--chart", "none", "--to", "0s"}, "--to 0s ends the zoom"},
		{"bad chart", []string{"run", "boundary-burst", "--chart", "pie"}, `chart mode "pie"`},
		{"tune bad counts", []string{"tune", "poisson", "--sample-counts", "0"}, "at least 1"},
		{"nothing to run", []string{"run"}, "name a scenario"},
		{"flag typo", []string{"run", "poisson", "--limt", "5"}, `unknown flag: --limt (did you mean "limit"?)`},
		{"command typo", []string{"rn", "poisson"}, `unknown command "rn" for "ratelimit-lab"; Did you mean this? run`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			args := tc.args
			if !slices.Contains(args, "--out") {
				args = append(args, "--out", out)
			}
			checkBadInput(t, out, tc.want, args...)
		})
	}
}

// checkBadInput runs the real binary with args (and --quiet) and checks
// the contract for bad input: a non-zero exit, one line on stderr that
// starts with "ratelimit-lab: " and contains want, no stack trace, and
// nothing at out.
func checkBadInput(t *testing.T, out, want string, args ...string) {
	t.Helper()
	_, stderr, code := binary(t, append(slices.Clone(args), "--quiet")...)
	if code == 0 {
		t.Fatalf("exit 0, want non-zero; stderr %q", stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ratelimit-lab: ") {
		t.Errorf("stderr is not one line: %q", stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	// A Go stack trace; "goroutine" alone is a word some messages use
	// (--goroutines).
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine 1 [") {
		t.Errorf("stack trace: %q", stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(out)
		t.Errorf("%s exists with %d entries after a failed run", out, len(entries))
	}
}

// TestExitStatusesEndToEnd runs the real command in a child process: the
// other tests run it in process (runMain), so this one holds that the
// process exits with the status runMain returns, with one line on stderr.
func TestExitStatusesEndToEnd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"list"}, 0, ""},
		{[]string{"run", "boundary-burst", "--limt", "5"}, 1, "ratelimit-lab: unknown flag: --limt"},
		{[]string{"run", "boundary-burst", "--quiet", "--chart", "none", "--html=false", "--out", out, "--fail-if", "overshoot>1.5"}, 3, "ratelimit-lab: "},
	} {
		_, stderr, code := realCommand(t, nil, 100, c.args...)
		if code != c.code || !strings.HasPrefix(stderr, c.stderr) || c.code != 0 && strings.Count(stderr, "\n") < 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.stderr)
		}
	}
}
