package plots

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// breakerResult is a two-row run: a plain limiter and a breaker that is
// OPEN from 1 s to 2 s of its 4 s.
func breakerResult() *simulator.Result {
	res := &simulator.Result{Scenario: "b", Limit: 10, Bin: 500 * time.Millisecond, Window: time.Second, End: 4 * time.Second}
	bins := func(rt bool) []simulator.Bin {
		b := make([]simulator.Bin, 8)
		for i := range b {
			b[i] = simulator.Bin{Arrived: 10, Passed: 5, Blocked: 5}
			if rt {
				b[i].Completed, b[i].RTSum, b[i].RTMax = 5, time.Duration(5*(i+1))*10*time.Millisecond, time.Duration(i+1)*20*time.Millisecond
			}
		}
		return b
	}
	res.Algorithms = []simulator.AlgoResult{
		{Spec: "leap-array:limit=10", Name: "leap-array", Rate: 10, Bins: bins(false)},
		{Spec: "leap-array:limit=10+circuit-breaker:strategy=error-count,threshold=1", Name: "leap-array", Rate: 10, Bins: bins(true),
			Chain: &simulator.ChainResult{Responses: true, Breaker: "circuit-breaker:strategy=error-count,threshold=1",
				Transitions: []simulator.Transition{
					{At: time.Second, Clock: time.Second, From: algorithms.Closed, To: algorithms.Open},
					{At: 2 * time.Second, Clock: 2 * time.Second, From: algorithms.Open, To: algorithms.HalfOpen},
					{At: 2100 * time.Millisecond, Clock: 2100 * time.Millisecond, From: algorithms.HalfOpen, To: algorithms.Closed},
				}}},
	}
	return res
}

// The RT line is RTSum/Completed per bin, the same numbers as series.csv.
func TestRightAxisRT(t *testing.T) {
	res := breakerResult()
	data := ChartData(res, ChartOptions{})
	if rightAxis(&data[0], res, res.Start.Seconds(), res.End.Seconds()) != nil {
		t.Fatal("a plain, non-queueing row got a right axis")
	}
	ax, ok := rightAxis(&data[1], res, res.Start.Seconds(), res.End.Seconds()).(*waitAxis)
	if !ok || len(ax.series) != 1 || ax.text != "mean RT (ms)" {
		t.Fatalf("right axis %+v", ax)
	}
	// Each bin is a step: two corners at the same height.
	for i, p := range ax.series[0].xys[:16] {
		if want := float64(10 * (i/2 + 1)); p.Y != want {
			t.Errorf("bin %d: RT %v ms, want %v", i, p.Y, want)
		}
	}
}

// The band shows OPEN in red under the breaker's panel only.
func TestChartStateBand(t *testing.T) {
	res := breakerResult()
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "breaker.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	b := img.Bounds()
	h := b.Dy()
	// Below the header (with its key swatches): the plain panel, then the
	// breaker's.
	top := image.Rect(b.Min.X, b.Min.Y+h*15/100, b.Max.X, b.Min.Y+h/2)
	bottom := image.Rect(b.Min.X, b.Min.Y+h/2, b.Max.X, b.Max.Y)
	if _, found := regionStats(img, top, stateOpen); found {
		t.Error("the plain limiter's panel shows OPEN red")
	}
	for name, c := range map[string]color.RGBA{"OPEN": stateOpen, "HALF_OPEN": stateHalfOpen, "CLOSED": stateClosed} {
		if _, found := regionStats(img, bottom, c); !found {
			t.Errorf("the breaker's panel lacks the %s colour", name)
		}
	}
}

// A bin where no call completed (the breaker OPEN) has no mean RT: the data
// holds NaN there, not 0 ms, the axis scale ignores it and the chart draws.
func TestRTGapWithoutResponses(t *testing.T) {
	res := breakerResult()
	bins := res.Algorithms[1].Bins
	bins[2].Completed, bins[2].RTSum, bins[2].RTMax = 0, 0, 0
	bins[3].Completed, bins[3].RTSum, bins[3].RTMax = 0, 0, 0
	data := ChartData(res, ChartOptions{})
	for i, rt := range data[1].RTMs {
		if gap := i == 2 || i == 3; gap != math.IsNaN(rt) {
			t.Errorf("bin %d: RT %v", i, rt)
		}
	}
	ax := rightAxis(&data[1], res, res.Start.Seconds(), res.End.Seconds()).(*waitAxis)
	if ax.top != 100 {
		t.Errorf("axis top %v ms, want 100 (a step above the largest mean, 80 ms, off the frame)", ax.top)
	}
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	// Reduced to fewer columns than bins, a column counts the completions
	// of its bins.
	cs := simulator.Columns(res, &res.Algorithms[1], 0, res.End, 4)
	for i, c := range cs {
		if want := []int64{10, 0, 10, 10}[i]; c.Completed != want {
			t.Errorf("column %d: %d completed, want %d", i, c.Completed, want)
		}
	}
}

// The panel summary of a row without a rate names no limit, and a maximum
// that is only a lower bound reads "≥" as in the table.
func TestSummaryNoRateAndLowerBound(t *testing.T) {
	res := &simulator.Result{Window: time.Second, Bin: 50 * time.Millisecond}
	alone := &simulator.AlgoResult{Arrived: 10, Passed: 5, MaxWindowPassed: 5, PeakBinPassed: 2}
	if got, want := summary(res, alone), "passed 50.0% · max 1s window 5 · peak bin 2"; got != want {
		t.Errorf("breaker alone: %q, want %q", got, want)
	}
	late := &simulator.AlgoResult{Rate: 4, Arrived: 10, Passed: 5, MaxWindowPassed: 5, WindowLimit: 4, Overshoot: 1.25, PeakBinPassed: 2, LateAdmissions: 1}
	if got, want := summary(res, late), "passed 50.0% · max 1s window ≥5 / 4 (≥1.25×) · peak bin 2"; got != want {
		t.Errorf("lower bound: %q, want %q", got, want)
	}
}

// A breaker's panel names its opens, time OPEN, errors and RT p99.
func TestSummaryChainFigures(t *testing.T) {
	res := &simulator.Result{Window: time.Second, Bin: 50 * time.Millisecond}
	a := &simulator.AlgoResult{Rate: 100, Arrived: 10, Passed: 5, MaxWindowPassed: 5, WindowLimit: 100, Overshoot: 0.05, PeakBinPassed: 2,
		Chain: &simulator.ChainResult{Responses: true, Breaker: "circuit-breaker:strategy=error-count,threshold=5", Opens: 2,
			OpenTime: 10018796322, Errors: 4, RTP99: 400 * time.Millisecond}}
	want := "passed 50.0% · max 1s window 5 / 100 (0.05×) · peak bin 2 · opened 2× (10s OPEN) · 4 errors · RT p99 400ms"
	if got := summary(res, a); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// The overlay panel shows a breaker's states too, in a band of its own.
func TestOverlayStateBand(t *testing.T) {
	res := breakerResult()
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{Mode: ModeOverlay}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "breaker-overlay.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	b := img.Bounds()
	plot := image.Rect(b.Min.X, b.Min.Y+b.Dy()/4, b.Max.X, b.Max.Y)
	for name, c := range map[string]color.RGBA{"OPEN": stateOpen, "HALF_OPEN": stateHalfOpen, "CLOSED": stateClosed} {
		if _, found := regionStats(img, plot, c); !found {
			t.Errorf("the overlay lacks the %s colour", name)
		}
	}
}
