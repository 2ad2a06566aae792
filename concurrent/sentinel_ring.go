package concurrent

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SentinelRing is a port of Sentinel 1.8's hot path for one resource with
// one QPS flow rule: a StatisticNode's LeapArray checked by
// DefaultController in FlowSlot and updated by StatisticSlot.
//
// The ring is an array of SampleCount atomic pointers to buckets of
// Window/SampleCount milliseconds (Sentinel's AtomicReferenceArray of
// WindowWrap). currentWindow(t) loops until t's bucket is usable: an empty
// slot gets a new bucket by compare-and-swap, and the loser of that race
// yields (runtime.Gosched for Thread.yield()) and retries; a bucket of the
// current window is returned as is; a deprecated one is reset under a
// try-lock, and a goroutine that finds the lock taken yields and retries
// (the path the seed article blames for collapse under a hot key); a
// bucket newer than t (this goroutine read the clock before another reset
// it) hands out a throw-away bucket, so whatever is added there is lost.
// As in Java, the reset does not check again after taking the lock, so two
// goroutines that both saw the old bucket may reset it twice and wipe the
// passes added in between. Each bucket counts passes and blocks in adders
// striped like LongAdder once contended.
//
// Allow is the two steps of the slot chain. FlowSlot (DefaultController):
// read the clock, make the current bucket usable, sum the passes of the
// buckets not older than Window, and block iff sum + 1 > Limit (Limit is
// per Window; with Window = 1s this is DefaultController's (int)passQps +
// 1 > count exactly). StatisticSlot: read the clock again and add the pass (or
// the block) to the bucket current then. Between the two steps other
// goroutines read a count without this pass, so under contention the ring
// lets through more than Limit per window: the check-then-add race that
// algorithms.CheckToAdd models on the virtual clock.
type SentinelRing struct {
	clock       Clock
	limit       int64
	w, interval int64 // ms
	array       []atomic.Pointer[ringBucket]
	updateLock  sync.Mutex

	passes, blocks             adder // the node's totals (Sentinel also keeps a minute window)
	casFailures, lockMisses, y counter
}

type ringBucket struct {
	start       atomic.Int64 // ms; written only under updateLock once installed
	pass, block adder
}

// NewSentinelRing builds the ring; c must be valid (Config.Validate).
func NewSentinelRing(c Config) *SentinelRing {
	ims := int64(c.Window / time.Millisecond)
	return &SentinelRing{
		clock:    c.clock(),
		limit:    int64(c.Limit),
		w:        ims / int64(c.SampleCount),
		interval: ims,
		array:    make([]atomic.Pointer[ringBucket], c.SampleCount),
	}
}

func newRingBucket(start int64) *ringBucket {
	b := &ringBucket{}
	b.start.Store(start)
	return b
}

// yield is Thread.yield(), counted.
func (r *SentinelRing) yield() {
	r.y.Add(1)
	runtime.Gosched()
}

// currentWindow is LeapArray.currentWindow(t).
func (r *SentinelRing) currentWindow(t int64) *ringBucket {
	idx := (t / r.w) % int64(len(r.array))
	ws := t - t%r.w
	for {
		old := r.array[idx].Load()
		switch {
		case old == nil:
			b := newRingBucket(ws)
			if r.array[idx].CompareAndSwap(nil, b) {
				return b
			}
			r.casFailures.Add(1)
			r.yield()
		case ws == old.start.Load():
			return old
		case ws > old.start.Load():
			if r.updateLock.TryLock() {
				// resetWindowTo: no second look at old.start.
				old.start.Store(ws)
				old.pass.reset()
				old.block.reset()
				r.updateLock.Unlock()
				return old
			}
			r.lockMisses.Add(1)
			r.yield()
		default: // ws < old.start: the clock reading is older than the bucket
			return newRingBucket(ws)
		}
	}
}

func (r *SentinelRing) add(a *adder) {
	if a.add(1) {
		r.casFailures.Add(1)
	}
}

// Allow implements Limiter.
func (r *SentinelRing) Allow() (bool, int64) {
	// FlowSlot: DefaultController.canPass on node.passQps().
	t := r.clock() / 1e6
	r.currentWindow(t)
	var sum int64
	for i := range r.array {
		b := r.array[i].Load()
		if b == nil || t-b.start.Load() > r.interval {
			continue
		}
		sum += b.pass.sum()
	}
	pass := sum+1 <= r.limit
	// StatisticSlot: addPass or addBlock in the bucket current now.
	at := r.clock()
	b := r.currentWindow(at / 1e6)
	if !pass {
		r.add(&b.block)
		r.add(&r.blocks)
		return false, 0
	}
	r.add(&b.pass)
	r.add(&r.passes)
	return true, at
}

// Counters implements Limiter.
func (r *SentinelRing) Counters() Counters {
	passes, blocks := r.passes.sum(), r.blocks.sum()
	return Counters{
		Calls: passes + blocks, Passes: passes, Blocks: blocks,
		CASFailures: r.casFailures.Load(), LockMisses: r.lockMisses.Load(), Yields: r.y.Load(),
	}
}

// bucketSums returns the passes and blocks held in the ring's buckets now.
func (r *SentinelRing) bucketSums() (pass, block int64) {
	for i := range r.array {
		if b := r.array[i].Load(); b != nil {
			pass += b.pass.sum()
			block += b.block.sum()
		}
	}
	return pass, block
}
