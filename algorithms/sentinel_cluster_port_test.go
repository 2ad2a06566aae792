package algorithms

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// This file ports Sentinel 1.8.9's cluster decision path class by class,
// as plainly as the Java reads, to hold SentinelCluster to it: the
// LeapArray (sentinel-core statistic/base/LeapArray.currentWindow, values,
// getValidHead, isWindowDeprecated), ClusterMetricLeapArray (resetWindowTo
// → transferOccupyToBucket, addOccupyPass, getFirstCountOfWindow),
// ClusterMetric (getSum, getAvg, tryOccupyNext, canOccupy), RequestLimiter
// on a UnaryLeapArray(10, 1000) (GlobalRequestLimiter.tryPass),
// ClusterFlowChecker.acquireClusterToken and calcGlobalThreshold, and the
// client: FlowRuleChecker.passClusterCheck, applyTokenResult,
// fallbackToLocalOrPass, DefaultController.canPass on the node's
// ArrayMetric. Unlike the limiter, it runs in two phases over the whole
// trace: the server in arrival order first, then every client-side event
// sorted by (time, arrival). The port was checked outside the repository
// against the Java classes themselves (see docs/algorithms.md).

type jWrap struct {
	start int64
	v     map[string]int64
}

type jLeap struct {
	winLen, interval int64
	arr              []*jWrap
	onReset          func(w *jWrap)
	onCreate         func(w *jWrap) // newEmptyBucket's override, if any
}

func newJLeap(sampleCount int, intervalMs int64) *jLeap {
	return &jLeap{winLen: intervalMs / int64(sampleCount), interval: intervalMs, arr: make([]*jWrap, sampleCount)}
}

func (l *jLeap) currentWindow(t int64) *jWrap {
	idx := (t / l.winLen) % int64(len(l.arr))
	ws := t - t%l.winLen
	old := l.arr[idx]
	if old == nil {
		l.arr[idx] = &jWrap{ws, map[string]int64{}}
		if l.onCreate != nil {
			l.onCreate(l.arr[idx])
		}
		return l.arr[idx]
	}
	if ws == old.start {
		return old
	}
	if ws > old.start {
		old.start = ws
		old.v = map[string]int64{}
		if l.onReset != nil {
			l.onReset(old)
		}
		return old
	}
	return &jWrap{ws, map[string]int64{}}
}

func (l *jLeap) deprecated(t int64, w *jWrap) bool { return t-w.start > l.interval }

func (l *jLeap) values(t int64) []*jWrap {
	var out []*jWrap
	for _, w := range l.arr {
		if w != nil && !l.deprecated(t, w) {
			out = append(out, w)
		}
	}
	return out
}

func (l *jLeap) validHead(t int64) *jWrap {
	w := l.arr[((t+l.winLen)/l.winLen)%int64(len(l.arr))]
	if w == nil || l.deprecated(t, w) {
		return nil
	}
	return w
}

func (l *jLeap) intervalInSecond() float64 { return float64(l.interval) / 1000.0 }

// getWindowValue is LeapArray.getWindowValue: the bucket whose window
// holds t, else nil.
func (l *jLeap) getWindowValue(t int64) *jWrap {
	w := l.arr[(t/l.winLen)%int64(len(l.arr))]
	if w == nil || !(w.start <= t && t < w.start+l.winLen) {
		return nil
	}
	return w
}

// jNode is a client's StatisticNode.rollingCounterInSecond: an ArrayMetric
// on an OccupiableBucketLeapArray (newEmptyBucket and resetWindowTo take
// the borrow bucket's passes) with its FutureBucketLeapArray borrowArray.
type jNode struct{ la, borrow *jLeap }

func newJNode(sampleCount int, intervalMs int64) *jNode {
	n := &jNode{la: newJLeap(sampleCount, intervalMs), borrow: newJLeap(sampleCount, intervalMs)}
	take := func(w *jWrap) {
		if b := n.borrow.getWindowValue(w.start); b != nil {
			w.v["PASS"] += b.v["PASS"]
		}
	}
	n.la.onCreate, n.la.onReset = take, take
	return n
}

func (n *jNode) pass(t int64) int64 {
	n.la.currentWindow(t)
	var s int64
	for _, w := range n.la.values(t) {
		s += w.v["PASS"]
	}
	return s
}

