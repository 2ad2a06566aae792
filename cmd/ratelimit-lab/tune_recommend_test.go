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
	}{
		{"nginx", []string{"tune", "--trace", "../../examples/recommend/access.log", "--key", "ip", "--rules", "../../examples/recommend/nginx.conf",
			"--vary", "rate=1..10", "--vary", "burst=0..30/5", "--goal", "keys_hurt<=3", "--goal", "min passed"},
			[]string{"· 70\nof 70 points run", "│ 13 *  │    2 │    25 │         3 │   2995 │         yes │",
				"recommended rate=2,burst=25: the smallest passed (2995) among the 35 of 70 points run that meet\nkeys_hurt<=3",
				"spec: nginx-limit-req:rate=2r/s,burst=25,nodelay=true,zone=10m,key=ip"}},
		{"sentinel", []string{"tune", "slow-downstream", "--rules", "../../examples/rules/sentinel-flow-rules.json", "--rule", "POST:/api/checkout",
			"--vary", "count=20..120/10", "--vary", "maxQueueingTimeMs=0,250,500,1000", "--goal", "wait_p99<=300ms", "--goal", "max goodput"},
			[]string{"│ 26 *  │    80 │               250 │  247.660544 │    2288 │         yes │",
				"recommended count=80,maxQueueingTimeMs=250: the largest goodput (2288)",
				"spec: leaky-bucket:limit=80,max-queue=250ms"}},
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
		html, _ := os.ReadFile(filepath.Join(out, "report.html"))
		if !strings.Contains(string(html), `points/013/report.html`) && c.name == "nginx" {
			t.Errorf("nginx: report.html does not link the recommended point's run")
		}
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
	} {
		_, stderr, code := runIn(t, nil, 0, append(c.args, "--out", filepath.Join(t.TempDir(), "o"), "--duration", "1s")...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, stderr, c.want)
		}
	}
}
