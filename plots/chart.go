package plots

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Chart modes.
const (
	ModePanels  = "panels"  // one panel per limiter, stacked (the default)
	ModeOverlay = "overlay" // every limiter's pass rate in one panel
)

// Default chart sizes in pixels.
const (
	DefaultWidth       = 1600
	DefaultPanelHeight = 200 // per limiter in panels mode, 5 limiters or more
	DefaultOverlayPlot = 560 // the single panel of overlay mode
)

// ChartOptions shapes chart.png.
type ChartOptions struct {
	// Mode is ModePanels (also when empty) or ModeOverlay.
	Mode string
	// From and To zoom on part of the run, in virtual time; zero means the
	// start or the end of the run.
	From, To time.Duration
	// Width and Height of the PNG in pixels; zero picks DefaultWidth and a
	// height giving each panel DefaultPanelHeight plus the figure header.
	Width, Height int
}

// Validate checks the options against the run they will draw and returns a
// one-line error a user can act on.
func (o ChartOptions) Validate(res *simulator.Result) error {
	switch o.Mode {
	case "", ModePanels, ModeOverlay:
	default:
		return fmt.Errorf("chart mode %q is unknown; use %q or %q", o.Mode, ModePanels, ModeOverlay)
	}
	if o.Width < 0 || o.Height < 0 {
		return fmt.Errorf("chart size %d×%d px is negative; give positive pixels or 0 for the default", o.Width, o.Height)
	}
	if res == nil {
		return errors.New("no run result to chart")
	}
	if o.Width != 0 && o.Width < MinWidth {
		return fmt.Errorf("chart width %d px is too small; give at least %d px (or 0 for %d)", o.Width, MinWidth, DefaultWidth)
	}
	if minH := o.minHeight(res); o.Height != 0 && o.Height < minH {
		return fmt.Errorf("chart height %d px is too small for %d panel(s); give at least %d px (or 0 for the default)",
			o.Height, o.panels(res), minH)
	}
	inRun := func(d time.Duration) bool { return d >= res.Start && d <= res.End }
	if o.From != 0 && !inRun(o.From) {
		return fmt.Errorf("--from %s is outside the run (%s to %s); pick a time within it", fmtDur(o.From), fmtDur(res.Start), fmtDur(res.End))
	}
	if o.To != 0 && !inRun(o.To) {
		return fmt.Errorf("--to %s is outside the run (%s to %s); pick a time within it", fmtDur(o.To), fmtDur(res.Start), fmtDur(res.End))
	}
	if from, to := o.span(res); from >= to {
		return fmt.Errorf("--from %s is not before --to %s; pick a --from earlier than --to", fmtDur(from), fmtDur(to))
	}
	return nil
}

// MinWidth is the narrowest chart accepted, in pixels.
const MinWidth = 500

// panels is how many panels the chart has.
func (o ChartOptions) panels(res *simulator.Result) int {
	if o.Mode == ModeOverlay {
		return 1
	}
	return max(len(res.Algorithms), 1)
}

// minHeight is the lowest chart height in pixels that still leaves each
// panel a readable data area.
func (o ChartOptions) minHeight(res *simulator.Result) int {
	if o.Mode == ModeOverlay {
		return 120 + 300
	}
	n := float64(o.panels(res))
	if simulator.HasKeys(res) {
		n++ // the keys-hurt panel (keys.go)
	}
	n += float64(adaptiveRows(res)) * (concurrencyShare + signalsShare) // adaptive.go
	return 120 + int(math.Ceil(140*n))
}

// Chart draws chart.png for a run: in panels mode one panel per limiter —
// arrival rate in grey, pass rate in the limiter's colour, the limit dashed
// and, for queueing limiters, the mean wait on a right-hand scale; under an
// adaptive row's panel its calls in flight and limit, then its RT p99 and
// CPU (adaptive.go) — stacked on a shared time axis; in overlay mode every
// pass rate in one panel.
func Chart(w io.Writer, res *simulator.Result, opts ChartOptions) error {
	return ChartContext(context.Background(), w, res, opts)
}

