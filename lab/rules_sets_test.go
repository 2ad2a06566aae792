package lab_test

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/internal/labtest"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// TestNginxConfigurationsEqualSpecs: an nginx configuration given as it is
// deployed (a /etc/nginx copy with --nginx-prefix, the http block and a
// server block as two files, conf.d as a directory) runs the rows its
// combined reading gives, decision for decision the run of the specs
// `rules explain` prints for it, limit_conn's concurrency stages included.
func TestNginxConfigurationsEqualSpecs(t *testing.T) {
	trace := labtest.RulesTrace(t)
	for _, c := range []struct {
		name   string
		files  []string
		prefix string
		rows   int
	}{
		{"tree", []string{"../rules/testdata/nginx-tree"}, "../rules/testdata/nginx-tree", 4},
		{"split", []string{"../rules/testdata/nginx-split/nginx.conf", "../rules/testdata/nginx-split/api.conf"}, "", 1},
		{"confd", []string{"../rules/testdata/nginx-confd"}, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sets, err := lab.LoadRuleSets(c.files, "auto", c.prefix)
			if err != nil {
				t.Fatal(err)
			}
			var rs []rules.Rule
			for _, s := range sets {
				rs = append(rs, s.Rules...)
			}
			specs, _ := lab.RuleSpecs(rs)
			if len(specs) != c.rows {
				t.Fatalf("%d rows, want %d: %v", len(specs), c.rows, specs)
			}
			opts := lab.DefaultOptions()
			opts.Source = lab.Source{Trace: trace, Limit: 100, LimitSet: true}
			opts.Rules = lab.Rules{Files: c.files, NginxPrefix: c.prefix}
			a := replay(t, opts)
			opts.Rules, opts.Specs = lab.Rules{}, specs
			b := replay(t, opts)
			if a.decisions == "" || a.decisions != b.decisions {
				t.Errorf("decisions differ between the configuration and its specs (or none): %d and %d bytes", len(a.decisions), len(b.decisions))
			}
			if labelLine.ReplaceAllString(a.summary, "") != b.summary {
				t.Errorf("summaries differ beyond the labels")
			}
		})
	}
	// --nginx-prefix alone is a mistake worth a line.
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Trace: trace, Limit: 100, LimitSet: true}
	opts.Rules = lab.Rules{NginxPrefix: "../rules/testdata/nginx-tree"}
	if _, err := lab.NewPlan(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "--nginx-prefix needs --rules") {
		t.Errorf("--nginx-prefix without --rules: %v", err)
	}
}
