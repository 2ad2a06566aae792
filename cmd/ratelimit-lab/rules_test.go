package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ratelimit-lab/ratelimit-lab/internal/labtest"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

func TestRulesExplainCommand(t *testing.T) {
	out, _, err := execute(t, "rules", "explain", "../../examples/rules/sentinel-flow-rules.json", "../../examples/rules/kong.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sentinel-flow-rules.json (sentinel): 3 row(s)",
		"spec:  leaky-bucket:limit=20,max-queue=500ms",
		"kong.yaml (kong): 1 row(s)",
		"spec:  kong:second=5,minute=100,policy=local,key=ip",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}

func TestRulesBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	bad := filepath.Join(dir, "bad.json")
	// A count that is no number fails the whole document in Sentinel's
	// JSON parser too (a negative count only drops that rule: inactive).
	os.WriteFile(bad, []byte("[\n {\"resource\": \"a\",\n  \"count\": \"ten\"}\n]\n"), 0o644)
	checkBadInput(t, out, `bad.json:3: FlowRule field count: "ten" is not a number`, "run", "poisson", "--rules", bad, "--out", out)
	checkBadInput(t, out, "--rules-format \"xml\" is unknown", "run", "poisson", "--rules", bad, "--rules-format", "xml", "--out", out)
	checkBadInput(t, out, "cannot read the rules file", "run", "poisson", "--rules", filepath.Join(dir, "missing.json"), "--out", out)
	// A THREAD grade rule needs response times, which poisson lacks.
	thread := filepath.Join(dir, "thread.json")
	os.WriteFile(thread, []byte(`[{"resource": "pay", "grade": 0, "count": 5}]`), 0o644)
	checkBadInput(t, out, `rule "pay"`, "run", "poisson", "--rules", thread, "--out", out)
	// A param rule reads key column key2 (paramIdx 1).
	param := filepath.Join(dir, "param.json")
	os.WriteFile(param, []byte(`{"paramFlowRules": [{"resource": "q", "paramIdx": 1, "count": 5}]}`), 0o644)
	checkBadInput(t, out, `reads the trace column "key2", which these arrivals lack (key columns: none); add a key2 column`, "run", "poisson", "--rules", param, "--out", out)
	// A zone keyed on the client address reads ip: "an ip column".
	perIP := filepath.Join(dir, "nginx.conf")
	os.WriteFile(perIP, []byte("limit_req_zone $binary_remote_addr zone=a:10m rate=10r/s;\nserver { location / { limit_req zone=a; } }\n"), 0o644)
	checkBadInput(t, out, `reads the trace column "ip", which these arrivals lack (key columns: none); add an ip column to the trace`, "run", "poisson", "--rules", perIP, "--out", out)
	if _, stderr, code := binary(t, "rules", "explain", bad); code == 0 || !strings.Contains(stderr, "bad.json:3:") {
		t.Errorf("rules explain on a bad file: exit %d, stderr %q", code, stderr)
	}
}

