package plots

import (
	"errors"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of a recommendation's tune.png in pixels.
const (
	FrontWidth  = 1200
	FrontHeight = 760
)

// FrontPoint is one configuration a recommendation (tune --vary) tried:
// its objective X against its slack Y (≥ 0 meets the constraints).
type FrontPoint struct {
	X, Y  float64
	Label string
	// Front: no other point is better on every goal; Best: the
	// recommendation; Feasible: it meets every constraint.
	Front, Best, Feasible bool
}

// FrontData is what FrontChart draws; lab computes it.
type FrontData struct {
	Title, XLabel, YLabel string
	Points                []FrontPoint
}

var (
	triedColor = color.RGBA{R: 0xb0, G: 0xb0, B: 0xb0, A: 0xff}
	frontColor = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	bestColor  = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
)

// FrontChart draws a recommendation's tune.png: every point tried (grey),
// the Pareto front (blue, joined in objective order), the recommended
// point (red), and the line of zero slack.
func FrontChart(w io.Writer, d FrontData) error {
	if len(d.Points) == 0 {
		return errors.New("no point to chart: no point has the goals' metrics")
	}
	var tried, front, best plotter.XYs
	for _, p := range d.Points {
		xy := plotter.XY{X: p.X, Y: p.Y}
		switch {
		case p.Best:
			best = append(best, xy)
			front = append(front, xy)
		case p.Front:
			front = append(front, xy)
		default:
			tried = append(tried, xy)
		}
	}
	p := newPlot()
	p.Title.Text = d.Title
	p.X.Label.Text, p.Y.Label.Text = d.XLabel, d.YLabel
	p.Add(grid())
	xLo, xHi, yLo, yHi := math.Inf(1), math.Inf(-1), 0.0, 0.0
	for _, q := range d.Points {
		xLo, xHi = math.Min(xLo, q.X), math.Max(xHi, q.X)
		yLo, yHi = math.Min(yLo, q.Y), math.Max(yHi, q.Y)
	}
	if xLo == xHi {
		xLo, xHi = xLo-1, xHi+1
	}
	if yLo == yHi {
		yLo, yHi = yLo-1, yHi+1
	}
	px0, py0 := (xHi-xLo)*0.04, (yHi-yLo)*0.06
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xLo-px0, xHi+px0, yLo-py0, yHi+py0
	p.X.Tick.Marker = linearTicks{target: 8}
	p.Y.Tick.Marker = linearTicks{target: 6}
	p.Add(hline(p.X.Min, p.X.Max, 0, draw.LineStyle{Color: color.Black, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}))
	add := func(xys plotter.XYs, c color.Color, r vg.Length, label string) error {
		if len(xys) == 0 {
			return nil
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: r, Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add(label, s)
		return nil
	}
	if err := add(tried, triedColor, vg.Points(3), "point tried"); err != nil {
		return err
	}
	if len(front) > 1 {
		sorted := append(plotter.XYs(nil), front...)
		sortXY(sorted)
		l, err := plotter.NewLine(sorted)
		if err != nil {
			return err
		}
		l.LineStyle = draw.LineStyle{Color: frontColor, Width: vg.Points(1)}
		p.Add(l)
	}
	if err := add(front, frontColor, vg.Points(4), "on the front"); err != nil {
		return err
	}
	if err := add(best, bestColor, vg.Points(6), "recommended"); err != nil {
		return err
	}
	p.Legend.Top = true
	img := newCanvas(FrontWidth, FrontHeight)
	p.Draw(draw.New(img))
	return writePNG(w, img)
}

// sortXY sorts points by X, then Y (insertion sort: fronts are small).
func sortXY(xys plotter.XYs) {
	for i := 1; i < len(xys); i++ {
		for j := i; j > 0 && (xys[j].X < xys[j-1].X || xys[j].X == xys[j-1].X && xys[j].Y < xys[j-1].Y); j-- {
			xys[j], xys[j-1] = xys[j-1], xys[j]
		}
	}
}
