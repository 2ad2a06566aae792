package algorithms

import (
	"fmt"
	"time"
)

// This file is Sentinel's prioritized entry on the leap-array (Alibaba
// Sentinel 1.8: SphU.entryWithPriority → DefaultController.canPass(node,
// acquireCount, prioritized=true) → StatisticNode.tryOccupyNext, on the
// node's ArrayMetric, an OccupiableBucketLeapArray with its
// FutureBucketLeapArray of borrowed passes).
//
// A prioritized request that the window would block (QPS grade) asks the
// node for a future bucket:
//
//	maxCount = limit · interval / 1000 (a double)
//	borrow   = the borrowed passes of the buckets that start after t
//	           (currentWaiting); if borrow ≥ maxCount: no bucket
//	pass     = the window count at t
//	for k = 0, 1, …, while e = start(t) + (k+1)·w − interval < t:
//	    wait = (k+1)·w − t mod w; stop if wait ≥ occupy-timeout
//	    if pass + borrow + 1 − count(bucket of e) ≤ maxCount: take wait
//	    pass −= count(bucket of e)
//
// where count(bucket of e) is the stored bucket whose window holds e, or 0
// (LeapArray.getWindowValue, deprecated or not). A wait below the occupy
// timeout passes the request after wait (Decision.Wait, Decision.Borrowed),
// and its pass is counted in advance in the future bucket starting at t +
// wait (addWaitingRequest); a wait equal to the timeout is a block. The
// waited request is not counted by StatisticSlot (PriorityWaitException
// records a thread, no pass): its pass reaches the window only when the
// main array creates or resets that bucket, which copies the borrowed
// count in (newEmptyBucket, resetWindowTo). That happens when something
// reads the window while the bucket is current: an arrival, or an exit
// (StatisticSlot.exit's addRtAndSuccess). If nothing does before the
// bucket is left behind, the borrowed pass is never counted.
//
// Exits: a caller that knows when each admitted request leaves (a run with
// response times) calls ReportExits once and then Exit at every exit, in
// clock order with the decisions. Otherwise each waited request exits at
// its admission (response time 0), which this limiter runs itself before
// the first decision at or after that instant.

// DefaultOccupyTimeout is Sentinel's OccupyTimeoutProperty default.
const DefaultOccupyTimeout = 500 * time.Millisecond

// occupy is a LeapArray's prioritized-entry state.
type occupy struct {
	timeoutMs int64
	maxCount  float64
	// FutureBucketLeapArray: window start and borrowed passes per slot,
	// emptySlot while Sentinel's slot is null.
	bstart, bcount []int64
	// exits are the admission instants (absolute ms, ascending) of the
	// waited requests whose exit has not run yet; unused when the caller
	// reports exits.
	exits []int64
}

func (o *occupy) stateBytes() int {
	if o == nil {
		return 0
	}
	return 16*len(o.bstart) + 8*cap(o.exits) + 64
}

// initOccupy validates the occupy timeout; the state is built at the
// first borrow (newOccupy), so a run without one keeps none.
func (l *LeapArray) initOccupy(intervalMs int64) error {
	d := l.cfg.OccupyTimeout
	if d == 0 {
		return nil
	}
	if d < 0 || d%time.Millisecond != 0 {
		return fmt.Errorf("leap-array: occupy-timeout must be whole milliseconds, 0 or more, got %v (Sentinel's OccupyTimeoutProperty is int ms; 0 turns prioritized requests off)", d)
	}
	ms := int64(d / time.Millisecond)
	if ms > intervalMs && d != DefaultOccupyTimeout {
		return fmt.Errorf("leap-array: occupy-timeout %v is longer than the interval %v; Sentinel ignores such a value (OccupyTimeoutProperty.updateTimeout) and keeps 500ms: give at most %v", d, l.cfg.Interval, l.cfg.Interval)
	}
	return nil
}

// newOccupy builds the prioritized-entry state: an empty borrow array.
func (l *LeapArray) newOccupy() *occupy {
	n := l.cfg.SampleCount
	o := &occupy{
		timeoutMs: int64(l.cfg.OccupyTimeout / time.Millisecond),
		maxCount:  l.cfg.Limit * float64(l.cfg.Interval/time.Millisecond) / 1000,
		bstart:    make([]int64, n),
		bcount:    make([]int64, n),
	}
	for i := range o.bstart {
		o.bstart[i] = emptySlot
	}
	l.occ = o
	return o
}

