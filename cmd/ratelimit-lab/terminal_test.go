package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// run100 runs the command with tables fitted to 100 columns and stdin.
func run100(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runIn(t, stdin, 100, args...)
}

// checkFits fails for any line wider than 100 columns (every character the
// tables use is one column wide, so a rune is a column).
func checkFits(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		// The "wrote DIR/{...}" line holds a path, which does not break
		// (the tests' temporary directories are long).
		if n := utf8.RuneCountInString(line); n > 100 && !strings.HasPrefix(line, "wrote ") {
			t.Errorf("%s: a line of %d columns:\n%s", what, n, line)
		}
	}
}

func TestTablesFit100Columns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "boundary-burst", "--chart", "none"},
		{"run", "poisson", "--limit", "100000", "--duration", "2s", "--chart", "none"},
		{"run", "adversarial", "--chart", "none", "--algo", "leap-array:sample-count=1000", "--algo", "leap-array:sample-count=10,interval=2s",
			"--algo", "leap-array:sample-count=10", "--algo", "warm-up-rate-limiter:limit=123456.789,max-queue=0s"},
		// Breakers, chains, Redis, check-to-add and the other references.
		{"run", "slow-downstream", "--chart", "none"},
		{"run", "flapping", "--chart", "none"},
		{"run", "redis-race", "--chart", "none"},
		{"run", "redis-skew", "--chart", "none"},
		{"run", "hot-key", "--chart", "none"},
		{"run", "cold-start", "--chart", "none", "--algo", "guava-warming-up:warm-up=5s", "--algo", "uber",
			"--algo", "decaying-window", "--algo", "leap-array:flavor=go"},
		{"run", "poisson", "--chart", "none", "--algo", "leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5"},
		{"bench", "--duration", "20ms", "--goroutines", "1,8"},
		{"list"},
		{"tune", "poisson"},
		{"tune", "adversarial", "--sample-counts", "1,3,7,10,1000", "--target", "1.05"},
	} {
		name := strings.Join(args, " ")
		// The tables are the point: no report.html to build.
		args = append(args, "--out", filepath.Join(dir, strconv.Itoa(len(name))), "--quiet", "--html=false")
		if args[0] == "list" {
			args = args[:1]
		}
		stdout, stderr, code := run100(t, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		checkFits(t, name, stdout)
		if args[0] != "bench" && strings.Contains(stdout, "ns/decision") {
			t.Errorf("%s: ns/decision in the default table", name)
		}
	}
}

func TestRunTableContextSpecsAndWide(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir)
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(stdout, "\n")
	if lines[0] != "boundary-burst · 0s to 3s (3s) · 1000 arrivals · limit 500/s · bin 50ms · window 1s · seed 1" {
		t.Errorf("context line %q", lines[0])
	}
	for _, want := range []string{
		"│ leap-array N=2       │",
		"  leap-array N=2        leap-array:limit=500,sample-count=2,interval=1s\n",
		"  warm-up-rate-limiter  warm-up-rate-limiter:limit=500,warm-up=10s,cold-factor=3,max-queue=500ms\n",
		"wrote " + filepath.ToSlash(dir) + "/{series.csv,summary.json,report.html}\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Count(stdout, "leap-array:limit=500,sample-count=2,interval=1s") != 1 {
		t.Errorf("the full spec is not listed exactly once:\n%s", stdout)
	}
	wide, _, _ := run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir, "--wide")
	for _, col := range []string{"arrived", "blocked", "limit/1s", "wait p50", "wait max", "state B", "ns/decision"} {
		if !strings.Contains(wide, col) || strings.Contains(stdout, "│ "+col) {
			t.Errorf("--wide should add %q to the table", col)
		}
	}
}

