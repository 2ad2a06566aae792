package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example access log runs end to end: the notes go to stderr, the
// summary and files as for any trace.
func TestRunAccessLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := binary(t, "run", "--trace", "../../scenarios/examples/access.log", "--key", "ip", "--user", "user",
		"--limit", "5", "--algo", "token-bucket", "--chart", "none", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantNotes := []string{
		"note: ../../scenarios/examples/access.log: combined log, times shifted so its earliest line (2024-12-01T11:00:00Z) is at 0\n",
		"note: ../../scenarios/examples/access.log has whole-second timestamps",
	}
	// The notes wrap to the terminal; read them as one line each.
	stderr = strings.ReplaceAll(stderr, "\n  ", " ")
	for _, n := range wantNotes {
		if !strings.Contains(stderr, n) {
			t.Errorf("stderr lacks %q:\n%s", n, stderr)
		}
	}
	if !strings.Contains(stdout, "access · 0s to 4s") || !strings.Contains(stdout, "48 arrivals") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Error(err)
	}
}

func TestAccessLogBadInput(t *testing.T) {
	dir := t.TempDir()
	log := "../../scenarios/examples/access.log"
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	bad := filepath.Join(dir, "bad.log")
	os.WriteFile(bad, []byte(lines[0]+lines[1]+"203.0.113.7 - - [01/Dec/2024:10:00:00 -0100] GET / 200 1\n"), 0o600)
	jsonl := filepath.Join(dir, "a.jsonl")
	os.WriteFile(jsonl, []byte(`{"time": 1700000000.5, "ip": "a"}`+"\n"), 0o600)
	garbage := filepath.Join(dir, "garbage.log")
	os.WriteFile(garbage, []byte("hello world\nfoo\n"), 0o600)
	empty := filepath.Join(dir, "empty.log")
	os.WriteFile(empty, nil, 0o600)
	binaryLog := filepath.Join(dir, "binary.log")
	os.WriteFile(binaryLog, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		// --key (or --user) says the file is a log: a first line that is
		// not one gets the log parser's error, not the CSV one.
		{"garbage with key", []string{"run", "--trace", garbage, "--key", "ip", "--limit", "5"}, "garbage.log:1: no [time] after the client address, ident and user fields"},
		{"garbage with user", []string{"tune", "--trace", garbage, "--user", "user", "--limit", "5"}, "garbage.log:1: no [time] after"},
		{"garbage with time field", []string{"run", "--trace", garbage, "--time-field", "ts", "--limit", "5"}, "garbage.log:1: the line is not a JSON object"},
		{"garbage without key", []string{"run", "--trace", garbage, "--limit", "5"}, `garbage.log:1: the header is "hello world", expected t_ms`},
		{"empty with key", []string{"run", "--trace", empty, "--key", "ip", "--limit", "5"}, "empty.log: the log has no requests"},
		{"binary with key", []string{"run", "--trace", binaryLog, "--key", "ip", "--limit", "5"}, "binary.log:1: no [time] after"},
		{"bad line", []string{"run", "--trace", bad, "--key", "ip", "--limit", "5"}, `bad.log:3: no quoted "request" after the [time]`},
		{"unknown key", []string{"run", "--trace", log, "--key", "host", "--limit", "5"}, `--key "host" is not a field of the combined format; use one of ip, user, method, path, status, vhost, agent, referer`},
		{"unknown json key", []string{"run", "--trace", jsonl, "--key", "host", "--limit", "5"}, `--key "host" is a field of no line of ` + jsonl + `; use one of the fields the first line has: time, ip`},
		{"unknown format", []string{"run", "--trace", log, "--trace-format", "w3c", "--limit", "5"}, `--trace-format "w3c" is unknown`},
		{"key without trace", []string{"run", "poisson", "--key", "ip"}, "--key applies to --trace"},
		{"format without trace", []string{"run", "poisson", "--trace-format", "jsonl"}, "--trace-format applies to --trace"},
		{"key on csv", []string{"run", "--trace", "../../scenarios/examples/calls.csv", "--key", "ip", "--limit", "5"}, "--key applies to access logs; a CSV trace names its key columns in its header"},
		{"tune unknown user", []string{"tune", "--trace", log, "--user", "who", "--limit", "5"}, `--user "who" is not a field of the combined format`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			checkBadInput(t, out, tc.want, append(tc.args, "--out", out)...)
		})
	}
}

// A run whose limits all come from --rules has no scenario limit: the
// context line (terminal, report.html, and report's page rebuilt from the
// files) says so instead of "limit 0/s", and summary.json's limit is null.
func TestRunWithoutScenarioLimit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stdout, stderr, code := binary(t, "run", "--trace", "../../scenarios/examples/access.log", "--key", "ip",
		"--rules", "../../examples/rules/nginx.conf", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page := filepath.Join(dir, "again.html")
	if _, stderr, code := binary(t, "report", out, "--out", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for name, text := range map[string]string{"stdout": stdout, "report.html": string(readFile(t, filepath.Join(out, "report.html"))),
		"report's page": string(readFile(t, page))} {
		if !strings.Contains(text, "limits per row") || strings.Contains(text, "limit 0/s") {
			t.Errorf("%s: the context line lacks %q or says limit 0/s", name, "limits per row")
		}
	}
	if sum := string(readFile(t, filepath.Join(out, "summary.json"))); !strings.Contains(sum, `"limit": null,`) {
		t.Errorf("summary.json's limit is not null:\n%s", firstLines([]byte(sum), 3))
	}
}
