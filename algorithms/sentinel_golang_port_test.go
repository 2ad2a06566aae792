package algorithms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// This file is a plain port of the parts of sentinel-golang
// (github.com/alibaba/sentinel-golang, master) that decide a flow rule with
// TokenCalculateStrategy Direct/WarmUp and ControlBehavior Reject/Throttling,
// written for clarity, not speed, with the same types (uint64 milliseconds,
// uint32 parameters) and a scripted clock in place of util.CurrentTimeMillis
// and util.CurrentTimeNano:
//
//   core/stat/base/leap_array.go       LeapArray, AtomicBucketWrapArray
//   core/stat/base/bucket_leap_array.go BucketLeapArray (pass counts only)
//   core/stat/base/sliding_window_metric.go SlidingWindowMetric
//   core/stat/base_node.go             the resource node's statistic
//   core/flow/tc_default.go            Direct calculator, Reject checker
//   core/flow/tc_throttling.go         ThrottlingChecker
//   core/flow/tc_warm_up.go            WarmUpTrafficShapingCalculator
//   core/flow/rule_manager.go          generateStatFor, the generators
//   core/flow/slot.go, core/stat/stat_slot.go  check, sleep, then record
//
// The flavor=go limiters must make exactly its decisions.

// sgClock is the scripted util.Clock.
type sgClock struct{ nano uint64 }

func (c *sgClock) CurrentTimeMillis() uint64 { return c.nano / 1_000_000 }
func (c *sgClock) CurrentTimeNano() uint64   { return c.nano }

// --- core/stat/base ---

type sgBucketWrap struct {
	BucketStart uint64
	pass        int64 // the MetricBucket's MetricEventPass counter
}

func sgCalculateStartTime(now uint64, bucketLengthInMs uint32) uint64 {
	return now - (now % uint64(bucketLengthInMs))
}

type sgLeapArray struct {
	bucketLengthInMs uint32
	sampleCount      uint32
	intervalInMs     uint32
	array            []*sgBucketWrap
}

// newSgBucketLeapArray is NewBucketLeapArray with
// NewAtomicBucketWrapArrayWithTime at the creation time now.
func newSgBucketLeapArray(sampleCount, intervalInMs uint32, now uint64) *sgLeapArray {
	bucketLengthInMs := intervalInMs / sampleCount
	la := &sgLeapArray{bucketLengthInMs: bucketLengthInMs, sampleCount: sampleCount, intervalInMs: intervalInMs}
	n := int(sampleCount)
	la.array = make([]*sgBucketWrap, n)
	idx := int((now / uint64(bucketLengthInMs)) % uint64(n))
	startTime := sgCalculateStartTime(now, bucketLengthInMs)
	for i := idx; i <= n-1; i++ {
		la.array[i] = &sgBucketWrap{BucketStart: startTime}
		startTime += uint64(bucketLengthInMs)
	}
	for i := 0; i < idx; i++ {
		la.array[i] = &sgBucketWrap{BucketStart: startTime}
		startTime += uint64(bucketLengthInMs)
	}
	return la
}

func (la *sgLeapArray) calculateTimeIdx(now uint64) int {
	timeId := now / uint64(la.bucketLengthInMs)
	return int(timeId) % len(la.array)
}

func (la *sgLeapArray) currentBucketOfTime(now uint64) (*sgBucketWrap, error) {
	if now <= 0 {
		return nil, errors.New("Current time is less than 0.")
	}
	idx := la.calculateTimeIdx(now)
	bucketStart := sgCalculateStartTime(now, la.bucketLengthInMs)
	old := la.array[idx]
	switch {
	case old == nil:
		w := &sgBucketWrap{BucketStart: bucketStart}
		la.array[idx] = w
		return w, nil
	case bucketStart == old.BucketStart:
		return old, nil
	case bucketStart > old.BucketStart:
		old.BucketStart = bucketStart // ResetBucketTo
		old.pass = 0
		return old, nil
	default:
		if la.sampleCount == 1 {
			return old, nil
		}
		return nil, fmt.Errorf("Provided time timeMillis=%d is already behind old.BucketStart=%d.", bucketStart, old.BucketStart)
	}
}