// ChartContext is Chart that stops, returning ctx's error, when ctx is
// cancelled: it checks between panels and before encoding the PNG. The
// time it takes grows with the pixels, not the bins: where bins outnumber
// pixel columns each column is drawn as its envelope (simulator.Columns).
func ChartContext(ctx context.Context, w io.Writer, res *simulator.Result, opts ChartOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := opts.Validate(res); err != nil {
		return err
	}
	if len(res.Algorithms) == 0 {
		return errors.New("the run has no algorithms to chart")
	}
	if res.Bin <= 0 {
		return fmt.Errorf("the run's bin width %s is not positive", res.Bin)
	}
	data := ChartData(res, opts)
	from, to := opts.span(res)

	width := opts.Width
	if width == 0 {
		width = DefaultWidth
	}
	overlay := opts.Mode == ModeOverlay
	header := headerItems(data, overlay)
	if !overlay {
		header = append(header, chainKeyItems(res)...)     // plots/breaker.go
		header = append(header, adaptiveKeyItems(data)...) // plots/adaptive.go
	} else {
		header = append(header, breakerKeyItems(res)...)
	}
	title := figureTitle(res, from, to)
	hdrH := headerHeight(px(float64(width)), title, header)
	height := opts.Height
	if height == 0 {
		body := panelHeight(len(data)) * len(data)
		if !overlay && simulator.HasKeys(res) {
			body += panelHeight(len(data) + 1) // the keys-hurt panel (keys.go)
		}
		if !overlay {
			// The adaptive rows' sub-panels (adaptive.go).
			body += int(float64(panelHeight(len(data))*adaptiveRows(res)) * (concurrencyShare + signalsShare))
		}
		if overlay {
			body = DefaultOverlayPlot
		}
		height = int(math.Ceil(float64(hdrH*dpi/72))) + body
	}

	img := newCanvas(width, height)
	dc := draw.New(img)
	drawHeader(dc, title, header)
	body := draw.Crop(dc, 0, 0, 0, -hdrH)

	var plots []*plot.Plot
	var weights []float64
	if overlay {
		plots, weights = []*plot.Plot{overlayPlot(data, res, from, to, width)}, []float64{1}
	} else {
		kp := keysPanel(data, res, from, to, width) // plots/keys.go
		for i := range data {
			d := &data[i]
			last := i == len(data)-1 && kp == nil
			plots = append(plots, panelPlot(d, res, from, to, width, last && !d.isAdaptive()))
			weights = append(weights, 1)
			if d.isAdaptive() { // plots/adaptive.go
				plots = append(plots, concurrencyPlot(d, from, to, width, false), signalsPlot(d, from, to, width, last))
				weights = append(weights, concurrencyShare, signalsShare)
			}
		}
		if kp != nil {
			plots, weights = append(plots, kp), append(weights, 1)
		}
	}
	tiles := draw.Tiles{
		Rows: len(plots), Cols: 1,
		PadY:   px(14),
		PadTop: px(4), PadBottom: px(8), PadLeft: px(10), PadRight: px(14),
	}
	canvases := stackAlign(plots, weights, tiles, body)
	for j := range plots {
		if err := ctx.Err(); err != nil {
			return err
		}
		plots[j].Draw(canvases[j])
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writePNG(w, img)
}

// panelHeight is the default height in pixels of each of n panels: taller
// when there are few, DefaultPanelHeight from five on.
func panelHeight(n int) int {
	return max(DefaultPanelHeight, min(320, 1000/max(n, 1)))
}

// figureTitle is the text at the top of chart.png.
type figTitle struct{ main, detail string }

func figureTitle(res *simulator.Result, from, to time.Duration) figTitle {
	detail := fmt.Sprintf("%s bins · %s window · %s to %s",
		fmtDur(res.Bin), fmtDur(res.Window), fmtDur(from), fmtDur(to))
	if res.Limit > 0 {
		detail = "limit " + formatNum(res.Limit) + " req/s · " + detail
	}
	if rf, rt := (ChartOptions{}).span(res); from != rf || to != rt {
		detail += fmt.Sprintf(" (run %s to %s)", fmtDur(rf), fmtDur(rt))
	}
	name := res.Scenario
	if name == "" {
		name = "run"
	}
	return figTitle{main: name, detail: detail}
}

var (
	titleStyle  = sans(15, true)
	detailStyle = sans(11, false)
	keyStyle    = sans(10, false)
)

const headerPad = 10 // points around the header

// headerHeight measures the figure title and key.
func headerHeight(width vg.Length, t figTitle, items []keyItem) vg.Length {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: width - 2*vg.Points(headerPad), Y: 1000}}}
	return vg.Points(headerPad) + titleStyle.Height(t.main) + vg.Points(6) +
		drawKey(c, items, keyStyle, true) + vg.Points(4)
}

// drawHeader draws the figure title and the key at the top of dc.
func drawHeader(dc draw.Canvas, t figTitle, items []keyItem) {
	x := dc.Min.X + vg.Points(headerPad)
	y := dc.Max.Y - vg.Points(headerPad)
	ts := titleStyle
	ts.YAlign = draw.YTop
	dc.FillText(ts, vg.Point{X: x, Y: y}, t.main)
	// The detail shares the title's baseline.
	ds := detailStyle
	ds.YAlign = draw.YAlignment(0)
	base := y - ts.FontExtents().Ascent
	dc.FillText(ds, vg.Point{X: x + ts.Width(t.main) + vg.Points(12), Y: base}, t.detail)
	y -= ts.Height(t.main) + vg.Points(6)
	kc := dc
	kc.Min.X = x
	kc.Max.X = dc.Max.X - vg.Points(headerPad)
	kc.Max.Y = y
	drawKey(kc, items, keyStyle, false)
}