func TestTuneRules(t *testing.T) {
	dir := t.TempDir()
	out, stderr, err := execute(t, "tune", "poisson", "--rules", "../../examples/rules/sentinel-flow-rules.json", "--sample-counts", "1,2", "--quiet", "--out", filepath.Join(dir, "t"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, `tuning rule "GET:/api/orders"`) || !strings.Contains(out, "leap-array at 100/s") {
		t.Errorf("tune --rules did not tune GET:/api/orders at its count 100:\n%s\n%s", stderr, out)
	}
	checkBadInput(t, filepath.Join(dir, "u"), "pick one of: GET:/api/orders", "tune", "poisson", "--rules", "../../examples/rules/sentinel-flow-rules.json", "--rule", "nope", "--out", filepath.Join(dir, "u"))
	checkBadInput(t, filepath.Join(dir, "u"), "no rule in --rules is a QPS flow rule", "tune", "poisson", "--rules", "../../examples/rules/kong.yaml", "--out", filepath.Join(dir, "u"))
	// A resource's chain (param flow + flow + degrade rules): tune takes
	// its FlowRule stage, at its count, and says what it leaves out.
	out, stderr, err = execute(t, "tune", "poisson", "--rules", "../../examples/rules/sentinel-rules.json", "--sample-counts", "1,2", "--quiet", "--out", filepath.Join(dir, "c"))
	if err != nil {
		t.Fatal(err)
	}
	if msg := strings.Join(strings.Fields(stderr), " "); !strings.Contains(msg, `tuning rule "getUser"`) || !strings.Contains(msg, "(leap-array:limit=200) alone, without the resource's sentinel-param and circuit-breaker stages") ||
		!strings.Contains(out, "leap-array at 200/s") {
		t.Errorf("tune --rules did not tune getUser's flow rule at its count 200:\n%s\n%s", stderr, out)
	}
	// Two QPS flow rules on one resource leave no one stage to tune.
	two := filepath.Join(dir, "two.json")
	os.WriteFile(two, []byte(`[{"resource": "r", "count": 10}, {"resource": "r", "count": 20}]`), 0o644)
	checkBadInput(t, filepath.Join(dir, "u"), "as the one such rule of a resource", "tune", "poisson", "--rules", two, "--out", filepath.Join(dir, "u"))
}

// explainedSpec matches a spec line of `rules explain`.
var explainedSpec = regexp.MustCompile(`(?m)^  spec:  (.*)$`)

// TestExplainedSpecsRun: every spec `rules explain` prints, for every
// example and for generated files that cover each translator's stages
// together (ingress-nginx's limit-rps, limit-rpm and limit-connections in
// every combination; Sentinel's param, THREAD flow, degrade and system
// rules on one resource), is one `run --algo` accepts and runs.
func TestExplainedSpecsRun(t *testing.T) {
	t.Parallel()
	trace := labtest.RulesTrace(t)
	dir := t.TempDir()
	files, _ := filepath.Glob("../../examples/rules/*")
	var ing strings.Builder
	for mask := 1; mask < 8; mask++ {
		fmt.Fprintf(&ing, "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: gen%d\n  annotations:\n", mask)
		for i, a := range []string{"limit-rps: \"4\"", "limit-rpm: \"120\"", "limit-connections: \"2\""} {
			if mask&(1<<i) != 0 {
				fmt.Fprintf(&ing, "    nginx.ingress.kubernetes.io/%s\n", a)
			}
		}
		fmt.Fprintf(&ing, "    nginx.ingress.kubernetes.io/limit-burst-multiplier: \"%d\"\n", mask)
	}
	gen := map[string]string{
		"gen-ingress.yaml": ing.String(),
		"gen-sentinel.json": `{"flowRules": [{"resource": "a", "grade": 0, "count": 2}, {"resource": "b", "grade": 1, "count": 5}],
 "degradeRules": [{"resource": "a", "grade": 0, "count": 50, "timeWindow": 1, "slowRatioThreshold": 0.5}],
 "systemRules": [{"maxThread": 10}, {"avgRt": 30}],
 "paramFlowRules": [{"resource": "a", "paramIdx": 0, "count": 3}]}`,
		"gen-sentinel-go.yaml": "isolation:\n  - resource: a\n    metricType: Concurrency\n    threshold: 3\nflow:\n  - resource: a\n    threshold: 10\n    statIntervalInMs: 1000\ncircuitbreaker:\n  - resource: a\n    strategy: ErrorCount\n    retryTimeoutMs: 1000\n    minRequestAmount: 5\n    statIntervalMs: 1000\n    threshold: 3\n",
	}
	for name, body := range gen {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, f := range files {
		if filepath.Base(f) == "limits.conf" {
			continue // included by nginx.conf
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, stderr, code := binary(t, "rules", "explain", f)
			if code != 0 {
				t.Fatalf("rules explain: exit %d: %s", code, stderr)
			}
			specs := explainedSpec.FindAllStringSubmatch(out, -1)
			if len(specs) == 0 {
				t.Fatalf("no spec in:\n%s", out)
			}
			args := []string{"run", "--trace", trace, "--limit", "100", "--chart", "none", "--quiet", "--out", filepath.Join(t.TempDir(), "o")}
			for _, s := range specs {
				args = append(args, "--algo", s[1])
			}
			if _, stderr, code := binary(t, args...); code != 0 {
				t.Fatalf("run refuses what rules explain printed: exit %d: %s", code, stderr)
			}
		})
	}
}

// An nginx include fragment (limit_req_zone lines alone, as limits.conf,
// which nginx.conf includes): explain prints its zones and names the file
// to give instead, exit 0; --rules refuses it in one line saying the same.
func TestExplainNginxFragment(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "zones.conf")
	os.WriteFile(lone, []byte("limit_req_zone $binary_remote_addr zone=one:10m rate=5r/s;\n"), 0o644)
	for _, c := range []struct {
		file string
		want []string
	}{
		{"../../examples/rules/limits.conf", []string{
			"../../examples/rules/limits.conf (nginx): 0 row(s), 3 limit_req_zone and no limit_req",
			"zone perip  [../../examples/rules/limits.conf:1]\n  rule:  limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s\n  key:   trace column ip",
			"zone perserver  [../../examples/rules/limits.conf:2]",
			"key:   one state for every request (key=*)",
			"give the file that includes it instead (../../examples/rules/nginx.conf)",
		}},
		{lone, []string{"zone one  [", "give the nginx.conf that includes it and has the limit_req lines instead"}},
	} {
		out, stderr, code := binary(t, "rules", "explain", c.file)
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", c.file, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: explain lacks %q:\n%s", c.file, w, out)
			}
		}
	}
	// The fragment is printed once, in its turn, and not at all when a
	// later file fails (no half-written explanation).
	if out, _, _ := binary(t, "rules", "explain", "../../examples/rules/limits.conf"); strings.Contains(out, "(): ") {
		t.Errorf("a second, empty header for the fragment:\n%s", out)
	}
	if out, _, code := binary(t, "rules", "explain", "../../examples/rules/limits.conf", filepath.Join(dir, "missing.json")); code != 1 || out != "" {
		t.Errorf("fragment then a missing file: exit %d, stdout %q", code, out)
	}
	o := filepath.Join(dir, "out")
	checkBadInput(t, o, "limits.conf: defines 3 limit_req_zone (perip, perserver, login) and no limit_req, so no rule: it is an include fragment; give the file that includes it instead (../../examples/rules/nginx.conf)",
		"run", "poisson", "--rules", "../../examples/rules/limits.conf", "--out", o)
}

