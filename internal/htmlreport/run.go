package htmlreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Run is what the page shows of one run: its context line, its summary
// table, and one series per limiter and numeric column of series.csv.
type Run struct {
	// Name tells the run apart on a page of several (its directory).
	Name    string `json:"name"`
	Context string `json:"context"`
	// Start, End, Bin, Window and Span (the trailing window's width, the
	// window rounded to whole bins) in seconds.
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Bin    float64 `json:"bin"`
	Window float64 `json:"window"`
	Span   float64 `json:"span"`
	// Header and Rows are summary.json's per-limiter fields, in file order,
	// with the short label first; Numeric marks the columns that sort as
	// numbers.
	Header  []string   `json:"header"`
	Rows    [][]string `json:"rows"`
	Numeric []bool     `json:"numeric"`
	// Limiters are the rows, in the run's order.
	Limiters []Limiter `json:"limiters"`
	// Columns are the names of the series every limiter has: the numeric
	// columns of series.csv after bin_start_ms, in file order, then
	// "window_passed", the trailing-window passes
	// (simulator.TrailingWindow).
	Columns []string `json:"columns"`
	// Breaker is true when some limiter has a breaker (Limiter.Bands).
	Breaker bool `json:"breaker"`
}

// Limiter is one row of a run.
type Limiter struct {
	Label string `json:"label"`
	Spec  string `json:"spec"`
	Name  string `json:"name"`
	Color string `json:"color"`
	// Rate is the limiter's limit per second (0 without one).
	Rate float64 `json:"rate"`
	// Series holds one series per Run.Columns entry.
	Series []Series `json:"series"`
	// Bands are the breaker's states over time: [from, to) in seconds.
	Bands []Band `json:"bands,omitempty"`
}

// Band is a span of time a breaker spent in one state.
type Band struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	State string  `json:"state"`
}

// WindowColumn is the name of the trailing-window series a run adds to
// series.csv's columns.
const WindowColumn = "window_passed"

// Files are the files of a run's output directory the page reads.
type Files struct {
	Summary []byte    // summary.json
	Series  io.Reader // series.csv
	Breaker []byte    // breaker.csv, nil when there is none
	// Context is the context line; empty to build one from summary.json.
	Context string
	// Labels are the rows' short names; nil to derive them from the specs.
	Labels []string
}

