package plots

import (
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// What a panel adds for an evented row (a chain, a breaker, a downstream):
// the mean response time per bin on the right-hand axis (with the mean
// wait, if the row queues), and, for a breaker, a band along the bottom of
// the panel coloured by the breaker's state.

// Colours of the breaker band and the RT line.
var (
	rtColor       = color.RGBA{R: 0x00, G: 0x6d, B: 0x5b, A: 0xff} // dark teal
	stateClosed   = color.RGBA{R: 0xa8, G: 0xd8, B: 0xa0, A: 0xff}
	stateOpen     = color.RGBA{R: 0xe0, G: 0x3c, B: 0x31, A: 0xff}
	stateHalfOpen = color.RGBA{R: 0xf5, G: 0xb0, B: 0x2e, A: 0xff}
	rtStyle       = draw.LineStyle{Color: rtColor, Width: vg.Points(1.0)}
	// goodputStyle draws an adaptive row's goodput on the rate axis.
	goodputStyle = draw.LineStyle{Color: color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
)

// bandShare is the height of the state band as a share of the panel.
const bandShare = 0.07

// chainOf returns the chain result of the panel's row (nil if none).
func chainOf(d *PanelData, res *simulator.Result) (*simulator.AlgoResult, *simulator.ChainResult) {
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		if a.Spec == d.Spec && a.Chain != nil {
			return a, a.Chain
		}
	}
	return nil, nil
}

// rightAxis is the panel's right-hand axis: the mean wait of a queueing
// row, and the mean RT of a row with responses; nil when there is neither.
func rightAxis(d *PanelData, res *simulator.Result, from, to float64) plot.Plotter {
	_, c := chainOf(d, res)
	var series []waitSeries
	if d.Queueing {
		series = append(series, waitSeries{xys: steps(d.X, d.XEnd, d.WaitMs, from, to), sty: waitStyle})
	}
	if c == nil || !c.Responses {
		if len(series) == 0 {
			return nil
		}
		return newWaitAxis(series, waitColor)
	}
	series = append(series, waitSeries{xys: steps(d.X, d.XEnd, d.RTMs, from, to), sty: rtStyle})
	ax := newWaitAxis(series, rtColor)
	ax.text = "mean RT (ms)"
	if d.Queueing {
		ax.text = "mean wait, mean RT (ms)"
	}
	return ax
}

// stateBand draws a breaker's states along the bottom of the panel. In
// the overlay panel each breaker's band takes its own slot (stacked from
// the bottom), topped by a line in its row's colour (mark).
type stateBand struct {
	trans    []simulator.Transition
	from, to float64 // seconds shown
	slot     int
	mark     color.Color
	share    float64 // height as a share of the panel (bandShare when 0)
}

// addStateBand adds the band to a breaker's panel.
func addStateBand(p *plot.Plot, d *PanelData, res *simulator.Result, from, to time.Duration) {
	if _, c := chainOf(d, res); c != nil && c.Breaker != "" {
		p.Add(&stateBand{trans: c.Transitions, from: from.Seconds(), to: to.Seconds()})
	}
}

func stateColor(s algorithms.BreakerState) color.Color {
	switch s {
	case algorithms.Open:
		return stateOpen
	case algorithms.HalfOpen:
		return stateHalfOpen
	}
	return stateClosed
}

func (b *stateBand) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	share := b.share
	if share == 0 {
		share = bandShare
	}
	h := vg.Length(share) * (c.Max.Y - c.Min.Y)
	y0 := c.Min.Y + vg.Length(b.slot)*h
	y1 := y0 + h
	rect := func(x0, x1 float64, s algorithms.BreakerState) {
		x0, x1 = math.Max(x0, b.from), math.Min(x1, b.to)
		if x1 <= x0 {
			return
		}
		// A state that lasts less than a pixel still shows.
		l, r := trX(x0), trX(x1)
		if r-l < 1 {
			r = l + 1
		}
		c.FillPolygon(stateColor(s), []vg.Point{{X: l, Y: y0}, {X: r, Y: y0}, {X: r, Y: y1}, {X: l, Y: y1}})
	}
	state, since := algorithms.Closed, b.from
	for _, t := range b.trans {
		at := t.At.Seconds()
		rect(since, at, state)
		state, since = t.To, at
	}
	rect(since, b.to, state)
	if b.mark != nil {
		l, r := trX(b.from), trX(b.to)
		c.StrokeLine2(draw.LineStyle{Color: b.mark, Width: vg.Points(1.5)}, l, y1, r, y1)
	}
}

// addOverlayBands adds, in the overlay panel, one band per row with a
// breaker, stacked in row order.
func addOverlayBands(p *plot.Plot, data []PanelData, res *simulator.Result, from, to float64) {
	var bands []*stateBand
	for i := range data {
		if _, c := chainOf(&data[i], res); c != nil && c.Breaker != "" {
			bands = append(bands, &stateBand{trans: c.Transitions, from: from, to: to, slot: len(bands), mark: data[i].Color})
		}
	}
	// Together no taller than two panel bands, so the traffic stays in view.
	share := min(bandShare, 2*bandShare/float64(max(1, len(bands))))
	for _, b := range bands {
		b.share = share
		p.Add(b)
	}
}

// breakerKeyItems explains the state band's colours.
func breakerKeyItems(res *simulator.Result) []keyItem {
	if !simulator.HasBreakers(res) {
		return nil
	}
	return []keyItem{
		{label: "breaker CLOSED", fill: stateClosed},
		{label: "OPEN", fill: stateOpen},
		{label: "HALF_OPEN", fill: stateHalfOpen}}
}

// chainKeyItems explains the RT line and the state band in the figure key.
func chainKeyItems(res *simulator.Result) []keyItem {
	var items []keyItem
	if simulator.HasResponses(res) {
		items = append(items, keyItem{label: "mean RT per bin (right axis)", line: rtStyle})
	}
	if simulator.HasAdaptive(res) {
		items = append(items, keyItem{label: "goodput", line: goodputStyle})
	}
	return append(items, breakerKeyItems(res)...)
}