// headerItems is the key explaining the panels.
func headerItems(data []PanelData, overlay bool) []keyItem {
	items := []keyItem{{label: "arrival rate", fill: arrivalFill}}
	queueing := false
	for _, d := range data {
		queueing = queueing || d.Queueing
	}
	if overlay {
		items = append(items, keyItem{label: "limit", line: limitStyle})
		for _, d := range data {
			items = append(items, keyItem{label: d.Spec, line: passStyle(d.Color)})
		}
		items = append(items, extraItems(data)...)
		if queueing {
			items = append(items, keyItem{label: "mean wait per bin (right axis, limiter's colour)", line: overlayWaitStyle(color.Gray{Y: 0x60})})
		}
		return items
	}
	pass := passStyle(data[0].Color)
	items = append(items,
		keyItem{label: "pass rate (one colour per limiter)", line: pass},
		keyItem{label: "limit", line: limitStyle})
	items = append(items, extraItems(data)...)
	if queueing {
		items = append(items, keyItem{label: "mean wait per bin (right axis)", line: waitStyle})
	}
	return items
}

// extraItems are the key entries for the window line, the envelopes and
// the clock steps.
func extraItems(data []PanelData) []keyItem {
	d := data[0]
	win := "passes in the trailing " + fmtDur(d.WindowSpan) + " per second"
	if d.Reduced {
		win += " (highest per pixel)"
	}
	items := []keyItem{{label: win, line: windowStyle(d.Color)}}
	if d.Reduced {
		items = append(items, keyItem{label: "min–max of the bins in each pixel (line: mean)", fill: fade(d.Color, 0x50)})
	}
	if len(d.ClockSteps) > 0 {
		items = append(items, keyItem{label: "clock step", line: stepStyle})
	}
	items = append(items, borrowedItems(data)...) // plots/priority.go
	items = append(items, fallbackItems(data)...) // plots/cluster.go
	return items
}

func passStyle(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.5)}
}

func overlayWaitStyle(c color.Color) draw.LineStyle {
	r, g, b, _ := c.RGBA()
	faded := color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0xb0}
	return draw.LineStyle{Color: faded, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
}

// timeAxis sets up the shared x axis of a panel.
func timeAxis(p *plot.Plot, from, to time.Duration, widthPx int, label bool) {
	p.X.Min, p.X.Max = from.Seconds(), to.Seconds()
	p.X.Padding = 0
	p.X.Tick.Marker = linearTicks{target: max(4, widthPx/110)}
	if label {
		p.X.Label.Text = "virtual time (s)"
	}
}

// clipFactor is how far above the highest pass rate (or limit) the
// arrivals may go before the y axis stops following them: a flood of
// arrivals would otherwise flatten every pass line against the floor.
const clipFactor = 4

// rateTop is the top of the rate axis for panels of data, and the highest
// rate above it when something is clipped (0 when nothing is). The axis
// follows the passes and the arrivals unless they dwarf what the panel is
// about: arrivals above clipFactor times the passes are clipped at the
// passes or clipFactor times the steady level (the larger of the limit and
// the trailing-window line), whichever is higher, and
// per-bin passes above passClipFactor times the larger of the limit and
// the trailing-window line (a burst admitted in one bin, as in redis-race:
// 2,000/s bins against 100/s) are clipped at clipFactor times it, so the
// window line stays readable against the limit (passClip marks the
// clipped peaks).
func rateTop(data []PanelData) (top, clippedPeak float64) {
	steady, passes, arrivals := 0.0, 0.0, 0.0
	for _, d := range data {
		steady = math.Max(steady, d.Limit)
		for i := range d.X {
			steady = math.Max(steady, d.WindowMax[i])
			passes = math.Max(passes, d.PassMax[i])
			arrivals = math.Max(arrivals, d.ArrivalMax[i])
		}
	}
	if steady > 0 && passes > passClipFactor*steady {
		return clipFactor * steady, math.Max(arrivals, passes)
	}
	passTop := math.Max(steady, passes)
	if passTop > 0 && arrivals > clipFactor*passTop {
		// Room for the arrivals up to clipFactor times the steady level,
		// not times a pass spike: the window line stays off the floor.
		return math.Max(passTop, clipFactor*steady), arrivals
	}
	return math.Max(passTop, arrivals), 0
}

// rateAxis sets the y axis from 0 to just above top.
func rateAxis(p *plot.Plot, top float64) {
	if top <= 0 {
		top = 1
	}
	p.Y.Min, p.Y.Max = 0, axisTop(top)
	p.Y.Padding = 0
	p.Y.Tick.Marker = linearTicks{target: 4}
	p.Y.Label.Text = "req/s"
}