// Borrower is a RequestLimiter whose waits of prioritized requests are
// borrows: such a pass was counted in advance in the future window it
// waited for (Sentinel's occupiable leap-array), and its ordinary requests
// never wait. Borrows reports whether prioritized requests are honoured.
type Borrower interface {
	RequestLimiter
	Borrows() bool
}

// Exiter is a limiter whose reference reads its state again when an
// admitted request exits (Sentinel's StatisticSlot.exit reads the
// window). A caller that knows every exit calls ReportExits before the
// first decision and Exit at each exit, in clock order with the
// decisions; otherwise the limiter assumes each request exits at its
// admission.
type Exiter interface {
	Limiter
	ReportExits()
	Exit(at time.Duration)
}

// Borrows implements Borrower: true when occupy-timeout is not 0.
func (l *LeapArray) Borrows() bool { return l.cfg.OccupyTimeout > 0 }

// OccupyTimeout is the occupy timeout (0 when prioritized requests are
// treated as ordinary ones).
func (l *LeapArray) OccupyTimeout() time.Duration { return l.cfg.OccupyTimeout }

// DecideRequest implements RequestLimiter: DefaultController.canPass(node,
// acquireCount = the request's cost, prioritized) and StatisticSlot's
// addPassRequest(acquireCount). An ordinary request of cost 1 is Decide; a
// prioritized one may wait for a future bucket (see the file comment).
// Keys are not read.
func (l *LeapArray) DecideRequest(now time.Duration, r *Request) Decision {
	n := r.cost()
	prioritized := r.Priority && l.cfg.OccupyTimeout > 0
	if n == 1 && !prioritized {
		return l.Decide(now)
	}
	t := l.epoch + floorMs(now)
	if l.slow {
		return l.decideExact(t, n, prioritized)
	}
	// Nothing borrowed yet: the fast path's buckets are Sentinel's.
	b := l.statistics
	if pass := b.sum(t); l.passes(pass, n) {
		b.add(t, int64(n))
		return Decision{Pass: true}
	} else if !prioritized {
		return Decision{}
	}
	return l.occupyNext(t, l.passCount(t), n)
}

// passes is DefaultController's check of acquireCount n on the window
// count r: the two thresholds for n = 1, the Java arithmetic else.
func (l *LeapArray) passes(r int64, n int32) bool {
	if n == 1 {
		return r <= l.passUpTo || r >= l.passFrom
	}
	return leapPassesN(r, n, l.intervalS, l.cfg.Limit)
}

// ReportExits tells the limiter that the caller calls Exit for every
// admitted request, so it stops assuming exits at admission.
func (l *LeapArray) ReportExits() { l.reported = true }

// Exit is StatisticSlot.exit of an admitted request at at: it reads the
// window (currentWindow), which moves the borrowed passes of the bucket
// that starts then into it.
func (l *LeapArray) Exit(at time.Duration) {
	t := l.epoch + floorMs(at)
	if l.slow {
		l.current(t)
		return
	}
	l.statistics.advance(t)
}

// decideExact is DefaultController and StatisticSlot on the occupiable
// array, slot by slot as Sentinel runs them.
func (l *LeapArray) decideExact(t int64, n int32, prioritized bool) Decision {
	if o := l.occ; !l.reported && len(o.exits) > 0 && o.exits[0] <= t {
		l.runExits(t)
	}
	r := l.passCount(t)
	if l.passes(r, n) {
		if i := l.current(t); i >= 0 {
			l.statistics.count[i] += int64(n)
		}
		return Decision{Pass: true}
	}
	if prioritized {
		return l.occupyNext(t, r, n)
	}
	return Decision{}
}

// occupyNext is the prioritized branch of DefaultController.canPass after
// the window blocked the request at t; pass is the window count at t, n
// the acquireCount.
func (l *LeapArray) occupyNext(t, pass int64, n int32) Decision {
	o := l.occ
	if o == nil {
		o = l.newOccupy()
	}
	wait := l.tryOccupyNext(t, pass, int64(n))
	if wait >= o.timeoutMs {
		return Decision{}
	}
	if !l.slow {
		// From now on the buckets hold borrowed passes: leave the running
		// total for the exact path.
		l.slow = true
		l.statistics.fast, l.statistics.cur = false, false
	}
	if i := l.borrowCurrent(t + wait); i >= 0 {
		o.bcount[i] += int64(n) // addWaitingRequest(futureTime, acquireCount)
	}
	if !l.reported {
		l.pushExit(t + wait)
	}
	return Decision{Pass: true, Wait: time.Duration(wait) * time.Millisecond}
}