// waiting is OccupiableBucketLeapArray.currentWaiting: the borrow buckets
// not deprecated (FutureBucketLeapArray: deprecated iff t ≥ start).
func (n *jNode) waiting(t int64) int64 {
	n.borrow.currentWindow(t)
	var s int64
	for _, w := range n.borrow.arr {
		if w != nil && !(t >= w.start) {
			s += w.v["PASS"]
		}
	}
	return s
}

// tryOccupyNext is StatisticNode.tryOccupyNext with IntervalProperty and
// SampleCountProperty as the node's interval and sample count.
func (n *jNode) tryOccupyNext(t, acquire int64, threshold float64) int64 {
	const occupyTimeout = 500
	interval := n.la.interval
	maxCount := threshold * float64(interval) / 1000
	currentBorrow := n.waiting(t)
	if float64(currentBorrow) >= maxCount {
		return occupyTimeout
	}
	windowLength := n.la.winLen
	earliestTime := t - t%windowLength + windowLength - interval
	idx := int64(0)
	currentPass := n.pass(t)
	for earliestTime < t {
		waitInMs := idx*windowLength + windowLength - t%windowLength
		if waitInMs >= occupyTimeout {
			break
		}
		var windowPass int64
		if w := n.la.getWindowValue(earliestTime); w != nil {
			windowPass = w.v["PASS"]
		}
		if float64(currentPass+currentBorrow+acquire-windowPass) <= maxCount {
			return waitInMs
		}
		earliestTime += windowLength
		currentPass -= windowPass
		idx++
	}
	return occupyTimeout
}

type jClusterMetric struct {
	la                  *jLeap
	occPass, occPassReq int64
	hasOccupied         bool
}

func newJClusterMetric(sampleCount int, intervalMs int64) *jClusterMetric {
	m := &jClusterMetric{la: newJLeap(sampleCount, intervalMs)}
	m.la.onReset = func(w *jWrap) {
		if m.hasOccupied {
			w.v["OCCUPIED_PASS"] += m.occPass
			w.v["PASS"] += m.occPass
			m.occPass = 0
			w.v["PASS_REQUEST"] += m.occPassReq
			m.occPassReq = 0
			m.hasOccupied = false
		}
	}
	return m
}

func (m *jClusterMetric) add(t int64, ev string, n int64) { m.la.currentWindow(t).v[ev] += n }

func (m *jClusterMetric) getSum(t int64, ev string) int64 {
	m.la.currentWindow(t)
	var s int64
	for _, w := range m.la.values(t) {
		s += w.v[ev]
	}
	return s
}

func (m *jClusterMetric) getAvg(t int64, ev string) float64 {
	return float64(m.getSum(t, ev)) / m.la.intervalInSecond()
}

func (m *jClusterMetric) tryOccupyNext(t int64, acquire int64, threshold float64, sampleCount int) int64 {
	latest := m.getAvg(t, "PASS")
	var head int64
	if w := m.la.validHead(t); w != nil {
		head = w.v["PASS"]
	}
	if !(latest+float64(acquire+m.occPass)-float64(head) <= threshold) {
		return 0
	}
	m.occPass += acquire
	m.occPassReq++
	m.hasOccupied = true
	m.add(t, "WAITING", acquire)
	return int64(1000 / sampleCount)
}

type jRequestLimiter struct {
	la         *jLeap
	qpsAllowed float64
}

func (r *jRequestLimiter) tryPass(t int64) bool {
	r.la.currentWindow(t)
	var s int64
	for _, w := range r.la.values(t) {
		s += w.v["N"]
	}
	if float64(s)/r.la.intervalInSecond()+1 <= r.qpsAllowed {
		r.la.currentWindow(t).v["N"]++
		return true
	}
	return false
}

// clusterArrival is one request of a trace: its true time, priority and
// acquireCount.
type clusterArrival struct {
	at   time.Duration
	prio bool
	cost int64
}

