package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A cluster limiter's fallbacks (sentinel-cluster: arrivals decided on the
// fail path, the token server away or too slow) are drawn as a dotted line
// on the rate axis, beside the pass rate.

var fallbackStyle = draw.LineStyle{Color: color.RGBA{R: 0xcc, G: 0x33, B: 0x33, A: 0xff}, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(1.5), vg.Points(1.5)}}

// addFallbacks draws the fallback rate of a panel that has one.
func addFallbacks(p *plot.Plot, d *PanelData, from, to float64) {
	if d.Fallbacks == nil {
		return
	}
	p.Add(stepLine(d, d.Fallbacks, from, to, fallbackStyle))
}

// fallbackItems is the key entry for the fallbacks, when a panel has them.
func fallbackItems(data []PanelData) []keyItem {
	for i := range data {
		if data[i].Fallbacks != nil {
			return []keyItem{{label: "token server failed: fallbacks/s", line: fallbackStyle}}
		}
	}
	return nil
}
