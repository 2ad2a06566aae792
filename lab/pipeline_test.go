package lab_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/internal/labtest"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// replayed is what a replay gives the tests: decisions.csv's rows, and
// series.csv and summary.json as run writes them.
type replayed struct {
	res                        *lab.Result
	decisions, series, summary string
}

// replay plans opts and replays it in process, keeping every limiter's
// decision rows.
func replay(t *testing.T, opts lab.Options) replayed {
	t.Helper()
	ctx := context.Background()
	plan, err := lab.NewPlan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	parts := make([]bytes.Buffer, len(plan.Specs()))
	res, err := plan.Replay(ctx, lab.Hooks{Decisions: func(i int) io.Writer { return &parts[i] }})
	if err != nil {
		t.Fatal(err)
	}
	var r replayed
	r.res = res
	for i := range parts {
		r.decisions += parts[i].String()
	}
	var series, summary bytes.Buffer
	if err := simulator.WriteSeriesCSV(&series, res.Result); err != nil {
		t.Fatal(err)
	}
	if err := simulator.WriteSummaryJSON(&summary, res.Result); err != nil {
		t.Fatal(err)
	}
	r.series, r.summary = series.String(), summary.String()
	return r
}

var labelLine = regexp.MustCompile(`(?m)^\s*"label": .*\n`)

// TestRulesEqualSpecs: for every example rules file, a run with its rules
// makes the decisions of the same run with the specs `rules explain`
// prints, decision for decision, and the same summary but for the rows'
// labels.
func TestRulesEqualSpecs(t *testing.T) {
	trace := labtest.RulesTrace(t)
	files, _ := filepath.Glob("../examples/rules/*")
	if len(files) == 0 {
		t.Fatal("no example rules in ../examples/rules")
	}
	for _, f := range files {
		if filepath.Base(f) == "limits.conf" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			rs, err := rules.Load(f, "")
			if err != nil {
				t.Fatal(err)
			}
			specs, labels := lab.RuleSpecs(rs)
			opts := lab.DefaultOptions()
			opts.Source = lab.Source{Trace: trace, Limit: 100, LimitSet: true}
			opts.Rules.Files = []string{f}
			a := replay(t, opts)
			opts.Rules.Files, opts.Specs = nil, specs
			b := replay(t, opts)
			if a.decisions == "" {
				t.Fatal("no decision rows")
			}
			if a.decisions != b.decisions {
				t.Errorf("decisions differ between the rules and their specs")
			}
			for _, l := range labels {
				if !strings.Contains(a.summary, fmt.Sprintf("%q", l)) {
					t.Errorf("summary.json lacks the label %q", l)
				}
			}
			if labelLine.ReplaceAllString(a.summary, "") != b.summary {
				t.Errorf("summaries differ beyond the labels")
			}
		})
	}
}

// envRedisURL points the Redis tests at a real server too (.ci/run starts
// one); without it they use the embedded server only.
const envRedisURL = "RATELIMIT_LAB_REDIS_URL"

// The same run on the embedded native default, the embedded Lua
// interpreter and a real server (when RATELIMIT_LAB_REDIS_URL is set;
// CI=true requires it) makes the same decisions and series, and the same
// summary, memory aside.
func TestRedisBackendsAgree(t *testing.T) {
	url := os.Getenv(envRedisURL)
	if url == "" && os.Getenv("CI") == "true" {
		t.Fatal("CI=true but " + envRedisURL + " is not set: run the tests through .ci/run, which starts redis-server")
	}
	gateways := []string{"redis-spring-gateway:replenish-rate=100,burst-capacity=150,instances=4,rtt=4ms",
		"redis-envoy-ratelimit:limit=100,local-cache=true,instances=4,rtt=4ms",
		"redis-cell:max-burst=20,count=100,instances=4,rtt=4ms,clock=redis"}
	memory := regexp.MustCompile(`"redis_peak_bytes": (null|\d+)`)
	for _, c := range []struct {
		scenario string
		specs    []string
	}{{"redis-race", nil}, {"redis-skew", nil}, {"redis-race", gateways}} {
		name := c.scenario + " " + strings.Join(c.specs, " ")
		backends := map[string]string{"lua": "lua"}
		if url != "" {
			backends["real"] = url
		}
		opts := lab.DefaultOptions()
		opts.Source.Scenario, opts.Specs = c.scenario, c.specs
		native := replay(t, opts)
		if native.decisions == "" {
			t.Fatalf("%s: no decision rows", name)
		}
		for backend, u := range backends {
			opts.Redis.URL = u
			got := replay(t, opts)
			if got.decisions != native.decisions {
				t.Errorf("%s: decisions differ between the native default and %s", name, backend)
			}
			if got.series != native.series {
				t.Errorf("%s: series.csv differs between the native default and %s", name, backend)
			}
			if backend == "real" && (!strings.Contains(got.summary, `"redis_peak_bytes": `) || strings.Contains(got.summary, `"redis_peak_bytes": null`)) {
				t.Errorf("%s: the real server's summary has no measured redis_peak_bytes", name)
			}
			if memory.ReplaceAllString(got.summary, "") != memory.ReplaceAllString(native.summary, "") {
				t.Errorf("%s: summary.json differs between the native default and %s beyond redis_peak_bytes", name, backend)
			}
		}
	}
}
