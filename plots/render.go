package plots

import (
	"image"
	"image/color"
	"io"
	"math"
	"strconv"

	"git.sr.ht/~sbinet/gg"
	stdfnt "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// dpi is the resolution of every PNG; sizes are given in pixels.
const dpi = 96

// px converts pixels to a vg.Length at dpi.
func px(n float64) vg.Length { return vg.Length(n * 72 / dpi) }

// sans returns a style of the Liberation Sans face gonum/plot ships.
func sans(size float64, bold bool) text.Style {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = stdfnt.WeightBold
	}
	return text.Style{
		Color:   color.Black,
		Font:    font.From(f, vg.Length(size)),
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a plot using Liberation Sans throughout.
func newPlot() *plot.Plot {
	p := plot.New()
	title := sans(10.5, false)
	title.XAlign = draw.XCenter
	p.Title.TextStyle = title
	p.Title.Padding = vg.Points(4)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		lbl := ax.Label.TextStyle
		lbl.Font = sans(10, false).Font
		ax.Label.TextStyle = lbl
		tk := ax.Tick.Label
		tk.Font = sans(9, false).Font
		ax.Tick.Label = tk
	}
	p.Legend.TextStyle.Font = sans(9, false).Font
	return p
}

// newCanvas returns an image canvas of w×h pixels. It is vgimg.NewWith's
// canvas of that size (the same size in points, w·72/dpi, and the same
// context settings) without the copy NewWith makes of the image it
// allocates (gg.NewContextForImage): 10 MB and a tenth of a tall chart's
// time.
func newCanvas(w, h int) *vgimg.Canvas {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	return vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
}

// writePNG encodes the canvas as PNG (encodePNG).
func writePNG(w io.Writer, c *vgimg.Canvas) error {
	return encodePNG(w, c.Image())
}

// niceStep returns a step of 1, 2 or 5 × 10^k giving about target steps
// over span.
func niceStep(span float64, target int) float64 {
	if span <= 0 || target < 1 {
		return 1
	}
	raw := span / float64(target)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*0.999 {
			return m * mag
		}
	}
	return 10 * mag
}

// stepDecimals is how many decimals labels of a step need.
func stepDecimals(step float64) int {
	d := int(math.Ceil(-math.Log10(step) - 1e-9))
	return max(d, 0)
}

// linearTicks labels multiples of a nice step, with minor ticks between.
type linearTicks struct{ target int }

func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo {
		return nil
	}
	step := niceStep(hi-lo, t.target)
	dec := stepDecimals(step)
	minor := step / 5
	if m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); math.Abs(m-2) < 1e-6 {
		minor = step / 4
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+1e-9*minor; k++ {
		v := k * minor
		if v == 0 {
			v = 0 // no "-0" labels
		}
		r := v / step
		if math.Abs(r-math.Round(r)) < 1e-6 {
			v = math.Round(r) * step
			if v == 0 {
				v = 0
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// hline is a horizontal line across [x0, x1] at y.
func hline(x0, x1, y float64, sty draw.LineStyle) *plotter.Line {
	return &plotter.Line{XYs: plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}}, LineStyle: sty}
}

// Line styles shared by the charts.
var (
	limitStyle = draw.LineStyle{Color: limitColor, Width: vg.Points(1.1), Dashes: []vg.Length{vg.Points(6), vg.Points(4)}}
	waitStyle  = draw.LineStyle{Color: color.NRGBA{R: waitColor.R, G: waitColor.G, B: waitColor.B, A: 0xd0}, Width: vg.Points(0.9)}
	gridStyle  = draw.LineStyle{Color: gridColor, Width: vg.Points(0.6)}
)

// keyItem is one entry of a figure key: a swatch and its label.
type keyItem struct {
	label string
	fill  color.Color    // filled square swatch when non-nil
	line  draw.LineStyle // line swatch otherwise
}

// drawKey lays the items out left to right from the top-left of c, wrapping
// at its right edge, and returns the height used. With dry set it only
// measures.
func drawKey(c draw.Canvas, items []keyItem, sty text.Style, dry bool) vg.Length {
	const swatch, gap, space = 22, 5, 16 // points
	lineH := sty.Height("Ag") * 1.35
	x, y := c.Min.X, c.Max.Y
	used := lineH
	for _, it := range items {
		w := vg.Points(swatch+gap) + sty.Width(it.label)
		if x > c.Min.X && x+w > c.Max.X {
			x = c.Min.X
			y -= lineH
			used += lineH
		}
		if !dry {
			mid := y - lineH/2
			if it.fill != nil {
				c.SetColor(it.fill)
				r := vg.Rectangle{Min: vg.Point{X: x, Y: mid - vg.Points(5)}, Max: vg.Point{X: x + vg.Points(swatch), Y: mid + vg.Points(5)}}
				c.Fill(r.Path())
			} else {
				c.StrokeLine2(it.line, x, mid, x+vg.Points(swatch), mid)
			}
			s := sty
			s.YAlign = draw.YCenter
			c.FillText(s, vg.Point{X: x + vg.Points(swatch+gap), Y: mid}, it.label)
		}
		x += w + vg.Points(space)
	}
	return used
}
