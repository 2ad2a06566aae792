package algorithms

import (
	"fmt"
	"math"
	"sort"
	"time"
	"unsafe"
)

// SlidingLogConfig configures a SlidingLog.
type SlidingLogConfig struct {
	// Limit is the number of passes allowed in any window (t − Window, t].
	Limit float64
	// Window is the window length.
	Window time.Duration
	// History is how far behind the newest pass the log keeps timestamps
	// beyond Window, so that a clock that steps back by up to History still
	// gets exact decisions (the registry's default is 10s). With a clock
	// that never goes back only the passes inside the window matter, at
	// most Limit of them; the log holds about Limit·(1 + History/Window).
	History time.Duration
}

// SlidingLog is the exact sliding log: it keeps the timestamp of every pass
// and lets a request at t through iff fewer than Limit recorded passes have
// timestamps in (t − Window, t]. Time is exact to the nanosecond; there are
// no buckets, so no burst pair can pass more than Limit within any window of
// length Window. This is the definition the bucketed windows approximate.
//
// When the clock goes back, passes stamped later than t are ignored until
// the clock reaches them again. Timestamps older than the newest pass minus
// Window minus History are forgotten.
type SlidingLog struct {
	cfg    SlidingLogConfig
	log    []time.Duration // pass timestamps, sorted; log[lo:] is live
	lo     int
	head   int // first index of log with a timestamp in the window, when sorted is current
	maxT   time.Duration
	seen   bool
	cursor bool // head is valid for the newest time seen
}

// NewSlidingLog validates c and builds the limiter.
func NewSlidingLog(c SlidingLogConfig) (*SlidingLog, error) {
	if err := positiveLimit("sliding-log", "limit", c.Limit); err != nil {
		return nil, err
	}
	if c.Window <= 0 {
		return nil, fmt.Errorf("sliding-log: window must be positive, got %v (for example window=1s)", c.Window)
	}
	if c.History < 0 {
		return nil, fmt.Errorf("sliding-log: history must not be negative, got %v (for example history=1m)", c.History)
	}
	return &SlidingLog{cfg: c, log: make([]time.Duration, 0, initialCap(c)), cursor: true}, nil
}

// Decide implements Limiter.
// Check implements Stage: pass iff fewer than limit passes are logged in
// (now − window, now].
func (s *SlidingLog) Check(now time.Duration) Decision {
	var n int
	if !s.seen || now >= s.maxT {
		if !s.cursor {
			s.head = s.lo + sort.Search(len(s.log)-s.lo, func(i int) bool { return s.log[s.lo+i] > now-s.cfg.Window })
			s.cursor = true
		}
		for s.head < len(s.log) && s.log[s.head] <= now-s.cfg.Window {
			s.head++
		}
		n = len(s.log) - s.head
	} else {
		live := s.log[s.lo:]
		from := sort.Search(len(live), func(i int) bool { return live[i] > now-s.cfg.Window })
		to := sort.Search(len(live), func(i int) bool { return live[i] > now })
		n = to - from
	}
	// n+1 ≤ limit, so a fractional limit of 2.7 admits 2 per window.
	if float64(n)+1 > s.cfg.Limit {
		return Decision{}
	}
	return Decision{Pass: true}
}

// Decide implements Limiter.
func (s *SlidingLog) Decide(now time.Duration) Decision {
	d := s.Check(now)
	if d.Pass {
		s.Record(now)
	}
	return d
}

// Record implements Stage: the pass joins the log at now.
func (s *SlidingLog) Record(now time.Duration) {
	if !s.seen || now >= s.maxT {
		s.seen, s.maxT = true, now
		s.forget()
		if len(s.log) == cap(s.log) {
			s.grow()
		}
		s.log = append(s.log, now)
		return
	}
	// The clock went back: insert in order.
	i := s.lo + sort.Search(len(s.log)-s.lo, func(i int) bool { return s.log[s.lo+i] > now })
	if len(s.log) == cap(s.log) {
		s.grow()
	}
	s.log = append(s.log, 0)
	copy(s.log[i+1:], s.log[i:])
	s.log[i] = now
	s.cursor = false
}