func TestRunFormats(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir, "--format", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	if stdout != string(readFile(t, filepath.Join(dir, "summary.json"))) {
		t.Error("--format json is not summary.json's content")
	}
	if !strings.Contains(stderr, "wrote ") {
		t.Errorf("the wrote line is not on stderr: %q", stderr)
	}
	stdout, _, _ = run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir, "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 8 || recs[0][0] != "scenario" || recs[1][0] != "boundary-burst" {
		t.Errorf("--format csv: %v %v", err, recs)
	}
	stdout, _, _ = run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir, "--format", "md")
	if !strings.Contains(stdout, "| fixed-window | 1000 | 100.0 | 1000 | 2.000 |") || strings.Contains(stdout, "wrote") {
		t.Errorf("--format md:\n%s", stdout)
	}
}

func TestFailIf(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir,
		"--fail-if", "overshoot>1.05", "--fail-if", "pass_pct<15")
	if code != 3 {
		t.Fatalf("exit %d, want 3; stderr %q", code, stderr)
	}
	for _, want := range []string{
		"ratelimit-lab: fixed-window: overshoot is 2.000000, crossing --fail-if 'overshoot>1.05' (fixed-window:limit=500,window=1s)\n",
		"ratelimit-lab: token-bucket: overshoot is 1.198000, crossing --fail-if 'overshoot>1.05'",
		"ratelimit-lab: warm-up-rate-limiter: pass_pct is 11.7000, crossing --fail-if 'pass_pct<15'",
		"ratelimit-lab: 3 --fail-if threshold(s) crossed; the outputs are written\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "wrote ") {
		t.Error("no table and wrote line")
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Error("summary.json not written when a threshold is crossed")
	}
	if _, stderr, code := run100(t, nil, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", dir, "--fail-if", "overshoot>2",
		"--fail-if", "leap-array.overshoot>1.05"); code != 0 {
		t.Errorf("no crossing, exit %d: %s", code, stderr)
	}
	// A field only some runs write is a gate where the rows write it:
	// goodput and breaker_opens in a run with responses.
	if _, stderr, code := run100(t, nil, "run", "slow-downstream", "--quiet", "--chart", "none", "--out", dir, "--fail-if", "goodput<0",
		"--fail-if", "breaker_opens<0"); code != 0 {
		t.Errorf("a field the rows have, no crossing: exit %d: %s", code, stderr)
	}
	// recovery_ms is null for a row whose goodput never came back after
	// the trigger ended: later than any bound, so the gate fails on it.
	var stdout2 string
	stdout2, stderr, code = run100(t, nil, "run", "retry-storm", "--quiet", "--chart", "none", "--html=false", "--out", dir,
		"--algo", "none", "--algo", "concurrency:limit=16", "--fail-if", "recovery_ms>5000")
	// The context line counts the stream's requests, not the first row's
	// attempts (none's retries made it 64420 against concurrency's 26865).
	if first, _, _ := strings.Cut(stdout2, "\n"); !strings.Contains(first, " · 19139 requests (each row adds its retries) · ") {
		t.Errorf("retry-storm's context line: %q", first)
	}
	if code != 3 || !strings.Contains(stderr, "none: recovery_ms is null (never recovered), crossing --fail-if 'recovery_ms>5000'") || strings.Contains(stderr, "concurrency: recovery_ms") {
		t.Errorf("never recovered: exit %d, stderr %q", code, stderr)
	}
}

func TestTuneTargetAndWindow(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "tune", "adversarial", "--quiet", "--out", dir, "--target", "1.05")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(strings.Join(strings.Fields(stdout), " "), "target 1.05: among the sample counts tried, the smallest N with overshoot ≤ 1.05 is N=1000 (overshoot 1.000, bucket 1ms); not tried below it: 8,25,40,125,200,250,500") {
		t.Errorf("no target line:\n%s", stdout)
	}
	_, stderr, code = run100(t, nil, "tune", "adversarial", "--quiet", "--out", dir, "--target", "1.05", "--sample-counts", "2,10")
	if code != 3 || !strings.Contains(stderr, "no sample count tried keeps the overshoot within --target 1.05") {
		t.Errorf("unreachable target: exit %d, %q", code, stderr)
	}
	stdout, _, _ = run100(t, nil, "tune", "boundary-burst-small", "--quiet", "--out", dir, "--interval", "2s", "--sample-counts", "2,3")
	if !strings.Contains(stdout, "window 2s") || !strings.Contains(stdout, "max/2s") || !strings.Contains(stdout, "skipped N=3: does not divide the interval of 2000 ms") {
		t.Errorf("--window does not default to --interval, or the skipped count is not listed:\n%s", stdout)
	}
}

