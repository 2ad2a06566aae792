package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
)

// Size of bench.png in pixels.
const (
	BenchWidth  = 1400
	BenchHeight = 960
)

// benchPalette gives each bench implementation a fixed colour: the Sentinel
// ring in leap-array's blue, the fixed window in fixed-window's red, x/time/rate
// in token-bucket's orange.
var benchPalette = map[string]color.RGBA{
	"sentinel-ring":       palette["leap-array"],
	"mutex-ring":          palette["leaky-bucket"],
	"atomic-fixed-window": palette["fixed-window"],
	"x-time-rate":         palette["token-bucket"],
}

// BenchColor returns the colour of a bench implementation.
func BenchColor(impl string) color.RGBA {
	if c, ok := benchPalette[impl]; ok {
		return c
	}
	return unknownColor
}

// BenchSeries is one implementation's points against goroutines: decisions
// per second, overshoot (largest trailing window / limit) and aligned
// overshoot (largest aligned window / limit).
type BenchSeries struct {
	Impl                           string
	Throughput, Overshoot, Aligned plotter.XYs
}

// BenchData groups results by implementation, in order of first
// appearance, each series in the order of the results.
func BenchData(results []concurrent.BenchResult) []BenchSeries {
	var out []BenchSeries
	idx := map[string]int{}
	for _, r := range results {
		i, ok := idx[r.Impl]
		if !ok {
			i = len(out)
			idx[r.Impl] = i
			out = append(out, BenchSeries{Impl: r.Impl})
		}
		g := float64(r.Goroutines)
		out[i].Throughput = append(out[i].Throughput, plotter.XY{X: g, Y: r.DecisionsPerSec})
		out[i].Overshoot = append(out[i].Overshoot, plotter.XY{X: g, Y: r.Overshoot})
		out[i].Aligned = append(out[i].Aligned, plotter.XY{X: g, Y: r.AlignedOvershoot})
	}
	return out
}

// BenchChart draws bench.png: throughput (decisions/s, log scale) and
// overshoot (largest aligned and trailing window / limit, log scale) against the
// number of goroutines (log scale), one line per implementation. detail is
// printed beside the title (machine, limit, duration).
func BenchChart(w io.Writer, results []concurrent.BenchResult, detail string) error {
	series := BenchData(results)
	if len(series) == 0 {
		return errors.New("no bench result to chart")
	}
	var items []keyItem
	gMin, gMax := math.Inf(1), math.Inf(-1)
	tMin, tMax := math.Inf(1), math.Inf(-1)
	oMin, oMax := 1.0, 1.0
	for _, s := range series {
		items = append(items, keyItem{label: s.Impl, line: benchLine(s.Impl)})
		for i, p := range s.Throughput {
			gMin, gMax = math.Min(gMin, p.X), math.Max(gMax, p.X)
			if p.Y > 0 {
				tMin, tMax = math.Min(tMin, p.Y), math.Max(tMax, p.Y)
			}
			for _, o := range []float64{s.Overshoot[i].Y, s.Aligned[i].Y} {
				if o > 0 {
					oMin, oMax = math.Min(oMin, o), math.Max(oMax, o)
				}
			}
		}
	}
	if math.IsInf(tMin, 1) {
		return errors.New("no decision in any bench result to chart")
	}
	items = append(items, keyItem{label: "the limit (1×), lower panel", line: benchLimitStyle})
	// The x axis spans the goroutine counts measured and labels each one
	// (1, 8 rather than 1 and a decade, 10, with no point).
	xLo, xHi := gMin, gMax
	if xLo == xHi {
		xLo, xHi = xLo/2, xHi*2
	}
	var gs goroutineTicks
	for _, s := range series {
		for _, p := range s.Throughput {
			if !slices.Contains(gs, p.X) {
				gs = append(gs, p.X)
			}
		}
	}
	title := figTitle{main: "bench · one hot key on real goroutines", detail: detail}
	img := newCanvas(BenchWidth, BenchHeight)
	dc := draw.New(img)
	hdrH := headerHeight(px(BenchWidth), title, items)
	drawHeader(dc, title, items)
	body := draw.Crop(dc, 0, 0, 0, -hdrH)

	p1 := newPlot()
	p1.Title.Text = "throughput against goroutines"
	benchX(p1, xLo, xHi, gs, false)
	p1.Add(grid())
	logY(p1, tMin, tMax, "decisions per second (log scale)")
	if tMax/tMin < 30 {
		p1.Y.Tick.Marker = rateTicks{target: 6}
	}
	p2 := newPlot()
	p2.Title.Text = "largest window / limit against goroutines: aligned windows [kW, (k+1)W) solid, trailing (t−W, t] dashed"
	benchX(p2, xLo, xHi, gs, true)
	p2.Add(grid())
	logY(p2, oMin, oMax*1.05, "overshoot (×, log scale)")
	if oMax/oMin < 10 {
		// Less than a decade: label values, not just powers of ten.
		p2.Y.Tick.Marker = linearTicks{target: 6}
	}
	p2.Add(hline(xLo, xHi, 1, benchLimitStyle))
	for _, s := range series {
		if err := addBenchPoints(p1, s.Throughput, s.Impl, false); err != nil {
			return err
		}
		if err := addBenchPoints(p2, s.Overshoot, s.Impl, true); err != nil {
			return err
		}
		if err := addBenchPoints(p2, s.Aligned, s.Impl, false); err != nil {
			return err
		}
	}
	plots := [][]*plot.Plot{{p1}, {p2}}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: px(18), PadTop: px(4), PadBottom: px(8), PadLeft: px(10), PadRight: px(24)}
	canvases := plot.Align(plots, tiles, body)
	p1.Draw(canvases[0][0])
	p2.Draw(canvases[1][0])
	return writePNG(w, img)
}

