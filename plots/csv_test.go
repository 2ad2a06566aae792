package plots

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// parseCSV reads a CSV written by the simulator into its header and rows.
func parseCSV(t *testing.T, write func(*bytes.Buffer) error) (map[string]int, [][]string) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	return col, rows[1:]
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestChartDataMatchesSeriesCSV checks that what the chart plots is what
// series.csv says, row for row: rate = count / bin seconds.
func TestChartDataMatchesSeriesCSV(t *testing.T) {
	res := synthResult()
	col, rows := parseCSV(t, func(b *bytes.Buffer) error { return simulator.WriteSeriesCSV(b, res) })
	data := ChartData(res, ChartOptions{})
	bin := res.Bin.Seconds()
	i := map[string]int{}
	for _, row := range rows {
		spec := row[col["algorithm"]]
		var d *PanelData
		for k := range data {
			if data[k].Spec == spec {
				d = &data[k]
			}
		}
		if d == nil {
			t.Fatalf("series.csv has %q, the chart does not", spec)
		}
		k := i[spec]
		i[spec]++
		if x := num(t, row[col["bin_start_ms"]]) / 1000; math.Abs(d.X[k]-x) > 1e-9 {
			t.Errorf("%s bin %d: chart x %v, series.csv %v s", spec, k, d.X[k], x)
		}
		for _, c := range []struct {
			name string
			got  float64
		}{{"arrived", d.Arrival[k]}, {"passed", d.Pass[k]}} {
			if want := num(t, row[col[c.name]]) / bin; math.Abs(c.got-want) > 1e-9 {
				t.Errorf("%s bin %d: chart %s rate %v, series.csv gives %v", spec, k, c.name, c.got, want)
			}
		}
		if want := num(t, row[col["wait_mean_ms"]]); math.Abs(d.WaitMs[k]-want) > 1e-6 {
			t.Errorf("%s bin %d: chart wait %v ms, series.csv %v ms", spec, k, d.WaitMs[k], want)
		}
	}
	for _, d := range data {
		if i[d.Spec] != len(d.X) {
			t.Errorf("%s: %d rows in series.csv, %d points on the chart", d.Spec, i[d.Spec], len(d.X))
		}
	}
}

// TestTuneDataMatchesTuneCSV checks the tune chart's points against tune.csv.
func TestTuneDataMatchesTuneCSV(t *testing.T) {
	res := synthTune()
	col, rows := parseCSV(t, func(b *bytes.Buffer) error { return simulator.WriteTuneCSV(b, res) })
	over, state := TuneData(res)
	if len(rows) != len(over) || len(rows) != len(state) {
		t.Fatalf("tune.csv has %d rows, the chart %d and %d points", len(rows), len(over), len(state))
	}
	for k, row := range rows {
		n := num(t, row[col["sample_count"]])
		if over[k].X != n || state[k].X != n {
			t.Errorf("row %d: N %v, chart %v / %v", k, n, over[k].X, state[k].X)
		}
		if want := num(t, row[col["overshoot"]]); math.Abs(over[k].Y-want) > 1e-3 {
			t.Errorf("N=%v: chart overshoot %v, tune.csv %v", n, over[k].Y, want)
		}
		if want := num(t, row[col["state_bytes"]]); state[k].Y != want {
			t.Errorf("N=%v: chart state %v, tune.csv %v", n, state[k].Y, want)
		}
	}
}
