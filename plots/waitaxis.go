package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// waitSeries is one mean-wait step line in milliseconds.
type waitSeries struct {
	xys plotter.XYs
	sty draw.LineStyle
}

// waitAxis draws mean waits on a secondary scale: 0 ms at the bottom of the
// panel and top ms at its top, with a right-hand axis labelled in ms. It
// reports glyph boxes for its labels so plot.Align leaves room for them.
type waitAxis struct {
	series []waitSeries
	top    float64
	ticks  []plot.Tick
	tick   text.Style
	label  text.Style
	text   string
	color  color.Color
}

const waitTickLen, waitPad = 4, 3 // points

// newWaitAxis returns a wait axis whose top is a nice number above the
// largest wait, by at least a quarter of a tick step.
func newWaitAxis(series []waitSeries, clr color.Color) *waitAxis {
	maxMs := 0.0
	for _, s := range series {
		for _, p := range s.xys {
			if !math.IsNaN(p.Y) {
				maxMs = math.Max(maxMs, p.Y)
			}
		}
	}
	if maxMs <= 0 {
		maxMs = 1
	}
	step := niceStep(maxMs, 4)
	top := math.Ceil(maxMs/step-1e-9) * step
	if top-maxMs < step/4 {
		// A line at (or just under) the top would run along the panel's
		// frame, out of sight (a constant 20 ms RT, a full 500 ms queue).
		top += step
	}
	var ticks []plot.Tick
	for _, t := range (linearTicks{target: 4}).Ticks(0, top) {
		if t.Label != "" {
			ticks = append(ticks, t)
		}
	}
	tk := sans(9, false)
	tk.Color = clr
	tk.XAlign, tk.YAlign = draw.XLeft, draw.YCenter
	lbl := sans(10, false)
	lbl.Color = clr
	lbl.Rotation = math.Pi / 2
	lbl.XAlign, lbl.YAlign = draw.XCenter, draw.YTop
	return &waitAxis{series: series, top: top, ticks: ticks, tick: tk, label: lbl, text: "mean wait (ms)", color: clr}
}

// setTop fixes the axis's top (a 0–1 CPU axis) and its ticks.
func (w *waitAxis) setTop(top float64) {
	w.top, w.ticks = top, nil
	for _, t := range (linearTicks{target: 2}).Ticks(0, top) {
		if t.Label != "" {
			w.ticks = append(w.ticks, t)
		}
	}
}

// labelOffset is how far right of the data area the axis label starts.
func (w *waitAxis) labelOffset() vg.Length {
	var maxW vg.Length
	for _, t := range w.ticks {
		maxW = max(maxW, w.tick.Width(t.Label))
	}
	return vg.Points(waitTickLen+waitPad) + maxW + vg.Points(waitPad+1)
}

func (w *waitAxis) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	trY := func(ms float64) vg.Length { return c.Y(ms / w.top) }
	for _, s := range w.series {
		// A NaN value (no response in the bin) breaks the line.
		pts := make([]vg.Point, 0, 2*len(s.xys))
		for i, p := range s.xys {
			if math.IsNaN(p.Y) {
				if len(pts) > 1 {
					strokeChunked(c, s.sty, pts)
				}
				pts = pts[:0]
				continue
			}
			if len(pts) > 0 {
				pts = append(pts, vg.Point{X: trX(p.X), Y: trY(s.xys[i-1].Y)})
			}
			pts = append(pts, vg.Point{X: trX(p.X), Y: trY(p.Y)})
		}
		if len(pts) > 1 {
			strokeChunked(c, s.sty, pts)
		}
	}
	axis := draw.LineStyle{Color: w.color, Width: vg.Points(0.8)}
	x := c.Max.X
	c.StrokeLine2(axis, x, c.Min.Y, x, c.Max.Y)
	for _, t := range w.ticks {
		y := trY(t.Value)
		c.StrokeLine2(axis, x, y, x+vg.Points(waitTickLen), y)
		c.FillText(w.tick, vg.Point{X: x + vg.Points(waitTickLen+waitPad), Y: y}, t.Label)
	}
	c.FillText(w.label, vg.Point{X: x + w.labelOffset(), Y: c.Center().Y}, w.text)
}

func (w *waitAxis) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for _, t := range w.ticks {
		r := w.tick.Rectangle(t.Label)
		r.Min.X += vg.Points(waitTickLen + waitPad)
		r.Max.X += vg.Points(waitTickLen + waitPad)
		boxes = append(boxes, plot.GlyphBox{X: 1, Y: t.Value / w.top, Rectangle: r})
	}
	r := w.label.Rectangle(w.text)
	off := w.labelOffset()
	r.Min.X += off
	r.Max.X += off
	boxes = append(boxes, plot.GlyphBox{X: 1, Y: 0.5, Rectangle: r})
	return boxes
}