// portSentinelCluster decides a whole trace as Sentinel 1.8.9 does.
func portSentinelCluster(c SentinelClusterConfig, epochMs int64, trace []clusterArrival) []Decision {
	metric := newJClusterMetric(c.SampleCount, c.Interval.Milliseconds())
	global := &jRequestLimiter{la: newJLeap(10, 1000), qpsAllowed: c.MaxQPS}
	msOf := func(t time.Duration) int64 { // Math.floorDiv
		m := int64(t / time.Millisecond)
		if t%time.Millisecond < 0 {
			m--
		}
		return epochMs + m
	}
	out := make([]Decision, len(trace))
	type ev struct {
		at    time.Duration
		seq   int
		check bool
		// second: the local check passClusterCheck runs again after
		// catching the first one's PriorityWaitException; exit: a waited
		// pass's StatisticSlot.exit, which reads the window.
		second, exit bool
	}
	var evs []ev
	for i, a := range trace {
		down := false
		for _, w := range c.Down {
			if w.From <= a.at && a.at < w.To {
				down = true
			}
		}
		if down { // CLIENT_NOT_READY → FAIL at once
			evs = append(evs, ev{at: a.at, seq: i, check: true})
			continue
		}
		// The server at T + ⌊rtt/2⌋: DefaultTokenService.requestToken →
		// ClusterFlowChecker.acquireClusterToken.
		t := msOf(a.at + c.RTT/2)
		status, wait := "", int64(0)
		if !global.tryPass(t) {
			status = "TOO_MANY_REQUEST"
		} else {
			latest := metric.getAvg(t, "PASS")
			threshold := c.Count
			if !c.Global {
				threshold = c.Count * float64(c.Connected)
			}
			threshold *= c.Exceed
			if threshold-latest-float64(a.cost) >= 0 {
				metric.add(t, "PASS", a.cost)
				metric.add(t, "PASS_REQUEST", 1)
				status = "OK"
			} else {
				if a.prio && metric.getAvg(t, "WAITING") <= c.MaxOccupy*threshold {
					if w := metric.tryOccupyNext(t, a.cost, threshold, c.SampleCount); w > 0 {
						status, wait = "SHOULD_WAIT", w
					}
				}
				if status == "" {
					metric.add(t, "BLOCK", a.cost)
					status = "BLOCKED"
				}
			}
		}
		// The client: the reply at T + rtt, unless requestTimeout ends
		// first.
		switch {
		case c.RTT > c.Timeout:
			evs = append(evs, ev{at: a.at + c.Timeout, seq: i, check: true})
		case status == "TOO_MANY_REQUEST":
			evs = append(evs, ev{at: a.at + c.RTT, seq: i, check: true})
		case status == "OK":
			out[i] = Decision{Pass: true, Wait: c.RTT}
			evs = append(evs, ev{at: a.at + c.RTT, seq: i})
		case status == "SHOULD_WAIT":
			out[i] = Decision{Pass: true, Wait: c.RTT + time.Duration(wait)*time.Millisecond}
			evs = append(evs, ev{at: a.at + out[i].Wait, seq: i})
		}
	}
	sort.Slice(evs, func(x, y int) bool {
		if evs[x].at != evs[y].at {
			return evs[x].at < evs[y].at
		}
		return evs[x].seq < evs[y].seq
	})
	less := func(x, y ev) bool {
		if x.at != y.at {
			return x.at < y.at
		}
		return x.seq < y.seq
	}
	push := func(e ev) { // into the sorted queue, after its equals
		j := sort.Search(len(evs), func(j int) bool { return less(e, evs[j]) })
		evs = append(evs, ev{})
		copy(evs[j+1:], evs[j:])
		evs[j] = e
	}
	nodes := make([]*jNode, c.Instances)
	for k := range nodes {
		nodes[k] = newJNode(c.LocalSampleCount, c.LocalInterval.Milliseconds())
	}
	for len(evs) > 0 {
		e := evs[0]
		evs = evs[1:]
		k := e.seq % c.Instances
		off := time.Duration(0)
		if c.Instances > 1 {
			off = -c.Skew + time.Duration(2*int64(c.Skew)*int64(k)/int64(c.Instances-1))
		}
		t := msOf(e.at + off)
		node := nodes[k]
		a := trace[e.seq]
		if e.exit {
			node.la.currentWindow(t)
			continue
		}
		if e.check { // fallbackToLocalOrPass → DefaultController.canPass
			pass := true
			if c.FallbackLocal {
				cur := int64(float64(node.pass(t)) / node.la.intervalInSecond()) // (int) passQps
				pass = !(float64(cur+a.cost) > c.Count)
				if !pass && a.prio {
					if w := node.tryOccupyNext(t, a.cost, c.Count); w < 500 {
						node.borrow.currentWindow(t + w).v["PASS"] += a.cost // addWaitingRequest
						at := e.at + time.Duration(w)*time.Millisecond
						if !e.second { // caught in passClusterCheck: fallback again
							push(ev{at: at, seq: e.seq, check: true, second: true})
							continue
						}
						out[e.seq] = Decision{Pass: true, Wait: at - a.at}
						push(ev{at: at, seq: e.seq, exit: true})
						continue
					}
				}
			}
			if !pass {
				continue
			}
			out[e.seq] = Decision{Pass: true, Wait: e.at - a.at}
		}
		node.la.currentWindow(t).v["PASS"] += a.cost // StatisticSlot: addPassRequest
	}
	return out
}

