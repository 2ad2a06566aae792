package plots

import (
	"fmt"
	"image/color"
	"strconv"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// PanelData is what one limiter's panel of chart.png draws. The slices run
// in parallel, one entry per bin shown.
type PanelData struct {
	// Spec is the limiter's canonical spec (the panel title); Name its
	// registry name.
	Spec, Name string
	// Color is the colour of the pass line.
	Color color.RGBA
	// Limit is the limiter's rate in requests per second (the dashed line).
	Limit float64
	// X holds each bin's start in seconds of virtual time.
	X []float64
	// Arrival and Pass are the bin's counts divided by the bin width in
	// seconds, in requests per second.
	Arrival, Pass []float64
	// WaitMs is the mean wait of the passes admitted in the bin (WaitSum /
	// Passed) in milliseconds; 0 when nothing passed.
	WaitMs []float64
	// Queueing is true for limiters that make requests wait (leaky-bucket,
	// warm-up-rate-limiter, or any limiter with a non-zero wait): their
	// panels also show WaitMs.
	Queueing bool
	// Summary is the key-figure line under the title.
	Summary string
}

// queueingNames are the limiters that delay requests instead of blocking.
var queueingNames = map[string]bool{
	"leaky-bucket":         true,
	"warm-up-rate-limiter": true,
}

// span returns the part of the run a chart shows. Zero From or To means the
// start or end of the run.
func (o ChartOptions) span(res *simulator.Result) (from, to time.Duration) {
	from, to = res.Start, res.End
	if o.From != 0 {
		from = o.From
	}
	if o.To != 0 {
		to = o.To
	}
	return from, to
}

// binRange returns the indexes [lo, hi) of the bins overlapping the
// half-open interval [from, to).
func binRange(res *simulator.Result, n int, from, to time.Duration) (lo, hi int) {
	if res.Bin <= 0 || from >= to {
		return 0, 0
	}
	lo, hi = n, 0
	for i := range n {
		start := res.Start + time.Duration(i)*res.Bin
		if start < to && start+res.Bin > from {
			lo, hi = min(lo, i), i+1
		}
	}
	if hi <= lo {
		return 0, 0
	}
	return lo, hi
}

// ChartData returns, per limiter in the order of the result, the series
// chart.png draws: the bins overlapping [From, To] (the whole run when both
// are zero), with counts turned into rates. Call opts.Validate first; an
// invalid zoom gives empty series.
func ChartData(res *simulator.Result, opts ChartOptions) []PanelData {
	if res == nil {
		return nil
	}
	from, to := opts.span(res)
	names := make([]string, len(res.Algorithms))
	for i, a := range res.Algorithms {
		names[i] = a.Name
	}
	colors := algoColors(names)
	binSec := res.Bin.Seconds()

	out := make([]PanelData, len(res.Algorithms))
	for i, a := range res.Algorithms {
		pd := PanelData{
			Spec:     a.Spec,
			Name:     a.Name,
			Color:    colors[i],
			Limit:    a.Rate,
			Queueing: queueingNames[a.Name] || a.WaitMax > 0,
			Summary:  summary(res, &a),
		}
		lo, hi := binRange(res, len(a.Bins), from, to)
		for j := lo; j < hi; j++ {
			b := a.Bins[j]
			if b.WaitSum > 0 || b.WaitMax > 0 {
				pd.Queueing = true
			}
			pd.X = append(pd.X, (res.Start + time.Duration(j)*res.Bin).Seconds())
			pd.Arrival = append(pd.Arrival, float64(b.Arrived)/binSec)
			pd.Pass = append(pd.Pass, float64(b.Passed)/binSec)
			w := 0.0
			if b.Passed > 0 {
				w = float64(b.WaitSum) / float64(b.Passed) / float64(time.Millisecond)
			}
			pd.WaitMs = append(pd.WaitMs, w)
		}
		out[i] = pd
	}
	return out
}

// summary is the key-figure line of a panel, e.g.
// "passed 62.3% · max 1s window 1000 / 500 (2.00×) · peak bin 500".
func summary(res *simulator.Result, a *simulator.AlgoResult) string {
	passed := "passed 0 of 0"
	if a.Arrived > 0 {
		passed = fmt.Sprintf("passed %.1f%%", 100*float64(a.Passed)/float64(a.Arrived))
	}
	s := fmt.Sprintf("%s · max %s window %d / %s (%.2f×) · peak bin %d",
		passed, fmtDur(res.Window), a.MaxWindowPassed, formatNum(a.WindowLimit), a.Overshoot, a.PeakBinPassed)
	if a.WaitMax > 0 {
		s += fmt.Sprintf(" · wait p50 %s p99 %s max %s",
			roundDur(a.WaitP50), roundDur(a.WaitP99), roundDur(a.WaitMax))
	}
	s += redisSummary(a)
	return s
}

// formatNum prints a number without a needless fraction.
func formatNum(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// fmtDur prints a duration for a chart: whole and fractional seconds as
// "60s" or "1.25s" rather than "1m0s", shorter ones as "50ms".
func fmtDur(d time.Duration) string {
	if d >= time.Second || d <= -time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}

// roundDur shortens a duration for display.
func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= 10*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d
}

// TuneData returns the points tune.png draws, one per row that was not
// skipped, with the sample count N as X: the measured overshoot and the
// state size in bytes.
func TuneData(res *simulator.TuneResult) (overshoot, stateBytes plotter.XYs) {
	if res == nil {
		return nil, nil
	}
	for _, r := range res.Rows {
		if r.Skipped != "" {
			continue
		}
		n := float64(r.SampleCount)
		overshoot = append(overshoot, plotter.XY{X: n, Y: r.Overshoot})
		stateBytes = append(stateBytes, plotter.XY{X: n, Y: float64(r.StateBytes)})
	}
	return overshoot, stateBytes
}