// --trace - and /dev/stdin read the stream once, through a real pipe, and
// give the same results as the file.
func TestTraceFromAPipe(t *testing.T) {
	dir := t.TempDir()
	body := "t_ms\n0\n0.5\n1\n1.5\n1000\n999\n2000.25\n"
	file := filepath.Join(dir, "trace.csv")
	os.WriteFile(file, []byte(body), 0o644)
	args := func(trace, out string) []string {
		return []string{"run", "--trace", trace, "--limit", "2", "--quiet", "--chart", "none", "--decisions", "--out", filepath.Join(dir, out)}
	}
	if _, stderr, code := run100(t, nil, args(file, "file")...); code != 0 {
		t.Fatal(stderr)
	}
	want := readFile(t, filepath.Join(dir, "file", "decisions.csv"))
	for _, trace := range []string{"-", "/dev/stdin"} {
		out := strings.Trim(trace, "/-")
		if out == "" {
			out = "dash"
		}
		// /dev/stdin is the process's own: this one runs the real
		// command with the trace on its stdin.
		stdout, stderr, code := realCommand(t, strings.NewReader(body), 100, args(trace, out)...)
		if code != 0 {
			t.Fatalf("--trace %s: exit %d: %s", trace, code, stderr)
		}
		if got := readFile(t, filepath.Join(dir, out, "decisions.csv")); !bytes.Equal(got, want) {
			t.Errorf("--trace %s: decisions differ from the file's", trace)
		}
		if !strings.Contains(stdout, "1 arrival") && !strings.Contains(stdout, "7 arrivals") {
			t.Errorf("--trace %s: context line:\n%s", trace, stdout)
		}
		if !strings.Contains(stdout, "note: the trace steps back in time once, by 1ms") {
			t.Errorf("--trace %s: no clock-step note:\n%s", trace, stdout)
		}
	}
	_, stderr, code := run100(t, strings.NewReader("t_ms\n1\nabc\n"), "run", "--trace", "-", "--limit", "2", "--quiet", "--out", filepath.Join(dir, "bad"))
	if code == 0 || !strings.Contains(stderr, "ratelimit-lab: stdin:3: ") {
		t.Errorf("a bad piped trace: exit %d, %q", code, stderr)
	}
}

// A trace near the last replayable time decides exactly as the same trace
// near 0: nothing wraps.
func TestTraceNearTheLastTime(t *testing.T) {
	dir := t.TempDir()
	near0 := "t_ms\n0\n0.5\n1\n400\n999\n1000\n1000.5\n1800\n1999.999999\n"
	// The same arrivals 6999999998000 ms later: a whole number of seconds,
	// so every bucket and window edge falls at the same place.
	far := "t_ms\n"
	for _, l := range strings.Split(strings.TrimSpace(near0), "\n")[1:] {
		whole, frac, _ := strings.Cut(l, ".")
		n, _ := strconv.ParseInt(whole, 10, 64)
		s := strconv.FormatInt(6999999998000+n, 10)
		if frac != "" {
			s += "." + frac
		}
		far += s + "\n"
	}
	verdicts := func(body, out string) string {
		p := filepath.Join(dir, out+".csv")
		os.WriteFile(p, []byte(body), 0o644)
		_, stderr, code := run100(t, nil, "run", "--trace", p, "--limit", "3", "--quiet", "--chart", "none", "--decisions", "--out", filepath.Join(dir, out))
		if code != 0 {
			t.Fatalf("%s: %s", out, stderr)
		}
		var b strings.Builder
		for _, line := range strings.Split(string(readFile(t, filepath.Join(dir, out, "decisions.csv"))), "\n") {
			f := strings.Split(line, ",")
			if len(f) > 3 {
				b.WriteString(strings.Join(f[len(f)-2:], ",") + "\n") // verdict, wait
			}
		}
		return b.String()
	}
	if a, b := verdicts(near0, "near0"), verdicts(far, "far"); a != b {
		t.Errorf("decisions differ near the last time:\n%s\nvs near 0:\n%s", b, a)
	}
	p := filepath.Join(dir, "past.csv")
	os.WriteFile(p, []byte("t_ms\n7000000000001\n"), 0o644)
	_, stderr, code := run100(t, nil, "run", "--trace", p, "--limit", "3", "--quiet", "--out", filepath.Join(dir, "past"))
	if code == 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "is past the last time the lab can replay") {
		t.Errorf("a time past the bound: exit %d, %q", code, stderr)
	}
}

