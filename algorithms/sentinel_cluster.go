package algorithms

import (
	"container/heap"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// This file is Sentinel's cluster flow control (Alibaba Sentinel 1.8.9,
// issue 28): a token server holds a FlowRule's window for a whole
// cluster, and every instance (a token client) asks it for a token per
// request; when the answer does not come, the rule's clusterConfig
// decides what happens instead. Every step follows the source:
//
//   - Client (sentinel-core FlowRuleChecker.passClusterCheck): the client
//     sends requestToken(flowId, acquireCount, prioritized) and applies the
//     result (applyTokenResult): OK passes; SHOULD_WAIT sleeps waitInMs and
//     passes; BLOCKED blocks; FAIL, TOO_MANY_REQUEST, NO_RULE_EXISTS and
//     BAD_REQUEST go to fallbackToLocalOrPass.
//   - Transport (sentinel-cluster-client-default NettyTransportClient
//     .sendRequest, DefaultClusterTokenClient.requestToken): a client that
//     is not connected fails at once (CLIENT_NOT_READY → FAIL); a reply
//     that does not come within requestTimeout (ClusterConstants
//     .DEFAULT_REQUEST_TIMEOUT = 20 ms) fails at the deadline
//     (promise.await → REQUEST_TIME_OUT → FAIL). The server still decides,
//     and counts, a request its client gave up on.
//   - Fallback (FlowRuleChecker.fallbackToLocalOrPass): with
//     fallbackToLocalWhenFail (default true) the local check runs the
//     rule's own rater, DefaultController.canPass, with the rule's count
//     (the cluster's count for a GLOBAL rule) on the instance's ClusterNode
//     (its rolling second: SampleCountProperty 2, IntervalProperty 1000
//     ms): pass iff (int) passQps + acquireCount ≤ count; without it the
//     request passes. A prioritized request over the count takes canPass's
//     occupy path on the node (StatisticNode.tryOccupyNext on its
//     OccupiableBucketLeapArray, addWaitingRequest, sleep, throw
//     PriorityWaitException); passClusterCheck's catch (Throwable) around
//     the token request catches it and calls fallbackToLocalOrPass again
//     after the sleep, so the local check runs a second time (runEvent).
//   - Server (sentinel-cluster-server-default ClusterFlowChecker
//     .acquireClusterToken): first the namespace's GlobalRequestLimiter
//     (RequestLimiter on a UnaryLeapArray(10, 1000): pass iff qps + 1 ≤
//     maxAllowedQps, then count 1; else TOO_MANY_REQUEST), then the rule's
//     ClusterMetric (a ClusterMetricLeapArray of sampleCount buckets over
//     windowIntervalMs from ClusterFlowConfig): latestQps = PASS sum /
//     interval in s; threshold = count (GLOBAL) or count · connected
//     clients (AVG_LOCAL, calcGlobalThreshold with ConnectionManager's
//     count), times ServerFlowConfig.exceedCount; OK and PASS += acquire
//     iff threshold − latestQps − acquire ≥ 0. Else a prioritized request
//     tries to occupy the next bucket (ClusterMetric.tryOccupyNext): if the
//     WAITING average ≤ maxOccupyRatio · threshold and latestQps + acquire
//     + occupied − (PASS of the valid head bucket) ≤ threshold, it adds
//     acquire to the occupy counter and WAITING, and answers SHOULD_WAIT
//     with waitInMs = 1000 / sampleCount (integer division); the occupied
//     passes go into the next bucket the array resets
//     (ClusterMetricLeapArray.resetWindowTo, not a bucket created new).
//     Else BLOCKED.
//   - Statistics (StatisticSlot): every pass is counted in the instance's
//     node when it proceeds: at arrival + its wait.
//
// Timing on the virtual clock (the lab's multi-instance conventions, as
// the redis-* family's): arrival i goes to client i mod instances; the
// server decides at T + ⌊rtt/2⌋ in arrival order, the client learns at
// T + rtt; with rtt > timeout the request fails at T + timeout; a client
// inside a down window (true time) fails at T. Client k's clock reads
// true time + offset_k (offset_k = −skew + ⌊2·skew·k/(instances−1)⌋ ns);
// the server reads true time. The client-side events (a fallback's local
// check at its failure time, a pass counted in the node when it
// proceeds) run in the order (time, arrival number).

// SentinelClusterConfig configures a SentinelCluster (the spec
// sentinel-cluster:...).
type SentinelClusterConfig struct {
	// Count is FlowRule.count.
	Count float64
	// Global is ClusterFlowConfig.thresholdType = GLOBAL (1); false is
	// AVG_LOCAL (0, the default).
	Global bool
	// Instances is the number of token clients; Connected what
	// ConnectionManager counts for the namespace (AVG_LOCAL's multiplier).
	Instances, Connected int
	// RTT is the round trip to the token server; Timeout the client's
	// requestTimeout; Skew the clients' clock spread.
	RTT, Timeout, Skew time.Duration
	// FallbackLocal is ClusterFlowConfig.fallbackToLocalWhenFail.
	FallbackLocal bool
	// Down lists windows [From, To) of true time in which the clients are
	// not connected to the server.
	Down []DownWindow
	// Exceed, MaxOccupy and MaxQPS are ServerFlowConfig's exceedCount,
	// maxOccupyRatio and maxAllowedQps.
	Exceed, MaxOccupy, MaxQPS float64
	// SampleCount and Interval are the server's window for the rule
	// (ClusterFlowConfig.sampleCount, windowIntervalMs).
	SampleCount int
	Interval    time.Duration
	// LocalSampleCount and LocalInterval are each client's node.
	LocalSampleCount int
	LocalInterval    time.Duration
	// Route names a trace column holding each arrival's client index
	// (0 … instances−1); "" sends arrival i to client i mod instances.
	Route string
}

// DownWindow is a span [From, To) of true time in which the clients are
// not connected to the token server.
type DownWindow struct{ From, To time.Duration }

// ParseDownWindows reads down=A-B|C-D (Go durations; "none" or "" is no
// window). Windows must be non-empty, in order and disjoint.
func ParseDownWindows(s string) ([]DownWindow, error) {
	if s == "" || s == "none" || s == "(none)" {
		return nil, nil
	}
	var out []DownWindow
	for _, part := range strings.Split(s, "|") {
		a, b, ok := strings.Cut(part, "-")
		if !ok {
			return nil, fmt.Errorf("sentinel-cluster: down window %q is not FROM-TO (for example down=10s-20s|40s-41s)", part)
		}
		from, err1 := time.ParseDuration(a)
		to, err2 := time.ParseDuration(b)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("sentinel-cluster: down window %q: FROM and TO must be Go durations (for example down=10s-20s)", part)
		}
		if from < 0 || to <= from {
			return nil, fmt.Errorf("sentinel-cluster: down window %q must start at 0 or later and end after it starts", part)
		}
		if n := len(out); n > 0 && from < out[n-1].To {
			return nil, fmt.Errorf("sentinel-cluster: down window %q overlaps or precedes the one before it: list the windows in order", part)
		}
		out = append(out, DownWindow{from, to})
	}
	return out, nil
}

