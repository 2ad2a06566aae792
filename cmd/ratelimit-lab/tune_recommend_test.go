package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The two walkthroughs of docs/recommend.md, as the page runs them.
func TestRecommendWalkthroughs(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 114 configurations")
	}
	cases := []struct {
		name string
		args []string
		want []string
		// src is the user's rules file; emitted its --emit copy, which
		// differs from src in exactly the lines changed (old -> new).
		src, emitted string
		changed      map[string]string
	}{
		{"nginx", []string{"tune", "--trace", "../../examples/recommend/access.log", "--key", "ip", "--rules", "../../examples/recommend/nginx.conf",
			"--vary", "rate=1..10", "--vary", "burst=0..30/5", "--goal", "keys_hurt<=3", "--goal", "min passed", "--emit", "nginx"},
			[]string{"· 70\nof 70 points run", "│ 13 *  │    2 │    25 │         3 │   2995 │         yes │",
				"recommended rate=2,burst=25: the smallest passed (2995) among the 35 of 70 points run that meet\nkeys_hurt<=3",
				"spec: nginx-limit-req:rate=2r/s,burst=25,nodelay=true,zone=10m,key=ip"},
			"../../examples/recommend/nginx.conf", "recommended-nginx.conf",
			map[string]string{"rate=5r/s;": "rate=2r/s;", "burst=10 nodelay;": "burst=25 nodelay;"}},
		{"sentinel", []string{"tune", "slow-downstream", "--rules", "../../examples/rules/sentinel-flow-rules.json", "--rule", "POST:/api/checkout",
			"--vary", "count=20..120/10", "--vary", "maxQueueingTimeMs=0,250,500,1000", "--goal", "wait_p99<=300ms", "--goal", "max goodput", "--emit", "sentinel"},
			[]string{"│ 26 *  │    80 │               250 │  247.660544 │    2288 │         yes │",
				"recommended count=80,maxQueueingTimeMs=250: the largest goodput (2288)",
				"spec: leaky-bucket:limit=80,max-queue=250ms"},
			"../../examples/rules/sentinel-flow-rules.json", "recommended-sentinel-flow-rules.json",
			map[string]string{`"count": 20,`: `"count": 80,`, `"maxQueueingTimeMs": 500,`: `"maxQueueingTimeMs": 250,`}},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "out")
		stdout, stderr, code := runIn(t, nil, 100, append(c.args, "--out", out)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", c.name, w, stdout)
			}
		}
		for _, f := range []string{"tune.csv", "tune.png", "report.html", "points/001/summary.json"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil && !(c.name == "sentinel" && f == "points/001/summary.json") {
				t.Errorf("%s: %v", c.name, err)
			}
		}
		if !strings.Contains(stdout, "recommended configuration, in the product's syntax: "+filepath.ToSlash(filepath.Join(out, c.emitted))) {
			t.Errorf("%s: stdout does not name the --emit file %s:\n%s", c.name, c.emitted, stdout)
		}
		checkEmitted(t, c.name, c.src, filepath.Join(out, c.emitted), c.changed)
		html, _ := os.ReadFile(filepath.Join(out, "report.html"))
		if !strings.Contains(string(html), `points/013/report.html`) && c.name == "nginx" {
			t.Errorf("nginx: report.html does not link the recommended point's run")
		}
	}
}

