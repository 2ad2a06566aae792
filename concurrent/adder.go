package concurrent

import (
	"math/rand/v2"
	"sync/atomic"
)

// stripes is the number of cells of an adder once it is contended.
const stripes = 8

type cell struct {
	atomic.Int64
	_ [56]byte // one cache line per cell
}

// adder is a counter striped like Java's LongAdder, where it pays: it adds
// to one base word by compare-and-swap while nobody else does, and on the
// first lost race it switches for good to stripes cells, each on its own
// cache line, picked at random per add (Go has no thread id to hash, and
// math/rand/v2's global source is per-thread and lock-free). Sum reads
// base and cells without a lock, so under concurrent adds it is a recent
// value, not a snapshot, exactly as LongAdder.sum is.
type adder struct {
	base  atomic.Int64
	cells atomic.Pointer[[stripes]cell]
}

// add adds x; it reports whether a compare-and-swap failed on the way.
func (a *adder) add(x int64) (casFailed bool) {
	cs := a.cells.Load()
	if cs == nil {
		b := a.base.Load()
		if a.base.CompareAndSwap(b, b+x) {
			return false
		}
		casFailed = true
		a.cells.CompareAndSwap(nil, new([stripes]cell))
		cs = a.cells.Load()
	}
	cs[rand.Uint32()%stripes].Add(x)
	return casFailed
}

func (a *adder) sum() int64 {
	s := a.base.Load()
	if cs := a.cells.Load(); cs != nil {
		for i := range cs {
			s += cs[i].Load()
		}
	}
	return s
}

// reset sets the count to zero, as LongAdder.reset: not atomic with
// concurrent adds, which may survive it or be lost.
func (a *adder) reset() {
	a.base.Store(0)
	if cs := a.cells.Load(); cs != nil {
		for i := range cs {
			cs[i].Store(0)
		}
	}
}
