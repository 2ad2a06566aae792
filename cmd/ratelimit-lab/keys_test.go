package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A keyed CSV trace through nginx-limit-req, sentinel-param and a per-key
// token bucket: keys.csv, the per-key fields of summary.json, the
// keys_hurt column and the top keys under the table.
func TestRunPerKey(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "keyed.csv")
	var b strings.Builder
	b.WriteString("t_ms,ip,user\n")
	// 10.0.0.1 sends 10 requests in 100 ms (over 2r/s); office sends one
	// request every 600 ms from 4 users (never over); 10.0.0.3 sends one.
	for i := range 10 {
		b.WriteString("" + itoa(i*10) + ",10.0.0.1,alice\n")
	}
	for i := range 8 {
		b.WriteString(itoa(200+i*600) + ",office," + []string{"u1", "u2", "u3", "u4"}[i%4] + "\n")
	}
	b.WriteString("5000,10.0.0.3,\n")
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := binary(t, "run", "--trace", trace, "--chart", "none", "--quiet", "--out", out,
		"--algo", "nginx-limit-req:rate=2r/s,burst=1,key=ip",
		"--algo", "sentinel-param:count=2,key=ip,capacity=1",
		"--algo", "token-bucket:rate=2,burst=1,key=ip")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"per key, nginx-limit-req", "top 1 key by rejections", "10.0.0.1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	keys, err := os.ReadFile(filepath.Join(out, "keys.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// nginx: 10.0.0.1 passes t=0 (new) and t=10 (excess 980 ≤ 1000,
	// delayed 490 ms); the other 8 are over the burst.
	if !strings.Contains(string(keys), "\"nginx-limit-req:rate=2r/s,burst=1,delay=0,zone=10m,key=ip\",10.0.0.1,10,2,8,1,490,20,0,true\n") {
		t.Errorf("keys.csv:\n%s", keys)
	}
	sum := summaryOf(t, out)
	sp := sum.Algorithms[1]
	// sentinel-param with a one-value cache: office and 10.0.0.1 evict
	// each other; users: alice is hurt and over, nobody else is hurt.
	if sp["distinct_keys"] != 3.0 || sp["users_hurt"] != 1.0 || sp["innocent_users_hurt"] != 0.0 || sp["evictions"].(float64) < 1 {
		t.Errorf("sentinel-param summary: %v", sp)
	}
	if _, ok := sp["extra_passes_from_eviction"].(float64); !ok {
		t.Errorf("extra_passes_from_eviction: %v", sp["extra_passes_from_eviction"])
	}
	series, _ := os.ReadFile(filepath.Join(out, "series.csv"))
	if !strings.HasPrefix(string(series), "algorithm,bin_start_ms,arrived,passed,blocked,wait_mean_ms,wait_max_ms,keys_hurt\n") {
		t.Errorf("series.csv header: %q", strings.SplitN(string(series), "\n", 2)[0])
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPerKeyBadInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "keyed.csv")
	if err := os.WriteFile(trace, []byte("t_ms,ip\n0,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		want string
		args []string
	}{
		{`key column "route" is not in keyed; its key columns are: ip`, []string{"run", "--trace", trace, "--algo", "nginx-limit-req:rate=1r/s,key=route"}},
		{"has no key columns", []string{"run", "poisson", "--algo", "sentinel-param:count=5"}},
		{"zone 31k is too small", []string{"run", "--trace", trace, "--algo", "nginx-limit-req:rate=1r/s,zone=31k"}},
		{"needs a rate", []string{"run", "--trace", trace, "--algo", "nginx-limit-req:burst=5"}},
		{"capacity bounds a per-key table", []string{"run", "--trace", trace, "--algo", "token-bucket:rate=5,capacity=10"}},
	} {
		t.Run(tc.want, func(t *testing.T) {
			checkBadInput(t, out, tc.want, append(tc.args, "--out", out)...)
		})
	}
}