// checkEmitted: emitted is src with only the lines holding the tuned
// values changed; with changed given, exactly those replacements.
func checkEmitted(t *testing.T, name, src, emitted string, changed map[string]string) {
	t.Helper()
	a, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(emitted)
	if err != nil {
		t.Fatalf("%s: --emit wrote no file: %v", name, err)
	}
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	if len(al) != len(bl) {
		t.Fatalf("%s: %s has %d lines, the user's file %d", name, emitted, len(bl), len(al))
	}
	diffs := 0
	for i := range al {
		if al[i] == bl[i] {
			continue
		}
		diffs++
		if changed == nil {
			continue
		}
		ok := false
		for old, nw := range changed {
			if strings.Replace(al[i], old, nw, 1) == bl[i] && old != nw {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s: line %d changed beyond the tuned values:\n- %s\n+ %s", name, i+1, al[i], bl[i])
		}
	}
	if diffs == 0 || (changed != nil && diffs != len(changed)) {
		t.Errorf("%s: %d lines changed, want %d", name, diffs, max(len(changed), 1))
	}
}

func TestRecommendCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "poisson", "--vary", "burst=1..4", "--goal", "max passed"}, "needs the spec to vary: give --algo SPEC"},
		{[]string{"tune", "poisson", "--algo", "token-bucket", "--vary", "burst=1..4"}, "needs at least one --goal"},
		{[]string{"tune", "poisson", "--algo", "token-bucket", "--vary", "burst=4..1", "--goal", "max passed"}, "runs down"},
		{[]string{"tune", "poisson", "--algo", "token-bucket", "--vary", "burst=1..4", "--goal", "max pased"}, `did you mean "passed"?`},
		{[]string{"tune", "poisson", "--algo", "token-bucket", "--vary", "burst=1..4", "--goal", "max passed", "--emit", "bogus"}, "--emit bogus: not a format the lab writes"},
		{[]string{"tune", "poisson", "--emit", "nginx"}, "--emit writes a recommendation: give the parameters to vary with --vary"},
	} {
		_, stderr, code := runIn(t, nil, 0, append(c.args, "--out", filepath.Join(t.TempDir(), "o"), "--duration", "1s")...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// users_hurt as a share is over distinct_users: the example log's two
// users are both hurt at every burst, so 100% is met and 50% is not.
func TestRecommendUsersHurtShare(t *testing.T) {
	args := []string{"tune", "--trace", "../../scenarios/examples/access.log", "--key", "ip", "--user", "user",
		"--algo", "nginx-limit-req:rate=1r/s,key=key", "--vary", "burst=0..10", "--goal", "min passed"}
	stdout, stderr, code := runIn(t, nil, 100, append(args, "--goal", "users_hurt<=100%", "--out", filepath.Join(t.TempDir(), "a"))...)
	if code != 0 || !strings.Contains(stdout, "recommended burst=0: the smallest passed (14)") {
		t.Errorf("users_hurt<=100%%: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runIn(t, nil, 100, append(args, "--goal", "users_hurt<=50%", "--out", filepath.Join(t.TempDir(), "b"))...)
	if code != 3 || !strings.Contains(stderr, "no point tried meets users_hurt<=50%") {
		t.Errorf("users_hurt<=50%%: exit %d, want 3\n%s%s", code, stdout, stderr)
	}
}

// Several --rule: each rule tuned under its heading; exit 3 naming the
// rules whose goals no point meets; without --vary, one line.
func TestRecommendSeveralRulesCommand(t *testing.T) {
	rules := "../../examples/rules/sentinel-flow-rules.json"
	args := []string{"tune", "poisson", "--duration", "1s", "--rules", rules, "--rule", "POST:/api/checkout", "--rule", "GET:/api/search",
		"--vary", "count=1,1000", "--goal", "pass_pct>=99", "--out", filepath.Join(t.TempDir(), "o")}
	stdout, stderr, code := runIn(t, nil, 100, args...)
	if code != 0 || !strings.Contains(stdout, `== rule "POST:/api/checkout"`) || !strings.Contains(stdout, `== rule "GET:/api/search"`) || strings.Contains(stdout, "GET:/api/orders") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	args[len(args)-3] = "pass_pct>=100.5"
	args[len(args)-1] = filepath.Join(t.TempDir(), "p")
	_, stderr, code = runIn(t, nil, 100, args...)
	if code != 3 || !strings.Contains(stderr, `no point tried meets the goals for 2 of 2 rules: "POST:/api/checkout", "GET:/api/search"`) {
		t.Errorf("goals missed: exit %d, want 3\n%s", code, stderr)
	}
	_, stderr, code = runIn(t, nil, 0, "tune", "poisson", "--duration", "1s", "--rules", rules, "--rule", "all", "--out", filepath.Join(t.TempDir(), "q"))
	if code != 1 || !strings.Contains(stderr, "the sample-count tune takes one --rule") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("without --vary: exit %d, stderr %q", code, stderr)
	}
}
