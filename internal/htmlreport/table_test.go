package htmlreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// runWith replays a catalog scenario, with its downstream, for d.
func runWith(t *testing.T, name string, d time.Duration, specs ...string) *simulator.Result {
	t.Helper()
	sc, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	sc = sc.WithDuration(d)
	if len(specs) == 0 {
		specs = sc.Algorithms
	}
	var ls []algorithms.Limiter
	for _, s := range specs {
		l, err := algorithms.New(s, sc.Limit)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	cfg := simulator.DefaultConfig()
	cfg.Scenario, cfg.Limit, cfg.End, cfg.Downstream = sc.Name, sc.Limit, sc.Duration, sc.Downstream
	st, err := sc.Stream()
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(t.Context(), st, ls, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// report.html's table reads as the terminal's: for every column the
// terminal prints (simulator.SummaryTable, --wide, but ns/decision, which
// summary.json leaves out as it changes from run to run), the page has the
// same name and the same cell in every row, built from summary.json
// alone (so `report` shows the same); each column has a meaning for the
// hover and sorts by the raw figure; the raw fields stay on the page.
// Before, the page showed summary.json's names with six decimals
// (pass_ratio 0.500000).
func TestPageTableIsTheTerminals(t *testing.T) {
	for _, c := range []struct {
		name  string
		d     time.Duration
		specs []string
	}{
		{"boundary-burst", 2 * time.Second, nil},
		{"slow-downstream", 15 * time.Second, nil},
		{"retry-storm", 12 * time.Second, []string{"none", "concurrency:limit=16"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runWith(t, c.name, c.d, c.specs...)
			p := NewPage("x")
			if err := p.FromResult(c.name, res, nil); err != nil {
				t.Fatal(err)
			}
			tab := p.Runs[0].Table
			header, rows := simulator.SummaryTable(res)
			labels := report.Labels(res)
			compared := 0
			for k, h := range header {
				if h == "ns/decision" {
					continue
				}
				j := slices.Index(tab.Header, h)
				if k == 0 {
					j = 0
				}
				if j < 0 {
					t.Errorf("the page's table lacks the terminal's column %q (it has %q)", h, tab.Header)
					continue
				}
				for i := range rows {
					want := rows[i][k]
					if k == 0 {
						want = labels[i]
					}
					if got := tab.Rows[i][j]; got != want {
						t.Errorf("row %d, column %q: page %q, terminal %q", i, h, got, want)
					}
				}
				if tab.Titles[j] == "" {
					t.Errorf("column %q has no meaning to show on hover", h)
				}
				compared++
			}
			if compared < 14 {
				t.Errorf("only %d columns compared", compared)
			}
			// The sort keys are summary.json's raw figures.
			pr := slices.Index(tab.Header, "pass %")
			raw := slices.Index(p.Runs[0].Header, "pass_ratio")
			for i := range tab.Rows {
				if tab.Keys[i][pr] != p.Runs[0].Rows[i][raw] {
					t.Errorf("row %d sorts pass %% by %q, the raw figure is %q", i, tab.Keys[i][pr], p.Runs[0].Rows[i][raw])
				}
			}
		})
	}
}

// The page holds the table, the hover titles and the raw figures' switch.
func TestPageHasRawFiguresOneClickAway(t *testing.T) {
	p := NewPage("x")
	if err := p.FromResult("boundary-burst", runWith(t, "boundary-burst", time.Second), nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"table":{"header":["algorithm","arrived","passed","blocked","pass %","max/1s","limit/1s","overshoot"`, "raw figures (summary.json", "click to sort by"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
