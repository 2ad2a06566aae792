package htmlreport

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// XYSection is a `tune` or `bench` result: its CSV as a sortable table and
// two charts of its columns, as tune.png and bench.png draw them.
type XYSection struct {
	Kind    string     `json:"kind"` // "tune" or "bench"
	Name    string     `json:"name"`
	Header  []string   `json:"header"`
	Rows    [][]string `json:"rows"`
	Numeric []bool     `json:"numeric"`
	Charts  []XYChart  `json:"charts"`
}

// XYChart is one chart of an XYSection.
type XYChart struct {
	Title  string   `json:"title"`
	XLabel string   `json:"xlabel"`
	YLabel string   `json:"ylabel"`
	LogX   bool     `json:"logx"`
	LogY   bool     `json:"logy"`
	Lines  []XYLine `json:"lines"`
}

// XYLine is one line of points of an XYChart.
type XYLine struct {
	Label  string    `json:"label"`
	Color  string    `json:"color"`
	Dashed bool      `json:"dashed,omitempty"`
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
	// Links, when set, open point i's page on a click; PointsOnly draws
	// the points without joining them.
	Links      []string `json:"links,omitempty"`
	PointsOnly bool     `json:"pointsOnly,omitempty"`
}

// readTable reads a CSV with a header into rows and a column lookup.
func readTable(file string, b []byte, want ...string) (header []string, rows [][]string, col map[string]int, err error) {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(recs) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: empty; it needs a header line", file)
	}
	col = map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, w := range want {
		if _, ok := col[w]; !ok {
			return nil, nil, nil, fmt.Errorf("%s:1: no %s column", file, w)
		}
	}
	return recs[0], recs[1:], col, nil
}

func numericColumns(header []string, rows [][]string) []bool {
	num := make([]bool, len(header))
	for i := range header {
		num[i] = true
		for _, r := range rows {
			if _, err := strconv.ParseFloat(r[i], 64); err != nil && r[i] != "" {
				num[i] = false
			}
		}
	}
	return num
}

func cell(file string, line int, r []string, i int, name string) (float64, error) {
	x, err := strconv.ParseFloat(r[i], 64)
	if err != nil {
		return 0, fmt.Errorf("%s:%d: %s %q is not a number", file, line, name, r[i])
	}
	return x, nil
}

// AddTune adds a `tune` result from the bytes of its tune.csv.
func (p *Page) AddTune(name string, tuneCSV []byte) error {
	header, rows, col, err := readTable("tune.csv", tuneCSV, "sample_count", "overshoot", "smooth_bound", "state_bytes")
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return errors.New("tune.csv: no sample count in it")
	}
	measured, smooth, state := XYLine{Label: "measured overshoot", Color: hex(plots.BaseColor("leap-array"))},
		XYLine{Label: "smooth-traffic bound 1 + 1/N", Color: "#555555", Dashed: true},
		XYLine{Label: "state size", Color: hex(plots.BaseColor("leap-array"))}
	for i, r := range rows {
		n, err := cell("tune.csv", i+2, r, col["sample_count"], "sample_count")
		if err != nil {
			return err
		}
		o, err := cell("tune.csv", i+2, r, col["overshoot"], "overshoot")
		if err != nil {
			return err
		}
		sb, err := cell("tune.csv", i+2, r, col["smooth_bound"], "smooth_bound")
		if err != nil {
			return err
		}
		st, err := cell("tune.csv", i+2, r, col["state_bytes"], "state_bytes")
		if err != nil {
			return err
		}
		measured.X, measured.Y = append(measured.X, n), append(measured.Y, o)
		smooth.X, smooth.Y = append(smooth.X, n), append(smooth.Y, sb)
		state.X, state.Y = append(state.X, n), append(state.Y, st)
	}
	p.XY = append(p.XY, &XYSection{
		Kind: "tune", Name: name, Header: header, Rows: rows, Numeric: numericColumns(header, rows),
		Charts: []XYChart{
			{Title: "overshoot against sample count N", XLabel: "sample count N", YLabel: "overshoot (×)", LogX: true, Lines: []XYLine{measured, smooth}},
			{Title: "state size against sample count N", XLabel: "sample count N", YLabel: "state (bytes)", LogX: true, LogY: true, Lines: []XYLine{state}},
		},
	})
	return nil
}

// AddBench adds a `bench` result from the bytes of its bench.csv.
func (p *Page) AddBench(name string, benchCSV []byte) error {
	header, rows, col, err := readTable("bench.csv", benchCSV, "impl", "goroutines", "decisions_per_sec", "overshoot", "aligned_overshoot")
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return errors.New("bench.csv: no result in it")
	}
	var impls []string
	tp, trail, aligned := map[string]*XYLine{}, map[string]*XYLine{}, map[string]*XYLine{}
	for i, r := range rows {
		impl := r[col["impl"]]
		if !slices.Contains(impls, impl) {
			impls = append(impls, impl)
			c := hex(plots.BenchColor(impl))
			tp[impl] = &XYLine{Label: impl, Color: c}
			aligned[impl] = &XYLine{Label: impl + " aligned", Color: c}
			trail[impl] = &XYLine{Label: impl + " trailing", Color: c, Dashed: true}
		}
		var v [4]float64
		for k, name := range []string{"goroutines", "decisions_per_sec", "overshoot", "aligned_overshoot"} {
			if v[k], err = cell("bench.csv", i+2, r, col[name], name); err != nil {
				return err
			}
		}
		for _, l := range []struct {
			line *XYLine
			y    float64
		}{{tp[impl], v[1]}, {trail[impl], v[2]}, {aligned[impl], v[3]}} {
			l.line.X, l.line.Y = append(l.line.X, v[0]), append(l.line.Y, l.y)
		}
	}
	var c1, c2 []XYLine
	for _, impl := range impls {
		c1 = append(c1, *tp[impl])
		c2 = append(c2, *aligned[impl], *trail[impl])
	}
	p.XY = append(p.XY, &XYSection{
		Kind: "bench", Name: name, Header: header, Rows: rows, Numeric: numericColumns(header, rows),
		Charts: []XYChart{
			{Title: "throughput against goroutines", XLabel: "goroutines", YLabel: "decisions per second", LogX: true, LogY: true, Lines: c1},
			{Title: "largest window / limit against goroutines: aligned windows solid, trailing dashed", XLabel: "goroutines", YLabel: "overshoot (×)", LogX: true, Lines: c2},
		},
	})
	return nil
}

// FromTune adds a tune result as `tune` writes it (through tune.csv).
func (p *Page) FromTune(name string, res *simulator.TuneResult) error {
	var b bytes.Buffer
	if err := simulator.WriteTuneCSV(&b, res); err != nil {
		return err
	}
	return p.AddTune(name, b.Bytes())
}

// FromBench adds bench results as `bench` writes them (through bench.csv).
func (p *Page) FromBench(name string, results []concurrent.BenchResult) error {
	var b bytes.Buffer
	if err := concurrent.WriteCSV(&b, results); err != nil {
		return err
	}
	return p.AddBench(name, b.Bytes())
}