// benchLimitStyle draws the limit, an overshoot of 1, in the lower panel.
var benchLimitStyle = draw.LineStyle{Color: limitColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}

func benchLine(impl string) draw.LineStyle {
	return draw.LineStyle{Color: BenchColor(impl), Width: vg.Points(1.8)}
}

func benchX(p *plot.Plot, lo, hi float64, ticks goroutineTicks, label bool) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = lo, hi
	p.X.Padding = vg.Points(10)
	if label {
		p.X.Label.Text = "goroutines (log scale)"
	}
}

func logY(p *plot.Plot, lo, hi float64, label string) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo/1.15, hi*1.15
	p.Y.Label.Text = label
}

// addBenchPoints draws one implementation's points; points that a log axis
// cannot show (zero) are left out.
func addBenchPoints(p *plot.Plot, xys plotter.XYs, impl string, dashed bool) error {
	var keep plotter.XYs
	for _, q := range xys {
		if q.Y > 0 {
			keep = append(keep, q)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(keep)
	if err != nil {
		return fmt.Errorf("%s: %v", impl, err)
	}
	l.LineStyle = benchLine(impl)
	s.GlyphStyle = draw.GlyphStyle{Color: BenchColor(impl), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	if dashed {
		l.LineStyle.Width = vg.Points(1.2)
		l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		s.GlyphStyle.Shape = draw.RingGlyph{}
	}
	p.Add(l, s)
	return nil
}

// rateTicks labels a narrow throughput axis with nice steps, as 1.5M or
// 800k.
type rateTicks struct{ target int }

func (t rateTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := linearTicks{target: t.target}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		v := ticks[i].Value
		switch {
		case v >= 1e6:
			ticks[i].Label = strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
		case v >= 1e3:
			ticks[i].Label = strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
		}
	}
	return ticks
}

// goroutineTicks labels the goroutine counts that were measured, and only
// those.
type goroutineTicks []float64

func (g goroutineTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, v := range g {
		if v >= lo && v <= hi {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	return out
}
