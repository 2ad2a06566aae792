package plots

import (
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// keysPanel draws, under the limiters' panels, the keys hurt so far (a key
// is hurt from its first reject) by every keyed row, one line each in the
// row's colour: series.csv's keys_hurt column. It returns nil when no row
// is keyed.
func keysPanel(data []PanelData, res *simulator.Result, from, to time.Duration, widthPx int) *plot.Plot {
	if !simulator.HasKeys(res) {
		return nil
	}
	p := newPlot()
	p.Title.Text = "keys hurt so far (a key is hurt from its first reject)"
	p.Add(grid())
	top := 1.0
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		if a.Keys == nil || i >= len(data) {
			continue
		}
		var xys plotter.XYs
		var hurt int64
		for j, b := range a.Bins {
			hurt += b.KeysHurt
			start := res.Start + time.Duration(j)*res.Bin
			end := start + res.Bin
			if end < from || start > to {
				continue
			}
			xys = append(xys, plotter.XY{X: max(start, from).Seconds(), Y: float64(hurt)})
			top = max(top, float64(hurt))
		}
		if len(xys) == 0 {
			continue
		}
		// A long run (60,000 bins of a 10⁶-line log) is drawn from each
		// pixel column's envelope: a glyph box and a path node per bin
		// cost 200 MB for the same picture.
		xys = columnEnvelope(xys, from.Seconds(), to.Seconds(), widthPx)
		l, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		l.LineStyle = passStyle(data[i].Color)
		l.StepStyle = plotter.PostStep
		p.Add(l)
	}
	timeAxis(p, from, to, widthPx, true)
	p.Y.Min, p.Y.Max = 0, top*1.08
	p.Y.Padding = 0
	p.Y.Tick.Marker = linearTicks{target: 4}
	p.Y.Label.Text = "keys"
	p.Y.Label.TextStyle.Font.Size = vg.Points(9)
	return p
}
