package algorithms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A port, in test code, of the Alibaba Sentinel 1.8.8 classes behind the
// system rule and the THREAD-grade flow rule, written for this test from
// their source (sentinel-core): MetricBucket (its counters and minRt from
// SentinelConfig.statisticMaxRt, 5000), WindowWrap, LeapArray
// (currentWindow, values, isWindowDeprecated), the second-level
// ArrayMetric(2, 1000) of StatisticNode (pass, success, rt, maxSuccess
// with its floor of 1, minRt), StatisticNode (passQps, avgRt,
// maxSuccessQps, minRt, curThreadNum, addPassRequest, addRtAndSuccess,
// increaseBlockQps), SystemRuleManager.loadSystemConf/checkSystem/checkBbr,
// FlowRule grade THREAD through DefaultController.canPass on the cluster
// node, and StatisticSlot's entry and exit calls for an inbound entry.
// The second-level array is an OccupiableBucketLeapArray in Java; its
// borrow array is only written by a prioritized QPS-grade entry, which
// neither rule makes, so newEmptyBucket and resetWindowTo reduce to a
// fresh bucket and reset() here. Sentinel's clock is the script's time
// in ms after the product's epoch; SystemStatusListener's load and cpu
// are the script's values for the second. TestSentinelSystemMatchesPort
// compares it with the product; outside the repository it was compared
// with the real classes (TestAdaptivePortDump, docs/algorithms.md).

const (
	sjPass = iota
	sjBlock
	sjException
	sjSuccess
	sjRT
	sjOccupiedPass
	sjEvents
)

const sjStatisticMaxRt = 5000 // SentinelConfig.DEFAULT_STATISTIC_MAX_RT

type sjMetricBucket struct {
	counters [sjEvents]int64
	minRt    int64
}

func newSjMetricBucket() *sjMetricBucket { return &sjMetricBucket{minRt: sjStatisticMaxRt} }

func (b *sjMetricBucket) reset() *sjMetricBucket {
	b.counters = [sjEvents]int64{}
	b.minRt = sjStatisticMaxRt
	return b
}

func (b *sjMetricBucket) addRT(rt int64) {
	b.counters[sjRT] += rt
	if rt < b.minRt {
		b.minRt = rt
	}
}

type sjWindowWrap struct {
	windowLengthInMs, windowStart int64
	value                         *sjMetricBucket
}

type sjLeapArray struct {
	windowLengthInMs int64
	sampleCount      int
	intervalInMs     int64
	array            []*sjWindowWrap
	now              func() int64 // TimeUtil.currentTimeMillis
}

func newSjLeapArray(sampleCount int, intervalInMs int64, now func() int64) *sjLeapArray {
	return &sjLeapArray{windowLengthInMs: intervalInMs / int64(sampleCount), sampleCount: sampleCount, intervalInMs: intervalInMs,
		array: make([]*sjWindowWrap, sampleCount), now: now}
}

func (a *sjLeapArray) calculateTimeIdx(timeMillis int64) int {
	timeID := timeMillis / a.windowLengthInMs
	return int(timeID % int64(len(a.array)))
}

func (a *sjLeapArray) calculateWindowStart(timeMillis int64) int64 {
	return timeMillis - timeMillis%a.windowLengthInMs
}

func (a *sjLeapArray) currentWindow() *sjWindowWrap { return a.currentWindowAt(a.now()) }

func (a *sjLeapArray) currentWindowAt(timeMillis int64) *sjWindowWrap {
	if timeMillis < 0 {
		return nil
	}
	idx := a.calculateTimeIdx(timeMillis)
	windowStart := a.calculateWindowStart(timeMillis)
	for {
		old := a.array[idx]
		if old == nil {
			a.array[idx] = &sjWindowWrap{a.windowLengthInMs, windowStart, newSjMetricBucket()}
			return a.array[idx]
		} else if windowStart == old.windowStart {
			return old
		} else if windowStart > old.windowStart {
			old.windowStart = windowStart // resetWindowTo: resetTo, value().reset()
			old.value.reset()
			return old
		} else {
			return &sjWindowWrap{a.windowLengthInMs, windowStart, newSjMetricBucket()}
		}
	}
}

