package lab_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/internal/labtest"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// gatewayRun replays trace (CSV text) through the rules file body (in
// format) and returns the result.
func gatewayRun(t *testing.T, trace, body, name string) *lab.Result {
	t.Helper()
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.csv")
	rf := filepath.Join(dir, name)
	if err := os.WriteFile(tr, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Trace: tr, Limit: 100, LimitSet: true}
	opts.Rules.Files = []string{rf}
	return replay(t, opts).res
}

// passedBy maps each row's label to its passes.
func passedBy(res *lab.Result) map[string]int64 {
	out := map[string]int64{}
	for _, a := range res.Algorithms {
		out[a.Label] = a.Passed
	}
	return out
}

// envoyproxy/ratelimit, decision by decision: a wildcard value is one
// counter per matching value, share_threshold one for all of them,
// requests_per_unit 0 a ban, and a parent's shadow_mode does not reach
// its child (src/config/config_impl.go, src/limiter/cache_key.go).
func TestEnvoyRatelimitDecisions(t *testing.T) {
	const trace = "t_ms,path\n0,/api/a\n1,/api/b\n2,/api/a\n3,/api/c\n"
	const cfg = `domain: edge
descriptors:
  - key: path
    value: /api/*
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: route
    value: /api/*
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: client_id
    value: scraper
    rate_limit: {unit: minute, requests_per_unit: 0}
  - key: generic_key
    value: checkout
    shadow_mode: true
    descriptors:
      - key: plan
        value: free
        rate_limit: {unit: minute, requests_per_unit: 1}
`
	got := passedBy(gatewayRun(t, trace, cfg, "ratelimit.yaml"))
	want := map[string]int64{
		"edge.path_/api/*":                    3, // a, b and c each their own counter: the second a is over
		"edge.route_/api/*":                   2, // one shared counter of 2
		"edge.client_id_scraper":              0, // banned
		"edge.generic_key_checkout.plan_free": 1, // enforced: the parent's shadow_mode is its own
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s passed %d, want %d (all rows: %v)", k, got[k], v, got)
		}
	}
}

// Rules without a row: the run's notes name each once (an inactive Kong
// plugin, a Traefik redis store), and a file whose rules are all inactive
// is a one-line error saying what to do, not a run of nothing.
func TestRuleOutcomesInRun(t *testing.T) {
	const trace = "t_ms,ip\n0,a\n1,a\n2,b\n"
	const kong = `_format_version: "3.0"
plugins:
  - name: rate-limiting
    enabled: false
    config: {second: 1, limit_by: ip}
services:
  - name: s
    plugins:
      - name: rate-limiting
        config: {second: 1, limit_by: ip}
`
	res := gatewayRun(t, trace, kong, "kong.yaml")
	if len(res.Algorithms) != 1 || res.Algorithms[0].Label != "service s" || res.Algorithms[0].Passed != 2 {
		t.Fatalf("rows %+v; want only service s, passing a and b", passedBy(res))
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "rule global (") || !strings.Contains(strings.Join(res.Notes, "\n"), "inactive, no row: enabled: false") {
		t.Errorf("the notes do not name the disabled plugin: %q", res.Notes)
	}

	const traefik = "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 0\n"
	dir := t.TempDir()
	rf := filepath.Join(dir, "traefik.yml")
	tr := filepath.Join(dir, "t.csv")
	os.WriteFile(rf, []byte(traefik), 0o644)
	os.WriteFile(tr, []byte(trace), 0o644)
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Trace: tr, Limit: 100, LimitSet: true}
	opts.Rules.Files = []string{rf}
	_, err := lab.NewPlan(context.Background(), opts)
	if err == nil {
		t.Fatal("a run of inactive rules alone ran")
	}
	for _, w := range []string{"no rule of the --rules files is active", "m (", "inactive", "average 0", "--algo"} {
		if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q lacks %q or is not one line", err, w)
		}
	}
	// With --algo, the run goes on and says it.
	opts.Specs = []string{"token-bucket:rate=1,burst=1"}
	plan, err := lab.NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	res2, err := plan.Replay(context.Background(), lab.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Algorithms) != 1 || !strings.Contains(strings.Join(res2.Notes, "\n"), "rule m (") {
		t.Errorf("rows %d, notes %q", len(res2.Algorithms), res2.Notes)
	}
}

// The gateway files whose rows read the columns of the shared rules
// trace (ip) make, run with --rules, the decisions of the same run with
// the specs explain prints, fractions drawn from the run's seed included
// (gw-envoy-local-istio: filter_enabled 50%, filter_enforced 25%).
func TestGatewayRulesEqualSpecs(t *testing.T) {
	trace := labtest.RulesTrace(t)
	for _, f := range []string{"../rules/testdata/real/gw-envoy-local-istio.yaml", "../rules/testdata/real/gw-traefik.yml"} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rs, err := rules.Load(f, "")
			if err != nil {
				t.Fatal(err)
			}
			specs, _ := lab.RuleSpecs(rs)
			opts := lab.DefaultOptions()
			opts.Source = lab.Source{Trace: trace, Limit: 100, LimitSet: true}
			opts.Rules.Files = []string{f}
			a := replay(t, opts)
			opts.Rules.Files, opts.Specs = nil, specs
			b := replay(t, opts)
			if a.decisions == "" || a.decisions != b.decisions {
				t.Errorf("decisions differ between the rules and their specs (or are empty)")
			}
			for _, r := range a.res.Algorithms {
				if r.Passed == r.Arrived && strings.Contains(r.Spec, "enabled=") {
					t.Errorf("%s passed everything; the trace should meet the bucket", r.Spec)
				}
			}
		})
	}
}
