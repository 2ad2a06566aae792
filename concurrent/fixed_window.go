package concurrent

import (
	"sync/atomic"
	"time"
)

// AtomicFixedWindow is a fixed-window counter in one 64-bit word: the
// window index k = now/Window in the high 40 bits and the window's count in
// the low 24. A decision reads the clock and the word, computes the next
// word (a newer window starts at count 1; the current one adds 1 while
// count+1 ≤ Limit; a full one blocks without writing) and installs it by
// compare-and-swap; a lost race re-reads both and tries again, and a
// clock reading older than the word's window is read again (the clock is
// monotonic, so it catches up). Check and add are one atomic step, so it
// never lets more than Limit through in any window [kW, (k+1)W) by the
// time each pass was recorded. Under contention every goroutine hammers
// the same cache line; CASFailures counts the retries.
type AtomicFixedWindow struct {
	state       atomic.Uint64
	clock       Clock
	window      int64
	limit       uint64
	casFailures counter
}

const countBits = 24

// NewAtomicFixedWindow builds the counter; c must be valid.
func NewAtomicFixedWindow(c Config) *AtomicFixedWindow {
	return &AtomicFixedWindow{clock: c.clock(), window: int64(c.Window / time.Nanosecond), limit: uint64(c.Limit)}
}

// Allow implements Limiter.
func (f *AtomicFixedWindow) Allow() (bool, int64) {
	for {
		now := f.clock()
		k := uint64(now / f.window)
		old := f.state.Load()
		w, n := old>>countBits, old&(1<<countBits-1)
		var next uint64
		switch {
		case k < w:
			continue
		case k > w:
			next = k<<countBits | 1
		case n+1 > f.limit:
			return false, 0
		default:
			next = old + 1
		}
		if f.state.CompareAndSwap(old, next) {
			return true, now
		}
		f.casFailures.Add(1)
	}
}

// Counters implements Limiter: only the CAS failures (no totals).
func (f *AtomicFixedWindow) Counters() Counters {
	return Counters{CASFailures: f.casFailures.Load()}
}