func (a *sjLeapArray) isWindowDeprecated(time int64, w *sjWindowWrap) bool {
	return time-w.windowStart > a.intervalInMs
}

func (a *sjLeapArray) values() []*sjMetricBucket { return a.valuesAt(a.now()) }

func (a *sjLeapArray) valuesAt(timeMillis int64) []*sjMetricBucket {
	if timeMillis < 0 {
		return nil
	}
	var result []*sjMetricBucket
	for _, w := range a.array {
		if w == nil || a.isWindowDeprecated(timeMillis, w) {
			continue
		}
		result = append(result, w.value)
	}
	return result
}

// sjArrayMetric is ArrayMetric over the leap array.
type sjArrayMetric struct{ data *sjLeapArray }

func (m *sjArrayMetric) sum(ev int) int64 {
	m.data.currentWindow()
	var s int64
	for _, w := range m.data.values() {
		s += w.counters[ev]
	}
	return s
}

func (m *sjArrayMetric) pass() int64    { return m.sum(sjPass) }
func (m *sjArrayMetric) success() int64 { return m.sum(sjSuccess) }
func (m *sjArrayMetric) rt() int64      { return m.sum(sjRT) }

func (m *sjArrayMetric) maxSuccess() int64 {
	m.data.currentWindow()
	var success int64
	for _, w := range m.data.values() {
		if w.counters[sjSuccess] > success {
			success = w.counters[sjSuccess]
		}
	}
	return max(success, 1)
}

func (m *sjArrayMetric) minRt() int64 {
	m.data.currentWindow()
	rt := int64(sjStatisticMaxRt)
	for _, w := range m.data.values() {
		if w.minRt < rt {
			rt = w.minRt
		}
	}
	return max(1, rt)
}

func (m *sjArrayMetric) add(ev int, n int64) { m.data.currentWindow().value.counters[ev] += n }
func (m *sjArrayMetric) addRT(rt int64)      { m.data.currentWindow().value.addRT(rt) }

func (m *sjArrayMetric) getWindowIntervalInSec() float64 {
	return float64(m.data.intervalInMs) / 1000.0
}

// sjStatisticNode is StatisticNode's second-level counter and thread
// count (the minute counter is never read by the two rules).
type sjStatisticNode struct {
	rollingCounterInSecond *sjArrayMetric
	curThreadNum           int64
}

func newSjStatisticNode(now func() int64) *sjStatisticNode {
	return &sjStatisticNode{rollingCounterInSecond: &sjArrayMetric{newSjLeapArray(2, 1000, now)}}
}

func (n *sjStatisticNode) passQps() float64 {
	return float64(n.rollingCounterInSecond.pass()) / n.rollingCounterInSecond.getWindowIntervalInSec()
}

func (n *sjStatisticNode) maxSuccessQps() float64 {
	return float64(n.rollingCounterInSecond.maxSuccess()) * float64(n.rollingCounterInSecond.data.sampleCount) /
		n.rollingCounterInSecond.getWindowIntervalInSec()
}

func (n *sjStatisticNode) avgRt() float64 {
	successCount := n.rollingCounterInSecond.success()
	if successCount == 0 {
		return 0
	}
	return float64(n.rollingCounterInSecond.rt()) * 1.0 / float64(successCount)
}

func (n *sjStatisticNode) minRt() float64         { return float64(n.rollingCounterInSecond.minRt()) }
func (n *sjStatisticNode) curThreadNumInt() int32 { return int32(n.curThreadNum) }
func (n *sjStatisticNode) addPassRequest(count int64) {
	n.rollingCounterInSecond.add(sjPass, count)
}
func (n *sjStatisticNode) addRtAndSuccess(rt, successCount int64) {
	n.rollingCounterInSecond.add(sjSuccess, successCount)
	n.rollingCounterInSecond.addRT(rt)
}
func (n *sjStatisticNode) increaseBlockQps(count int64) { n.rollingCounterInSecond.add(sjBlock, count) }