// randomClusterCase draws a configuration and a trace: bursts, edges,
// outages, rtt above the timeout, 1–8 clients, non-integer counts,
// prioritized entries.
func randomClusterCase(rng *rand.Rand) (SentinelClusterConfig, []clusterArrival) {
	pick := func(xs ...int) int { return xs[rng.IntN(len(xs))] }
	c := SentinelClusterConfig{
		Count:            float64(rng.IntN(30)+1) + []float64{0, 0.5, 0.25, 0.7}[rng.IntN(4)],
		Global:           rng.IntN(2) == 0,
		Instances:        rng.IntN(8) + 1,
		RTT:              time.Duration(pick(0, 1, 2, 5, 10, 19, 20, 21, 40)) * time.Millisecond,
		Timeout:          time.Duration(pick(20, 20, 10, 30)) * time.Millisecond,
		FallbackLocal:    rng.IntN(3) != 0,
		Exceed:           []float64{1, 1, 1.5, 0.8}[rng.IntN(4)],
		MaxOccupy:        []float64{1, 1, 0.5, 0}[rng.IntN(4)],
		MaxQPS:           []float64{30000, 30000, 20, 50}[rng.IntN(4)],
		SampleCount:      pick(1, 2, 4, 5, 10, 20),
		Interval:         time.Duration(pick(1000, 1000, 500, 2000)) * time.Millisecond,
		LocalSampleCount: pick(1, 2, 2, 4),
		LocalInterval:    time.Duration(pick(1000, 1000, 500)) * time.Millisecond,
		Skew:             time.Duration(pick(0, 0, 3, 50)) * time.Millisecond,
	}
	if c.Interval.Milliseconds()%int64(c.SampleCount) != 0 {
		c.SampleCount = 10
	}
	c.Connected = c.Instances
	if rng.IntN(3) == 0 {
		c.Connected = rng.IntN(c.Instances + 2)
	}
	if rng.IntN(2) == 0 {
		from := time.Duration(rng.IntN(3000)) * time.Millisecond
		c.Down = append(c.Down, DownWindow{from, from + time.Duration(rng.IntN(2000)+1)*time.Millisecond})
	}
	n := rng.IntN(600) + 1
	var t time.Duration
	prioP := []int{0, 0, 30, 100}[rng.IntN(4)]
	trace := make([]clusterArrival, n)
	for i := range trace {
		switch rng.IntN(4) {
		case 0: // a burst: same instant or sub-ms
			t += time.Duration(rng.IntN(3)) * time.Microsecond * 300
		case 1: // at bucket edges
			t = (t/(50*time.Millisecond) + 1) * 50 * time.Millisecond
		default:
			t += time.Duration(rng.IntN(30)) * time.Millisecond
		}
		trace[i] = clusterArrival{at: t, prio: rng.IntN(100) < prioP, cost: int64(1 + rng.IntN(3)/2)}
	}
	return c, trace
}

func runClusterLimiter(t testing.TB, c SentinelClusterConfig, trace []clusterArrival) ([]Decision, *SentinelCluster) {
	l, err := NewSentinelCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	nows := make([]time.Duration, len(trace))
	reqs := make([]Request, len(trace))
	for i, a := range trace {
		nows[i] = a.at
		reqs[i] = Request{Keys: noKeys, Cost: int32(a.cost), Priority: a.prio}
	}
	out := make([]Decision, len(trace))
	l.DecideRequests(nows, reqs, out)
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	return out, l
}

