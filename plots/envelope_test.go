package plots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// bangBang is a long run of a limiter that passes 150/bin for 13 bins,
// then nothing for 7 (a fixed window at 1.5× its limit), with arrivals at
// 150/bin throughout.
func bangBang(nBins int) *simulator.Result {
	res := &simulator.Result{Scenario: "long", Limit: 2000, Bin: 50 * time.Millisecond, Window: time.Second,
		End: time.Duration(nBins) * 50 * time.Millisecond}
	a := simulator.AlgoResult{Spec: "fixed-window:limit=2000,window=1s", Name: "fixed-window", Rate: 2000,
		Bins: make([]simulator.Bin, nBins), WindowLimit: 2000}
	for i := range a.Bins {
		p := int64(0)
		if i%20 < 13 {
			p = 150
		}
		a.Bins[i] = simulator.Bin{Arrived: 150, Passed: p, Blocked: 150 - p}
		a.Arrived += 150
		a.Passed += p
	}
	a.Blocked = a.Arrived - a.Passed
	a.MaxWindowPassed, a.PeakBinPassed = 13*150, 150
	a.Overshoot = float64(a.MaxWindowPassed) / a.WindowLimit
	res.Algorithms = []simulator.AlgoResult{a}
	return res
}

func TestChartDataReducesToPixelColumns(t *testing.T) {
	res := bangBang(100_000)
	d := ChartData(res, ChartOptions{Width: 800})[0]
	if !d.Reduced || len(d.X) > 800 || len(d.X) < 790 {
		t.Fatalf("reduced=%v with %d points for 800 px", d.Reduced, len(d.X))
	}
	for i := range d.X {
		// Each column holds 125 bins: both states, so the band spans 0 to
		// 3000/s, with the mean of 13 on-bins in 20 near 1950/s.
		if d.PassMin[i] != 0 || d.PassMax[i] != 3000 {
			t.Fatalf("column %d: pass band %v–%v, want 0–3000", i, d.PassMin[i], d.PassMax[i])
		}
		if d.Pass[i] < 1850 || d.Pass[i] > 2050 {
			t.Fatalf("column %d: mean pass rate %v, want about 1950", i, d.Pass[i])
		}
		// The trailing window never holds more than 13·150 passes.
		if d.WindowMax[i] > float64(res.Algorithms[0].MaxWindowPassed) {
			t.Fatalf("column %d: trailing window %v/s above the maximum %d", i, d.WindowMax[i], res.Algorithms[0].MaxWindowPassed)
		}
	}
	if d.WindowMax[len(d.X)-1] != 1950 {
		t.Errorf("trailing window max %v, want 1950", d.WindowMax[len(d.X)-1])
	}
	if d.X[0] != 0 || d.XEnd != res.End.Seconds() {
		t.Errorf("columns span %v–%v, want 0–%v", d.X[0], d.XEnd, res.End.Seconds())
	}
}

// TestStepsStayInsideTheSpan: a zoom starting inside a bin draws that bin
// from the zoom's start, not from the bin's (the grey area began one bin
// early in clipped panels).
func TestStepsStayInsideTheSpan(t *testing.T) {
	res := synthResult()
	opts := ChartOptions{From: 871 * time.Millisecond, To: 1300 * time.Millisecond}
	d := ChartData(res, opts)[0]
	pts := steps(d.X, d.XEnd, d.Arrival, opts.From.Seconds(), opts.To.Seconds())
	if pts[0].X != 0.871 || pts[len(pts)-1].X != 1.3 {
		t.Errorf("steps run %v–%v, want 0.871–1.3", pts[0].X, pts[len(pts)-1].X)
	}
	for _, p := range pts {
		if p.X < 0.871 || p.X > 1.3 {
			t.Fatalf("point at %v outside the zoom", p.X)
		}
	}
}

func TestOneArrivalSpansItsBin(t *testing.T) {
	res := &simulator.Result{Scenario: "one", Bin: 50 * time.Millisecond, Window: time.Second, End: 1,
		Algorithms: []simulator.AlgoResult{{Spec: "fixed-window", Name: "fixed-window", Rate: 1, Arrived: 1, Passed: 1,
			Bins: []simulator.Bin{{Arrived: 1, Passed: 1}}}}}
	from, to := ChartOptions{}.span(res)
	if got := figureTitle(res, from, to).detail; !strings.HasSuffix(got, "0s to 50ms") {
		t.Errorf("title %q, want the span 0s to 50ms and no zoom note", got)
	}
	// A trace ends 1 ns after its last arrival: the chart covers that
	// arrival's whole bin.
	res.Start, res.End = 5*time.Second, 5300*time.Millisecond+1
	res.Algorithms[0].Bins = make([]simulator.Bin, 7)
	res.Algorithms[0].Bins[6] = simulator.Bin{Arrived: 1, Passed: 1}
	from, to = ChartOptions{}.span(res)
	if got := figureTitle(res, from, to).detail; !strings.HasSuffix(got, "5s to 5.35s") {
		t.Errorf("title %q, want the span 5s to 5.35s and no zoom note", got)
	}
	if err := Chart(io.Discard, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestFmtDurRoundsLongSpans(t *testing.T) {
	for d, want := range map[time.Duration]string{
		21556814590001: "21556.815s", 86400 * time.Second: "86400s", 1500*time.Millisecond + 1: "1.5s",
		20 * time.Microsecond: "20µs", 123456789: "123.457ms",
	} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%d) = %q, want %q", int64(d), got, want)
		}
	}
}

func TestClockStepsAreMarked(t *testing.T) {
	res := synthResult()
	res.ClockSteps = []simulator.ClockStep{{At: 1200 * time.Millisecond, By: -time.Second}, {At: 5 * time.Second, By: time.Second}}
	d := ChartData(res, ChartOptions{})[0]
	if len(d.ClockSteps) != 1 || d.ClockSteps[0] != 1.2 {
		t.Errorf("clock steps %v, want [1.2] (the one inside the run)", d.ClockSteps)
	}
	found := false
	for _, it := range headerItems(ChartData(res, ChartOptions{}), false) {
		found = found || it.label == "clock step"
	}
	if !found {
		t.Error("the key does not explain the clock-step marks")
	}
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "chart-steps.png", buf.Bytes())
}

func TestChartContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var buf bytes.Buffer
	if err := ChartContext(ctx, &buf, bangBang(1000), ChartOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes written after cancellation", buf.Len())
	}
}

// BenchmarkChart draws the same chart from 1 000 to 1 000 000 bins per
// limiter: with the reduction to pixel columns the time stays about the
// same (only a linear pass over the bins grows).
//
//	go test -run '^$' -bench Chart -benchtime 3x ./plots/
func BenchmarkChart(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		res := bangBang(n)
		one := res.Algorithms[0]
		for range 6 {
			res.Algorithms = append(res.Algorithms, one)
		}
		b.Run(fmt.Sprintf("bins=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := Chart(io.Discard, res, ChartOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/chart")
		})
	}
}