func formatDownWindows(ws []DownWindow) string {
	if len(ws) == 0 {
		return "none"
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = FormatDuration(w.From) + "-" + FormatDuration(w.To)
	}
	return strings.Join(parts, "|")
}

// Token results of the server (sentinel-core TokenResultStatus).
const (
	clusterOK = iota
	clusterBlocked
	clusterShouldWait
	clusterTooMany
)

// clusterLeap is Sentinel's LeapArray (sentinel-core statistic/base
// LeapArray) for a clock that never goes back: currentWindow creates a
// missing bucket empty (newEmptyBucket), resets a bucket whose start is
// behind (resetWindowTo), and values(t) skips the buckets with
// t − start > interval (isWindowDeprecated).
type clusterLeap struct {
	winLen, interval int64
	start            []int64 // -1: no bucket yet
	val              [][2]int64
}

// The events a bucket counts: PASS, and WAITING on the server.
const (
	evPass = iota
	evWaiting
)

func newClusterLeap(sampleCount int, intervalMs int64) clusterLeap {
	l := clusterLeap{winLen: intervalMs / int64(sampleCount), interval: intervalMs,
		start: make([]int64, sampleCount), val: make([][2]int64, sampleCount)}
	for i := range l.start {
		l.start[i] = -1
	}
	return l
}