func grid() *plotter.Grid {
	return &plotter.Grid{Vertical: gridStyle, Horizontal: gridStyle}
}

// addArrivals draws the grey arrival area (the mean per point) and, for
// reduced data, the lighter band up to each column's busiest bin.
func addArrivals(p *plot.Plot, d *PanelData, from, to float64) {
	if d.Reduced {
		p.Add(newBand(d, d.Arrival, d.ArrivalMax, from, to, arrivalBand))
	}
	zero := make([]float64, len(d.X))
	p.Add(newBand(d, zero, d.Arrival, from, to, arrivalFill))
	p.Add(stepLine(d, d.Arrival, from, to, draw.LineStyle{Color: arrivalEdge, Width: vg.Points(0.6)}))
}

// addPasses draws a limiter's pass rate: a step line per bin, or for
// reduced data the min–max band of each column with its mean as the line;
// then its trailing-window line (the column maximum when reduced).
func addPasses(p *plot.Plot, d *PanelData, from, to float64, bandAlpha uint8) {
	sty := passStyle(d.Color)
	if d.Reduced {
		p.Add(newBand(d, d.PassMin, d.PassMax, from, to, fade(d.Color, bandAlpha)))
		// The mean of each column, thin so that the window line stays
		// readable over a limiter that switches on and off every window.
		sty.Width = vg.Points(0.7)
		sty.Color = fade(darken(d.Color, 0.8), 0xc0)
	}
	p.Add(stepLine(d, d.Pass, from, to, sty))
	p.Add(stepLine(d, d.WindowMax, from, to, windowStyle(d.Color)))
}

// panelPlot is one limiter's panel.
func panelPlot(d *PanelData, res *simulator.Result, from, to time.Duration, widthPx int, last bool) *plot.Plot {
	p := newPlot()
	f, t := from.Seconds(), to.Seconds()
	top, clipped := rateTop([]PanelData{*d})
	p.Title.Text = d.Spec + "\n" + d.Summary
	if clipped > 0 {
		p.Title.Text += clippedNote(clipped, []PanelData{*d}, top)
	}
	p.Add(grid())
	addArrivals(p, d, f, t)
	// The breaker's band goes under the lines, so that a pass line at 0 and
	// a short RT stay visible over it.
	addStateBand(p, d, res, from, to)
	addBorrowed(p, d, f, t) // plots/priority.go
	addPasses(p, d, f, t, 0x50)
	addFallbacks(p, d, f, t) // plots/cluster.go
	if len(d.Goodput) > 0 {
		// An adaptive row: what the callers got back in time.
		p.Add(stepLine(d, d.Goodput, f, t, goodputStyle))
	}
	addPassClips(p, []PanelData{*d}, top)
	// The dashes go over the pass line so both show where they coincide;
	// a row without a rate (a breaker alone) has no limit to draw.
	if d.Limit > 0 {
		p.Add(hline(f, t, d.Limit, limitStyle))
	}
	if len(d.ClockSteps) > 0 {
		p.Add(stepMarks{xs: d.ClockSteps})
	}
	if ax := rightAxis(d, res, f, t); ax != nil { // plots/breaker.go
		p.Add(ax)
	}
	timeAxis(p, from, to, widthPx, last)
	rateAxis(p, top)
	return p
}

// overlayPlot draws every limiter's pass rate in one panel.
func overlayPlot(data []PanelData, res *simulator.Result, from, to time.Duration, widthPx int) *plot.Plot {
	p := newPlot()
	p.Title.Text = "pass rate of every limiter"
	f, t := from.Seconds(), to.Seconds()
	top, clipped := rateTop(data)
	if clipped > 0 {
		p.Title.Text += clippedNote(clipped, data, top)
	}
	p.Add(grid())
	addArrivals(p, &data[0], f, t)
	addOverlayBands(p, data, res, f, t) // plots/breaker.go
	var waits []waitSeries
	for i := range data {
		d := &data[i]
		addPasses(p, d, f, t, 0x30)
		if d.Queueing {
			waits = append(waits, waitSeries{xys: steps(d.X, d.XEnd, d.WaitMs, f, t), sty: overlayWaitStyle(d.Color)})
		}
	}
	addPassClips(p, data, top)
	limits := map[float64]bool{}
	for _, d := range data {
		if d.Limit > 0 && !limits[d.Limit] {
			limits[d.Limit] = true
			p.Add(hline(f, t, d.Limit, limitStyle))
		}
	}
	if len(data[0].ClockSteps) > 0 {
		p.Add(stepMarks{xs: data[0].ClockSteps})
	}
	if len(waits) > 0 {
		p.Add(newWaitAxis(waits, color.Gray{Y: 0x50}))
	}
	timeAxis(p, from, to, widthPx, true)
	rateAxis(p, top)
	return p
}
