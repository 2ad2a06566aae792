package concurrent

import (
	"sync"
	"sync/atomic"
	"time"
)

// MutexRing is the ring of SentinelRing (SampleCount buckets over Window,
// a request passes iff the passes in the buckets not older than Window, plus
// one, are at most Limit) behind one sync.Mutex. The clock is read,
// the window checked and the pass added in one critical section, so a
// decision always sees every earlier pass and the ring never lets more
// than Limit through in any of its windows, however many goroutines call
// it. The price is that every decision, pass or block, serialises on one
// lock; a goroutine that finds it taken counts a lock miss and waits in
// Lock (the runtime spins briefly, then parks it).
type MutexRing struct {
	mu          sync.Mutex
	clock       Clock
	limit       int64
	w, interval int64
	start       []int64 // ms; emptyStart when the slot is unused
	pass        []int64
	calls       int64
	passes      int64
	lockMisses  atomic.Int64
}

const emptyStart = -1 << 62

// NewMutexRing builds the ring; c must be valid (Config.Validate).
func NewMutexRing(c Config) *MutexRing {
	ims := int64(c.Window / time.Millisecond)
	r := &MutexRing{
		clock:    c.clock(),
		limit:    int64(c.Limit),
		w:        ims / int64(c.SampleCount),
		interval: ims,
		start:    make([]int64, c.SampleCount),
		pass:     make([]int64, c.SampleCount),
	}
	for i := range r.start {
		r.start[i] = emptyStart
	}
	return r
}

// Allow implements Limiter.
func (r *MutexRing) Allow() (bool, int64) {
	if !r.mu.TryLock() {
		r.lockMisses.Add(1)
		r.mu.Lock()
	}
	defer r.mu.Unlock()
	r.calls++
	now := r.clock()
	t := now / 1e6
	idx := (t / r.w) % int64(len(r.start))
	ws := t - t%r.w
	if ws > r.start[idx] {
		r.start[idx], r.pass[idx] = ws, 0
	}
	var sum int64
	for i, s := range r.start {
		if s != emptyStart && t-s <= r.interval {
			sum += r.pass[i]
		}
	}
	if sum+1 > r.limit {
		return false, 0
	}
	r.pass[idx]++
	r.passes++
	return true, now
}

// Counters implements Limiter.
func (r *MutexRing) Counters() Counters {
	r.mu.Lock()
	c := Counters{Calls: r.calls, Passes: r.passes, Blocks: r.calls - r.passes}
	r.mu.Unlock()
	c.LockMisses = r.lockMisses.Load()
	return c
}
