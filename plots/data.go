package plots

import (
	"fmt"
	"image/color"
	"math"
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

	// RTMs is the mean response time of the calls completed in each
	// point's bins, in ms (rows with responses only); NaN where none
	// completed (no response is not a 0 ms response: the line breaks).
	RTMs []float64
	// Goodput is the rate of responses without error or timeout per
	// point (adaptive rows only; nil otherwise).
	Goodput []float64
	// InFlight and AdaptiveLimit are the adaptive stage's calls in flight
	// and current limit (series.csv's in_flight and limit, the column
	// means when Reduced), RTP99Ms its responses' p99 in ms (rt_p99_ms,
	// the column's largest) and CPU its CPU signal, 0–1 (cpu): adaptive
	// rows only (nil otherwise), NaN where the series has no value (the
	// line breaks). HasLimit and HasCPU tell whether any point has one.
	InFlight, AdaptiveLimit, RTP99Ms, CPU []float64
	HasLimit, HasCPU                      bool
	// XEnd is where the last point's step ends, in seconds.
	XEnd float64
	// Reduced is true when the bins outnumber the chart's pixel columns:
	// then each point is one column (simulator.Columns), Arrival, Pass and
	// Window are the column means, and the *Min / *Max slices hold each
	// column's envelope. Otherwise each point is one bin and Min = Max.
	Reduced                bool
	ArrivalMin, ArrivalMax []float64
	PassMin, PassMax       []float64
	// Window is the passes in the trailing window (simulator.TrailingWindow)
	// divided by its span in seconds, a rate on the same axis as the limit;
	// WindowSpan is that span (the --window rounded to whole bins).
	Window, WindowMin, WindowMax []float64
	WindowSpan                   time.Duration
	// ClockSteps are the times, in seconds, of the clock steps inside the
	// chart (at most maxStepMarks).
	ClockSteps []float64
	// Borrowed is the rate of borrowed passes per point (prioritized
	// requests that waited for a future window), drawn as a second shade
	// under the pass line; nil when the row borrowed nothing.
	Borrowed []float64
	// Fallbacks is the rate of arrivals a cluster limiter decided on its
	// fail path per point (plots/cluster.go); nil for other rows.
	Fallbacks []float64
}

// maxStepMarks is the most clock steps a chart marks.
const maxStepMarks = 200

// columnsFor is how many pixel columns a chart of opts has.
func columnsFor(opts ChartOptions) int {
	if opts.Width > 0 {
		return opts.Width
	}
	return DefaultWidth
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
	if res.Bin > 0 && to > from {
		// Whole bins: a trace ends 1 ns after its last arrival, whose bin
		// would otherwise be cut off (one arrival read "0s to 1ns").
		n := (to - from + res.Bin - 1) / res.Bin
		to = from + n*res.Bin
	} else if res.Bin > 0 {
		to = from + res.Bin
	}
	if o.From != 0 {
		from = o.From
	}
	if o.To != 0 {
		to = o.To
	}
	return from, to
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

	cols := columnsFor(opts)
	var steps []float64
	for _, st := range res.ClockSteps {
		if st.At >= from && st.At <= to && len(steps) < maxStepMarks {
			steps = append(steps, st.At.Seconds())
		}
	}
	out := make([]PanelData, len(res.Algorithms))
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		pd := PanelData{
			Spec:       a.Spec,
			Name:       a.Name,
			Color:      colors[i],
			Limit:      a.Rate,
			Queueing:   queueingNames[a.Name] || a.WaitMax > 0,
			Summary:    summary(res, a),
			ClockSteps: steps,
		}
		_, pd.WindowSpan = simulator.TrailingWindow(nil, res.Bin, res.Window)
		cs := simulator.Columns(res, a, from, to, cols)
		pd.Reduced = len(cs) > 0 && cs[0].Bins > 1
		for _, c := range cs {
			if c.WaitMs > 0 {
				pd.Queueing = true
			}
			pd.X = append(pd.X, c.From.Seconds())
			pd.Arrival = append(pd.Arrival, c.Arrival.Mean)
			pd.ArrivalMin = append(pd.ArrivalMin, c.Arrival.Min)
			pd.ArrivalMax = append(pd.ArrivalMax, c.Arrival.Max)
			pd.Pass = append(pd.Pass, c.Pass.Mean)
			pd.PassMin = append(pd.PassMin, c.Pass.Min)
			pd.PassMax = append(pd.PassMax, c.Pass.Max)
			pd.Window = append(pd.Window, c.Window.Mean)
			pd.WindowMin = append(pd.WindowMin, c.Window.Min)
			pd.WindowMax = append(pd.WindowMax, c.Window.Max)
			pd.WaitMs = append(pd.WaitMs, c.WaitMs)
			rt := c.RTMs
			if c.Completed == 0 {
				rt = math.NaN()
			}
			pd.RTMs = append(pd.RTMs, rt)
			if a.Chain != nil && a.Chain.Adaptive {
				pd.Goodput = append(pd.Goodput, c.Goodput)
				pd.InFlight = append(pd.InFlight, valueIf(c.InFlight, c.Sampled > 0))
				pd.AdaptiveLimit = append(pd.AdaptiveLimit, valueIf(c.Limit, c.Limits > 0))
				pd.RTP99Ms = append(pd.RTP99Ms, valueIf(c.RTP99Ms, c.Completed > 0))
				pd.CPU = append(pd.CPU, valueIf(c.CPU, c.CPUs > 0))
				pd.HasLimit = pd.HasLimit || c.Limits > 0
				pd.HasCPU = pd.HasCPU || c.CPUs > 0
			}
			pd.XEnd = c.To.Seconds()
		}
		if p := a.Priority; p != nil && p.WaitedForNextWindow > 0 {
			for _, c := range cs {
				pd.Borrowed = append(pd.Borrowed, c.Borrowed)
			}
		}
		if a.Cluster != nil {
			for _, c := range cs {
				pd.Fallbacks = append(pd.Fallbacks, c.Fallbacks)
			}
		}
		out[i] = pd
	}
	return out
}