// current returns the bucket index of t; reset reports whether an old
// bucket was reset (ClusterMetricLeapArray moves its occupied passes in).
func (l *clusterLeap) current(t int64) (idx int, reset bool) {
	idx = int((t / l.winLen) % int64(len(l.start)))
	ws := t - t%l.winLen
	switch {
	case l.start[idx] < 0:
		l.start[idx], l.val[idx] = ws, [2]int64{}
	case ws > l.start[idx]:
		l.start[idx], l.val[idx] = ws, [2]int64{}
		reset = true
	}
	return idx, reset
}

// sum is the event's count over the buckets valid at t (values(t)).
func (l *clusterLeap) sum(t int64, ev int) int64 {
	var s int64
	for i, st := range l.start {
		if st >= 0 && t-st <= l.interval {
			s += l.val[i][ev]
		}
	}
	return s
}

func (l *clusterLeap) intervalSec() float64 { return float64(l.interval) / 1000.0 }

// SentinelCluster is Sentinel 1.8.9's cluster flow control: the token
// server, its clients and their fallback, on the virtual clock (see the
// comment at the top of this file).
type SentinelCluster struct {
	cfg     SentinelClusterConfig
	epochMs int64
	offsets []time.Duration
	half    time.Duration
	timeout bool // rtt > timeout: every request sent fails at T + timeout

	// The server: the rule's ClusterMetric with its occupy counter, and
	// the namespace's GlobalRequestLimiter.
	metric      clusterLeap
	occPass     int64
	occReq      int64
	hasOccupied bool
	global      clusterLeap
	threshold   float64

	// The clients: each one's node, and its last event time (ms): a
	// node's clock never goes back (see DecideRequests).
	nodes    []clusterLeap
	nodeLast []int64
	// nodeBorrow is each node's FutureBucketLeapArray (the borrowed
	// passes of prioritized local checks, evPass per bucket), nil until
	// the first borrow.
	nodeBorrow []clusterLeap
	last       time.Duration
	err        error

	events clusterEvents
	seq    int64
	down   int // index of the first down window that may still hold T

	// The decisions not taken yet (TakeDecisions), of arrivals base,
	// base+1, …: dec[i] is final unless waiting[i] (its local check has
	// not run), fb[i] flags the fail path; nWaiting counts the waiting.
	base     int64
	dec      []Decision
	waiting  []bool
	fb       []bool
	nWaiting int

	fallbacks, shouldWait int64
	instancePassed        []int64
	// route=COLUMN: the column's index in Request.Keys (-1 unbound) and
	// the names of its values.
	routeIdx int
	keyName  func(int32) string
	// lastFB flags the arrivals of the last batch taken that were decided
	// on the fail path (LastFallbacks).
	lastFB []bool
}

// clusterEvent is a client-side event: a fallback's local check (check)
// or a pass counted in the client's node.
type clusterEvent struct {
	at     time.Duration
	seq    int64
	client int
	check  bool
	prio   bool // the entry is prioritized
	second bool // the local check after a caught PriorityWaitException
	cost   int64
	arr    time.Duration // the arrival (a check's wait is at − arr)
}

type clusterEvents []clusterEvent

func (h clusterEvents) Len() int { return len(h) }
func (h clusterEvents) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h clusterEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *clusterEvents) Push(x any)   { *h = append(*h, x.(clusterEvent)) }
func (h *clusterEvents) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// NewSentinelCluster validates c and builds the limiter.
func NewSentinelCluster(c SentinelClusterConfig) (*SentinelCluster, error) {
	switch {
	case !(c.Count >= 0) || math.IsInf(c.Count, 0):
		return nil, fmt.Errorf("sentinel-cluster: count must be a number ≥ 0, got %v", c.Count)
	case c.Instances < 1 || c.Instances > 4096:
		return nil, fmt.Errorf("sentinel-cluster: instances must be between 1 and 4096, got %d", c.Instances)
	case c.Connected < 0:
		return nil, fmt.Errorf("sentinel-cluster: connected must be ≥ 0 (the clients the server counts), got %d", c.Connected)
	case c.RTT < 0 || c.Timeout < 0 || c.Skew < 0:
		return nil, fmt.Errorf("sentinel-cluster: rtt, timeout and skew must be ≥ 0")
	case !(c.Exceed > 0) || !(c.MaxOccupy >= 0) || !(c.MaxQPS >= 0):
		return nil, fmt.Errorf("sentinel-cluster: exceed must be > 0, max-occupy and max-qps ≥ 0 (ServerFlowConfig)")
	}
	if err := checkClusterWindow("", c.SampleCount, c.Interval); err != nil {
		return nil, err
	}
	if err := checkClusterWindow("local-", c.LocalSampleCount, c.LocalInterval); err != nil {
		return nil, err
	}
	l := &SentinelCluster{cfg: c, half: c.RTT / 2, timeout: c.RTT > c.Timeout, routeIdx: -1}
	lcm := lcmInt64(lcmInt64(1000, c.Interval.Milliseconds()), c.LocalInterval.Milliseconds())
	const base = 1_600_000_000_000
	l.epochMs = (base + lcm - 1) / lcm * lcm
	l.offsets = make([]time.Duration, c.Instances)
	if c.Instances > 1 {
		for k := range l.offsets {
			l.offsets[k] = -c.Skew + time.Duration((2*int64(c.Skew)*int64(k))/int64(c.Instances-1))
		}
	}
	l.metric = newClusterLeap(c.SampleCount, c.Interval.Milliseconds())
	l.global = newClusterLeap(10, 1000)
	l.nodes = make([]clusterLeap, c.Instances)
	l.nodeLast = make([]int64, c.Instances)
	for k := range l.nodes {
		l.nodes[k] = newClusterLeap(c.LocalSampleCount, c.LocalInterval.Milliseconds())
	}
	l.instancePassed = make([]int64, c.Instances)
	l.threshold = c.Count
	if !c.Global {
		l.threshold = c.Count * float64(c.Connected)
	}
	l.threshold *= c.Exceed
	return l, nil
}