// FromResult is the run as `run` writes it: the page reads the very bytes
// of summary.json, series.csv and breaker.csv, written by the simulator's
// renderers, so that a page made by `run` and one made later by `report`
// from the files show the same thing.
func (p *Page) FromResult(name string, res *simulator.Result, rep *report.Report) error {
	var summary, breaker bytes.Buffer
	if err := simulator.WriteSummaryJSON(&summary, res); err != nil {
		return err
	}
	if simulator.HasBreakers(res) {
		if err := simulator.WriteBreakerCSV(&breaker, res); err != nil {
			return err
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(simulator.WriteSeriesCSV(pw, res)) }()
	defer pr.Close()
	f := Files{Summary: summary.Bytes(), Series: pr, Breaker: breaker.Bytes(), Labels: report.Labels(res)}
	if rep != nil {
		f.Context = rep.Context()
	}
	return p.AddRun(name, f)
}

// AddRun reads a run's files and adds it to the page. The errors name the
// file and the line.
func (p *Page) AddRun(name string, f Files) error {
	sum, err := report.ParseSummary(f.Summary)
	if err != nil {
		return fmt.Errorf("summary.json: %v", err)
	}
	top := map[string]string{}
	for _, fl := range sum.Top {
		top[fl.Key] = fieldText(fl)
	}
	num := func(key string) (float64, error) {
		x, err := strconv.ParseFloat(top[key], 64)
		if err != nil {
			return 0, fmt.Errorf("summary.json: %q is %q, not a number", key, top[key])
		}
		return x, nil
	}
	r := &Run{Name: name, Context: f.Context}
	var binMs, windowMs, durMs, limit float64
	if binMs, err = num("bin_ms"); err != nil {
		return err
	}
	if windowMs, err = num("window_ms"); err != nil {
		return err
	}
	if durMs, err = num("duration_ms"); err != nil {
		return err
	}
	limit, _ = num("limit")
	if binMs <= 0 {
		return fmt.Errorf("summary.json: bin_ms is %v; it must be positive", binMs)
	}
	bin := time.Duration(math.Round(binMs * 1e6))
	_, span := simulator.TrailingWindow(nil, bin, time.Duration(math.Round(windowMs*1e6)))
	r.Bin, r.Window, r.Span = binMs/1000, windowMs/1000, span.Seconds()

	// The table: every per-limiter field, in file order.
	keys := []string{}
	seen := map[string]bool{}
	for _, a := range sum.Algorithms {
		for _, fl := range a {
			// The spec and the name are in the specs list and the row label.
			if !seen[fl.Key] && fl.Key != "algorithm" && fl.Key != "name" {
				seen[fl.Key] = true
				keys = append(keys, fl.Key)
			}
		}
	}
	r.Header = append([]string{"row"}, keys...)
	r.Numeric = make([]bool, len(r.Header))
	for i := range r.Numeric {
		r.Numeric[i] = i > 0
	}
	names := make([]string, len(sum.Algorithms))
	specs := make([]string, len(sum.Algorithms))
	for i, a := range sum.Algorithms {
		row := make([]string, len(r.Header))
		for _, fl := range a {
			for k, key := range keys {
				if key == fl.Key {
					row[k+1] = fieldText(fl)
					if _, err := strconv.ParseFloat(row[k+1], 64); err != nil && row[k+1] != "" {
						r.Numeric[k+1] = false
					}
				}
			}
			switch fl.Key {
			case "algorithm":
				specs[i] = fieldText(fl)
			case "name":
				names[i] = fieldText(fl)
			}
		}
		r.Rows = append(r.Rows, row)
		lim := Limiter{Spec: specs[i], Name: names[i]}
		for _, fl := range a {
			if fl.Key == "rate" {
				lim.Rate, _ = strconv.ParseFloat(fieldText(fl), 64)
			}
		}
		r.Limiters = append(r.Limiters, lim)
	}
	if len(r.Limiters) == 0 {
		return errors.New("summary.json: no algorithm in it")
	}
	labels := f.Labels
	if len(labels) != len(r.Limiters) {
		labels = labelsOf(specs, names)
	}
	var colors []color.RGBA
	total, nth := map[string]int{}, map[string]int{}
	for _, n := range names {
		total[n]++
	}
	for _, n := range names {
		colors = append(colors, plots.ShadeColor(n, nth[n], total[n]))
		nth[n]++
	}
	for i := range r.Limiters {
		r.Limiters[i].Label = labels[i]
		r.Limiters[i].Color = hex(colors[i])
		r.Rows[i][0] = labels[i]
	}
	if r.Context == "" {
		var arrived string
		if len(r.Rows) > 0 {
			for k, key := range keys {
				if key == "arrived" {
					arrived = r.Rows[0][k+1]
				}
			}
		}
		r.Context = strings.Join([]string{
			top["scenario"],
			report.Duration(time.Duration(math.Round(durMs * 1e6))),
			arrived + " arrivals",
			"limit " + report.Number(limit) + "/s",
			"bin " + bin.String(),
			"window " + time.Duration(math.Round(windowMs*1e6)).String(),
		}, " · ")
	}
	if err := p.readSeries(r, f.Series, bin, span); err != nil {
		return err
	}
	r.End = r.Start + float64(p.bins(r))*r.Bin
	if len(f.Breaker) > 0 {
		if err := readBreaker(r, f.Breaker); err != nil {
			return err
		}
	}
	p.Runs = append(p.Runs, r)
	return nil
}

// bins is how many bins the run's series hold.
func (p *Page) bins(r *Run) int {
	if len(r.Limiters) == 0 || len(r.Limiters[0].Series) == 0 {
		return 0
	}
	return p.store.blobs[r.Limiters[0].Series[0].Levels[0].V].N
}

// readSeries reads series.csv: rows grouped by limiter in the summary's
// order, bins in time order. Each limiter's columns are stored as soon as
// its rows end, so memory holds one limiter's series at a time.
func (p *Page) readSeries(r *Run, in io.Reader, bin, span time.Duration) error {
	if in == nil {
		return errors.New("series.csv: missing")
	}
	cr := csv.NewReader(in)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("series.csv: %v", err)
	}
	if len(header) < 3 || header[0] != "algorithm" || header[1] != "bin_start_ms" {
		return errors.New("series.csv:1: the header must start with algorithm,bin_start_ms")
	}
	cols := append([]string(nil), header[2:]...)
	r.Columns = append(cols, WindowColumn)
	passedCol := -1
	for i, c := range cols {
		if c == "passed" {
			passedCol = i
		}
	}
	cur := -1 // limiter whose rows are being read
	var values [][]float64
	flush := func() {
		if cur < 0 {
			return
		}
		lim := &r.Limiters[cur]
		for _, v := range values {
			lim.Series = append(lim.Series, p.store.addSeries(v))
		}
		// The trailing window, as the PNG draws it.
		var win []float64
		if passedCol >= 0 {
			bins := make([]simulator.Bin, len(values[passedCol]))
			for i, x := range values[passedCol] {
				bins[i].Passed = int64(x)
			}
			counts, _ := simulator.TrailingWindow(bins, bin, span)
			win = make([]float64, len(counts))
			for i, c := range counts {
				win[i] = float64(c)
			}
		} else {
			win = make([]float64, len(values[0]))
		}
		lim.Series = append(lim.Series, p.store.addSeries(win))
	}
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return fmt.Errorf("series.csv: %v", err)
		}
		if len(rec) != len(header) {
			return fmt.Errorf("series.csv:%d: %d fields, the header has %d", line, len(rec), len(header))
		}
		if cur < 0 || rec[0] != r.Limiters[cur].Spec {
			flush()
			cur++
			if cur >= len(r.Limiters) || rec[0] != r.Limiters[cur].Spec {
				return fmt.Errorf("series.csv:%d: algorithm %q is not the next one of summary.json; the files are not from the same run", line, rec[0])
			}
			values = make([][]float64, len(cols))
			if cur == 0 {
				t, err := strconv.ParseFloat(rec[1], 64)
				if err != nil {
					return fmt.Errorf("series.csv:%d: bin_start_ms %q is not a number", line, rec[1])
				}
				r.Start = t / 1000
			}
		}
		for i := range cols {
			s := rec[i+2]
			x := math.NaN()
			if s != "" {
				if x, err = strconv.ParseFloat(s, 64); err != nil {
					return fmt.Errorf("series.csv:%d: %s %q is not a number", line, cols[i], s)
				}
			}
			values[i] = append(values[i], x)
		}
	}
	flush()
	if cur != len(r.Limiters)-1 {
		return fmt.Errorf("series.csv: %d of summary.json's %d algorithms have rows; the files are not from the same run", cur+1, len(r.Limiters))
	}
	return nil
}

