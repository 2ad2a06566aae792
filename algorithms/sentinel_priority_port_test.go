package algorithms

// A port, in test code, of the Alibaba Sentinel 1.8.8 classes behind a
// prioritized entry, written for this test from their source
// (sentinel-core): LeapArray.currentWindow/getWindowValue/values,
// WindowWrap, OccupiableBucketLeapArray (newEmptyBucket, resetWindowTo,
// currentWaiting, addWaiting), FutureBucketLeapArray (isWindowDeprecated
// "only future"), ArrayMetric.pass/getWindowPass/waiting,
// StatisticNode.tryOccupyNext/addWaitingRequest, DefaultController.canPass
// with prioritized (QPS grade) and StatisticSlot's calls on the node. Only
// the PASS counter of a MetricBucket is kept: nothing here reads the
// others. It is kept structurally close to the Java (slots of pointers,
// null, one clock reading per call) so it can be read against it; it was
// checked decision for decision against the real classes compiled with
// javac (see TestPriorityPortDump and docs/algorithms.md).

type sWrap struct {
	start int64
	pass  int64
}

func (w *sWrap) inWindow(t, wl int64) bool { return w.start <= t && t < w.start+wl }

// sLeapArray is LeapArray<MetricBucket> with the two subclasses' hooks.
type sLeapArray struct {
	wl, interval int64
	arr          []*sWrap
	future       bool        // FutureBucketLeapArray
	borrow       *sLeapArray // OccupiableBucketLeapArray's borrowArray
	throwaway    *sWrap      // the last bucket handed out for a past time
}

func newSLeapArray(n int, intervalMs int64, occupiable bool) *sLeapArray {
	a := &sLeapArray{wl: intervalMs / int64(n), interval: intervalMs, arr: make([]*sWrap, n)}
	if occupiable {
		a.borrow = &sLeapArray{wl: a.wl, interval: intervalMs, arr: make([]*sWrap, n), future: true}
	}
	return a
}

func (a *sLeapArray) newEmptyBucket(t int64) int64 {
	if a.borrow != nil {
		if b := a.borrow.getWindowValue(t); b != nil {
			return b.pass
		}
	}
	return 0
}

func (a *sLeapArray) currentWindow(t int64) *sWrap {
	if t < 0 {
		return nil
	}
	idx := int((t / a.wl) % int64(len(a.arr)))
	ws := t - t%a.wl
	old := a.arr[idx]
	switch {
	case old == nil:
		a.arr[idx] = &sWrap{start: ws, pass: a.newEmptyBucket(t)}
		return a.arr[idx]
	case ws == old.start:
		return old
	case ws > old.start:
		// resetWindowTo
		old.start = ws
		old.pass = 0
		if a.borrow != nil {
			if b := a.borrow.getWindowValue(ws); b != nil {
				old.pass = b.pass
			}
		}
		return old
	default:
		a.throwaway = &sWrap{start: ws, pass: a.newEmptyBucket(t)}
		return a.throwaway
	}
}

func (a *sLeapArray) getWindowValue(t int64) *sWrap {
	if t < 0 {
		return nil
	}
	w := a.arr[int((t/a.wl)%int64(len(a.arr)))]
	if w == nil || !w.inWindow(t, a.wl) {
		return nil
	}
	return w
}

func (a *sLeapArray) deprecated(t int64, w *sWrap) bool {
	if a.future {
		return t >= w.start
	}
	return t-w.start > a.interval
}

// sum is values(t) summed (ArrayMetric.pass after currentWindow).
func (a *sLeapArray) sum(t int64) int64 {
	var s int64
	for _, w := range a.arr {
		if w != nil && !a.deprecated(t, w) {
			s += w.pass
		}
	}
	return s
}

// sNode is the StatisticNode's second-level metric with the properties
// SAMPLE_COUNT, INTERVAL and occupyTimeout.
type sNode struct {
	data       *sLeapArray
	n          int
	intervalMs int64
	timeout    int64
}

func (nd *sNode) pass(t int64) int64 { nd.data.currentWindow(t); return nd.data.sum(t) }
func (nd *sNode) addPass(t int64)    { nd.data.currentWindow(t).pass++ }
func (nd *sNode) touch(t int64)      { nd.data.currentWindow(t) } // addBlock, addSuccess, addRT
func (nd *sNode) waiting(t int64) int64 {
	nd.data.borrow.currentWindow(t)
	return nd.data.borrow.sum(t)
}
func (nd *sNode) getWindowPass(t int64) int64 {
	if b := nd.data.getWindowValue(t); b != nil {
		return b.pass
	}
	return 0
}

func (nd *sNode) tryOccupyNext(currentTime int64, acquireCount int64, threshold float64) int64 {
	maxCount := threshold * float64(nd.intervalMs) / 1000
	currentBorrow := nd.waiting(currentTime)
	if float64(currentBorrow) >= maxCount {
		return nd.timeout
	}
	windowLength := nd.intervalMs / int64(nd.n)
	earliestTime := currentTime - currentTime%windowLength + windowLength - nd.intervalMs
	idx := int64(0)
	currentPass := nd.pass(currentTime)
	for earliestTime < currentTime {
		waitInMs := idx*windowLength + windowLength - currentTime%windowLength
		if waitInMs >= nd.timeout {
			break
		}
		windowPass := nd.getWindowPass(earliestTime)
		if float64(currentPass+currentBorrow+acquireCount-windowPass) <= maxCount {
			return waitInMs
		}
		earliestTime += windowLength
		currentPass -= windowPass
		idx++
	}
	return nd.timeout
}

// canPass is DefaultController.canPass(node, 1, prioritized) followed by
// StatisticSlot: it returns pass, and the wait of a PriorityWaitException
// (-1 when there was none).
func (nd *sNode) canPass(t int64, count float64, prioritized bool) (bool, int64) {
	return nd.canPassN(t, 1, count, prioritized)
}

// canPassN is canPass with acquireCount n.
func (nd *sNode) canPassN(t int64, n int32, count float64, prioritized bool) (bool, int64) {
	qps := float64(nd.pass(t)) / (float64(nd.intervalMs) / 1000.0)
	curCount := javaD2I(qps)
	if float64(curCount+n) > count { // int + int > double
		if prioritized {
			wait := nd.tryOccupyNext(t, int64(n), count)
			if wait < nd.timeout {
				bw := nd.data.borrow.currentWindow(t + wait)
				bw.pass += int64(n) // addWaitingRequest; addOccupiedPass is the minute metric
				return true, wait
			}
		}
		nd.touch(t) // increaseBlockQps
		return false, -1
	}
	nd.data.currentWindow(t).pass += int64(n) // addPassRequest(acquireCount)
	return true, -1
}