// sjSystemRuleManager is SystemRuleManager after loadSystemConf of one
// rule (a negative field is a rule not set).
type sjSystemRuleManager struct {
	highestSystemLoad, highestCpuUsage, qps float64
	maxRt, maxThread                        int64
	highestSystemLoadIsSet                  bool
	highestCpuUsageIsSet                    bool
	checkSystemStatus                       bool
	entryNode                               *sjStatisticNode
	load, cpu                               func() float64 // statusListener
}

func newSjSystemRuleManager(entry *sjStatisticNode, qps float64, maxThread, avgRt int64, load, cpu float64) *sjSystemRuleManager {
	m := &sjSystemRuleManager{highestSystemLoad: math.MaxFloat64, highestCpuUsage: math.MaxFloat64, qps: math.MaxFloat64,
		maxRt: math.MaxInt64, maxThread: math.MaxInt64, entryNode: entry}
	checkStatus := false
	if load >= 0 {
		m.highestSystemLoad = math.Min(m.highestSystemLoad, load)
		m.highestSystemLoadIsSet, checkStatus = true, true
	}
	if cpu >= 0 && cpu <= 1 {
		m.highestCpuUsage = math.Min(m.highestCpuUsage, cpu)
		m.highestCpuUsageIsSet, checkStatus = true, true
	}
	if avgRt >= 0 {
		m.maxRt, checkStatus = min(m.maxRt, avgRt), true
	}
	if maxThread >= 0 {
		m.maxThread, checkStatus = min(m.maxThread, maxThread), true
	}
	if qps >= 0 {
		m.qps, checkStatus = math.Min(m.qps, qps), true
	}
	m.checkSystemStatus = checkStatus
	return m
}

// checkSystem returns the SystemBlockException's limitType, "" for none.
func (m *sjSystemRuleManager) checkSystem(count int32) string {
	if !m.checkSystemStatus {
		return ""
	}
	currentQps := m.entryNode.passQps()
	if currentQps+float64(count) > m.qps {
		return "qps"
	}
	currentThread := m.entryNode.curThreadNumInt()
	if int64(currentThread) > m.maxThread {
		return "thread"
	}
	rt := m.entryNode.avgRt()
	if rt > float64(m.maxRt) {
		return "rt"
	}
	if m.highestSystemLoadIsSet && m.load() > m.highestSystemLoad {
		if !m.checkBbr(currentThread) {
			return "load"
		}
	}
	if m.highestCpuUsageIsSet && m.cpu() > m.highestCpuUsage {
		return "cpu"
	}
	return ""
}

func (m *sjSystemRuleManager) checkBbr(currentThread int32) bool {
	if currentThread > 1 &&
		float64(currentThread) > m.entryNode.maxSuccessQps()*m.entryNode.minRt()/1000 {
		return false
	}
	return true
}

// sjEntry is an inbound CtEntry that passed (a blocked one is never
// exited by the loop): its createTimestamp.
type sjEntry struct{ createTimestamp int64 }

// sjPortSubject is the port under the loop: one inbound resource with
// either the system rule (ENTRY_NODE) or a THREAD flow rule on its
// cluster node.
type sjPortSubject struct {
	nowMs       int64
	epoch       int64
	p           *sjParams
	entryNode   *sjStatisticNode // Constants.ENTRY_NODE
	clusterNode *sjStatisticNode
	system      *sjSystemRuleManager
}

// sjParams are one Sentinel case.
type sjParams struct {
	kind                  string // system or concurrency
	qps, load, cpu        float64
	maxThread, avgRt      int64
	count                 float64 // concurrency
	epoch                 int64
	loadSeries, cpuSeries []float64
}

func (p *sjParams) header() string {
	if p.kind == "concurrency" {
		return fmt.Sprintf("CASE concurrency count=%s epoch=%d", strconv.FormatFloat(p.count, 'g', -1, 64), p.epoch)
	}
	return fmt.Sprintf("CASE system qps=%s maxThread=%d avgRt=%d load=%s cpu=%s epoch=%d", strconv.FormatFloat(p.qps, 'g', -1, 64),
		p.maxThread, p.avgRt, strconv.FormatFloat(p.load, 'g', -1, 64), strconv.FormatFloat(p.cpu, 'g', -1, 64), p.epoch)
}