func TestWarningsUnderTheTable(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "run", "poisson", "--limit", "3000", "--duration", "2s", "--quiet", "--chart", "none", "--out", dir,
		"--algo", "leaky-bucket:max-queue=0s", "--algo", "warm-up-rate-limiter")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"warning: leaky-bucket with max-queue=0s: Sentinel's rule loader drops", "warning: warm-up-rate-limiter at 3000/s limits nothing once warm"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q under the table:\n%s", want, stdout)
		}
	}
	checkFits(t, "warnings", stdout)
}

// Messages of their own, through the real binary: one line, non-zero exit.
func TestOwnMessages(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "boundary-burst", "--from", "2s", "--to", "1s"}, "--from 2s is after --to 1s; --from is where the zoom starts, so swap them (--from 1s --to 2s)"},
		{[]string{"run", "poisson", "--seed", "-1"}, `--seed "-1": --seed takes a whole number of 0 or more`},
		{[]string{"tune", "poisson", "--sample-counts", "abc"}, `--sample-counts "abc": --sample-counts takes whole numbers separated by commas`},
		{[]string{"tune", "poisson", "--sample-counts", "3,7"}, "no sample count in --sample-counts 3,7 divides the interval of 1000 ms"},
		{[]string{"run", "poisson", "--algo", "fixed-window", "--algo", "fixed-window"}, `algorithm "fixed-window" is given twice`},
		{[]string{"run", "poisson", "--algo", "fixed-window", "--algo", "fixed-window:window=1s"}, `algorithms "fixed-window" and "fixed-window:window=1s" are the same limiter`},
		{[]string{"run", "poisson", "--format", "xml"}, `--format "xml" is unknown; use one of table, json, csv, md`},
		{[]string{"run", "poisson", "--fail-if", "overshot>1"}, `unknown field "overshot" (did you mean "overshoot"?); fields: rate, arrived`},
		{[]string{"run", "poisson", "--window", "9000h"}, "--window 9000h0m0s is longer than 8760h0m0s"},
		{[]string{"run", "poisson", "--fail-if", "leap-aray.overshoot>1"}, `no algorithm is named "leap-aray" (did you mean "leap-array"?)`},
		{[]string{"tune", "poisson", "--target", "0"}, "--target must be a positive overshoot"},
		// A trace has no limit: the message names --limit, not a default
		// spec nobody wrote (nor tune's own leap-array).
		{[]string{"run", "--trace", "../../scenarios/examples/calls.csv"}, "the trace ../../scenarios/examples/calls.csv gives no limit: pass --limit N, the requests per second the limiters allow (for example --limit 100)"},
		{[]string{"tune", "--trace", "../../scenarios/examples/calls.csv"}, "the trace ../../scenarios/examples/calls.csv gives no limit: pass --limit N"},
		{[]string{"run", "--trace", "../../scenarios/examples/calls.csv", "--algo", "fixed-window"}, "fixed-window needs a limit: add limit=N to the spec"},
		// A valid kind the run does not have would pass the gate silently.
		{[]string{"run", "poisson", "--fail-if", "circuit-breaker.breaker_opens>0"}, `--fail-if "circuit-breaker.breaker_opens>0": no limiter of this run has a circuit-breaker stage (rows: fixed-window, leap-array,`},
		{[]string{"run", "slow-downstream", "--fail-if", "sliding-log.passed>0"}, "no limiter of this run has a sliding-log stage (rows: leap-array, leaky-bucket, leap-array+circuit-breaker, leaky-bucket+circuit-breaker)"},
		// So would a field that no row of the run writes, bare or NAME.field.
		{[]string{"run", "boundary-burst", "--fail-if", "goodput<1"}, `--fail-if "goodput<1": no limiter of this run has a value for goodput in summary.json (rows: fixed-window, leap-array,`},
		{[]string{"run", "boundary-burst", "--fail-if", "keys_hurt>0"}, `--fail-if "keys_hurt>0": no limiter of this run has a value for keys_hurt`},
		{[]string{"run", "boundary-burst", "--fail-if", "token-bucket.goodput<1"}, "no limiter of this run has a value for goodput in summary.json (rows: token-bucket; a null is not tested), so it could never fail"},
		// A field null in every tested row could never fail either.
		{[]string{"run", "boundary-burst", "--algo", "fixed-window", "--fail-if", "smooth_bound<0"}, "no limiter of this run has a value for smooth_bound in summary.json (rows: fixed-window; a null is not tested)"},
		{[]string{"run", "boundary-burst", "--top", "-1"}, "--top must be 0 or more, got -1"},
	} {
		out := filepath.Join(dir, strings.Join(tc.args[:2], "-"))
		_, stderr, code := run100(t, nil, append(tc.args, "--quiet", "--out", out)...)
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s exists", tc.args, out)
		}
	}
	stdout, _, code := run100(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(stdout, "ratelimit-lab ") || !strings.Contains(stdout, " go1.") {
		t.Errorf("--version: %d %q", code, stdout)
	}
}

