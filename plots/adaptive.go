package plots

import (
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// What chart.png adds for an adaptive row (issue 16): under its panel, a
// concurrency panel with the calls in flight and the algorithm's current
// limit, and a smaller signals panel with the RT p99 per bin and the CPU
// signal on a 0–1 right-hand axis. Every value comes from the series
// (PanelData's InFlight, AdaptiveLimit, RTP99Ms, CPU); nothing is computed
// here.

// Heights of the adaptive sub-panels, as shares of a limiter's panel.
const (
	concurrencyShare = 0.55
	signalsShare     = 0.45
)

var (
	cpuColor           = color.RGBA{R: 0x6a, G: 0x3d, B: 0x9a, A: 0xff} // purple
	adaptiveLimitStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	rtP99Style         = draw.LineStyle{Color: rtColor, Width: vg.Points(1.1)}
	cpuStyle           = draw.LineStyle{Color: color.NRGBA{R: cpuColor.R, G: cpuColor.G, B: cpuColor.B, A: 0x90}, Width: vg.Points(0.7)}
)

func inFlightStyle(c color.RGBA) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.3)}
}

// isAdaptive reports whether a panel's row has the adaptive series.
func (d *PanelData) isAdaptive() bool { return len(d.InFlight) > 0 }

// adaptiveRows counts the result's adaptive rows (each adds two
// sub-panels).
func adaptiveRows(res *simulator.Result) int {
	n := 0
	for i := range res.Algorithms {
		if c := res.Algorithms[i].Chain; c != nil && c.Adaptive {
			n++
		}
	}
	return n
}

// concurrencyPlot draws an adaptive row's calls in flight (its colour) and
// current limit (dashed) on a count axis.
func concurrencyPlot(d *PanelData, from, to time.Duration, widthPx int, last bool) *plot.Plot {
	p := newPlot()
	f, t := from.Seconds(), to.Seconds()
	p.Add(grid())
	p.Add(stepLine(d, d.InFlight, f, t, inFlightStyle(d.Color)))
	if d.HasLimit {
		p.Add(stepLine(d, d.AdaptiveLimit, f, t, adaptiveLimitStyle))
	}
	top := 1.0
	for i := range d.InFlight {
		for _, v := range []float64{d.InFlight[i], d.AdaptiveLimit[i]} {
			if !math.IsNaN(v) {
				top = math.Max(top, v)
			}
		}
	}
	timeAxis(p, from, to, widthPx, last)
	p.Y.Min, p.Y.Max = 0, axisTop(top)
	p.Y.Padding = 0
	p.Y.Tick.Marker = linearTicks{target: 3}
	p.Y.Label.Text = "in flight"
	if d.HasLimit {
		p.Y.Label.Text = "in flight, limit"
	}
	p.Y.Label.TextStyle.Font.Size = vg.Points(9)
	return p
}

// signalsPlot draws an adaptive row's RT p99 per bin (ms, left axis) and,
// when the row has one, its CPU signal on a 0–1 right-hand axis.
func signalsPlot(d *PanelData, from, to time.Duration, widthPx int, last bool) *plot.Plot {
	p := newPlot()
	f, t := from.Seconds(), to.Seconds()
	p.Add(grid())
	if d.HasCPU {
		// Under the RT line: the CPU is the context, the RT the point.
		ax := newWaitAxis([]waitSeries{{xys: steps(d.X, d.XEnd, d.CPU, f, t), sty: cpuStyle}}, cpuColor)
		ax.setTop(1)
		ax.text = "CPU"
		p.Add(ax)
	}
	p.Add(stepLine(d, d.RTP99Ms, f, t, rtP99Style))
	top := 1.0
	for _, v := range d.RTP99Ms {
		if !math.IsNaN(v) {
			top = math.Max(top, v)
		}
	}
	timeAxis(p, from, to, widthPx, last)
	p.Y.Min, p.Y.Max = 0, axisTop(top)
	p.Y.Padding = 0
	p.Y.Tick.Marker = linearTicks{target: 3}
	p.Y.Label.Text = "RT p99 (ms)"
	p.Y.Label.TextStyle.Font.Size = vg.Points(9)
	return p
}

// adaptiveKeyItems explains the sub-panels' lines in the figure key.
func adaptiveKeyItems(data []PanelData) []keyItem {
	var d *PanelData
	hasLimit, hasCPU := false, false
	for i := range data {
		if data[i].isAdaptive() {
			if d == nil {
				d = &data[i]
			}
			hasLimit = hasLimit || data[i].HasLimit
			hasCPU = hasCPU || data[i].HasCPU
		}
	}
	if d == nil {
		return nil
	}
	items := []keyItem{{label: "calls in flight (panel below, limiter's colour)", line: inFlightStyle(d.Color)}}
	if hasLimit {
		items = append(items, keyItem{label: "adaptive limit", line: adaptiveLimitStyle})
	}
	items = append(items, keyItem{label: "RT p99 per bin (ms)", line: rtP99Style})
	if hasCPU {
		items = append(items, keyItem{label: "CPU utilisation (right axis, 0–1)", line: cpuStyle})
	}
	return items
}

// stackAlign lays plots out top to bottom in dc, each taking a share of
// the height proportional to its weight, with the data areas aligned left
// and right as plot.Align aligns a column of tiles.
func stackAlign(plots []*plot.Plot, weights []float64, t draw.Tiles, dc draw.Canvas) []draw.Canvas {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	avail := dc.Max.Y - dc.Min.Y - t.PadTop - t.PadBottom - vg.Length(len(plots)-1)*t.PadY
	out := make([]draw.Canvas, len(plots))
	y := dc.Max.Y - t.PadTop
	for i := range plots {
		h := avail * vg.Length(weights[i]/sum)
		c := dc
		c.Min.X, c.Max.X = dc.Min.X+t.PadLeft, dc.Max.X-t.PadRight
		c.Max.Y, c.Min.Y = y, y-h
		out[i] = c
		y -= h + t.PadY
	}
	var left, right vg.Length
	for i, p := range plots {
		data := p.DataCanvas(out[i])
		left = max(left, data.Min.X-out[i].Min.X)
		right = max(right, out[i].Max.X-data.Max.X)
	}
	for i, p := range plots {
		data := p.DataCanvas(out[i])
		out[i] = draw.Crop(out[i], left-(data.Min.X-out[i].Min.X), out[i].Max.X-data.Max.X-right, 0, 0)
	}
	return out
}
