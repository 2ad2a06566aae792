package plots

import (
	"bytes"
	"image"
	"image/color"
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