// grow gives the full log the capacity append would give it, without
// moving it, when that fits in the log's reserve: an array allocated, at
// the first growth of a log whose capacity is past the small size classes,
// for as many timestamps as a clock that never goes back can make it keep
// (reserveFor). The log's capacity thus takes the same values at the same
// times as under append, and so does StateBytes, but the log is copied
// once instead of at every growth, and the part of the reserve it never
// reaches is never touched (fresh memory is not written until used). Past
// the reserve, or for a log whose first capacity is in the small sizes
// (a limit below 4096), append grows it as before.
func (s *SlidingLog) grow() {
	c := cap(s.log)
	if initialCap(s.cfg)*8 <= largeAlloc {
		// The log started small: append grows it, to arrays of its own.
		return
	}
	nc := appendCap(c)
	r := reserveFor(s.cfg, c)
	if nc > r || c >= r {
		return
	}
	if c == initialCap(s.cfg) {
		// The first growth: move to the reserve.
		res := make([]time.Duration, len(s.log), r)
		copy(res, s.log)
		s.log = res[:len(s.log):nc]
		return
	}
	// The array is the reserve: from its first growth on, a log that
	// started large moves only here while its capacity is below r (append
	// moves it only once the reserve is too small, to a capacity above r).
	// Extend the slice over it.
	s.log = unsafe.Slice(unsafe.SliceData(s.log), r)[:len(s.log):nc]
}

// largeAlloc is the largest size in bytes the runtime rounds up to a size
// class; larger allocations are rounded up to its 8 KiB pages.
const largeAlloc = 32768 - 8

// appendCap is the capacity append gives a full []time.Duration of
// capacity c when it adds one element, for c·8 above largeAlloc: the
// runtime's nextslicecap (1.25 times plus 192 past 256 elements), rounded
// up to whole 8 KiB pages (TestAppendCapIsAppends holds it to append).
func appendCap(c int) int {
	n := c
	for n < c+1 {
		n += (n + 3*256) >> 2
	}
	const page = 8192
	return (n*8 + page - 1) &^ (page - 1) / 8
}

// initialCap is the capacity NewSlidingLog gives the log.
func initialCap(c SlidingLogConfig) int {
	return int(math.Min(math.Ceil(c.Limit), 1<<16)) + 1
}

// reserveFor is the capacity of the log's reserve: the first capacity of
// append's sequence from c that holds the most timestamps a clock that
// never goes back makes the log keep, those in a span of Window + History
// (at most Limit in each Window of it) and the one being added; 0 when
// that would pass 1 GiB.
func reserveFor(cfg SlidingLogConfig, c int) int {
	windows := math.Ceil(float64(cfg.Window+cfg.History) / float64(cfg.Window))
	most := math.Floor(cfg.Limit)*windows + 1
	if !(most*8 <= 1<<30) {
		return 0
	}
	r := c
	for float64(r) < most {
		r = appendCap(r)
	}
	return r
}

// forget drops the timestamps too old to matter, and compacts the slice
// when it is full and has a dead prefix, so it grows only when the live
// timestamps need the room.
func (s *SlidingLog) forget() {
	horizon := s.maxT - s.cfg.Window - s.cfg.History
	for s.lo < len(s.log) && s.log[s.lo] <= horizon {
		s.lo++
	}
	if s.head < s.lo {
		s.head = s.lo
	}
	if s.lo > 0 && len(s.log) == cap(s.log) {
		n := copy(s.log, s.log[s.lo:])
		s.log = s.log[:n]
		s.head -= s.lo
		s.lo = 0
	}
}

// Spec implements Limiter.
func (s *SlidingLog) Spec() string {
	return fmt.Sprintf("sliding-log:limit=%s,window=%s,history=%s",
		formatFloat(s.cfg.Limit), FormatDuration(s.cfg.Window), FormatDuration(s.cfg.History))
}

// Rate implements Limiter.
func (s *SlidingLog) Rate() float64 { return s.cfg.Limit / s.cfg.Window.Seconds() }

// StateBytes implements Limiter.
func (s *SlidingLog) StateBytes() int { return int(unsafe.Sizeof(*s)) + 8*cap(s.log) }