// A dry-run rule that makes the decisions of an enforcing one shares its
// run row (the lab runs each limiter once), and the row's label says which
// location is the dry run.
func TestRuleRowsDryRunLabel(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	os.WriteFile(conf, []byte("http {\nlimit_req_zone $binary_remote_addr zone=a:10m rate=10r/s;\nserver { server_name s;\n location / { limit_req zone=a burst=5; }\n location = /x { limit_req zone=a burst=5; limit_req_dry_run on; }\n location /y { limit_req zone=a; limit_req_dry_run on; }\n}\n}\n"), 0o644)
	rs, err := rules.Load(conf, "")
	if err != nil {
		t.Fatal(err)
	}
	_, labels := lab.RuleSpecs(rs)
	if got, want := strings.Join(labels, "|"), "s location /, s location = /x (dry run)|s location /y (dry run)"; got != want {
		t.Errorf("row labels %q, want %q", got, want)
	}
}

// An error's suggested fix is never the command that just failed: a file
// with no rule of its format, explained or run, says where the lab looks.
func TestRulesNoRuleFixIsNotTheCommand(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "application.yml")
	os.WriteFile(f, []byte("resilience4j.ratelimiter:\n  configs:\n    default:\n      limit-for-period: 5\n"), 0o644)
	for _, args := range [][]string{
		{"rules", "explain", f},
		{"rules", "explain", "--rules-format", "resilience4j", f},
		{"run", "poisson", "--rules", f, "--out", filepath.Join(dir, "out")},
	} {
		_, stderr, code := binary(t, args...)
		if code == 0 || !strings.Contains(stderr, "no rate-limiting rule found in this resilience4j file, where the lab reads resilience4j.ratelimiter.instances") || strings.Contains(stderr, "rules explain") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// rules explain reads and checks every file before it prints anything: a
// bad file after a good one leaves stdout empty, with the one-line error.
func TestRulesExplainAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "neg.json")
	os.WriteFile(bad, []byte("[\n {\"resource\": \"a\",\n  \"count\": \"ten\"}\n]\n"), 0o644) // a count Sentinel cannot read refuses the file
	for _, args := range [][]string{
		{"rules", "explain", "../../examples/rules/kong.yaml", bad},
		{"rules", "explain", "../../examples/rules/kong.yaml", "../../examples/rules/nginx.conf", filepath.Join(dir, "missing.yaml")},
	} {
		stdout, stderr, code := binary(t, args...)
		if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ratelimit-lab: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit ≠ 0, no stdout, one line", args[2:], code, stdout, stderr)
		}
	}
}

// rules explain fits COLUMNS: at 60 and 80 columns no line of any example's
// explanation is wider, and a spec broken over lines joins back to the
// spec the rule becomes.
func TestRulesExplainFitsColumns(t *testing.T) {
	files, _ := filepath.Glob("../../examples/rules/*")
	var args []string
	var specs []string
	for _, f := range files {
		if filepath.Base(f) == "limits.conf" {
			continue // a fragment nginx.conf includes
		}
		rs, err := rules.Load(f, "")
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
		for _, r := range rs {
			specs = append(specs, r.Spec)
		}
	}
	for _, cols := range []int{60, 80} {
		out := runAt(t, cols, append([]string{"rules", "explain"}, args...)...)
		var got []string
		lines := strings.Split(out, "\n")
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if n := utf8.RuneCountInString(l); n > cols {
				t.Errorf("COLUMNS=%d: a line of %d columns: %q", cols, n, l)
			}
			if s, ok := strings.CutPrefix(l, "  spec:  "); ok {
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "         ") {
					i++
					s += strings.TrimSpace(lines[i])
				}
				got = append(got, s)
			}
		}
		if strings.Join(got, "\n") != strings.Join(specs, "\n") {
			t.Errorf("COLUMNS=%d: the specs read back from explain differ:\n%s\nwant\n%s", cols, strings.Join(got, "\n"), strings.Join(specs, "\n"))
		}
	}
}