// An adaptive limiter with key= frees its key's slot at each completion:
// ten sequential calls of one address, 10 ms apart and 1 ms long, all
// pass concurrency:limit=1,key=ip, as they pass it without key=.
func TestKeyedAdaptiveSequentialCalls(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("t_ms,ip,rt_ms,error\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "%d,1.2.3.4,1,0\n", 10*i)
	}
	trace := filepath.Join(dir, "one.csv")
	os.WriteFile(trace, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "out")
	specs := []string{"concurrency:limit=1,key=ip", "concurrency:limit=1", "sentinel-system:max-thread=0,key=ip", "aimd:initial=1,min=1,key=ip"}
	args := []string{"run", "--trace", trace, "--chart", "none", "--quiet", "--out", out}
	for _, s := range specs {
		args = append(args, "--algo", s)
	}
	if _, stderr, code := binary(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum := summaryOf(t, out)
	for i, a := range sum.Algorithms {
		if a["passed"] != 10.0 {
			t.Errorf("%s passed %v of 10", specs[i], a["passed"])
		}
	}
}

// extra_passes_from_eviction of a chain compares it with the whole chain
// unbounded, not with its first stage alone: on the example access log a
// chain whose tables never fill gains nothing, and one whose second table
// holds one path gains exactly its passes minus those of the same chain
// with capacity=unbounded everywhere, run beside it.
func TestChainExtraPassesAgainstChainTwin(t *testing.T) {
	out := t.TempDir()
	const (
		fits    = "sentinel-param:count=3+sentinel-param:count=1,key=path"
		tiny    = "sentinel-param:count=3+sentinel-param:count=1,key=path,capacity=1"
		neither = "sentinel-param:count=3,capacity=unbounded+sentinel-param:count=1,key=path,capacity=unbounded"
	)
	_, stderr, code := binary(t, "run", "--trace", filepath.Join("..", "..", "scenarios", "examples", "access.log"),
		"--key", "ip", "--key", "path", "--chart", "none", "--quiet", "--out", out,
		"--algo", fits, "--algo", tiny, "--algo", neither)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum := summaryOf(t, out)
	f, ti, un := sum.Algorithms[0], sum.Algorithms[1], sum.Algorithms[2]
	if f["evictions"] != 0.0 || f["extra_passes_from_eviction"] != 0.0 {
		t.Errorf("%s: evictions %v, extra passes %v, want 0 and 0", fits, f["evictions"], f["extra_passes_from_eviction"])
	}
	want := ti["passed"].(float64) - un["passed"].(float64)
	if ti["evictions"].(float64) == 0 || want == 0 || ti["extra_passes_from_eviction"] != want {
		t.Errorf("%s: evictions %v, extra passes %v, want > 0 and %v (passed %v, unbounded chain %v)",
			tiny, ti["evictions"], ti["extra_passes_from_eviction"], want, ti["passed"], un["passed"])
	}
}

// A redis-* spec with key=COLUMN decides per key and is accounted per key
// like every other: its keys.csv rows, distinct_keys and keys_hurt in
// summary.json, the per-key block under the table, and no overshoot
// against one shared limit (it has none).
func TestRedisKeyedRowsArePerKey(t *testing.T) {
	for _, spec := range []string{"redis-cell:max-burst=1,count=2,key=key", "redis-fixed-window:limit=2,window=1s,key=key"} {
		out := t.TempDir()
		stdout, stderr, code := binary(t, "run", "--trace", filepath.Join("..", "..", "scenarios", "examples", "access.log"),
			"--key", "ip", "--chart", "none", "--out", out, "--algo", spec)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", spec, code, stderr)
		}
		if !strings.Contains(stdout, "per key, "+strings.SplitN(spec, ":", 2)[0]) || !strings.Contains(stdout, "keys by rejections") {
			t.Errorf("%s: no per-key block:\n%s", spec, stdout)
		}
		keys, _ := os.ReadFile(filepath.Join(out, "keys.csv"))
		rows, hurt := 0, 0
		for _, line := range strings.Split(strings.TrimSpace(string(keys)), "\n")[1:] {
			f := strings.Split(line[strings.LastIndex(line, "\"")+2:], ",")
			rows++
			if f[3] != "0" { // rejected
				hurt++
			}
		}
		sum := summaryOf(t, out)
		a := sum.Algorithms[0]
		if rows == 0 || hurt == 0 || a["distinct_keys"] != float64(rows) || a["keys_hurt"] != float64(hurt) {
			t.Errorf("%s: keys.csv has %d keys, %d hurt; summary distinct_keys %v, keys_hurt %v", spec, rows, hurt, a["distinct_keys"], a["keys_hurt"])
		}
		if a["overshoot"] != nil || a["window_limit"] != nil {
			t.Errorf("%s: overshoot %v against window_limit %v, want null (no shared limit)", spec, a["overshoot"], a["window_limit"])
		}
	}
}

// Kong's window limit is the tightest of its limits at the run's window:
// second=100,minute=5000 allows 100 in a second (not the minute's 83.3)
// and 5000 in a minute, so its overshoot on gateway-over-limit is measured
// against those.
func TestKongWindowLimitIsTightestAtWindow(t *testing.T) {
	for _, c := range []struct {
		window string
		limit  float64
	}{{"1s", 100}, {"1m", 5000}, {"10s", 1000}} {
		out := t.TempDir()
		_, stderr, code := binary(t, "run", "gateway-over-limit", "--window", c.window, "--chart", "none", "--quiet", "--out", out,
			"--algo", "kong:second=100,minute=5000")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		sum := summaryOf(t, out)
		a := sum.Algorithms[0]
		max := a["max_window_passed"].(float64)
		if a["window_limit"] != c.limit {
			t.Errorf("--window %s: window_limit %v, want %v", c.window, a["window_limit"], c.limit)
		}
		if got, want := a["overshoot"].(float64), max/c.limit; got < want-0.0005 || got > want+0.0005 {
			t.Errorf("--window %s: overshoot %v, want %v / %v", c.window, got, max, c.limit)
		}
	}
}

// summaryRows is summary.json's algorithms in dir, each as its fields.
type summaryRows struct {
	Algorithms []map[string]any `json:"algorithms"`
}

// summaryOf reads dir's summary.json for a test.
func summaryOf(t *testing.T, dir string) summaryRows {
	t.Helper()
	var sum summaryRows
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}
