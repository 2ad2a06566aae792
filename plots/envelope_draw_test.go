package plots

import (
	"bytes"
	"image"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// longSeries is n points 50 ms apart: the keys-hurt staircase of a long
// keyed run (a key hurt now and then, 500 at once at 2n/3), or with
// noisy set a series that jumps up and down every point, with a one-point
// spike up at 2n/3 and down at n/3.
func longSeries(n int, noisy bool) plotter.XYs {
	rng := rand.New(rand.NewPCG(3, 4))
	xys := make(plotter.XYs, n)
	y := 0.0
	for i := range xys {
		switch {
		case noisy:
			y = 1000 + 200*rng.NormFloat64()
		case rng.IntN(37) == 0:
			y++
		}
		xys[i] = plotter.XY{X: float64(i) * 0.05, Y: y}
	}
	if noisy {
		xys[2*n/3].Y, xys[n/3].Y = 2900, 0
	} else {
		for i := 2 * n / 3; i < n; i++ {
			xys[i].Y += 500
		}
	}
	return xys
}

// columnOf is the pixel column of x among cols across [x0, x1], as
// columnEnvelope counts them.
func columnOf(x, x0, x1 float64, cols int) int {
	return min(max(int((x-x0)/(x1-x0)*float64(cols)), 0), cols-1)
}

// TestColumnEnvelopeKeepsExtremes: every column keeps its first and last
// point and its lowest and highest values, so a one-bin spike among
// 60,000 bins stays, and at most 4 points a column remain.
func TestColumnEnvelopeKeepsExtremes(t *testing.T) {
	const n, cols = 60_000, 1600
	x1 := n * 0.05
	for _, noisy := range []bool{false, true} {
		xys := longSeries(n, noisy)
		red := columnEnvelope(xys, 0, x1, cols)
		if len(red) > 4*cols || len(red) < cols {
			t.Fatalf("noisy=%v: %d points left of %d for %d columns", noisy, len(red), n, cols)
		}
		type ext struct {
			first, last, lo, hi plotter.XY
			seen                bool
		}
		envelope := func(xys plotter.XYs) []ext {
			e := make([]ext, cols)
			for _, p := range xys {
				c := &e[columnOf(p.X, 0, x1, cols)]
				if !c.seen {
					*c = ext{first: p, lo: p, hi: p, seen: true}
				}
				c.last = p
				if p.Y < c.lo.Y {
					c.lo = p
				}
				if p.Y > c.hi.Y {
					c.hi = p
				}
			}
			return e
		}
		all, kept := envelope(xys), envelope(red)
		for c := range all {
			if all[c] != kept[c] {
				t.Fatalf("noisy=%v, column %d: kept %+v, all points %+v", noisy, c, kept[c], all[c])
			}
		}
		for i := 1; i < len(red); i++ {
			if red[i].X < red[i-1].X {
				t.Fatalf("noisy=%v: point %d at %v before %v", noisy, i, red[i].X, red[i-1].X)
			}
		}
		if noisy {
			if !hasPoint(red, xys[2*n/3]) || !hasPoint(red, xys[n/3]) {
				t.Errorf("the one-point spikes up and down are gone")
			}
		}
	}
	// Few points a column: untouched.
	short := longSeries(4*cols, true)
	if got := columnEnvelope(short, 0, float64(4*cols)*0.05, cols); len(got) != len(short) {
		t.Errorf("%d points for %d columns thinned to %d; want them as they are", len(short), cols, len(got))
	}
}

func hasPoint(xys plotter.XYs, p plotter.XY) bool {
	for _, q := range xys {
		if q == p {
			return true
		}
	}
	return false
}

// drawLine draws xys as the keys panel draws its lines (a post-step
// plotter.Line, 1.5 pt wide) in a chart panel of w×h pixels spanning
// [x0, x1] × [0, top], and returns the image.
func drawLine(t *testing.T, xys plotter.XYs, x0, x1, top float64, w, h int) *image.RGBA {
	t.Helper()
	p := newPlot()
	p.Add(grid())
	l, err := plotter.NewLine(xys)
	if err != nil {
		t.Fatal(err)
	}
	l.LineStyle = passStyle(palette["fixed-window"])
	l.StepStyle = plotter.PostStep
	p.Add(l)
	timeAxis(p, 0, 0, w, true)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = x0, x1, 0, top
	c := newCanvas(w, h)
	p.Draw(draw.New(c))
	return c.Image().(*image.RGBA)
}

// TestColumnEnvelopeSamePicture draws 60,000 points and their column
// envelope in a 1600-pixel panel and proves the pictures the same up to
// antialiasing: every pixel away from the line (axes, ticks, labels, grid,
// background) is the same, so the glyph boxes gonum/plot pads the panel
// with are too; and wherever one picture has ink of the line (a pixel at
// least a quarter covered) the other has it in the same pixel or a
// neighbour, so no peak, step or gap is lost or added: pixels differ only
// at the line's edges.
//
// The noisy series is shorter (2,200 points, 4.4 a column of a 500-pixel
// panel): one path of thousands of jumps is what freetype rasterizes in
// quadratic time (line in envelope.go), minutes at 60,000.
func TestColumnEnvelopeSamePicture(t *testing.T) {
	line := palette["fixed-window"]
	for _, noisy := range []bool{false, true} {
		n, w, h := 60_000, 1600, 400
		if noisy {
			n, w = 2200, 500
		}
		x1 := float64(n) * 0.05
		xys := longSeries(n, noisy)
		red := columnEnvelope(xys, 0, x1, w)
		a := drawLine(t, xys, 0, x1, 3000, w, h)
		b := drawLine(t, red, 0, x1, 3000, w, h)
		if a.Bounds() != b.Bounds() {
			t.Fatalf("sizes %v and %v", a.Bounds(), b.Bounds())
		}
		ink := func(img *image.RGBA, x, y int) bool {
			c := img.RGBAAt(x, y)
			// At least a quarter of the way from white to the line's
			// colour in green, the channel the line's red is lowest in.
			return int(c.G) <= 255-(255-int(line.G))/4 && c.R >= c.G+16
		}
		near := func(img *image.RGBA, x, y int) bool {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if ink(img, x+dx, y+dy) {
						return true
					}
				}
			}
			return false
		}
		differ, inked := 0, 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				ca, cb := a.RGBAAt(x, y), b.RGBAAt(x, y)
				if ink(a, x, y) {
					inked++
				}
				if ca == cb {
					continue
				}
				differ++
				if !near(a, x, y) && !near(b, x, y) {
					t.Fatalf("noisy=%v: pixel %d,%d is %v and %v, away from the line: something besides it differs", noisy, x, y, ca, cb)
				}
				if ink(a, x, y) && !near(b, x, y) || ink(b, x, y) && !near(a, x, y) {
					t.Fatalf("noisy=%v: pixel %d,%d is %v with all points, %v from the envelope, and no ink near it in the other", noisy, x, y, ca, cb)
				}
			}
		}
		if inked < w {
			t.Fatalf("noisy=%v: only %d pixels of line drawn", noisy, inked)
		}
		t.Logf("noisy=%v: %d points drawn from %d; %d of %d pixels differ, every one next to the line", noisy, n, len(red), differ, w*h)
	}
}

// TestLongKeyedChart smoke-tests chart.png of a 60,000-bin keyed run (the
// 10⁶-line access log's shape): it is a PNG of the default size whose
// keys panel, the lowest, holds the row's line.
func TestLongKeyedChart(t *testing.T) {
	res := longRun(60_000, 1, true)
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "chart-long-keyed.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	b := img.Bounds()
	if b.Dx() != DefaultWidth || b.Dy() < 400 {
		t.Fatalf("chart is %v", b)
	}
	c := palette["fixed-window"]
	lined := 0
	for y := b.Min.Y + b.Dy()*2/3; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == uint32(c.R) && g>>8 == uint32(c.G) && bl>>8 == uint32(c.B) {
				lined++
			}
		}
	}
	// The staircase runs across the panel: at least a pixel a column.
	if lined < DefaultWidth*3/4 {
		t.Errorf("%d pixels of the row's colour in the keys panel; want the line across it", lined)
	}
}
