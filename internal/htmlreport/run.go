package htmlreport

import (
	"bufio"
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
	"github.com/ratelimit-lab/ratelimit-lab/spec"
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
	// Table is the summary as the terminal prints it; Header and Rows
	// above are summary.json's raw fields, one click away on the page.
	Table *Table `json:"table"`
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
	limit, _ = num("limit") // null (no scenario limit) is 0
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
	counted := make([]bool, len(sum.Algorithms))
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
			case "smooth_bound":
				// Only limiters with a sample count have one.
				counted[i] = fieldText(fl) != ""
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
		labels = labelsOf(specs, names, counted)
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
	rowFields := make([]map[string]string, len(sum.Algorithms))
	for i, a := range sum.Algorithms {
		rowFields[i] = map[string]string{}
		for _, fl := range a {
			rowFields[i][fl.Key] = fieldText(fl)
		}
	}
	r.Table = terminalTable(rowFields, labels, simulator.ShortDuration(time.Duration(math.Round(windowMs*1e6))), simulator.ShortDuration(bin))
	if r.Context == "" {
		var arrived, retried string
		anyRetry := false
		for row := range r.Rows {
			for k, key := range keys {
				switch {
				case key == "arrived" && row == 0:
					arrived = r.Rows[0][k+1]
				case key == "retries":
					if row == 0 {
						retried = r.Rows[0][k+1]
					}
					if v := r.Rows[row][k+1]; v != "" && v != "0" && v != "null" {
						anyRetry = true
					}
				}
			}
		}
		r.Context = strings.Join([]string{
			top["scenario"],
			report.Duration(time.Duration(math.Round(durMs * 1e6))),
			arrivalsText(arrived, retried, anyRetry),
			report.LimitText(limit),
			"bin " + report.Duration(bin),
			"window " + report.Duration(time.Duration(math.Round(windowMs*1e6))),
		}, " · ")
	}
	r.End = durMs / 1000 // until the series say where the bins end
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
	br := bufio.NewReaderSize(in, 1<<16)
	first, err := br.ReadString('\n')
	if err != nil && first == "" {
		return fmt.Errorf("series.csv: empty; it needs a header line (%v)", err)
	}
	header := strings.Split(strings.TrimRight(first, "\r\n"), ",")
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
	// The bins a limiter has, to size the slices once.
	expect := 0
	if bin > 0 && r.End > r.Start {
		expect = int(math.Ceil((r.End-r.Start)/bin.Seconds())) + 1
	}
	line := 1
	var spec, quoted []byte
	for {
		row, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("series.csv:%d: a line longer than %d bytes", line+1, br.Size())
		}
		if len(row) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return fmt.Errorf("series.csv: %v", err)
		}
		line++
		row = bytes.TrimRight(row, "\r\n")
		// The spec: quoted when it holds commas.
		var name []byte
		if len(row) > 0 && row[0] == '"' {
			end := 1
			name = quoted[:0]
			for ; end < len(row); end++ {
				if row[end] == '"' {
					if end+1 < len(row) && row[end+1] == '"' {
						name = append(name, '"')
						end++
						continue
					}
					break
				}
				name = append(name, row[end])
			}
			if end+1 >= len(row) || row[end+1] != ',' {
				return fmt.Errorf("series.csv:%d: the quoted algorithm field does not end with a quote and a comma", line)
			}
			row = row[end+2:]
			quoted = name
		} else {
			i := bytes.IndexByte(row, ',')
			if i < 0 {
				return fmt.Errorf("series.csv:%d: 1 field, the header has %d", line, len(header))
			}
			name, row = row[:i], row[i+1:]
		}
		if cur < 0 || !bytes.Equal(name, spec) {
			flush()
			cur++
			spec = append(spec[:0], name...)
			if cur >= len(r.Limiters) || string(name) != r.Limiters[cur].Spec {
				return fmt.Errorf("series.csv:%d: algorithm %q is not the next one of summary.json; the files are not from the same run", line, name)
			}
			values = make([][]float64, len(cols))
			for i := range values {
				values[i] = make([]float64, 0, expect)
			}
		}
		// bin_start_ms, then the columns.
		for i := -1; i < len(cols); i++ {
			f := row
			if j := bytes.IndexByte(row, ','); j >= 0 {
				f, row = row[:j], row[j+1:]
			} else if i < len(cols)-1 {
				return fmt.Errorf("series.csv:%d: %d fields, the header has %d", line, i+3, len(header))
			} else {
				row = nil
			}
			x, ok := parseNum(f)
			if !ok {
				return fmt.Errorf("series.csv:%d: %s %q is not a number", line, header[i+2], f)
			}
			if i < 0 {
				if math.IsNaN(x) {
					return fmt.Errorf("series.csv:%d: bin_start_ms is empty", line)
				}
				if cur == 0 && len(values[0]) == 0 {
					r.Start = x / 1000
				}
				continue
			}
			values[i] = append(values[i], x)
		}
		if row != nil {
			return fmt.Errorf("series.csv:%d: more fields than the header's %d", line, len(header))
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
// over the specs and names summary.json holds, with the sample count of
// the limiters that have one (counted: a smooth_bound in summary.json).
func labelsOf(specs, names []string, counted []bool) []string {
	res := &simulator.Result{Algorithms: make([]simulator.AlgoResult, len(specs))}
	for i := range specs {
		a := &res.Algorithms[i]
		a.Spec, a.Name = specs[i], names[i]
		if sp := spec.Split(a.Spec); counted[i] && !sp.IsChain() {
			if v, ok := sp.Stages[0].Get("sample-count"); ok {
				a.SampleCount, _ = strconv.Atoi(v)
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

// parseNum reads one number of series.csv: whole numbers directly, others
// with strconv; an empty field is NaN (no value).
func parseNum(b []byte) (float64, bool) {
	if len(b) == 0 {
		return math.NaN(), true
	}
	if len(b) < 16 {
		neg, i := false, 0
		if b[0] == '-' {
			neg, i = true, 1
		}
		var n int64
		whole := i < len(b)
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				whole = false
				break
			}
			n = n*10 + int64(c)
		}
		if whole {
			if neg {
				n = -n
			}
			return float64(n), true
		}
	}
	// "12.345678": the six-decimal means of series.csv.
	if dot := bytes.IndexByte(b, '.'); dot > 0 && len(b)-dot-1 <= 6 && len(b) < 16 && b[0] != '-' {
		var n int64
		ok := true
		for i, c := range b {
			if i == dot {
				continue
			}
			if c-'0' > 9 {
				ok = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if ok && dot < len(b)-1 {
			// Exact: n < 2^53 and a power of ten up to 10^6 are both
			// exact, and one division rounds once, as ParseFloat does.
			return float64(n) / pow10[len(b)-dot-1], true
		}
	}
	x, err := strconv.ParseFloat(string(b), 64)
	return x, err == nil
}

var pow10 = [...]float64{1, 10, 100, 1e3, 1e4, 1e5, 1e6}

// arrivalsText is the context line's count of arrivals, as the terminal's:
// "1 arrival", "1000 arrivals".
// arrivalsText is the context line's traffic, as report.Context words it:
// the arrivals, or with retries the requests (the first row's arrivals
// less its retries), each row adding its own retries.
func arrivalsText(arrived, retries string, anyRetry bool) string {
	if !anyRetry {
		if arrived == "1" {
			return "1 arrival"
		}
		return arrived + " arrivals"
	}
	a, err1 := strconv.ParseInt(arrived, 10, 64)
	r, err2 := strconv.ParseInt(retries, 10, 64)
	if err1 != nil || err2 != nil {
		return arrived + " arrivals"
	}
	n := a - r
	word := " requests"
	if n == 1 {
		word = " request"
	}
	return strconv.FormatInt(n, 10) + word + " (each row adds its retries)"
}
