package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// steps turns per-point values into the corners of a step line: point i
// holds from x[i] to x[i+1] (the last to xEnd), every x clamped to
// [from, to] so nothing is drawn outside the chart's span.
func steps(x []float64, xEnd float64, y []float64, from, to float64) plotter.XYs {
	clamp := func(v float64) float64 { return min(max(v, from), to) }
	out := make(plotter.XYs, 0, 2*len(x))
	for i := range x {
		x1 := xEnd
		if i+1 < len(x) {
			x1 = x[i+1]
		}
		out = append(out, plotter.XY{X: clamp(x[i]), Y: y[i]}, plotter.XY{X: clamp(x1), Y: y[i]})
	}
	return out
}

// stepLine is a step line through values.
func stepLine(d *PanelData, y []float64, from, to float64, sty draw.LineStyle) *line {
	return &line{xys: steps(d.X, d.XEnd, y, from, to), sty: sty}
}

// line is a polyline stroked in short pieces. The rasterizer behind
// vgimg (freetype's) keeps a path's cells in per-row lists it scans
// linearly, so one path of thousands of points takes time quadratic in its
// length (a 10 000-bin chart took 25 s); pieces of chunkPoints keep it
// linear.
type line struct {
	xys plotter.XYs
	sty draw.LineStyle
}

const chunkPoints = 64

func (l *line) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	pts := make([]vg.Point, 0, len(l.xys))
	for _, p := range l.xys {
		if math.IsNaN(p.Y) {
			// No value (an adaptive series between samples): a gap.
			strokeChunked(c, l.sty, pts)
			pts = pts[:0]
			continue
		}
		pts = append(pts, vg.Point{X: trX(p.X), Y: trY(p.Y)})
	}
	strokeChunked(c, l.sty, pts)
}

// strokeChunked strokes the polyline pts in pieces of chunkPoints that
// share their end points, clipped to c.
func strokeChunked(c draw.Canvas, sty draw.LineStyle, pts []vg.Point) {
	for i := 0; i+1 < len(pts); i += chunkPoints {
		j := min(i+chunkPoints+1, len(pts))
		c.StrokeLines(sty, c.ClipLinesXY(pts[i:j])...)
	}
}

// band fills the area between two step lines, lo below hi.
type band struct {
	lo, hi plotter.XYs // same x, from steps
	fill   color.Color
}

func newBand(d *PanelData, lo, hi []float64, from, to float64, fill color.Color) *band {
	return &band{lo: steps(d.X, d.XEnd, lo, from, to), hi: steps(d.X, d.XEnd, hi, from, to), fill: fill}
}

func (b *band) Plot(c draw.Canvas, plt *plot.Plot) {
	if len(b.hi) == 0 {
		return
	}
	trX, trY := plt.Transforms(&c)
	// One polygon per chunkPoints points (see line), sharing edges.
	pts := make([]vg.Point, 0, 2*chunkPoints+2)
	for i := 0; i+1 < len(b.hi); i += chunkPoints {
		j := min(i+chunkPoints+1, len(b.hi))
		pts = pts[:0]
		for _, p := range b.hi[i:j] {
			pts = append(pts, vg.Point{X: trX(p.X), Y: trY(p.Y)})
		}
		for k := j - 1; k >= i; k-- {
			pts = append(pts, vg.Point{X: trX(b.lo[k].X), Y: trY(b.lo[k].Y)})
		}
		c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
	}
}

// stepMarks draws a vertical dotted line at every clock step.
type stepMarks struct{ xs []float64 }

var stepStyle = draw.LineStyle{Color: color.RGBA{R: 0xe0, G: 0x80, B: 0x00, A: 0xff}, Width: vg.Points(1.2),
	Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}

func (m stepMarks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	for _, x := range m.xs {
		if x < plt.X.Min || x > plt.X.Max {
			continue
		}
		c.StrokeLine2(stepStyle, trX(x), c.Min.Y, trX(x), c.Max.Y)
	}
}

// fade returns c with alpha a.
func fade(c color.RGBA, a uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}

// darken returns c with every channel scaled by f (0..1).
func darken(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{R: uint8(float64(c.R) * f), G: uint8(float64(c.G) * f), B: uint8(float64(c.B) * f), A: c.A}
}

// windowStyle is the trailing-window line of a limiter.
func windowStyle(c color.RGBA) draw.LineStyle {
	return draw.LineStyle{Color: darken(c, 0.5), Width: vg.Points(1.8)}
}

// reducePerPixel is how many points per pixel column a line drawn through
// plotter.Line (with a glyph box per point and one path) may have before
// it is drawn from each column's envelope (columnEnvelope) instead.
const reducePerPixel = 4

// columnEnvelope thins a line's points, sorted by X, to what a picture of
// cols pixel columns across [x0, x1] shows, when they are more than
// reducePerPixel a column (otherwise it returns them as they are): in each column its first and
// last points and those holding its lowest and highest Y, in their order.
// A step or polyline through the kept points covers, in every column, the
// same vertical extent as through all of them (so a one-point spike stays),
// and passes through the same points where columns meet; what changes lies
// inside one column: the same picture up to antialiasing. The first and
// last points, and the lowest and highest Y, are kept, so the glyph boxes
// gonum/plot pads the axes with (the extremes) are the same.
func columnEnvelope(xys plotter.XYs, x0, x1 float64, cols int) plotter.XYs {
	if cols < 1 || x1 <= x0 || len(xys) <= reducePerPixel*cols {
		return xys
	}
	col := func(x float64) int {
		return min(max(int(math.Floor((x-x0)/(x1-x0)*float64(cols))), 0), cols-1)
	}
	out := make(plotter.XYs, 0, 4*cols)
	for i := 0; i < len(xys); {
		c := col(xys[i].X)
		j, lo, hi := i, i, i
		for ; j < len(xys) && col(xys[j].X) == c; j++ {
			if xys[j].Y < xys[lo].Y {
				lo = j
			}
			if xys[j].Y > xys[hi].Y {
				hi = j
			}
		}
		last := j - 1
		keep := [4]int{i, min(lo, hi), max(lo, hi), last}
		for k, idx := range keep {
			if k == 0 || idx != keep[k-1] {
				out = append(out, xys[idx])
			}
		}
		i = j
	}
	return out
}