func (la *sgLeapArray) isBucketDeprecated(now uint64, ww *sgBucketWrap) bool {
	return (now - ww.BucketStart) > uint64(la.intervalInMs)
}

func (la *sgLeapArray) ValuesConditional(now uint64, predicate func(uint64) bool) []*sgBucketWrap {
	if now <= 0 {
		return nil
	}
	var ret []*sgBucketWrap
	for _, ww := range la.array {
		if ww == nil || la.isBucketDeprecated(now, ww) || !predicate(ww.BucketStart) {
			continue
		}
		ret = append(ret, ww)
	}
	return ret
}

// addCountWithTime is BucketLeapArray.addCountWithTime(now, MetricEventPass, count).
func (la *sgLeapArray) addCountWithTime(now uint64, count int64) {
	b, err := la.currentBucketOfTime(now)
	if err != nil || b == nil {
		return
	}
	b.pass += count
}

type sgSlidingWindowMetric struct {
	bucketLengthInMs uint32
	sampleCount      uint32
	intervalInMs     uint32
	real             *sgLeapArray
}

func (m *sgSlidingWindowMetric) getBucketStartRange(timeMs uint64) (start, end uint64) {
	curBucketStartTime := sgCalculateStartTime(timeMs, m.real.bucketLengthInMs)
	end = curBucketStartTime
	start = end - uint64(m.intervalInMs) + uint64(m.real.bucketLengthInMs)
	return
}

func (m *sgSlidingWindowMetric) getIntervalInSecond() float64 {
	return float64(m.intervalInMs) / 1000.0
}

func (m *sgSlidingWindowMetric) getSumWithTime(now uint64) int64 {
	start, end := m.getBucketStartRange(now)
	var ret int64
	for _, ww := range m.real.ValuesConditional(now, func(ws uint64) bool { return ws >= start && ws <= end }) {
		ret += ww.pass
	}
	return ret
}

func (m *sgSlidingWindowMetric) getQPSWithTime(now uint64) float64 {
	return float64(m.getSumWithTime(now)) / m.getIntervalInSecond()
}

// --- core/flow ---

const (
	sgPass = iota
	sgBlocked
	sgShouldWait
)

type sgResult struct {
	status      int
	nanosToWait int64
}

type sgWarmUpCalc struct {
	clock             *sgClock
	metric            *sgSlidingWindowMetric
	threshold         float64
	warmUpPeriodInSec uint32
	coldFactor        uint32
	warningToken      uint64
	maxToken          uint64
	slope             float64
	storedTokens      int64
	lastFilledTime    uint64
}

func newSgWarmUpCalc(clock *sgClock, metric *sgSlidingWindowMetric, threshold float64, warmUpPeriodSec, coldFactor uint32) *sgWarmUpCalc {
	if coldFactor <= 1 {
		coldFactor = 3 // config.DefaultWarmUpColdFactor
	}
	warningToken := uint64((float64(warmUpPeriodSec) * threshold) / float64(coldFactor-1))
	maxToken := warningToken + uint64(2*float64(warmUpPeriodSec)*threshold/float64(1.0+coldFactor))
	slope := float64(coldFactor-1.0) / threshold / float64(maxToken-warningToken)
	return &sgWarmUpCalc{clock: clock, metric: metric, warmUpPeriodInSec: warmUpPeriodSec, coldFactor: coldFactor,
		warningToken: warningToken, maxToken: maxToken, slope: slope, threshold: threshold}
}

func (c *sgWarmUpCalc) CalculateAllowedTokens() float64 {
	// GetPreviousQPS: the QPS read at now − bucketLengthInMs.
	previousQps := c.metric.getQPSWithTime(c.clock.CurrentTimeMillis() - uint64(c.metric.bucketLengthInMs))
	c.syncToken(previousQps)
	restToken := c.storedTokens
	if restToken < 0 {
		restToken = 0
	}
	if restToken >= int64(c.warningToken) {
		aboveToken := restToken - int64(c.warningToken)
		return math.Nextafter(1.0/(float64(aboveToken)*c.slope+1.0/c.threshold), math.MaxFloat64)
	}
	return c.threshold
}