// valueIf is v when ok, else NaN (no value: a gap in the line).
func valueIf(v float64, ok bool) float64 {
	if ok {
		return v
	}
	return math.NaN()
}

// summary is the key-figure line of a panel, e.g.
// "passed 62.3% · max 1s window 1000 / 500 (2.00×) · peak bin 500".
func summary(res *simulator.Result, a *simulator.AlgoResult) string {
	passed := "passed 0 of 0"
	if a.Arrived > 0 {
		passed = fmt.Sprintf("passed %.1f%%", 100*float64(a.Passed)/float64(a.Arrived))
	}
	// A maximum that is only a lower bound (late admissions) reads "≥",
	// as in the table.
	lb := ""
	if a.LateAdmissions > 0 {
		lb = simulator.LowerBound
	}
	s := fmt.Sprintf("%s · max %s window %s%d / %s (%s%.2f×) · peak bin %d",
		passed, fmtDur(res.Window), lb, a.MaxWindowPassed, formatNum(a.WindowLimit), lb, a.Overshoot, a.PeakBinPassed)
	if a.Rate == 0 {
		// A row without a rate (a breaker alone): no limit to compare with.
		s = fmt.Sprintf("%s · max %s window %s%d · peak bin %d", passed, fmtDur(res.Window), lb, a.MaxWindowPassed, a.PeakBinPassed)
	}
	if a.WaitMax > 0 {
		s += fmt.Sprintf(" · wait p50 %s p99 %s max %s",
			roundDur(a.WaitP50), roundDur(a.WaitP99), roundDur(a.WaitMax))
	}
	s += redisSummary(a)
	s += chainSummary(a.Chain)
	return s
}

// chainSummary is an evented row's part of the key-figure line: how often
// its breaker opened and for how long, and its errors and RT p99, the
// figures the table shows.
func chainSummary(c *simulator.ChainResult) string {
	if c == nil {
		return ""
	}
	s := ""
	if c.Breaker != "" {
		s += fmt.Sprintf(" · opened %d× (%s OPEN)", c.Opens, fmtDur(roundDur(c.OpenTime)))
	}
	if c.Responses {
		s += fmt.Sprintf(" · %d errors · RT p99 %s", c.Errors, roundDur(c.RTP99))
	}
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
		// At most millisecond precision: a trace's end is its last
		// timestamp + 1 ns, which reads "21556.814590001s" otherwise.
		return strconv.FormatFloat(math.Round(d.Seconds()*1000)/1000, 'f', -1, 64) + "s"
	}
	if d >= 10*time.Microsecond || d <= -10*time.Microsecond {
		return d.Round(time.Microsecond).String()
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
