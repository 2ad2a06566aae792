package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// passClipFactor is how far per-bin passes may rise above the larger of
// the limit and the trailing-window line before the rate axis clips them
// (see rateTop).
const passClipFactor = 12

// axisTop is where rateAxis puts the top of the axis for top.
func axisTop(top float64) float64 { return top * 1.08 }

// clippedNote is the title's note on a clipped axis: which peaks are cut
// and how the clipped passes are marked.
func clippedNote(peak float64, data []PanelData, top float64) string {
	passPeak, arrPeak := 0.0, 0.0
	for _, d := range data {
		for i := range d.X {
			passPeak = max(passPeak, d.PassMax[i])
			arrPeak = max(arrPeak, d.ArrivalMax[i])
		}
	}
	if passPeak <= axisTop(top) {
		return fmt.Sprintf(" · arrivals peak %.0f/s, clipped", peak)
	}
	s := fmt.Sprintf(" · passes peak %.0f/s, clipped (triangles at the top)", passPeak)
	if arrPeak > passPeak {
		s += fmt.Sprintf(", arrivals %.0f/s", arrPeak)
	}
	return s
}

// addPassClips marks, with a small triangle at the top of the panel in
// the limiter's colour, every point whose pass rate the axis clips.
func addPassClips(p *plot.Plot, data []PanelData, top float64) {
	for i, xs := range passClips(data, top) {
		if len(xs) > 0 {
			p.Add(clipMarks{xs: xs, color: data[i].Color})
		}
	}
}

// passClips returns, per panel data, the middles of the points whose pass
// rate rises above the axis.
func passClips(data []PanelData, top float64) [][]float64 {
	out := make([][]float64, len(data))
	for k, d := range data {
		for i := range d.X {
			if d.PassMax[i] > axisTop(top) {
				end := d.XEnd
				if i+1 < len(d.X) {
					end = d.X[i+1]
				}
				out[k] = append(out[k], (d.X[i]+end)/2)
			}
		}
	}
	return out
}

// clipMarks draws a downward triangle at the top edge above each x.
type clipMarks struct {
	xs    []float64
	color color.Color
}

func (m clipMarks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	const w, h = 4.5, 7 // points
	for _, x := range m.xs {
		if x < plt.X.Min || x > plt.X.Max {
			continue
		}
		cx := trX(x)
		var path vg.Path
		path.Move(vg.Point{X: cx - vg.Points(w), Y: c.Max.Y})
		path.Line(vg.Point{X: cx + vg.Points(w), Y: c.Max.Y})
		path.Line(vg.Point{X: cx, Y: c.Max.Y - vg.Points(h)})
		path.Close()
		c.SetColor(m.color)
		c.Fill(path)
	}
}
