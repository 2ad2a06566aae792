package main

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdaptiveKeyedPriorityPanelsInBrowser: the columns adaptive, keyed
// and prioritized runs add to series.csv get charts of their own, not the
// catch-all "X (series.csv column X)": goodput on the pass-rate chart per
// second, RT p99 with the RT chart, in-flight beside the adaptive limit,
// CPU on a 0–1 axis, retries with the blocks, keys hurt and borrowed
// labelled.
func TestAdaptiveKeyedPriorityPanelsInBrowser(t *testing.T) {
	bctx := browser(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		panels []string
		lines  map[string][]string // panel → labels (suffixes) its lines must have
	}{
		{"retry-storm", []string{"--algo", "none", "--algo", "concurrency:limit=16", "--algo", "gradient2"},
			[]string{"rate", "window", "blocked", "rt", "concurrency", "cpu"},
			map[string][]string{"rate": {"none goodput", "gradient2 goodput"}, "rt": {"concurrency RT p99"},
				"concurrency": {"gradient2 in flight", "gradient2 adaptive limit"}, "cpu": {"none CPU"}, "blocked": {"none retries"}}},
		{"key-spray", nil, []string{"rate", "keys"}, map[string][]string{"keys": {"nginx-limit-req keys hurt", "token-bucket capacity=4000 keys hurt"}}},
		{"priority-mix", nil, []string{"rate", "borrowed"}, map[string][]string{"borrowed": {"leap-array N=2 borrowed"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			if _, stderr, err := execute(t, append([]string{"run", c.name, "--quiet", "--chart", "none", "--out", out}, c.args...)...); err != nil {
				t.Fatalf("run: %v %s", err, stderr)
			}
			ctx, charts, probs := openReport(t, bctx, filepath.Join(out, "report.html"))
			have := map[string]bool{}
			for _, ch := range charts {
				have[ch.Panel] = true
				if strings.HasPrefix(ch.Panel, "col-") {
					t.Errorf("series.csv column %s has only the catch-all chart", strings.TrimPrefix(ch.Panel, "col-"))
				}
			}
			for _, want := range c.panels {
				if !have[want] {
					t.Errorf("no %s chart; charts %v", want, have)
				}
			}
			type view struct {
				Labels []string     `json:"labels"`
				Data   [][]*float64 `json:"data"`
				Y      [2]float64   `json:"y"`
				Exact  bool         `json:"exact"`
				Title  string       `json:"title"`
			}
			views, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]view](`(() => {
				const out = {};
				for (const c of window.ratelimitLab.charts) {
					if (c.ri !== 0 || !c.u) continue;
					out[c.panel] = {labels: c.u.series.map(s => s.label), data: c.u.data, y: [c.u.scales.y.min, c.u.scales.y.max],
						exact: !!c.exact, title: c.u.root.closest(".panel").querySelector("h3").textContent};
				}
				return out;
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			for panel, labels := range c.lines {
				v := views[panel]
				for _, want := range labels {
					if !slices.Contains(v.Labels, want) {
						t.Errorf("the %s chart (%q) has no line %q: %v", panel, v.Title, want, v.Labels)
					}
				}
			}
			screenshot(t, ctx, c.name)
			if c.name != "retry-storm" {
				if p := probs.get(); len(p) > 0 {
					t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
				}
				return
			}
			if y := views["cpu"].Y; y != [2]float64{0, 1} {
				t.Errorf("the CPU chart's axis runs %v, want 0 to 1", y)
			}
			// Goodput is drawn per second: series.csv's count per bin ÷ the
			// bin (50 ms), bin for bin in the first view (1,200 bins).
			goodput := seriesColumn(t, filepath.Join(out, "series.csv"), "none", "goodput")
			rate := views["rate"]
			k := slices.Index(rate.Labels, "none goodput")
			if !rate.Exact || k < 0 {
				t.Fatalf("the rate chart: exact %v, labels %v", rate.Exact, rate.Labels)
			}
			if len(rate.Data[k]) != len(goodput)+1 {
				t.Fatalf("the goodput line has %d points for %d bins", len(rate.Data[k]), len(goodput))
			}
			for j, g := range goodput {
				if got := rate.Data[k][j]; got == nil || math.Abs(*got-g/0.05) > 1e-6 {
					t.Fatalf("bin %d: goodput drawn %v, series.csv %v per 50 ms = %v/s", j, got, g, g/0.05)
				}
			}
			if p := probs.get(); len(p) > 0 {
				t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
			}
		})
	}
}

// seriesColumn reads one limiter's column of a series.csv.
func seriesColumn(t *testing.T, file, spec, column string) []float64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	k := slices.Index(rows[0], column)
	if k < 0 {
		t.Fatalf("%s has no %s column", file, column)
	}
	var out []float64
	for _, r := range rows[1:] {
		if r[0] != spec {
			continue
		}
		v, err := strconv.ParseFloat(r[k], 64)
		if err != nil {
			t.Fatalf("%s: %s %q: %v", file, column, r[k], err)
		}
		out = append(out, v)
	}
	return out
}

// checkSorting clicks a numeric header of the page's first summary table
// twice and its first header once: the rows sort ascending, then
// descending, then by name, each time the same rows (cells kept together).
func checkSorting(t *testing.T, ctx context.Context) {
	t.Helper()
	res, err := chromedp.Run(ctx, chromedp.Evaluate[sortResult](`(() => {
		const t = document.querySelector("table.summary");
		const ths = [...t.querySelectorAll("thead th")];
		const rows = () => [...t.querySelectorAll("tbody tr")].map(tr => [...tr.children].map(td => td.textContent));
		let k = ths.findIndex(th => th.textContent === "passed");
		if (k < 0) k = ths.findIndex(th => th.classList.contains("num"));
		const out = {col: k, before: rows(), after: [], classes: []};
		for (const c of [k, k, 0]) {
			ths[c].click();
			out.after.push(rows());
			out.classes.push(ths[c].className);
		}
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Col < 0 || len(res.Before) < 2 {
		t.Fatalf("no numeric column to sort by, or fewer than two rows: %+v", res)
	}
	key := func(rows [][]string) []string {
		var s []string
		for _, r := range rows {
			s = append(s, strings.Join(r, "\x00"))
		}
		sort.Strings(s)
		return s
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("column %d: %q is not a number", res.Col, s)
		}
		return v
	}
	for i, rows := range res.After {
		if !slices.Equal(key(rows), key(res.Before)) {
			t.Errorf("click %d: the rows are not the same rows:\n%v\n%v", i+1, rows, res.Before)
		}
		for j := 1; j < len(rows); j++ {
			switch i {
			case 0:
				if num(rows[j-1][res.Col]) > num(rows[j][res.Col]) {
					t.Errorf("the first click does not sort column %d ascending: %v", res.Col, rows)
				}
			case 1:
				if num(rows[j-1][res.Col]) < num(rows[j][res.Col]) {
					t.Errorf("the second click does not sort column %d descending: %v", res.Col, rows)
				}
			case 2:
				if rows[j-1][0] > rows[j][0] {
					t.Errorf("a click on the first header does not sort by name: %v", rows)
				}
			}
		}
	}
	if want := []string{"num asc", "num desc", "asc"}; !slices.Equal(res.Classes, want) {
		t.Errorf("the headers' sort marks are %v, want %v", res.Classes, want)
	}
}

// sortResult is what checkSorting's script returns.
type sortResult struct {
	Col     int          `json:"col"`
	Before  [][]string   `json:"before"`
	After   [][][]string `json:"after"`
	Classes []string     `json:"classes"`
}