// Chains and breakers: every stage in the row name, the opens and errors in
// the default table, "-" where a breaker alone has no limit, and the Redis
// figures under the same short names as the main table.
func TestRunTableBreakersAndRedis(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "run", "slow-downstream", "--quiet", "--chart", "none", "--out", dir)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"│ leap-array N=2+circuit-breaker │", "│ leaky-bucket+circuit-breaker   │", " opens │ errors │",
		"    leap-array:limit=100,sample-count=2,interval=1s+circuit-breaker:strategy=slow-ratio,\n    max-rt=200ms,"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("slow-downstream lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, code = run100(t, nil, "run", "poisson", "--quiet", "--chart", "none", "--out", dir, "--wide",
		"--algo", "circuit-breaker:strategy=error-count,threshold=5")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "│ circuit-breaker │    9008 │   9008 │       0 │  100.0 │    196 │        - │         - │") {
		t.Errorf("a breaker alone:\n%s", stdout)
	}
	stdout, stderr, code = run100(t, nil, "run", "redis-race", "--quiet", "--chart", "none", "--out", dir)
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.Count(stdout, "│ redis-sliding-log atomic=false │") != 2 || strings.Contains(stdout, "│ redis-sliding-log:") {
		t.Errorf("redis-race: the figures table should use the short names:\n%s", stdout)
	}
}