func (c *sgWarmUpCalc) syncToken(passQps float64) {
	currentTime := c.clock.CurrentTimeMillis()
	currentTime = currentTime - currentTime%1000
	oldLastFillTime := c.lastFilledTime
	if currentTime <= oldLastFillTime {
		return
	}
	newValue := c.coolDownTokens(currentTime, passQps)
	c.storedTokens = newValue
	c.storedTokens += int64(-passQps)
	if c.storedTokens < 0 {
		c.storedTokens = 0
	}
	c.lastFilledTime = currentTime
}

func (c *sgWarmUpCalc) coolDownTokens(currentTime uint64, passQps float64) int64 {
	oldValue := c.storedTokens
	newValue := oldValue
	if oldValue < int64(c.warningToken) {
		newValue = int64(float64(oldValue) + (float64(currentTime)-float64(c.lastFilledTime))*c.threshold/1000.0)
	} else if oldValue > int64(c.warningToken) {
		if passQps < float64(uint32(c.threshold)/c.coldFactor) {
			newValue = int64(float64(oldValue) + float64(currentTime-c.lastFilledTime)*c.threshold/1000.0)
		}
	}
	if newValue <= int64(c.maxToken) {
		return newValue
	}
	return int64(c.maxToken)
}

type sgThrottlingChecker struct {
	clock             *sgClock
	maxQueueingTimeNs int64
	statIntervalNs    int64
	lastPassedTime    int64
}

func newSgThrottlingChecker(clock *sgClock, timeoutMs, statIntervalMs uint32) *sgThrottlingChecker {
	var statIntervalNs int64
	if statIntervalMs == 0 {
		statIntervalNs = 1000 * 1_000_000
	} else {
		statIntervalNs = int64(statIntervalMs) * 1_000_000
	}
	return &sgThrottlingChecker{clock: clock, maxQueueingTimeNs: int64(timeoutMs) * 1_000_000, statIntervalNs: statIntervalNs}
}

func (c *sgThrottlingChecker) DoCheck(batchCount uint32, threshold float64) *sgResult {
	if batchCount <= 0 {
		return nil
	}
	if threshold <= 0.0 {
		return &sgResult{status: sgBlocked}
	}
	if float64(batchCount) > threshold {
		return &sgResult{status: sgBlocked}
	}
	curNano := int64(c.clock.CurrentTimeNano())
	intervalNs := int64(math.Ceil(float64(batchCount) / threshold * float64(c.statIntervalNs)))
	loadedLastPassedTime := c.lastPassedTime
	expectedTime := loadedLastPassedTime + intervalNs
	if expectedTime <= curNano {
		c.lastPassedTime = curNano
		return nil
	}
	estimatedQueueingDuration := c.lastPassedTime + intervalNs - curNano
	if estimatedQueueingDuration > c.maxQueueingTimeNs {
		return &sgResult{status: sgBlocked}
	}
	c.lastPassedTime += intervalNs
	oldTime := c.lastPassedTime
	estimatedQueueingDuration = oldTime - curNano
	if estimatedQueueingDuration > c.maxQueueingTimeNs {
		c.lastPassedTime -= intervalNs
		return &sgResult{status: sgBlocked}
	}
	if estimatedQueueingDuration > 0 {
		return &sgResult{status: sgShouldWait, nanosToWait: estimatedQueueingDuration}
	}
	return &sgResult{status: sgShouldWait}
}

type sgRejectChecker struct{ metric *sgSlidingWindowMetric }

func (d *sgRejectChecker) DoCheck(batchCount uint32, threshold float64, now uint64) *sgResult {
	curCount := float64(d.metric.getSumWithTime(now))
	if curCount+float64(batchCount) > threshold {
		return &sgResult{status: sgBlocked}
	}
	return nil
}

// sgRule is one resource with one flow rule, its resource node and the
// slot chain around it: check (with the flow slot's sleep), then the stat
// slot's pass record on the resource node.
type sgRule struct {
	clock    *sgClock
	epochNs  uint64
	global   *sgLeapArray // the resource node's BucketLeapArray
	metric   *sgSlidingWindowMetric
	calc     func() float64
	check    func(threshold float64) *sgResult
	sleeping []time.Duration // virtual instants at which sleeping entries wake
	slept    []uint32        // the batch count of each sleeping entry
	n        uint32          // the batch count of the entry being checked
}

