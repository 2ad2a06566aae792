package plots

import (
	"image/color"

	"gonum.org/v1/plot"
)

// Borrowed passes (prioritized requests that waited for a future window
// of leap-array) are drawn in a second, darker shade of the row's colour,
// filled from 0 up to their rate, under the pass line: the part of the
// passes that borrowed.

// borrowedShade is the fill of the borrowed passes of a row of colour c.
func borrowedShade(c color.RGBA) color.Color { return fade(darken(c, 0.7), 0xb0) }

// addBorrowed fills the borrowed rate of a panel that has one.
func addBorrowed(p *plot.Plot, d *PanelData, from, to float64) {
	if d.Borrowed == nil {
		return
	}
	zero := make([]float64, len(d.X))
	p.Add(newBand(d, zero, d.Borrowed, from, to, borrowedShade(d.Color)))
}

// borrowedItems is the key entry for the borrowed passes, when a panel
// has them.
func borrowedItems(data []PanelData) []keyItem {
	for i := range data {
		if data[i].Borrowed != nil {
			return []keyItem{{label: "passes borrowed from a future window (prioritized)", fill: borrowedShade(data[i].Color)}}
		}
	}
	return nil
}