// tryOccupyNext is StatisticNode.tryOccupyNext(t, acquireCount n, limit);
// pass is rollingCounterInSecond.pass() at t, which canPass has just read
// (the window has not changed since: Sentinel's second reading is the
// same).
func (l *LeapArray) tryOccupyNext(t, pass, n int64) int64 {
	o := l.occ
	b := l.statistics
	currentBorrow := l.waiting(t)
	if float64(currentBorrow) >= o.maxCount {
		return o.timeoutMs
	}
	w := b.w
	earliest := t - t%w + w - b.interval
	var idx int64
	currentPass := pass
	for earliest < t {
		wait := idx*w + w - t%w
		if wait >= o.timeoutMs {
			break
		}
		windowPass := l.windowPass(earliest)
		if float64(currentPass+currentBorrow+n-windowPass) <= o.maxCount {
			return wait
		}
		earliest += w
		currentPass -= windowPass
		idx++
	}
	return o.timeoutMs
}

// current is the occupiable array's currentWindow(t): t's slot, created
// or reset with the borrowed passes of its window, or -1 for the
// throw-away bucket of a clock that went back.
func (l *LeapArray) current(t int64) int {
	b := l.statistics
	ws := t - t%b.w
	idx := int((t / b.w) % int64(len(b.start)))
	switch old := b.start[idx]; {
	case ws == old:
		return idx
	case ws > old:
		b.start[idx] = ws
		b.count[idx] = l.borrowed(ws)
		if ws > b.maxStart {
			b.maxStart = ws
		}
		return idx
	}
	return -1
}

// passCount is ArrayMetric.pass() at t.
func (l *LeapArray) passCount(t int64) int64 {
	l.current(t)
	b := l.statistics
	var s int64
	for i, st := range b.start {
		if t-st <= b.interval {
			s += b.count[i]
		}
	}
	return s
}

// windowPass is ArrayMetric.getWindowPass(e): the count of the stored
// bucket whose window holds e, deprecated or not, else 0.
func (l *LeapArray) windowPass(e int64) int64 {
	b := l.statistics
	idx := int((e / b.w) % int64(len(b.start)))
	if st := b.start[idx]; st <= e && e < st+b.w {
		return b.count[idx]
	}
	return 0
}

// borrowed is borrowArray.getWindowValue(x).pass(), 0 for null (and
// before the first borrow, when the array is not built yet).
func (l *LeapArray) borrowed(x int64) int64 {
	o, w := l.occ, l.statistics.w
	if o == nil {
		return 0
	}
	idx := int((x / w) % int64(len(o.bstart)))
	if st := o.bstart[idx]; st <= x && x < st+w {
		return o.bcount[idx]
	}
	return 0
}

// borrowCurrent is borrowArray.currentWindow(x): FutureBucketLeapArray
// resets a reused slot to zero; -1 for a throw-away bucket.
func (l *LeapArray) borrowCurrent(x int64) int {
	o, w := l.occ, l.statistics.w
	ws := x - x%w
	idx := int((x / w) % int64(len(o.bstart)))
	switch old := o.bstart[idx]; {
	case ws == old:
		return idx
	case ws > old:
		o.bstart[idx], o.bcount[idx] = ws, 0
		return idx
	}
	return -1
}

// waiting is OccupiableBucketLeapArray.currentWaiting() at t: the borrowed
// passes of the buckets that start after t.
func (l *LeapArray) waiting(t int64) int64 {
	l.borrowCurrent(t)
	o := l.occ
	var s int64
	for i, st := range o.bstart {
		if st > t {
			s += o.bcount[i]
		}
	}
	return s
}

// pushExit queues the exit at admission of a waited request.
func (l *LeapArray) pushExit(t int64) {
	o := l.occ
	i := len(o.exits)
	o.exits = append(o.exits, t)
	for i > 0 && o.exits[i-1] > t {
		o.exits[i] = o.exits[i-1]
		i--
	}
	o.exits[i] = t
}

// runExits runs the queued exits at or before t, in time order.
func (l *LeapArray) runExits(t int64) {
	o := l.occ
	n := 0
	for n < len(o.exits) && o.exits[n] <= t {
		l.current(o.exits[n])
		n++
	}
	o.exits = o.exits[:copy(o.exits, o.exits[n:])]
}