type sgRuleParams struct {
	warmUp, throttling      bool
	threshold               float64
	statIntervalMs          uint32
	sampleCount             uint32 // MetricStatisticSampleCount
	maxQueueingMs           uint32
	warmUpSec, coldFactorGo uint32
}

func newSgRule(p sgRuleParams, epochMs int64) *sgRule {
	clock := &sgClock{nano: uint64(epochMs) * 1_000_000}
	r := &sgRule{clock: clock, epochNs: clock.nano}
	// config: MetricStatistic S over I, GlobalStatistic 10·S over 10·I.
	r.global = newSgBucketLeapArray(10*p.sampleCount, 10*p.statIntervalMs, clock.CurrentTimeMillis())
	r.metric = &sgSlidingWindowMetric{bucketLengthInMs: p.statIntervalMs / p.sampleCount, sampleCount: p.sampleCount,
		intervalInMs: p.statIntervalMs, real: r.global}
	// generateStatFor: StatIntervalInMs == MetricStatisticIntervalMs, so the
	// rule reuses the resource's default metric (or a nop stat for Direct +
	// Throttling).
	if p.warmUp {
		c := newSgWarmUpCalc(clock, r.metric, p.threshold, p.warmUpSec, p.coldFactorGo)
		r.calc = c.CalculateAllowedTokens
	} else {
		r.calc = func() float64 { return p.threshold }
	}
	if p.throttling {
		t := newSgThrottlingChecker(clock, p.maxQueueingMs, p.statIntervalMs)
		r.check = func(threshold float64) *sgResult { return t.DoCheck(r.n, threshold) }
	} else {
		c := &sgRejectChecker{metric: r.metric}
		r.check = func(threshold float64) *sgResult { return c.DoCheck(r.n, threshold, clock.CurrentTimeMillis()) }
	}
	return r
}

func (r *sgRule) setClock(at time.Duration) { r.clock.nano = uint64(int64(r.epochNs) + int64(at)) }

// entry is one sentinel.Entry at virtual time at. Entries that slept
// until at or earlier wake first and record their pass.
func (r *sgRule) entry(at time.Duration) Decision { return r.entryN(at, 1) }

// entryN is entry with api.WithBatchCount(n): the checkers get batchCount
// n and the stat slot adds n passes.
func (r *sgRule) entryN(at time.Duration, n uint32) Decision {
	for len(r.sleeping) > 0 && r.sleeping[0] <= at {
		r.setClock(r.sleeping[0])
		r.global.addCountWithTime(r.clock.CurrentTimeMillis(), int64(r.slept[0]))
		r.sleeping, r.slept = r.sleeping[1:], r.slept[1:]
	}
	r.n = n
	r.setClock(at)
	res := r.check(r.calc())
	if res != nil && res.status == sgBlocked {
		// The stat slot's OnEntryBlocked: AddCount(MetricEventBlock, 1)
		// on the resource node, which goes through currentBucketOfTime.
		r.global.currentBucketOfTime(r.clock.CurrentTimeMillis())
		return Decision{}
	}
	if res != nil && res.status == sgShouldWait && res.nanosToWait > 0 {
		// util.Sleep, then the stat slot records when the entry wakes.
		r.sleeping = append(r.sleeping, at+time.Duration(res.nanosToWait))
		r.slept = append(r.slept, n)
		return Decision{Pass: true, Wait: time.Duration(res.nanosToWait)}
	}
	// The stat slot's OnEntryPassed (UpdateConcurrency, then the pass),
	// and Exit at once (the request takes no time).
	r.global.addCountWithTime(r.clock.CurrentTimeMillis(), int64(n))
	return Decision{Pass: true}
}