// TestSentinelClusterMatchesPort holds the limiter to the port on random
// traces, decision for decision (verdict and wait), and its figures to
// what the decisions say.
func TestSentinelClusterMatchesPort(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	dump := os.Getenv("RATELIMIT_LAB_CLUSTER_DUMP") // for the Java check
	cases := 400
	if dump != "" {
		cases = 2000
	}
	var decisions int
	var fallbacks, waits, occupied int64
	for k := 0; k < cases; k++ {
		c, trace := randomClusterCase(rng)
		got, l := runClusterLimiter(t, c, trace)
		want := portSentinelCluster(c, l.EpochMs(), trace)
		for i := range trace {
			if got[i] != want[i] {
				t.Fatalf("case %d (%s), arrival %d at %v prio=%v cost=%d: limiter %+v, port %+v", k, l.Spec(), i, trace[i].at, trace[i].prio, trace[i].cost, got[i], want[i])
			}
			if !got[i].Pass && got[i].Wait != 0 {
				t.Fatalf("case %d arrival %d: a block waits %v", k, i, got[i].Wait)
			}
		}
		decisions += len(trace)
		// A pass on the fail path that waited more than its failure
		// (0 while down, the timeout, the rtt) took the local occupy
		// path (DefaultController.canPass with prioritized).
		for i, f := range l.LastFallbacks() {
			if w := got[i].Wait; f && got[i].Pass && w != 0 && w != c.Timeout && w != c.RTT {
				if !trace[i].prio {
					t.Fatalf("case %d arrival %d: an ordinary request waited %v on the fail path", k, i, w)
				}
				occupied++
			}
		}
		fb, sw, per := l.ClusterFigures()
		fallbacks += fb
		waits += sw
		var passed, sum int64
		for _, d := range got {
			if d.Pass {
				passed++
			}
		}
		for _, p := range per {
			sum += p
		}
		if sum != passed || fb > int64(len(trace)) {
			t.Fatalf("case %d: instance passes sum to %d, passes %d; fallbacks %d of %d", k, sum, passed, fb, len(trace))
		}
		if dump != "" {
			writeClusterCase(t, filepath.Join(dump, fmt.Sprintf("case%04d.txt", k)), c, l.EpochMs(), trace, want)
		}
	}
	t.Logf("%d cases, %d decisions equal (%d on the fail path, %d SHOULD_WAIT, %d prioritized local occupy passes)", cases, decisions, fallbacks, waits, occupied)
	if fallbacks == 0 || waits == 0 || occupied == 0 {
		t.Fatal("the random cases never reach the fail path, SHOULD_WAIT or the local occupy path")
	}
}

// writeClusterCase writes a case for the Java harness: a config line, then
// one line per arrival: ns, prio, cost, and the port's pass and wait ns.
func writeClusterCase(t testing.TB, path string, c SentinelClusterConfig, epochMs int64, trace []clusterArrival, want []Decision) {
	var b strings.Builder
	g, f := 0, 0
	if c.Global {
		g = 1
	}
	if c.FallbackLocal {
		f = 1
	}
	down := ""
	for _, w := range c.Down {
		down += fmt.Sprintf("%d:%d;", int64(w.From), int64(w.To))
	}
	fmt.Fprintf(&b, "%v %d %d %d %d %d %d %d %v %v %v %d %d %d %d %d %d %s\n", c.Count, g, c.Instances, c.Connected,
		int64(c.RTT), int64(c.Timeout), f, epochMs, c.Exceed, c.MaxOccupy, c.MaxQPS, c.SampleCount, c.Interval.Milliseconds(),
		c.LocalSampleCount, c.LocalInterval.Milliseconds(), int64(c.Skew), len(trace), down+"x")
	for i, a := range trace {
		p, ps := 0, 0
		if a.prio {
			p = 1
		}
		if want[i].Pass {
			ps = 1
		}
		fmt.Fprintf(&b, "%d %d %d %d %d\n", a.at, p, a.cost, ps, want[i].Wait)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSentinelClusterOneByOne: without a fail path (no outage, rtt within
// the timeout, max-qps out of reach) no decision waits for a later
// arrival, so DecideRequest one arrival at a time (an evented row) equals
// the port too.
func TestSentinelClusterOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2))
	for k := 0; k < 200; k++ {
		c, trace := randomClusterCase(rng)
		c.Down, c.MaxQPS = nil, 30000
		c.RTT = min(c.RTT, c.Timeout)
		l, err := NewSentinelCluster(c)
		if err != nil {
			t.Fatal(err)
		}
		want := portSentinelCluster(c, l.EpochMs(), trace)
		for i, a := range trace {
			got := l.DecideRequest(a.at, &Request{Keys: noKeys, Cost: int32(a.cost), Priority: a.prio})
			if got != want[i] {
				t.Fatalf("case %d (%s), arrival %d: %+v, port %+v", k, l.Spec(), i, got, want[i])
			}
		}
		if fb, _, _ := l.ClusterFigures(); fb != 0 {
			t.Fatalf("case %d: %d fallbacks without a fail path", k, fb)
		}
	}
}
