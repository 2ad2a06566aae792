package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Size of tune.png in pixels.
const (
	TuneWidth  = 1400
	TuneHeight = 960
)

var (
	worstColor  = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	smoothColor = color.RGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff}
)

// TuneChart draws tune.png: leap-array's measured overshoot against its
// sample count N (log scale) with the 1 + 1/N smooth-traffic figure and the
// 2× worst case for reference, and its state size against N. Skipped rows
// are left out.
func TuneChart(w io.Writer, res *simulator.TuneResult) error {
	if res == nil {
		return errors.New("no tune result to chart")
	}
	over, state := TuneData(res)
	if len(over) == 0 {
		return errors.New("no sample count to chart: every row was skipped")
	}
	measured := BaseColor("leap-array")
	measuredLine := draw.LineStyle{Color: measured, Width: vg.Points(1.5)}
	smoothStyle := draw.LineStyle{Color: smoothColor, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	worstStyle := draw.LineStyle{Color: worstColor, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(8), vg.Points(4)}}

	title := figTitle{main: "leap-array sample counts · " + res.Scenario, detail: tuneDetail(res)}
	items := []keyItem{
		{label: "measured overshoot (max " + fmtDur(res.Window) + " window / limit)", line: measuredLine},
		{label: "1 + 1/N (smooth-traffic figure)", line: smoothStyle},
		{label: "2× (worst case)", line: worstStyle},
	}
	img := newCanvas(TuneWidth, TuneHeight)
	dc := draw.New(img)
	hdrH := headerHeight(px(TuneWidth), title, items)
	drawHeader(dc, title, items)
	body := draw.Crop(dc, 0, 0, 0, -hdrH)

	nMin, nMax := over[0].X, over[0].X
	yMin, yMax := 1.0, 2.0
	for _, p := range over {
		nMin, nMax = math.Min(nMin, p.X), math.Max(nMax, p.X)
		yMin, yMax = math.Min(yMin, p.Y), math.Max(yMax, p.Y)
	}
	xLo, xHi := decadeFloor(nMin), decadeCeil(nMax)
	if xLo == xHi {
		xHi *= 10
	}

	// Panel 1: overshoot.
	p1 := newPlot()
	p1.Title.Text = "overshoot against sample count N"
	logX(p1, xLo, xHi, false)
	smooth := make(plotter.XYs, 0, 200)
	for i := range 200 {
		n := xLo * math.Pow(xHi/xLo, float64(i)/199)
		smooth = append(smooth, plotter.XY{X: n, Y: 1 + 1/n})
	}
	p1.Add(grid())
	p1.Add(&plotter.Line{XYs: smooth, LineStyle: smoothStyle})
	p1.Add(hline(xLo, xHi, 2, worstStyle))
	if err := addPoints(p1, over, measuredLine); err != nil {
		return err
	}
	yMin = math.Min(yMin, 1+1/xHi)
	pad := (yMax - yMin) * 0.06
	p1.Y.Min, p1.Y.Max = yMin-pad, yMax+pad
	p1.Y.Tick.Marker = linearTicks{target: 6}
	p1.Y.Label.Text = "overshoot (×)"

	// Panel 2: state size.
	p2 := newPlot()
	p2.Title.Text = "state size against sample count N"
	logX(p2, xLo, xHi, true)
	p2.Add(grid())
	if err := addPoints(p2, state, measuredLine); err != nil {
		return err
	}
	sMin, sMax := math.Inf(1), math.Inf(-1)
	for _, p := range state {
		sMin, sMax = math.Min(sMin, p.Y), math.Max(sMax, p.Y)
	}
	if sMin > 0 {
		p2.Y.Scale = plot.LogScale{}
		p2.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p2.Y.Min, p2.Y.Max = decadeFloor(sMin), decadeCeil(sMax)
		if p2.Y.Min == p2.Y.Max {
			p2.Y.Max *= 10
		}
		p2.Y.Label.Text = "state (bytes, log scale)"
	} else {
		p2.Y.Min, p2.Y.Max = 0, math.Max(sMax*1.08, 1)
		p2.Y.Tick.Marker = linearTicks{target: 5}
		p2.Y.Label.Text = "state (bytes)"
	}

	plots := [][]*plot.Plot{{p1}, {p2}}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: px(18), PadTop: px(4), PadBottom: px(8), PadLeft: px(10), PadRight: px(24)}
	canvases := plot.Align(plots, tiles, body)
	p1.Draw(canvases[0][0])
	p2.Draw(canvases[1][0])
	return writePNG(w, img)
}

// tuneDetail is the line beside the tune chart's title.
func tuneDetail(res *simulator.TuneResult) string {
	s := fmt.Sprintf("limit %s req/s · interval %s · %s window", formatNum(res.Limit), fmtDur(res.Interval), fmtDur(res.Window))
	var skipped []string
	for _, r := range res.Rows {
		if r.Skipped != "" {
			skipped = append(skipped, fmt.Sprint(r.SampleCount))
		}
	}
	if len(skipped) > 0 {
		s += " · skipped N = " + strings.Join(skipped, ", ")
	}
	return s
}

// logX puts N on a log axis from lo to hi.
func logX(p *plot.Plot, lo, hi float64, label bool) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = lo, hi
	p.X.Padding = vg.Points(10)
	if label {
		p.X.Label.Text = "sample count N (log scale)"
	}
}

// addPoints draws xys as a line with a dot on every point, labelled N.
func addPoints(p *plot.Plot, xys plotter.XYs, sty draw.LineStyle) error {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	l.LineStyle = sty
	s.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	labels := make([]string, len(xys))
	for i, q := range xys {
		labels[i] = formatNum(q.X)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		st := sans(8, false)
		st.Color = color.Gray{Y: 0x40}
		st.XAlign, st.YAlign = draw.XCenter, draw.YBottom
		lb.TextStyle[i] = st
	}
	lb.Offset = vg.Point{Y: vg.Points(5)}
	p.Add(l, s, lb)
	return nil
}

// decadeFloor and decadeCeil round v > 0 to powers of ten.
func decadeFloor(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v)+1e-9)) }
func decadeCeil(v float64) float64  { return math.Pow(10, math.Ceil(math.Log10(v)-1e-9)) }
