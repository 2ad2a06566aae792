package main

import (
	encodingcsv "encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run without arrivals (its only phase starts after its end) says so
// once with the reason; pass_ratio is 0/0, so null in summary.json and
// --format csv, "-" in the table and Markdown; a --fail-if on it neither
// passes nor fails: one line per row and exit status 4, the files written
// (before: pass_ratio 0.0 and exit 3).
func TestEmptyRunHasUndefinedRatios(t *testing.T) {
	dir := t.TempDir()
	yaml := filepath.Join(dir, "late.yaml")
	os.WriteFile(yaml, []byte("limit: 100\nduration: 3s\nphases:\n  - {type: constant, rate: 50, start: 5s}\n"), 0o644)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := run100(t, nil, "run", yaml, "--algo", "fixed-window", "--algo", "sliding-window", "--wide", "--quiet", "--out", out, "--fail-if", "pass_pct<50")
	if code != exitUndefined {
		t.Fatalf("exit %d, want %d: %s", code, exitUndefined, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	note := `note: the run has no arrivals (phase 1 (constant) starts at 5s, at or after the end of the run (duration 3s), so it sends nothing)`
	if strings.Count(flat, "no arrivals") != 1 || !strings.Contains(flat, note) {
		t.Errorf("the note, once:\n%s", stdout)
	}
	if !strings.Contains(stderr, "fixed-window: pass_pct is undefined (0/0: arrived is 0), so --fail-if 'pass_pct<50' neither passes nor fails") ||
		!strings.Contains(stderr, "leap-array N=2: pass_pct is undefined") {
		t.Errorf("stderr %q", stderr)
	}
	js, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if strings.Count(string(js), `"pass_ratio": null`) != 2 {
		t.Errorf("summary.json:\n%s", js)
	}
	// The table's pass % reads "-": the row's cells after passed, blocked.
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "│ fixed-window") && !strings.Contains(line, "│      - │") {
			t.Errorf("pass %% is not -: %s", line)
		}
	}
	csv, _, _ := run100(t, nil, "run", yaml, "--algo", "fixed-window", "--quiet", "--out", out, "--format", "csv")
	recs, err := encodingcsv.NewReader(strings.NewReader(csv)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("csv %v:\n%s", err, csv)
	}
	head, row := recs[0], recs[1]
	for i, h := range head {
		if h == "pass_ratio" && row[i] != "" {
			t.Errorf("csv pass_ratio %q, want empty", row[i])
		}
	}
	md, _, _ := run100(t, nil, "run", yaml, "--algo", "fixed-window", "--quiet", "--out", out, "--format", "md")
	if !strings.Contains(md, "| fixed-window | 0 | - |") {
		t.Errorf("md:\n%s", md)
	}
	// A gate on a field that is defined still passes (exit 0) or fails
	// (exit 3) as before; crossing outweighs undefined.
	if _, stderr, code := run100(t, nil, "run", yaml, "--algo", "fixed-window", "--quiet", "--out", out, "--fail-if", "overshoot>1"); code != 0 {
		t.Errorf("overshoot gate: exit %d %s", code, stderr)
	}
	if _, stderr, code := run100(t, nil, "run", yaml, "--algo", "fixed-window", "--quiet", "--out", out, "--fail-if", "pass_pct<50", "--fail-if", "overshoot<1"); code != exitThreshold {
		t.Errorf("crossed and undefined: exit %d %s", code, stderr)
	}
}

// --limit that rounds a burst's count to 0 is refused with the reason, as
// the YAML refuses count: 0 (before: a run of 0 arrivals).
func TestLimitRoundingABurstToNothingIsRefused(t *testing.T) {
	dir := t.TempDir()
	yaml := filepath.Join(dir, "b.yaml")
	os.WriteFile(yaml, []byte("limit: 100\nduration: 3s\nphases:\n  - {type: burst, count: 3, from: 1s}\n"), 0o644)
	_, stderr, code := run100(t, nil, "run", yaml, "--limit", "10", "--quiet", "--out", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(stderr, "its count 3 becomes 0.3, which rounds to 0; a burst needs at least one arrival: give --limit 16.67 or more") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a refused run wrote its directory")
	}
}

// --limit on a closed loop scales its capacity with its traffic, or
// refuses when servers would not be whole (before: the downstream kept 8
// servers, so retry-storm --limit 800 ran at 1.6 times its capacity).
func TestLimitOnClosedLoopScalesCapacity(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := run100(t, nil, "run", "retry-storm", "--limit", "420", "--algo", "none", "--duration", "2s", "--quiet", "--out", filepath.Join(dir, "a"))
	if code != 1 || !strings.Contains(stderr, `scenario "retry-storm": --limit scales the downstream's capacity with the traffic (×1.05), but servers: 8 would become 8.4 servers`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	// At twice the limit, twice the servers: in the 5 s before the
	// slowdown no call times out, as at the scenario's own limit (with 8
	// servers at 640/s, 1.6 times the capacity, the queue grew past the
	// 1 s timeout within 2 s).
	for _, limit := range []string{"400", "800"} {
		out := filepath.Join(dir, limit)
		if _, stderr, code := run100(t, nil, "run", "retry-storm", "--limit", limit, "--algo", "none", "--duration", "5s", "--quiet", "--out", out); code != 0 {
			t.Fatal(stderr)
		}
		js, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if !strings.Contains(string(js), `"timeouts": 0,`) {
			t.Errorf("--limit %s: timeouts before the slowdown:\n%s", limit, js)
		}
	}
}