// readBreaker reads breaker.csv into each limiter's state bands: CLOSED
// from the start, then each change.
func readBreaker(r *Run, b []byte) error {
	cr := csv.NewReader(bytes.NewReader(b))
	recs, err := cr.ReadAll()
	if err != nil {
		return fmt.Errorf("breaker.csv: %v", err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",")+"\n" != simulator.BreakerHeader {
		return fmt.Errorf("breaker.csv:1: the header must be %s", strings.TrimSpace(simulator.BreakerHeader))
	}
	idx := map[string]int{}
	for i, l := range r.Limiters {
		idx[l.Spec] = i
	}
	for n, rec := range recs[1:] {
		i, ok := idx[rec[0]]
		if !ok {
			return fmt.Errorf("breaker.csv:%d: algorithm %q is not in summary.json", n+2, rec[0])
		}
		ns, err := strconv.ParseInt(rec[1], 10, 64)
		if err != nil {
			return fmt.Errorf("breaker.csv:%d: t_ns %q is not a whole number", n+2, rec[1])
		}
		t := time.Duration(ns).Seconds()
		l := &r.Limiters[i]
		if len(l.Bands) == 0 {
			l.Bands = append(l.Bands, Band{From: r.Start, State: rec[2]})
		}
		l.Bands[len(l.Bands)-1].To = t
		l.Bands = append(l.Bands, Band{From: t, State: rec[3]})
		r.Breaker = true
	}
	// The last state lasts to the end of the run.
	for i := range r.Limiters {
		if k := len(r.Limiters[i].Bands); k > 0 {
			r.Limiters[i].Bands[k-1].To = r.End
		}
	}
	return nil
}

// labelsOf gives rows without a Result their short names: report.Labels
// over the specs and names summary.json holds.
func labelsOf(specs, names []string) []string {
	res := &simulator.Result{Algorithms: make([]simulator.AlgoResult, len(specs))}
	for i := range specs {
		a := &res.Algorithms[i]
		a.Spec, a.Name = specs[i], names[i]
		if !strings.Contains(a.Spec, "+") {
			_, params, _ := strings.Cut(a.Spec, ":")
			for _, kv := range strings.Split(params, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok && k == "sample-count" {
					a.SampleCount, _ = strconv.Atoi(v)
				}
			}
		}
	}
	return report.Labels(res)
}

func fieldText(f report.Field) string {
	s := string(f.Raw)
	if s == "null" {
		return ""
	}
	var u string
	if json.Unmarshal(f.Raw, &u) == nil {
		return u
	}
	return s
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