// --fail-if tests the breaker, response and Redis fields of summary.json
// too, for the rows that have them.
func TestFailIfBreakerAndRedisFields(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := run100(t, nil, "run", "flapping", "--quiet", "--chart", "none", "--out", dir,
		"--fail-if", "breaker_opens>20", "--fail-if", "rt_p99_ms>1000")
	if code != 3 || !strings.Contains(stderr, "circuit-breaker #1: breaker_opens is 25, crossing --fail-if 'breaker_opens>20'") ||
		strings.Count(stderr, "crossing") != 2 {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	// NAME. matches every row with a stage of that kind: a chain is named
	// after its first stage, but its breaker is tested too.
	for _, tc := range []struct {
		cond    string
		crossed []string
	}{
		{"circuit-breaker.breaker_opens>0", []string{"leap-array N=2+circuit-breaker: breaker_opens is 2", "leaky-bucket+circuit-breaker: breaker_opens is 2"}},
		{"leaky-bucket.passed>0", []string{"leaky-bucket: passed is 3181", "leaky-bucket+circuit-breaker: passed is 2290"}},
	} {
		_, stderr, code = run100(t, nil, "run", "slow-downstream", "--quiet", "--chart", "none", "--out", dir, "--fail-if", tc.cond)
		if code != 3 || strings.Count(stderr, "crossing") != len(tc.crossed) {
			t.Errorf("%s: exit %d:\n%s", tc.cond, code, stderr)
		}
		for _, want := range tc.crossed {
			if !strings.Contains(stderr, "ratelimit-lab: "+want+", crossing") {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.cond, want, stderr)
			}
		}
	}
	_, stderr, code = run100(t, nil, "run", "redis-race", "--quiet", "--chart", "none", "--out", dir, "--fail-if", "redis_commands>2000")
	if code != 3 || !strings.Contains(stderr, "redis-sliding-log atomic=false: redis_commands is 3254") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// At 80 and 60 columns too, every line fits: tables drop their last
// columns (and say so) and, with words longer than a column (list's
// references), break them; context lines, notes and specs wrap.
func TestTablesFitNarrowColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, cols := range []int{80, 60} {
		for _, args := range [][]string{
			{"list"},
			{"tune", "poisson"},
			{"tune", "poisson", "--sample-counts", "3,10", "--target", "2"},
			{"run", "slow-downstream", "--chart", "none"},
			{"run", "redis-race", "--chart", "none"},
			{"run", "flapping", "--chart", "none"},
			{"run", "--trace", "../../scenarios/examples/access.log", "--key", "ip", "--limit", "2", "--algo", "token-bucket:key=ip", "--chart", "none"},
			{"bench", "--duration", "10ms", "--goroutines", "1,8"},
			// The notes on stderr: the access log's, --bin's, --redis's.
			{"run", "--trace", "../../scenarios/examples/access.log", "--limit", "2", "--chart", "none", "--bin", "1us", "--redis", "redis://localhost:1"},
		} {
			name := strings.Join(args, " ") + " at " + strconv.Itoa(cols)
			if args[0] != "list" {
				// The tables and notes are the point: no report.html.
				args = append(args, "--out", filepath.Join(dir, strconv.Itoa(len(name))), "--quiet", "--html=false")
			}
			out, errOut, code := runIn(t, nil, cols, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, errOut)
			}
			for _, line := range strings.Split(out+errOut, "\n") {
				// The output directory is the test's own temporary one.
				if n := utf8.RuneCountInString(line); n > cols && !strings.HasPrefix(line, "wrote ") {
					t.Errorf("%s: a line of %d columns:\n%s", name, n, line)
				}
			}
		}
	}
}

