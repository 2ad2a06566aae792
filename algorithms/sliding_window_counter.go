package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// SlidingWindowCounterConfig configures a SlidingWindowCounter.
type SlidingWindowCounterConfig struct {
	// Limit is the number of passes allowed per window.
	Limit float64
	// Window is the window length; windows are [kW, (k+1)W) from t = 0.
	Window time.Duration
}

// SlidingWindowCounter is Cloudflare's sliding-window approximation: two
// counters, the passes of the current fixed window k = ⌊t/W⌋ and of the
// one before it, and the assumption that the previous window's passes were
// spread evenly over it. At t the estimate of the passes in (t − W, t] is
//
//	prev·(W − (t − kW))/W + curr
//
// in float64 (t and W in nanoseconds, evaluated left to right), and a
// request passes iff estimate + 1 ≤ limit. Memory is two counters whatever
// the limit; the price is that the estimate is exact only for evenly spread
// traffic. A window newer than the last one seen makes its predecessor's
// count prev (or 0 after a gap of more than one window).
//
// The counters belong to the newest window K reached so far (by any
// arrival, passed or not). When the clock steps back into a window older
// than K, the request passes iff K's count is below the limit, with no
// estimate, and its pass is counted nowhere (as fixed-window does).
type SlidingWindowCounter struct {
	cfg        SlidingWindowCounterConfig
	k          int64 // the newest window reached
	prev, curr int64
	seen       bool
}

// NewSlidingWindowCounter validates c and builds the limiter.
func NewSlidingWindowCounter(c SlidingWindowCounterConfig) (*SlidingWindowCounter, error) {
	if err := positiveLimit("sliding-window-counter", "limit", c.Limit); err != nil {
		return nil, err
	}
	if c.Window <= 0 {
		return nil, fmt.Errorf("sliding-window-counter: window must be positive, got %v (for example window=1s)", c.Window)
	}
	return &SlidingWindowCounter{cfg: c}, nil
}

// Decide implements Limiter.
func (s *SlidingWindowCounter) Decide(now time.Duration) Decision {
	d := s.Check(now)
	if d.Pass {
		s.Record(now)
	}
	return d
}

// Check implements Stage: the estimate at now (or, in an older window, the
// newest window's count) against the limit.
func (s *SlidingWindowCounter) Check(now time.Duration) Decision {
	k := s.advance(now)
	if k < s.k {
		return Decision{Pass: float64(s.curr) < s.cfg.Limit}
	}
	w := int64(s.cfg.Window)
	elapsed := int64(now) - k*w
	est := float64(s.prev)*float64(w-elapsed)/float64(w) + float64(s.curr)
	return Decision{Pass: est+1 <= s.cfg.Limit}
}

// Record implements Stage: a pass counts in its window if that is the
// newest, and nowhere if it is older.
func (s *SlidingWindowCounter) Record(at time.Duration) {
	if s.advance(at) == s.k {
		s.curr++
	}
}

// advance returns t's window and makes it the newest when it is newer than
// every window reached so far.
func (s *SlidingWindowCounter) advance(t time.Duration) int64 {
	k := int64(t / s.cfg.Window)
	if t%s.cfg.Window < 0 {
		k--
	}
	switch {
	case !s.seen:
		s.seen, s.k, s.prev, s.curr = true, k, 0, 0
	case k == s.k+1:
		s.k, s.prev, s.curr = k, s.curr, 0
	case k > s.k:
		s.k, s.prev, s.curr = k, 0, 0
	}
	return k
}

// Spec implements Limiter.
func (s *SlidingWindowCounter) Spec() string {
	return fmt.Sprintf("sliding-window-counter:limit=%s,window=%s", formatFloat(s.cfg.Limit), FormatDuration(s.cfg.Window))
}

// Rate implements Limiter.
func (s *SlidingWindowCounter) Rate() float64 { return s.cfg.Limit / s.cfg.Window.Seconds() }

// StateBytes implements Limiter.
func (s *SlidingWindowCounter) StateBytes() int { return int(unsafe.Sizeof(*s)) }

// keyedTable implements keyedStater: a SlidingWindowCounter has no
// pointers and is kept whole per key.
func (s *SlidingWindowCounter) keyedTable() keyedTable { return flatTable[SlidingWindowCounter](*s) }
