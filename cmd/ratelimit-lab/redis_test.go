package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
)

func TestRunRedisRace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "race")
	stdout, stderr, code := binary(t, "run", "redis-race", "--decisions", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"redis commands", "peak members", "atomic=false"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	sum := summaryOf(t, out)
	for _, a := range sum.Algorithms {
		for _, k := range []string{"redis_commands", "redis_peak_members", "redis_peak_bytes", "epoch_ms"} {
			if _, ok := a[k]; !ok {
				t.Errorf("%s: no %s", a["algorithm"], k)
			}
		}
		if a["redis_peak_bytes"] != nil {
			t.Errorf("%s: redis_peak_bytes %v on the embedded server, want null", a["algorithm"], a["redis_peak_bytes"])
		}
		if a["epoch_ms"] != 1.6e12 {
			t.Errorf("%s: epoch_ms %v", a["algorithm"], a["epoch_ms"])
		}
	}
	// The non-atomic variant passes more than the limit in a window.
	if a, b := sum.Algorithms[0]["max_window_passed"], sum.Algorithms[1]["max_window_passed"]; a != 100.0 || b.(float64) <= 100 {
		t.Errorf("max_window_passed: atomic %v, non-atomic %v", a, b)
	}
}

func TestRedisBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	notLua := write("bad.lua", "local x = = 1\n")
	returns2 := write("two.lua", "return 2\n")
	fails := write("fails.lua", "return redis.call('NOSUCHCOMMAND')\n")
	empty := write("empty.lua", "")
	stepBack := write("back.csv", "t_ms\n0\n10\n5\n")
	locked := miniredis.RunT(t)
	locked.RequireAuth("secret")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown parameter", []string{"run", "redis-race", "--algo", "redis-sliding-log:atomc=false"}, `unknown parameter "atomc" (did you mean "atomic"?)`},
		{"zero instances", []string{"run", "redis-race", "--algo", "redis-fixed-window:instances=0"}, "instances must be a positive whole number"},
		{"negative rtt", []string{"run", "redis-race", "--algo", "redis-fixed-window:rtt=-1ms"}, "rtt must be between 0"},
		{"negative skew", []string{"run", "redis-race", "--algo", "redis-fixed-window:skew=-1ms"}, "skew must be between 0"},
		{"fractional limit", []string{"run", "redis-race", "--algo", "redis-sliding-log:limit=2.5"}, "limit must be a positive whole number, got 2.5"},
		{"fractional scenario limit", []string{"run", "redis-race", "--limit", "2.5"}, "(the scenario's limit)"},
		{"buckets", []string{"run", "redis-race", "--algo", "redis-bucketed:buckets=7"}, "buckets 7 does not divide window 1s"},
		{"clock steps back", []string{"run", "clock-rollback", "--algo", "redis-sliding-log"}, "the clock steps back"},
		{"trace steps back", []string{"run", "--trace", stepBack, "--limit", "10", "--algo", "redis-fixed-window"}, "the clock steps back at arrival 2"},
		{"missing file", []string{"run", "redis-race", "--algo", "redis-script:file=" + filepath.Join(dir, "nope.lua")}, "cannot read file"},
		{"not lua", []string{"run", "redis-race", "--algo", "redis-script:file=" + notLua}, "is not Lua"},
		{"empty script", []string{"run", "boundary-burst", "--algo", "redis-script:file=" + empty}, "file " + empty + " is empty"},
		{"redis first in a chain", []string{"run", "redis-race", "--algo", "redis-fixed-window+circuit-breaker:strategy=error-count,threshold=1"}, "a redis-* limiter cannot be part of a chain"},
		{"redis later in a chain", []string{"run", "redis-race", "--algo", "leap-array+redis-fixed-window"}, `"redis-fixed-window" is a Redis limiter: it runs on its own`},
		{"returns 2", []string{"run", "redis-race", "--algo", "redis-script:file=" + returns2}, "the script returned 2, not 1 (pass) or 0 (block)"},
		{"script error", []string{"run", "redis-race", "--algo", "redis-script:file=" + fails}, "fails.lua failed on the embedded Redis"},
		{"unreachable", []string{"run", "redis-race", "--redis", "redis://127.0.0.1:1/0"}, "Redis at 127.0.0.1:1 is unreachable"},
		{"bad url", []string{"run", "redis-race", "--redis", "http://x"}, "is not a Redis URL"},
		{"auth refused", []string{"run", "redis-race", "--redis", "redis://:wrong@" + locked.Addr() + "/0"}, "refused the password"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			checkBadInput(t, out, tc.want, append(slices.Clone(tc.args), "--out", out)...)
		})
	}
}

// A password in --redis is never printed: not in the "is not a Redis URL"
// line (url.Parse and go-redis echo the whole URL), not in the
// "unreachable" one.
func TestRedisURLSecretNotPrinted(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct{ url, want string }{
		{"redis://user:s3cret@127.0.0.1:notaport/0", "--redis redis://xxx@127.0.0.1:notaport/0 is not a Redis URL"},
		{"http://user:s3cret@host/0", "--redis http://xxx@host/0 is not a Redis URL"},
		{"redis://user:s3cret@127.0.0.1:1/0", "fix --redis redis://xxx@127.0.0.1:1/0"},
	} {
		out := filepath.Join(dir, fmt.Sprint(i))
		checkBadInput(t, out, c.want, "run", "redis-race", "--redis", c.url, "--out", out)
		if _, stderr, _ := binary(t, "run", "redis-race", "--redis", c.url, "--quiet", "--out", out); strings.Contains(stderr, "s3cret") {
			t.Errorf("%s: the password is printed: %s", c.url, stderr)
		}
	}
}

// --redis on a run without any redis-* limiter is not silently ignored:
// one note on stderr says it is unused (its password redacted); a run
// with one does not say it.
func TestRedisUnusedNote(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		args []string
		note string
	}{
		{[]string{"boundary-burst", "--redis", "redis://:pw@127.0.0.1:1/0"}, "note: --redis redis://xxx@127.0.0.1:1/0 is unused: this run has no redis-* limiter"},
		{[]string{"boundary-burst", "--redis", "lua"}, "note: --redis lua is unused"},
		{[]string{"redis-race", "--redis", "lua"}, ""},
		{[]string{"boundary-burst"}, ""},
		{[]string{"redis-race", "--redis-timeout", "2s"}, "note: --redis-timeout is unused: it bounds a real server's replies"},
		{[]string{"redis-race", "--redis", "lua", "--redis-timeout", "2s"}, "note: --redis-timeout is unused"},
		{[]string{"boundary-burst", "--redis-timeout", "2s"}, "and this run has no redis-* limiter"},
	} {
		out := filepath.Join(dir, fmt.Sprint(i))
		_, stderr, code := binary(t, append(append([]string{"run"}, c.args...), "--quiet", "--chart", "none", "--html=false", "--format", "json", "--out", out)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if got := strings.Count(stderr, "is unused"); c.note == "" && got != 0 || c.note != "" && (got != 1 || !strings.Contains(stderr, c.note)) {
			t.Errorf("%v: stderr %q, want the note %q", c.args, stderr, c.note)
		}
		if strings.Contains(stderr, "pw@") {
			t.Errorf("%v: the password is printed: %s", c.args, stderr)
		}
	}
}
