package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// FixedWindowConfig configures a FixedWindow.
type FixedWindowConfig struct {
	// Limit is the number of passes allowed per window (pass while the
	// window's count is below it).
	Limit float64
	// Window is the window length; windows are [kW, (k+1)W) from t = 0.
	Window time.Duration
}

// FixedWindow is the fixed-window counter: one counter per window
// [kW, (k+1)W), counted from virtual t = 0; a request passes while the
// counter is below Limit. Two bursts either side of a window edge therefore
// pass twice the limit within one window's length, the boundary problem
// that sliding windows exist to fix.
//
// The counter belongs to the newest window seen so far, as in Sentinel's
// LeapArray with one bucket: when the clock goes back into an older window,
// the request passes only if that counter is under the limit, and its pass
// is counted nowhere.
type FixedWindow struct {
	cfg    FixedWindowConfig
	window int64 // index k of the newest window seen
	count  int64
	seen   bool
}

// NewFixedWindow validates c and builds the limiter.
func NewFixedWindow(c FixedWindowConfig) (*FixedWindow, error) {
	if err := positiveLimit("fixed-window", "limit", c.Limit); err != nil {
		return nil, err
	}
	if c.Window <= 0 {
		return nil, fmt.Errorf("fixed-window: window must be positive, got %v (for example window=1s)", c.Window)
	}
	return &FixedWindow{cfg: c}, nil
}

// Decide implements Limiter.
func (f *FixedWindow) Decide(now time.Duration) Decision {
	d := f.Check(now)
	if d.Pass {
		f.Record(now)
	}
	return d
}

// Check implements Stage: pass while the newest window's count is below
// the limit (an arrival in a newer window first starts that window).
func (f *FixedWindow) Check(now time.Duration) Decision {
	f.advance(now)
	// count+1 ≤ limit, so a fractional limit of 2.7 admits 2 per window.
	if float64(f.count)+1 > f.cfg.Limit {
		return Decision{}
	}
	return Decision{Pass: true}
}

// Record implements Stage: the pass counts in at's window if that is the
// newest window, and nowhere if it is an older one.
func (f *FixedWindow) Record(at time.Duration) {
	if f.advance(at) == f.window {
		f.count++
	}
}

// advance returns t's window index after making it the newest window when
// it is newer than every window seen so far.
func (f *FixedWindow) advance(t time.Duration) int64 {
	k := int64(t / f.cfg.Window)
	if t%f.cfg.Window < 0 {
		k--
	}
	if !f.seen || k > f.window {
		f.seen, f.window, f.count = true, k, 0
	}
	return k
}

// Spec implements Limiter.
func (f *FixedWindow) Spec() string {
	return fmt.Sprintf("fixed-window:limit=%s,window=%s", formatFloat(f.cfg.Limit), FormatDuration(f.cfg.Window))
}

// Rate implements Limiter.
func (f *FixedWindow) Rate() float64 { return f.cfg.Limit / f.cfg.Window.Seconds() }

// StateBytes implements Limiter.
func (f *FixedWindow) StateBytes() int { return int(unsafe.Sizeof(*f)) }

// keyedTable implements keyedStater: a FixedWindow has no pointers and is
// kept whole per key.
func (f *FixedWindow) keyedTable() keyedTable { return flatTable[FixedWindow](*f) }