func parseSjHeader(s *portScript) *sjParams {
	f := strings.Fields(s.header)
	p := &sjParams{kind: f[1], loadSeries: s.load, cpuSeries: s.cpu}
	for _, x := range f[2:] {
		k, v, _ := strings.Cut(x, "=")
		fv, _ := strconv.ParseFloat(v, 64)
		iv, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "qps":
			p.qps = fv
		case "load":
			p.load = fv
		case "cpu":
			p.cpu = fv
		case "count":
			p.count = fv
		case "maxThread":
			p.maxThread = iv
		case "avgRt":
			p.avgRt = iv
		case "epoch":
			p.epoch = iv
		}
	}
	return p
}

// signalAt is the script's value for the second of t (the last one after
// the series ends).
func signalAt(series []float64, tNs int64) float64 {
	k := int(max(tNs, 0) / int64(time.Second))
	return series[min(k, len(series)-1)]
}

func sentinelPortFor(s *portScript) portSubject {
	p := parseSjHeader(s)
	sub := &sjPortSubject{p: p, epoch: p.epoch}
	now := func() int64 { return sub.nowMs }
	sub.entryNode, sub.clusterNode = newSjStatisticNode(now), newSjStatisticNode(now)
	if p.kind == "system" {
		sub.system = newSjSystemRuleManager(sub.entryNode, p.qps, p.maxThread, p.avgRt, p.load, p.cpu)
	}
	return sub
}

func (s *sjPortSubject) setClock(tNs int64) {
	s.nowMs = s.epoch + floorDivInt(tNs, int64(time.Millisecond))
	if s.system != nil {
		l, c := signalAt(s.p.loadSeries, tNs), signalAt(s.p.cpuSeries, tNs)
		s.system.load, s.system.cpu = func() float64 { return l }, func() float64 { return c }
	}
}