// checkClusterWindow holds a window to ClusterMetric's and LeapArray's
// asserts: whole ms, sampleCount > 0, the interval divided evenly.
func checkClusterWindow(prefix string, n int, iv time.Duration) error {
	if n < 1 || n > 1000 {
		return fmt.Errorf("sentinel-cluster: %ssample-count must be between 1 and 1000, got %d", prefix, n)
	}
	if iv <= 0 || iv%time.Millisecond != 0 || iv > time.Hour {
		return fmt.Errorf("sentinel-cluster: %sinterval must be whole milliseconds between 1ms and 1h, got %v", prefix, iv)
	}
	if iv.Milliseconds()%int64(n) != 0 {
		return fmt.Errorf("sentinel-cluster: %sinterval %v is not divided evenly by %ssample-count %d (Sentinel asserts it); pick a sample count that divides it", prefix, iv, prefix, n)
	}
	return nil
}

func lcmInt64(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// ms is Sentinel's currentTimeMillis at true time t for clock offset off.
func (l *SentinelCluster) ms(t, off time.Duration) int64 {
	v := t + off
	m := int64(v / time.Millisecond)
	if v%time.Millisecond < 0 {
		m--
	}
	return l.epochMs + m
}

// EpochMs implements EpochReader: Unix ms of virtual time 0 (summary.json's
// epoch_ms), the first multiple of lcm(1000 ms, interval, local-interval)
// at or after 1 600 000 000 000.
func (l *SentinelCluster) EpochMs() int64 { return l.epochMs }

// isDown reports whether the clients are disconnected at t (arrivals come
// in order of t, so the window index only moves forward).
func (l *SentinelCluster) isDown(t time.Duration) bool {
	ws := l.cfg.Down
	for l.down < len(ws) && ws[l.down].To <= t {
		l.down++
	}
	return l.down < len(ws) && ws[l.down].From <= t
}

// acquire is ClusterFlowChecker.acquireClusterToken at server time t (ms):
// the status and SHOULD_WAIT's waitInMs.
func (l *SentinelCluster) acquire(t, acquire int64, prio bool) (int, int64) {
	// GlobalRequestLimiter.tryPass → RequestLimiter.canPass: getQps() + 1
	// ≤ qpsAllowed, then add(1).
	gi, _ := l.global.current(t)
	if float64(l.global.sum(t, evPass))/l.global.intervalSec()+1 > l.cfg.MaxQPS {
		return clusterTooMany, 0
	}
	l.global.val[gi][evPass]++
	// metric.getAvg(PASS): currentWindow, then the valid buckets' sum.
	latest := float64(l.metricSum(t, evPass)) / l.metric.intervalSec()
	a := float64(acquire)
	if l.threshold-latest-a >= 0 {
		l.metricAdd(t, evPass, acquire)
		return clusterOK, 0
	}
	if prio {
		occupyAvg := float64(l.metricSum(t, evWaiting)) / l.metric.intervalSec()
		if occupyAvg <= l.cfg.MaxOccupy*l.threshold {
			// tryOccupyNext: latestQps again, then canOccupy against the
			// valid head (the bucket of t + windowLength, if valid).
			latest = float64(l.metricSum(t, evPass)) / l.metric.intervalSec()
			var head int64
			hi := int(((t + l.metric.winLen) / l.metric.winLen) % int64(len(l.metric.start)))
			if st := l.metric.start[hi]; st >= 0 && t-st <= l.metric.interval {
				head = l.metric.val[hi][evPass]
			}
			if latest+float64(acquire+l.occPass)-float64(head) <= l.threshold {
				l.occPass += acquire
				l.occReq++
				l.hasOccupied = true
				l.metricAdd(t, evWaiting, acquire)
				if w := int64(1000 / l.cfg.SampleCount); w > 0 {
					return clusterShouldWait, w
				}
			}
		}
	}
	l.metricCurrent(t) // metric.add(BLOCK, …): a block counts nothing we read
	return clusterBlocked, 0
}

// metricCurrent is ClusterMetricLeapArray.currentWindow(t): a reset
// bucket takes the occupied passes (transferOccupyToBucket).
func (l *SentinelCluster) metricCurrent(t int64) int {
	i, reset := l.metric.current(t)
	if reset && l.hasOccupied {
		l.metric.val[i][evPass] += l.occPass
		l.occPass, l.occReq, l.hasOccupied = 0, 0, false
	}
	return i
}

func (l *SentinelCluster) metricSum(t int64, ev int) int64 {
	l.metricCurrent(t)
	return l.metric.sum(t, ev)
}

func (l *SentinelCluster) metricAdd(t int64, ev int, n int64) {
	i := l.metricCurrent(t)
	l.metric.val[i][ev] += n
}

// runEvents runs the client-side events that come before (until, seq).
func (l *SentinelCluster) runEvents(until time.Duration, seq int64) {
	for len(l.events) > 0 {
		e := l.events[0]
		if e.at > until || (e.at == until && e.seq >= seq) {
			return
		}
		heap.Pop(&l.events)
		l.runEvent(&e)
	}
}

// runPendingChecks runs events until no local check is left: the end of
// the stream, when no later arrival can come before them.
func (l *SentinelCluster) runPendingChecks() {
	for l.nWaiting > 0 && len(l.events) > 0 {
		e := heap.Pop(&l.events).(clusterEvent)
		l.runEvent(&e)
	}
}

func (l *SentinelCluster) runEvent(e *clusterEvent) {
	node := &l.nodes[e.client]
	t := max(l.ms(e.at, l.offsets[e.client]), l.nodeLast[e.client])
	l.nodeLast[e.client] = t
	if !e.check {
		i := l.nodeCurrent(e.client, t)
		node.val[i][evPass] += e.cost
		return
	}
	// DefaultController.canPass(node, acquireCount, prioritized) on the
	// node: (int) passQps + acquireCount > count is over the count.
	i := l.nodeCurrent(e.client, t)
	qps := float64(node.sum(t, evPass)) / node.intervalSec()
	pass := !l.cfg.FallbackLocal || float64(int64(qps)+e.cost) <= l.cfg.Count
	d := Decision{Pass: pass}
	if pass {
		d.Wait = e.at - e.arr
		node.val[i][evPass] += e.cost
		l.instancePassed[e.client]++
	} else if e.prio {
		// Over the count, prioritized, QPS grade: tryOccupyNext; a wait
		// below OccupyTimeoutProperty's 500 ms books the pass in the
		// future bucket (addWaitingRequest; addOccupiedPass touches only
		// the minute counter), sleeps it and throws PriorityWaitException.
		if w := l.nodeOccupyNext(e.client, t, e.cost); w < nodeOccupyTimeoutMs {
			l.nodeAddWaiting(e.client, t+w, e.cost)
			at := e.at + time.Duration(w)*time.Millisecond
			if !e.second {
				// FlowRuleChecker.passClusterCheck catches the exception
				// (catch Throwable around requestToken/applyTokenResult,
				// where the fail path's fallbackToLocalOrPass ran) and
				// calls fallbackToLocalOrPass again after the sleep: a
				// second local check at at, outside the try.
				heap.Push(&l.events, clusterEvent{at: at, seq: e.seq, client: e.client, check: true, prio: true, second: true, cost: e.cost, arr: e.arr})
				return
			}
			// The second check's exception reaches StatisticSlot.entry:
			// a pass after the wait that counts no pass (the borrowed one
			// lands in its bucket); its exit (response time 0) reads the
			// node at at.
			d = Decision{Pass: true, Wait: at - e.arr}
			l.instancePassed[e.client]++
			heap.Push(&l.events, clusterEvent{at: at, seq: e.seq, client: e.client})
		}
	}
	if j := e.seq - l.base; j >= 0 && j < int64(len(l.dec)) && l.waiting[j] {
		l.dec[j], l.waiting[j] = d, false
		l.nWaiting--
	}
}

// nodeOccupyTimeoutMs is OccupyTimeoutProperty's default (500 ms), which
// the client's local check compares tryOccupyNext's wait with.
const nodeOccupyTimeoutMs = int64(DefaultOccupyTimeout / time.Millisecond)

// nodeCurrent is the node's OccupiableBucketLeapArray.currentWindow(t): a
// bucket created or reset (newEmptyBucket, resetWindowTo) takes the
// borrowed passes of the borrow bucket starting where it starts.
func (l *SentinelCluster) nodeCurrent(k int, t int64) int {
	n := &l.nodes[k]
	idx := int((t / n.winLen) % int64(len(n.start)))
	ws := t - t%n.winLen
	if n.start[idx] >= ws {
		return idx
	}
	n.current(t)
	if l.nodeBorrow != nil {
		if b := &l.nodeBorrow[k]; b.start[idx] == ws {
			n.val[idx][evPass] += b.val[idx][evPass]
		}
	}
	return idx
}

// nodeOccupyNext is StatisticNode.tryOccupyNext(t, acquire, count) on
// client k's node (sentinel-core StatisticNode, with SampleCountProperty
// and IntervalProperty as the node's local-sample-count/local-interval):
// the wait in ms, or the occupy timeout when no bucket can take it.
func (l *SentinelCluster) nodeOccupyNext(k int, t, acquire int64) int64 {
	n := &l.nodes[k]
	maxCount := l.cfg.Count * float64(n.interval) / 1000
	// rollingCounterInSecond.waiting(): the borrowed passes of the borrow
	// buckets that start after t (FutureBucketLeapArray.isWindowDeprecated).
	var borrow int64
	if l.nodeBorrow != nil {
		b := &l.nodeBorrow[k]
		for i, st := range b.start {
			if st > t {
				borrow += b.val[i][evPass]
			}
		}
	}
	if float64(borrow) >= maxCount {
		return nodeOccupyTimeoutMs
	}
	w := n.winLen
	earliest := t - t%w + w - n.interval
	l.nodeCurrent(k, t)
	pass := n.sum(t, evPass)
	for idx := int64(0); earliest < t; idx++ {
		wait := idx*w + w - t%w
		if wait >= nodeOccupyTimeoutMs {
			break
		}
		// getWindowPass(earliest): LeapArray.getWindowValue, the bucket
		// whose window holds earliest, else 0.
		var wp int64
		if i := int((earliest / w) % int64(len(n.start))); n.start[i] == earliest-earliest%w {
			wp = n.val[i][evPass]
		}
		if float64(pass+borrow+acquire-wp) <= maxCount {
			return wait
		}
		earliest += w
		pass -= wp
	}
	return nodeOccupyTimeoutMs
}

// nodeAddWaiting is StatisticNode.addWaitingRequest(at, acquire):
// borrowArray.currentWindow(at) takes the passes.
func (l *SentinelCluster) nodeAddWaiting(k int, at, acquire int64) {
	if l.nodeBorrow == nil {
		l.nodeBorrow = make([]clusterLeap, len(l.nodes))
		for i := range l.nodeBorrow {
			l.nodeBorrow[i] = newClusterLeap(len(l.nodes[i].start), l.nodes[i].interval)
		}
	}
	b := &l.nodeBorrow[k]
	i, _ := b.current(at)
	b.val[i][evPass] += acquire
}

// decide handles arrival number seq at now; its decision goes to dec
// now or when its local check runs.
func (l *SentinelCluster) decide(now time.Duration, r *Request) {
	seq := l.seq
	l.seq++
	j := len(l.dec)
	l.dec = append(l.dec, Decision{})
	l.waiting = append(l.waiting, false)
	l.fb = append(l.fb, false)
	if now < l.last {
		if l.err == nil {
			l.err = fmt.Errorf("sentinel-cluster: arrival %d at %v comes before the one before it (%v): the token server's model needs a clock that never steps back; drop clock-rollback or sort the trace", seq, now, l.last)
		}
		now = l.last
	}
	l.last = now
	l.runEvents(now, seq)
	client := l.client(seq, r)
	cost := int64(r.cost())
	fail := func(at time.Duration) {
		l.fallbacks++
		l.fb[j], l.waiting[j] = true, true
		l.nWaiting++
		heap.Push(&l.events, clusterEvent{at: at, seq: seq, client: client, check: true, prio: r.Priority, cost: cost, arr: now})
	}
	if l.isDown(now) {
		fail(now)
		return
	}
	st, waitMs := l.acquire(l.ms(now+l.half, 0), cost, r.Priority)
	if l.timeout {
		fail(now + l.cfg.Timeout)
		return
	}
	var d Decision
	switch st {
	case clusterTooMany:
		fail(now + l.cfg.RTT)
		return
	case clusterBlocked:
		l.dec[j] = d
		return
	case clusterShouldWait:
		l.shouldWait++
		d = Decision{Pass: true, Wait: l.cfg.RTT + time.Duration(waitMs)*time.Millisecond}
	default:
		d = Decision{Pass: true, Wait: l.cfg.RTT}
	}
	l.dec[j] = d
	l.instancePassed[client]++
	heap.Push(&l.events, clusterEvent{at: now + d.Wait, seq: seq, client: client, cost: cost})
}

// client is the client of arrival seq: seq mod instances, or the index
// the route column holds (an index that is not one is an error, Err).
func (l *SentinelCluster) client(seq int64, r *Request) int {
	if l.cfg.Route == "" {
		return int(seq % int64(l.cfg.Instances))
	}
	v := ""
	if l.routeIdx >= 0 && l.keyName != nil && r.Keys[l.routeIdx] != NoKey {
		v = l.keyName(r.Keys[l.routeIdx])
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n >= l.cfg.Instances {
		if l.err == nil {
			l.err = fmt.Errorf("sentinel-cluster: arrival %d: route column %q holds %q, not a client index from 0 to %d; fix the trace or the spec's instances", seq, l.cfg.Route, v, l.cfg.Instances-1)
		}
		return 0
	}
	return n
}

// KeyColumns implements KeyColumnUser: the route column, if any.
func (l *SentinelCluster) KeyColumns() []string {
	if l.cfg.Route == "" {
		return nil
	}
	return []string{l.cfg.Route}
}

// BindKeyColumns implements KeyColumnUser.
func (l *SentinelCluster) BindKeyColumns(idx []int) error {
	if len(idx) > 0 {
		l.routeIdx = idx[0]
	}
	return nil
}

// BindKeyNames implements KeyNameUser: the route column's values.
func (l *SentinelCluster) BindKeyNames(name func(id int32) string) { l.keyName = name }

// Decide implements Limiter.
func (l *SentinelCluster) Decide(now time.Duration) Decision {
	return l.DecideRequest(now, &Request{Keys: noKeys, Cost: 1})
}

// DecideRequest implements RequestLimiter: it reads the request's
// priority and cost (acquireCount). A decision that waits for a local
// check is made with the arrivals known so far (the end of the stream);
// FeedRequests and TakeDecisions see every arrival before it.
func (l *SentinelCluster) DecideRequest(now time.Duration, r *Request) Decision {
	var one [1]Decision
	l.decide(now, r)
	l.runPendingChecks()
	l.TakeDecisions(one[:], true)
	return one[0]
}

// DecideRequests decides consecutive requests, out[j] for nows[j], as the
// whole stream: a fallback's local check runs after every arrival before
// it, and the ones still waiting at the end run then, as no arrival
// follows. A caller that has more arrivals to come uses FeedRequests and
// TakeDecisions instead.
func (l *SentinelCluster) DecideRequests(nows []time.Duration, reqs []Request, out []Decision) {
	l.FeedRequests(nows, reqs)
	l.TakeDecisions(out, true)
}

// FeedRequests takes the next requests of the stream, in arrival order,
// without deciding those whose decision is a local check later than the
// last of them: their check runs once an arrival after it (FeedRequests)
// or the end of the stream (TakeDecisions with end) is known, so a run fed
// in batches decides exactly as one fed the whole trace at once.
func (l *SentinelCluster) FeedRequests(nows []time.Duration, reqs []Request) {
	for j := range nows {
		l.decide(nows[j], &reqs[j])
	}
}

// TakeDecisions moves the oldest decisions not taken yet into out, in
// arrival order, and returns how many: every one up to the first that
// still waits for its local check, at most len(out). With end (no arrival
// will follow) it first runs every waiting check. LastFallbacks then flags
// the ones taken that were decided on the fail path.
func (l *SentinelCluster) TakeDecisions(out []Decision, end bool) int {
	if end {
		l.runPendingChecks()
	}
	n := 0
	for n < len(out) && n < len(l.dec) && !l.waiting[n] {
		n++
	}
	copy(out, l.dec[:n])
	l.lastFB = append(l.lastFB[:0], l.fb[:n]...)
	rest := len(l.dec) - n
	copy(l.dec, l.dec[n:])
	copy(l.waiting, l.waiting[n:])
	copy(l.fb, l.fb[n:])
	l.dec, l.waiting, l.fb = l.dec[:rest], l.waiting[:rest], l.fb[:rest]
	l.base += int64(n)
	return n
}

// LastFallbacks flags the arrivals of the last TakeDecisions (or
// DecideRequests) that were decided on the fail path (series.csv's
// cluster_fallbacks per bin).
func (l *SentinelCluster) LastFallbacks() []bool { return l.lastFB }

// ClusterFigures are the run's figures: the arrivals decided on the fail
// path, the passes answered SHOULD_WAIT, and each client's passes.
func (l *SentinelCluster) ClusterFigures() (fallbacks, shouldWait int64, instancePassed []int64) {
	return l.fallbacks, l.shouldWait, append([]int64(nil), l.instancePassed...)
}

// Spec implements Limiter.
func (l *SentinelCluster) Spec() string {
	c := &l.cfg
	th, fb := "avg-local", "local"
	if c.Global {
		th = "global"
	}
	if !c.FallbackLocal {
		fb = "pass"
	}
	return fmt.Sprintf("sentinel-cluster:count=%s,threshold=%s,instances=%d,connected=%d,rtt=%s,timeout=%s,fallback=%s,down=%s,exceed=%s,max-occupy=%s,max-qps=%s,sample-count=%d,interval=%s,local-sample-count=%d,local-interval=%s,skew=%s",
		formatFloat(c.Count), th, c.Instances, c.Connected, FormatDuration(c.RTT), FormatDuration(c.Timeout), fb,
		formatDownWindows(c.Down), formatFloat(c.Exceed), formatFloat(c.MaxOccupy), formatFloat(c.MaxQPS),
		c.SampleCount, FormatDuration(c.Interval), c.LocalSampleCount, FormatDuration(c.LocalInterval), FormatDuration(c.Skew)) + route(c.Route)
}

// route is the spec's route part: left out when unset, so specs written
// without it keep their canonical form.
func route(col string) string {
	if col == "" {
		return ""
	}
	return ",route=" + col
}

// Rate implements Limiter: the cluster's threshold, which the server
// compares with a per-second average (a GLOBAL count, or an AVG_LOCAL
// count times the connected clients, times exceed).
func (l *SentinelCluster) Rate() float64 { return l.threshold }

// resourceWide implements resourceWide: a cluster FlowRule is one window
// for the whole cluster (Sentinel's per-value cluster rules are
// ClusterParamFlowChecker's, which the lab does not simulate), so key= is
// refused.
func (l *SentinelCluster) resourceWide() {}

// Err reports the first arrival that stepped the clock back, if any.
func (l *SentinelCluster) Err() error { return l.err }

// StateBytes implements Limiter.
func (l *SentinelCluster) StateBytes() int {
	n := int(unsafe.Sizeof(*l))
	leap := func(c *clusterLeap) int { return len(c.start) * 24 }
	n += leap(&l.metric) + leap(&l.global)
	for k := range l.nodes {
		n += leap(&l.nodes[k]) + 8
	}
	for k := range l.nodeBorrow {
		n += leap(&l.nodeBorrow[k])
	}
	// The arrivals fed but not taken yet (those waiting for a local check
	// and the ones after them); the buffers' spare room is the engine's
	// batch, not state.
	n += len(l.dec) * (int(unsafe.Sizeof(Decision{})) + 2)
	return n + cap(l.events)*int(unsafe.Sizeof(clusterEvent{}))
}
