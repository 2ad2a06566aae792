// Package progress draws the one-line progress bar run and tune show on a
// terminal: the arrivals done, and, when the run's size is known, the
// total, the percentage and the time left.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Bar shows a one-line bar on a terminal (stderr) for runs longer
// than about a second: the arrivals done, and when the run's size is
// known beforehand (a scenario's exact count, or a Poisson scenario's
// mean, marked "~"), the total, the percentage and the time left. The
// rate is the arrivals done over the run's elapsed time, computed anew
// for every frame, so it changes as the run goes (the bar it replaced
// repeated a stale rate across frames). The clock is a field, so tests
// drive it.
type Bar struct {
	enabled bool
	errOut  io.Writer
	width   int
	// total is the number of arrivals the run will have (0: unknown);
	// approx says it is a mean, not an exact count.
	total  float64
	approx bool
	now    func() time.Time
	start  time.Time
	// last is when the last frame was written; shown whether any was.
	last  time.Time
	shown bool
	frame string
}

// New starts the bar's clock with the run: it draws on errOut when
// enabled (a terminal, not --quiet), in width columns. expected is the
// exact number of arrivals when known, approx the mean otherwise (0:
// unknown).
func New(errOut io.Writer, enabled bool, width int, expected int64, approx float64) *Bar {
	p := &Bar{enabled: enabled, errOut: errOut, width: width, now: time.Now}
	switch {
	case expected > 0:
		p.total = float64(expected)
	case approx >= 1:
		p.total, p.approx = approx, true
	}
	p.start = p.now()
	return p
}

// showAfter is how long a run goes before its bar appears; frameEvery is
// the least time between two frames.
const (
	showAfter  = time.Second
	frameEvery = 100 * time.Millisecond
)

// Update draws the frame for done arrivals, at most every frameEvery.
func (p *Bar) Update(done int64) {
	if !p.enabled {
		return
	}
	now := p.now()
	elapsed := now.Sub(p.start)
	if elapsed < showAfter || p.shown && now.Sub(p.last) < frameEvery {
		return
	}
	line := p.line(done, elapsed)
	if w := p.fit(); len([]rune(line)) > w {
		line = string([]rune(line)[:w])
	}
	// Pad over what the previous frame left, then return to the start.
	pad := max(0, len([]rune(p.frame))-len([]rune(line)))
	fmt.Fprint(p.errOut, "\r"+line+strings.Repeat(" ", pad))
	p.frame, p.last, p.shown = line, now, true
}

// fit is the width a frame may take: one column less than the terminal,
// so the cursor never wraps.
func (p *Bar) fit() int {
	w := p.width
	if w <= 0 {
		w = 100
	}
	return max(w-1, 20)
}

// line is one frame: "arrivals 1.2M / ~3M  40% [####      ] 812k/s  ETA 2s",
// or without a known total "arrivals 1.2M  812k/s".
func (p *Bar) line(done int64, elapsed time.Duration) string {
	rate := float64(done) / elapsed.Seconds()
	parts := []string{"arrivals " + count(float64(done))}
	if p.total > 0 {
		tilde := ""
		if p.approx {
			tilde = "~"
		}
		frac := min(float64(done)/p.total, 1)
		const cells = 20
		full := int(frac * cells)
		parts[0] += " / " + tilde + count(p.total)
		parts = append(parts, fmt.Sprintf("%3d%%", int(100*frac)), "["+strings.Repeat("#", full)+strings.Repeat(" ", cells-full)+"]")
	}
	parts = append(parts, count(rate)+"/s")
	if p.total > 0 && rate > 0 {
		left := max(p.total-float64(done), 0) / rate
		parts = append(parts, "ETA "+eta(time.Duration(left*float64(time.Second))))
	}
	return strings.Join(parts, "  ")
}

// count prints a count in three significant digits: 950, 12.3k, 1.20M.
func count(x float64) string {
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 2, 64) + "G"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 2, 64) + "M"
	case x >= 1e4:
		return strconv.FormatFloat(x/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// eta prints the time left in whole seconds (or minutes and seconds).
func eta(d time.Duration) string {
	s := int64((d + time.Second/2) / time.Second)
	if s < 60 {
		return strconv.FormatInt(s, 10) + "s"
	}
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// Finish clears the bar's line, if it showed one.
func (p *Bar) Finish() {
	if p.shown {
		fmt.Fprint(p.errOut, "\r"+strings.Repeat(" ", len([]rune(p.frame)))+"\r")
		p.shown, p.frame = false, ""
	}
}