// goTrace is a trace with idle gaps, bursts on the edges of buckets of w,
// sub-millisecond arrivals, and clock steps back, some of them longer
// than the ring of 10·S buckets and some before the limiter's creation.
func goTrace(rng *rand.Rand, n int, w, interval time.Duration) []time.Duration {
	out := make([]time.Duration, 0, n)
	t := time.Duration(rng.Int64N(int64(3 * interval)))
	for len(out) < n {
		switch rng.IntN(24) {
		case 0: // a small step back
			t -= time.Duration(rng.Int64N(int64(2 * interval)))
		case 1: // a large step back, past the ring or before creation
			t -= time.Duration(rng.Int64N(int64(15 * interval)))
		case 2: // an idle gap
			t += time.Duration(rng.Int64N(int64(12 * interval)))
		case 3, 4: // a burst at one instant
			for k := rng.IntN(40); k > 0 && len(out) < n; k-- {
				out = append(out, t)
			}
		case 5, 6: // just before, on or after a bucket edge
			e := t - t%w + w
			t = e + time.Duration(rng.IntN(3)-1)*time.Duration(rng.Int64N(2_000_000))
		case 7: // a second edge
			t = t - t%time.Second + time.Second - time.Duration(rng.IntN(2))
		default:
			t += time.Duration(rng.Int64N(int64(w)/2 + 1))
		}
		if rng.IntN(3) == 0 {
			t = t.Truncate(time.Millisecond)
		}
		out = append(out, t)
	}
	return out
}

func TestGoFlavorMatchesSentinelGolangPort(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	for trial := 0; trial < soakTrials(600, 200); trial++ { // 200: each kind 50 times
		kind := trial % 4
		s := []int{1, 2, 3, 4, 5, 10, 20, 100}[rng.IntN(8)]
		ims := int64(s) * int64([]int{1, 2, 5, 50, 100, 250, 500}[rng.IntN(7)])
		if kind == 1 || rng.IntN(3) == 0 {
			ims = int64(s) * (1000 / int64(s)) // whole seconds where s divides 1000
			if ims == 0 || 1000%s != 0 {
				s, ims = 2, 1000
			}
		}
		limit := []float64{0.5, 1, 2, 3, 7, 10, 20.5, 33.3, 100, 1000}[rng.IntN(10)]
		warm := 1 + rng.IntN(10)
		cold := 2 + rng.IntN(4)
		q := int64([]int{0, 1, 20, 500, 2000}[rng.IntN(5)])
		p := sgRuleParams{threshold: limit, statIntervalMs: uint32(ims), sampleCount: uint32(s),
			maxQueueingMs: uint32(q), warmUpSec: uint32(warm), coldFactorGo: uint32(cold)}
		spec := goFlowSpec(kind, &p)
		l := mustNew(t, spec, 0)
		w := time.Duration(ims/int64(s)) * time.Millisecond
		ref := newSgRule(p, epochMs(ims/int64(s)))
		var trace []time.Duration
		switch trial % 5 {
		case 0:
			trace = poissonTrace(rng, min(3*l.Rate(), 3000), 20*time.Second)
		case 1:
			trace = jumpyTrace(rng, 3000, trial%2 == 0)
		default:
			trace = goTrace(rng, 3000, w, time.Duration(ims)*time.Millisecond)
		}
		for i, at := range trace {
			got, want := l.Decide(at), ref.entry(at)
			if got != want {
				t.Fatalf("%s arrival %d at %v: %+v, sentinel-golang %+v", spec, i, at, got, want)
			}
		}
	}
}

// goFlowSpec is the flavor=go spec of p's controller kind (0 reject, 1
// throttling, 2 warm-up, 3 warm-up with throttling), marking p's
// controller flags to match, for the random traces run against the port.
func goFlowSpec(kind int, p *sgRuleParams) string {
	limit, s, ims := p.threshold, p.sampleCount, p.statIntervalMs
	q, warm, cold := p.maxQueueingMs, p.warmUpSec, p.coldFactorGo
	switch kind {
	case 1:
		p.throttling = true
		return fmt.Sprintf("leaky-bucket:limit=%v,interval=%dms,max-queue=%dms,flavor=go", limit, ims, q)
	case 2:
		p.warmUp = true
		return fmt.Sprintf("warm-up:limit=%v,warm-up=%ds,cold-factor=%d,sample-count=%d,interval=%dms,flavor=go", limit, warm, cold, s, ims)
	case 3:
		p.warmUp, p.throttling = true, true
		return fmt.Sprintf("warm-up-rate-limiter:limit=%v,warm-up=%ds,cold-factor=%d,max-queue=%dms,sample-count=%d,interval=%dms,flavor=go", limit, warm, cold, q, s, ims)
	}
	return fmt.Sprintf("leap-array:limit=%v,sample-count=%d,interval=%dms,flavor=go", limit, s, ims)
}
