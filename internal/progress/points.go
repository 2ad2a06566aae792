package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Points is tune --vary's bar: the configurations run, out of how many
// when known (not while bisecting), and the best point so far. Safe for
// the workers' concurrent calls.
type Points struct {
	mu      sync.Mutex
	enabled bool
	errOut  io.Writer
	width   int
	now     func() time.Time
	start   time.Time
	last    time.Time
	shown   bool
	frame   string
}

// NewPoints starts the bar's clock: it draws on errOut when enabled.
func NewPoints(errOut io.Writer, enabled bool, width int) *Points {
	p := &Points{enabled: enabled, errOut: errOut, width: width, now: time.Now}
	p.start = p.now()
	return p
}

// Update draws "points 12 / 40  30% [######        ]  best: burst=20 (passed 4123)",
// at most every frameEvery, after showAfter.
func (p *Points) Update(done, total int, best string) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if now.Sub(p.start) < showAfter || p.shown && now.Sub(p.last) < frameEvery {
		return
	}
	line := PointsLine(done, total, best)
	b := Bar{width: p.width}
	if w := b.fit(); len([]rune(line)) > w {
		line = string([]rune(line)[:w])
	}
	pad := max(0, len([]rune(p.frame))-len([]rune(line)))
	fmt.Fprint(p.errOut, "\r"+line+strings.Repeat(" ", pad))
	p.frame, p.last, p.shown = line, now, true
}

// PointsLine is one frame of the points bar.
func PointsLine(done, total int, best string) string {
	s := "points " + strconv.Itoa(done)
	if total > 0 {
		const cells = 20
		frac := min(float64(done)/float64(total), 1)
		full := int(frac * cells)
		s += fmt.Sprintf(" / %d  %3d%% [%s%s]", total, int(100*frac), strings.Repeat("#", full), strings.Repeat(" ", cells-full))
	}
	return s + "  best: " + best
}

// Finish clears the bar's line, if it showed one.
func (p *Points) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.errOut, "\r"+strings.Repeat(" ", len([]rune(p.frame)))+"\r")
		p.shown, p.frame = false, ""
	}
}