// A breaker on a scenario without a downstream gets a note saying why it
// never opens (on stderr with --format json, stdout holding only JSON).
func TestBreakerWithoutDownstreamNote(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, nil, "run", "poisson", "--duration", "2s", "--quiet", "--chart", "none", "--out", dir,
		"--algo", "leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5")
	if code != 0 || !strings.Contains(stdout, "note: no circuit-breaker opened: this run has no downstream, so no call fails and a call is slow\n") {
		t.Errorf("exit %d: %s\n%s", code, stderr, stdout)
	}
	checkFits(t, "breaker note", stdout)
	stdout, stderr, _ = run100(t, nil, "run", "poisson", "--duration", "2s", "--quiet", "--chart", "none", "--out", dir, "--format", "json",
		"--algo", "leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5")
	if strings.Contains(stdout, "note:") || !strings.Contains(stderr, "note: no circuit-breaker opened: this run has no downstream") {
		t.Errorf("json: the note is not on stderr alone:\n%s\n%s", stdout, stderr)
	}
	stdout, _, _ = run100(t, nil, "run", "flapping", "--quiet", "--chart", "none", "--out", dir)
	if strings.Contains(stdout, "no downstream") {
		t.Errorf("flapping has a downstream:\n%s", stdout)
	}
	// A trace with recorded responses has calls that fail and are slow: the
	// note gives its figures against the breaker's thresholds, never "no
	// downstream".
	for _, tc := range []struct {
		trace, algo, want string
	}{
		{"../../scenarios/examples/calls.csv", "circuit-breaker:strategy=slow-ratio,max-rt=1000ms",
			"note: no circuit-breaker opened on the trace's recorded responses (rt_ms, error): circuit-breaker:\n  no call was slower than max-rt=1s (the slowest of 9 calls took 200ms)\n"},
		{"../../scenarios/examples/calls.csv", "circuit-breaker:strategy=error-ratio,threshold=0.5",
			"circuit-breaker: 1\n  call failed in 9 calls, never a ratio of errors above threshold=0.5 with at least min-requests=5\n  in one stat-interval=1s\n"},
		{"../../scenarios/examples/calls.csv", "leaky-bucket+circuit-breaker:strategy=error-count,threshold=2",
			"leaky-bucket+circuit-breaker: 1 call failed in 9 calls, never more errors than threshold=2"},
		{"-", "circuit-breaker:strategy=error-count,threshold=3",
			"(rt_ms): circuit-breaker: the\n  trace has no error column, so none of 2 calls failed; add one (t_ms,rt_ms,error)\n"},
	} {
		stdout, stderr, code := run100(t, strings.NewReader("t_ms,rt_ms\n0,5\n1,5\n"), "run", "--trace", tc.trace, "--limit", "100",
			"--quiet", "--chart", "none", "--out", dir, "--algo", tc.algo)
		if code != 0 || strings.Contains(stdout, "no downstream") || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s %s: exit %d, %s\nstdout lacks %q:\n%s", tc.trace, tc.algo, code, stderr, tc.want, stdout)
		}
		checkFits(t, "trace breaker note", stdout)
	}
	// A queue's wait alone can trip a slow-ratio breaker: no note then.
	stdout, _, _ = run100(t, nil, "run", "steady-overload", "--quiet", "--chart", "none", "--out", dir,
		"--algo", "leaky-bucket+circuit-breaker:strategy=slow-ratio,max-rt=200ms,threshold=0.5")
	if strings.Contains(stdout, "no downstream") || !strings.Contains(stdout, "│     1 │") {
		t.Errorf("a breaker that opened got the note:\n%s", stdout)
	}
}

// The summary's words and numbers at the edges: one arrival and one
// limiter in the singular, a span under a second in milliseconds, a limit
// of 1e300 as 1e+300 in the table, the specs and the --fail-if lines.
func TestSummaryAtTheEdges(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run100(t, strings.NewReader("t_ms\n0\n5\n"), "run", "--trace", "-", "--limit", "10", "--algo", "fixed-window",
		"--quiet", "--chart", "none", "--out", dir)
	if code != 0 || !strings.HasPrefix(stdout, "stdin · 0s to 5ms (5ms) · 2 arrivals · limit 10/s · bin 50ms · window 1s\n") {
		t.Errorf("5 ms trace: exit %d %s\n%s", code, stderr, stdout)
	}
	_, stderr, code = run100(t, strings.NewReader("t_ms\n0\n"), "run", "--trace", "-", "--limit", "10", "--algo", "fixed-window",
		"--decisions", "--quiet", "--chart", "none", "--out", dir)
	if code != 0 || !strings.Contains(stderr, "(1 arrival × 1 limiter), written in place\n") {
		t.Errorf("one arrival, one limiter: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code = run100(t, nil, "run", "poisson", "--duration", "1s", "--algo", "guava-bursty:rate=1e300", "--algo", "guava-bursty:rate=1e-300",
		"--quiet", "--chart", "none", "--out", dir, "--wide", "--fail-if", "passed<1")
	for _, want := range []string{"guava-bursty rate=1e+300", "│   1e+300 │", "│   1e-300 │", "guava-bursty:rate=1e+300,max-burst=1s,timeout=0s\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("rate=1e300: stdout lacks %q:\n%s", want, stdout)
		}
	}
	if code != 0 || strings.Contains(stdout+stderr, "00000000000000000000") {
		t.Errorf("rate=1e300: exit %d, a long number:\n%s\n%s", code, stdout, stderr)
	}
}
