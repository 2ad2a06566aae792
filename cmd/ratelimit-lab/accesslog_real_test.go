package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const realLogs = "../../scenarios/testdata/logs/"

// A merged log out of time order: without --sort, Spring Cloud Gateway's
// Redis script row (which needs a clock that never goes back) never sees
// it: the reader's one-line error names the line and --sort. With --sort
// the same row runs.
func TestRunMergedLogNeedsSort(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--trace", realLogs + "merged.log", "--key", "ip", "--limit", "2", "--algo", "redis-spring-gateway"}
	checkBadInput(t, filepath.Join(dir, "a"), "merged.log:4: this line's time (2024-12-01T10:00:00.25Z) is 760ms before line 3's (2024-12-01T10:00:01.01Z): the log is not in time order (merged logs, or a slow request logged after later ones); replay it in time order with --sort",
		append(args, "--out", filepath.Join(dir, "a"))...)
	out := filepath.Join(dir, "b")
	_, stderr, code := binary(t, append(args, "--sort", "--chart", "none", "--quiet", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(strings.ReplaceAll(stderr, "\n  ", " "), "note: "+realLogs+"merged.log: replayed in time order (equal times in line order); 1 line was earlier than the line before") {
		t.Errorf("stderr:\n%s", stderr)
	}
	log := readLogSummary(t, out)
	if log["sorted"] != true || log["out_of_order_lines"] != 1.0 {
		t.Errorf("summary.json log %v", log)
	}
}

// --bad-lines skip: the cut last line is skipped, named in the notes and
// in summary.json's "log" object.
func TestRunSkipBadLines(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := binary(t, "run", "--trace", realLogs+"truncated.log", "--key", "ip", "--limit", "2", "--algo", "token-bucket",
		"--bad-lines", "skip", "--chart", "none", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	flat := strings.ReplaceAll(stderr, "\n  ", " ")
	if !strings.Contains(flat, "note: "+realLogs+"truncated.log: skipped 1 line that did not parse (--bad-lines skip): "+realLogs+"truncated.log:3: the last line has no line break and does not parse, so it was cut") {
		t.Errorf("stderr:\n%s", stderr)
	}
	log := readLogSummary(t, out)
	first, _ := log["first_bad_lines"].([]any)
	if log["bad_lines"] != 1.0 || len(first) != 1 || !strings.HasPrefix(first[0].(string), realLogs+"truncated.log:3: ") {
		t.Errorf("summary.json log %v", log)
	}
	// The default fails, naming the line and the option.
	checkBadInput(t, filepath.Join(t.TempDir(), "o"), "truncated.log:3: the last line has no line break and does not parse",
		"run", "--trace", realLogs+"truncated.log", "--limit", "2", "--out", filepath.Join(t.TempDir(), "o"))
	checkBadInput(t, filepath.Join(t.TempDir(), "o"), `--bad-lines "drop" is unknown; use fail`,
		"run", "--trace", realLogs+"truncated.log", "--bad-lines", "drop", "--limit", "2")
	checkBadInput(t, filepath.Join(t.TempDir(), "o"), "--sort applies to --trace",
		"run", "poisson", "--sort")
	checkBadInput(t, filepath.Join(t.TempDir(), "o"), "--time applies to --trace",
		"run", "poisson", "--time", "start")
}

// Caddy's log: a nested key, the time field and the skipped non-request
// entries are said; a --key field empty on every request is a warning
// with the count (issue 33), and the run goes on.
func TestRunCaddyLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := binary(t, "run", "--trace", realLogs+"caddy.json", "--key", "request.client_ip,user_id", "--limit", "2",
		"--algo", "token-bucket:key=request.client_ip", "--chart", "none", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	flat := strings.ReplaceAll(stderr, "\n  ", " ")
	for _, want := range []string{
		`warning: --key user_id is empty or "-" on 3 of 3 requests (100%): those requests have no key of their own; check the field name, or key on another field`,
		"note: " + realLogs + "caddy.json: times from the field ts (the time each entry was written)",
		"note: " + realLogs + "caddy.json: skipped 2 entries that are not requests",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	log := readLogSummary(t, out)
	if log["non_requests"] != 2.0 || log["time_field"] != "ts" || log["empty_keys"].(map[string]any)["user_id"] != 3.0 {
		t.Errorf("summary.json log %v", log)
	}
}

// A key holding an escape sequence is quoted in the top-keys table, and
// keys.csv keeps it raw.
func TestTopKeysEscaped(t *testing.T) {
	dir := t.TempDir()
	line := ` - - [01/Dec/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "x"` + "\n"
	evil := "\x1b[2Jevil"
	p := filepath.Join(dir, "evil.log")
	os.WriteFile(p, []byte(evil+line+evil+line+"1.2.3.4"+line), 0o600)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := binary(t, "run", "--trace", p, "--key", "ip", "--limit", "1", "--algo", "token-bucket:key=ip,rate=1,burst=1",
		"--chart", "none", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "\x1b") || !strings.Contains(stdout, `"\x1b[2Jevil"  1 rejected of 2`) {
		t.Errorf("stdout:\n%q", stdout)
	}
	csv, _ := os.ReadFile(filepath.Join(out, "keys.csv"))
	if !strings.Contains(string(csv), evil) {
		t.Errorf("keys.csv lost the raw key:\n%q", csv)
	}
}

func readLogSummary(t *testing.T, out string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	log, _ := s["log"].(map[string]any)
	if log == nil {
		t.Fatalf("summary.json has no log object:\n%s", b)
	}
	return log
}
