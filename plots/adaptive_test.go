package plots

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// adaptiveResult is a 6 s run with 50 ms bins of a static row and an
// adaptive row whose in-flight count, limit, RT p99 and CPU move, with a
// bin now and then without a sample (no arrivals) or a response.
func adaptiveResult() *simulator.Result {
	const nBins = 120
	res := &simulator.Result{Scenario: "retry-storm", Limit: 100, Bin: 50 * time.Millisecond, Window: time.Second, End: 6 * time.Second}
	var plain, adaptive []simulator.Bin
	for i := range nBins {
		plain = append(plain, simulator.Bin{Arrived: 5, Passed: 5})
		b := simulator.Bin{Arrived: 6, Passed: 5, Blocked: 1, Completed: 5, Errors: int64(i % 3), RTSum: 5 * 20 * time.Millisecond}
		b.Sampled = i%17 != 5
		b.InFlight = int64(3 + i%11)
		b.Limit = 10 + float64(i%23)/2
		if i%29 == 7 {
			b.Limit = math.NaN() // a sampled bin without a limit
		}
		b.RTP99 = time.Duration(20+i%13) * time.Millisecond
		if i%19 == 4 {
			b.Completed, b.Errors, b.RTSum, b.RTP99 = 0, 0, 0, 0
		}
		b.CPU, b.HasCPU = float32(i%10)/10, i%31 != 2
		adaptive = append(adaptive, b)
	}
	res.Algorithms = []simulator.AlgoResult{
		{Spec: "leap-array:limit=100", Name: "leap-array", Rate: 100, Bins: plain, Arrived: 5 * nBins, Passed: 5 * nBins},
		{Spec: "gradient2", Name: "gradient2", Bins: adaptive, Arrived: 6 * nBins, Passed: 5 * nBins,
			Chain: &simulator.ChainResult{Responses: true, Adaptive: true, Completed: 5 * nBins}},
	}
	return res
}

// The adaptive panels draw series.csv's in_flight, limit, rt_p99_ms and
// cpu, bin for bin, with a gap where a column is empty; a static row gets
// none of them.
func TestChartDataAdaptiveSeries(t *testing.T) {
	res := adaptiveResult()
	col, rows := parseCSV(t, func(b *bytes.Buffer) error { return simulator.WriteSeriesCSV(b, res) })
	for _, name := range []string{"in_flight", "limit", "rt_p99_ms", "cpu"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("series.csv has no %s column", name)
		}
	}
	data := ChartData(res, ChartOptions{})
	if data[0].isAdaptive() || data[0].InFlight != nil || data[0].CPU != nil {
		t.Error("the static row has adaptive series")
	}
	d := data[1]
	if !d.isAdaptive() || !d.HasLimit || !d.HasCPU {
		t.Fatalf("the adaptive row: adaptive %v, limit %v, cpu %v", d.isAdaptive(), d.HasLimit, d.HasCPU)
	}
	k := 0
	for _, row := range rows {
		if row[col["algorithm"]] != d.Spec {
			continue
		}
		for name, got := range map[string]float64{"in_flight": d.InFlight[k], "limit": d.AdaptiveLimit[k], "rt_p99_ms": d.RTP99Ms[k], "cpu": d.CPU[k]} {
			cell := row[col[name]]
			if name == "rt_p99_ms" && row[col["rt_mean_ms"]] == "" {
				cell = "" // no response in the bin: no p99 to draw (the CSV writes 0)
			}
			if cell == "" {
				if !math.IsNaN(got) {
					t.Errorf("bin %d: %s is empty in series.csv, the chart has %v", k, name, got)
				}
				continue
			}
			if want := num(t, cell); math.Abs(got-want) > 1e-6 {
				t.Errorf("bin %d: %s %v, series.csv %v", k, name, got, want)
			}
		}
		k++
	}
	if k != len(d.X) {
		t.Errorf("series.csv has %d bins of the row, the chart %d", k, len(d.X))
	}
}

// Reduced to pixel columns, in-flight, limit and CPU are the means of the
// column's bins that have them, RT p99 the largest.
func TestChartDataAdaptiveReduced(t *testing.T) {
	res := adaptiveResult()
	full := ChartData(res, ChartOptions{})[1]
	// 120 bins, 10 columns: 12 bins each.
	cs := simulator.Columns(res, &res.Algorithms[1], res.Start, res.End, 10)
	if len(cs) != 10 {
		t.Fatalf("%d columns", len(cs))
	}
	for c, col := range cs {
		var inflight, limit, cpu, p99 float64
		var ns, nl, nc int
		for j := c * 12; j < (c+1)*12; j++ {
			if v := full.InFlight[j]; !math.IsNaN(v) {
				inflight += v
				ns++
			}
			if v := full.AdaptiveLimit[j]; !math.IsNaN(v) {
				limit += v
				nl++
			}
			if v := full.CPU[j]; !math.IsNaN(v) {
				cpu += v
				nc++
			}
			if v := full.RTP99Ms[j]; !math.IsNaN(v) {
				p99 = math.Max(p99, v)
			}
		}
		for name, got := range map[string][2]float64{
			"in flight": {col.InFlight, inflight / float64(ns)}, "limit": {col.Limit, limit / float64(nl)},
			"cpu": {col.CPU, cpu / float64(nc)}, "rt p99": {col.RTP99Ms, p99},
		} {
			if math.Abs(got[0]-got[1]) > 1e-6 {
				t.Errorf("column %d: %s %v, want %v", c, name, got[0], got[1])
			}
		}
		if col.Sampled != ns || col.Limits != nl || col.CPUs != nc {
			t.Errorf("column %d: counts %d/%d/%d, want %d/%d/%d", c, col.Sampled, col.Limits, col.CPUs, ns, nl, nc)
		}
	}
}

// chart.png of an adaptive run: taller by the two sub-panels per adaptive
// row, the key names the new lines, and the CPU line is drawn.
func TestChartPNGAdaptive(t *testing.T) {
	res := adaptiveResult()
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "chart-adaptive.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	static := *res
	static.Algorithms = []simulator.AlgoResult{res.Algorithms[0], res.Algorithms[1]}
	ch := *res.Algorithms[1].Chain
	ch.Adaptive = false
	static.Algorithms[1].Chain = &ch
	var sbuf bytes.Buffer
	if err := Chart(&sbuf, &static, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	simg := decodePNG(t, sbuf.Bytes())
	if extra := img.Bounds().Dy() - simg.Bounds().Dy(); extra < int(0.9*float64(panelHeight(2))) {
		t.Errorf("the adaptive row adds %d px, want its two sub-panels (about %d px)", extra, panelHeight(2))
	}
	labels := map[string]bool{}
	for _, it := range headerItems(ChartData(res, ChartOptions{}), false) {
		labels[it.label] = true
	}
	for _, it := range adaptiveKeyItems(ChartData(res, ChartOptions{})) {
		labels[it.label] = true
	}
	for _, want := range []string{"calls in flight (panel below, limiter's colour)", "adaptive limit", "RT p99 per bin (ms)", "CPU utilisation (right axis, 0–1)"} {
		if !labels[want] {
			t.Errorf("the key has no %q", want)
		}
	}
	// The CPU line (a faded purple) is somewhere in the bottom third, where
	// the adaptive row's signals panel is.
	b := img.Bounds()
	found := false
	for y := b.Max.Y - b.Dy()/3; y < b.Max.Y && !found; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 140 && r>>8 < 200 && g>>8 < r>>8-15 && bl>>8 > r>>8+15 {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("no CPU line in the bottom third of the chart")
	}
}