func floorDivInt(a, b int64) int64 { // Math.floorDiv
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (s *sjPortSubject) decide(tNs int64) (string, bool, any) {
	s.setClock(tNs)
	e := &sjEntry{createTimestamp: s.nowMs}
	if s.system == nil {
		// FlowSlot: DefaultController.canPass(clusterNode, 1) for grade THREAD.
		curCount := s.clusterNode.curThreadNumInt()
		if float64(curCount+1) > s.p.count {
			s.clusterNode.increaseBlockQps(1)
			return fmt.Sprintf("B %d", s.clusterNode.curThreadNum), false, nil
		}
		line := fmt.Sprintf("P %d", s.clusterNode.curThreadNum)
		s.clusterNode.curThreadNum++
		s.clusterNode.addPassRequest(1)
		return line, true, e
	}
	n := s.entryNode
	state := fmt.Sprintf("%d %s %s %s", n.curThreadNum, dbits(n.passQps()), dbits(n.avgRt()), dbits(n.maxSuccessQps()*n.minRt()/1000))
	if reason := s.system.checkSystem(1); reason != "" {
		n.increaseBlockQps(1)
		return "B " + reason + " " + state, false, nil
	}
	n.curThreadNum++
	n.addPassRequest(1)
	return "P " + state, true, e
}

func (s *sjPortSubject) complete(tNs int64, h any, _ uint8) string {
	s.setClock(tNs)
	e := h.(*sjEntry)
	node := s.clusterNode
	if s.system != nil {
		node = s.entryNode
	}
	// StatisticSlot.exit: no block error, so recordCompleteFor.
	rt := s.nowMs - e.createTimestamp
	node.addRtAndSuccess(rt, 1)
	node.curThreadNum--
	return fmt.Sprintf("C %d", node.curThreadNum)
}

// sjProductSubject is the lab's limiter under the loop.
type sjProductSubject struct {
	sys  *SentinelSystem
	conc *Concurrency
}

type scriptSignals struct{ load, cpu []float64 }

func (g scriptSignals) CPU(at time.Duration) float64   { return signalAt(g.cpu, int64(at)) }
func (g scriptSignals) Load1(at time.Duration) float64 { return signalAt(g.load, int64(at)) }

func (p *sjParams) spec() string {
	if p.kind == "concurrency" {
		return "concurrency:limit=" + strconv.FormatFloat(p.count, 'g', -1, 64)
	}
	var parts []string
	if p.qps >= 0 {
		parts = append(parts, "qps="+strconv.FormatFloat(p.qps, 'g', -1, 64))
	}
	if p.maxThread >= 0 {
		parts = append(parts, fmt.Sprintf("max-thread=%d", p.maxThread))
	}
	if p.avgRt >= 0 {
		parts = append(parts, fmt.Sprintf("avg-rt=%d", p.avgRt))
	}
	if p.load >= 0 {
		parts = append(parts, "load="+strconv.FormatFloat(p.load, 'g', -1, 64))
	}
	if p.cpu >= 0 {
		parts = append(parts, "cpu="+strconv.FormatFloat(p.cpu, 'g', -1, 64))
	}
	return "sentinel-system:" + strings.Join(parts, ",") + ",flavor=java"
}

func sentinelProductFor(t *testing.T, s *portScript) portSubject {
	p := parseSjHeader(s)
	l := mustNew(t, p.spec(), 0)
	if p.kind == "concurrency" {
		return &sjProductSubject{conc: l.(*Concurrency)}
	}
	sys := l.(*SentinelSystem)
	if sys.epoch != p.epoch {
		t.Fatalf("the product's epoch is %d, the script's %d", sys.epoch, p.epoch)
	}
	sys.BindSignals(scriptSignals{s.load, s.cpu})
	return &sjProductSubject{sys: sys}
}

func (s *sjProductSubject) decide(tNs int64) (string, bool, any) {
	now := time.Duration(tNs)
	if s.conc != nil {
		line := fmt.Sprintf("%d", s.conc.InFlight())
		if !s.conc.Check(now).Pass {
			return "B " + line, false, nil
		}
		return "P " + line, true, s.conc.Begin(now, now)
	}
	y := s.sys
	var est float64
	if y.cfg.MaxThread < 0 && y.cfg.Load >= 0 {
		est = y.CurrentLimit(now)
	} else {
		_, _, _, maxSucc, minRt := y.stats(y.epoch + floorMs(now))
		est = float64(maxSucc) * 2 / 1.0 * float64(minRt) / 1000
	}
	pass, succ, rtSum, _, _ := y.stats(y.epoch + floorMs(now))
	var avg float64
	if succ > 0 {
		avg = float64(rtSum) * 1.0 / float64(succ)
	}
	state := fmt.Sprintf("%d %s %s %s", y.InFlight(), dbits(float64(pass)/1.0), dbits(avg), dbits(est))
	if r := y.BlockReason(now); r != "" {
		return "B " + r + " " + state, false, nil
	}
	return "P " + state, true, y.Begin(now, now)
}

func (s *sjProductSubject) complete(tNs int64, h any, o uint8) string {
	now := time.Duration(tNs)
	oc := []Outcome{Success, Failure, Timeout, Timeout}[o]
	if s.conc != nil {
		s.conc.Complete(now, h.(Ticket), oc)
		return fmt.Sprintf("C %d", s.conc.InFlight())
	}
	s.sys.Complete(now, h.(Ticket), oc)
	return fmt.Sprintf("C %d", s.sys.InFlight())
}

// sentinelScripts are the random cases: the system rule with a random
// subset of qps, max-thread, avg-rt, load (with BBR) and cpu, thresholds
// near what the load reaches, load1 and cpu changing each second; and the
// thread-grade flow rule with whole and fractional counts. Arrivals come
// in bursts at one instant, with idle gaps, a latency step halfway,
// completions at their arrival's instant, and the clock stepping back
// (300 ms, 800 ms, or at random up to 1.2 s) and forward.
func sentinelScripts(seed uint64) []*portScript {
	r := rand.New(rand.NewPCG(seed, 0x5e17))
	var out []*portScript
	epoch := epochMs(sysBucketMs)
	for i := range 30 {
		p := &sjParams{kind: "system", qps: -1, maxThread: -1, avgRt: -1, load: -1, cpu: -1, epoch: epoch}
		base := float64(time.Duration(1+r.IntN(40)) * time.Millisecond)
		conc := 2 + 40*r.Float64() // offered concurrency
		rate := conc / base        // per ns
		if i%6 == 5 {
			p.kind = "concurrency"
			p.count = float64(1 + r.IntN(int(conc)+3))
			if r.IntN(3) == 0 {
				p.count += r.Float64()
			}
		} else {
			for p.qps < 0 && p.maxThread < 0 && p.avgRt < 0 && p.load < 0 && p.cpu < 0 {
				if r.IntN(3) == 0 {
					p.qps = math.Round(rate*1e9*(0.5+r.Float64())*4) / 4
				}
				if r.IntN(3) == 0 {
					p.maxThread = int64(r.IntN(int(conc) + 2))
				}
				if r.IntN(3) == 0 {
					p.avgRt = int64(base / 1e6 * (1 + 2*r.Float64()))
				}
				if r.IntN(2) == 0 {
					p.load = 1
				}
				if r.IntN(3) == 0 {
					p.cpu = math.Round(r.Float64()*100) / 100
				}
			}
		}
		s := &portScript{header: p.header()}
		n := 3000 + r.IntN(2000)
		var at int64
		for len(s.arrivals) < n {
			rt := base
			if len(s.arrivals) > n/2 {
				rt *= 2 + float64(r.IntN(3))
			}
			switch x := r.IntN(1000); {
			case x < 3:
				at += int64(time.Duration(500+r.IntN(2500)) * time.Millisecond)
			case x < 5:
				at -= []int64{int64(300 * time.Millisecond), int64(800 * time.Millisecond), int64(r.IntN(int(1200 * time.Millisecond)))}[r.IntN(3)]
			case x < 6:
				at += int64(700 * time.Millisecond)
			case x < 70: // the same instant
			default:
				at += int64(r.ExpFloat64() / rate)
			}
			if r.IntN(3) == 0 { // on the ms
				at -= at % int64(time.Millisecond)
			}
			at = max(at, 0)
			a := portArrival{t: at, rt: int64(rt * (0.3 + r.ExpFloat64()))}
			switch x := r.IntN(100); {
			case x < 5:
				a.o = portError
			case x < 8:
				a.o, a.rt = portTimeout, int64(5*rt)
			case x < 10:
				a.rt = 0
			}
			s.arrivals = append(s.arrivals, a)
		}
		secs := int(at/int64(time.Second)) + 2
		for k := 0; k < secs; k++ {
			s.load = append(s.load, math.Round((0.5+r.Float64())*100)/100)
			s.cpu = append(s.cpu, math.Round(r.Float64()*100)/100)
		}
		out = append(out, s)
	}
	return out
}

// TestSentinelSystemMatchesPort runs the product's sentinel-system and
// concurrency (flavor=java) and the port of Sentinel's classes on the same
// random scripts: every decision, the rule that blocked and, before each
// decision, the threads, passQps, avgRt and the BBR estimate
// maxSuccessQps·minRt/1000 are the same.
func TestSentinelSystemMatchesPort(t *testing.T) {
	decisions := 0
	reasons := map[string]int{}
	for _, s := range sentinelScripts(16) {
		port := runPortScript(s, sentinelPortFor(s))
		decisions += compareRuns(t, s, port, runPortScript(s, sentinelProductFor(t, s)))
		for _, l := range port {
			if l[0] == 'B' {
				f := strings.Fields(l)
				if len(f) > 2 {
					reasons[f[1]]++
				} else {
					reasons["thread-grade"]++
				}
			}
		}
	}
	t.Logf("%d decisions identical; blocks by rule: %v", decisions, reasons)
	if decisions < 100_000 {
		t.Errorf("only %d decisions", decisions)
	}
	for _, k := range []string{"qps", "thread", "rt", "load", "cpu", "thread-grade"} {
		if reasons[k] < 100 {
			t.Errorf("the scripts block on %s only %d times", k, reasons[k])
		}
	}
}
