package algorithms

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"
)

// SentinelSystemConfig configures a SentinelSystem limiter. A negative
// threshold is a rule not set, as in SystemRule.
type SentinelSystemConfig struct {
	QPS float64 // inbound pass QPS
	// MaxThread is the calls in flight and AvgRT the average RT in ms:
	// whole numbers in Java (SystemRule's long maxThread and avgRt), any
	// number with Go (core/system Rule's float64 TriggerCount, compared
	// as concurrency < T and avgRT < T in AdaptiveSlot.doCheckRule, so
	// max-thread=2.5 admits 3 in flight and avg-rt=29.5 passes up to an
	// average of 29 ms, the integer BaseStatNode.AvgRT).
	MaxThread float64
	AvgRT     float64
	Load      float64 // load1
	CPU       float64 // CPU usage, 0 to 1
	Go        bool    // sentinel-golang core/system
	// BBR is sentinel-golang's Strategy BBR on the load and cpu rules
	// (Java always applies checkBbr to load, never to cpu).
	BBR bool
}

// SentinelSystem is Sentinel's system adaptive protection
// (SystemRuleManager.checkSystem, Sentinel 1.8.3+) over the global inbound
// node, ENTRY_NODE: a 2-bucket, 500 ms LeapArray of passes, successes, RT
// sums and per-bucket minimum RT, and the thread count. For each inbound
// request, in this order (the first that fails blocks):
//
//	qps:    passQps + 1 > qps                     (passQps = pass in the window / 1 s)
//	thread: curThreadNum > maxThread              (so maxThread = N admits N+1 at once)
//	rt:     avgRt > maxRt                         (rt sum / successes, 0 without any)
//	load:   load1 > highestSystemLoad and not checkBbr
//	cpu:    cpuUsage > highestCpuUsage
//
// checkBbr(t) holds unless t > 1 and t > maxSuccessQps · minRt / 1000, with
// maxSuccessQps = max(the busiest bucket's successes, 1) · 2 / 1 s and
// minRt = max(1, min(5000, each bucket's minimum RT)). Every completed call
// (errors included) adds its RT = exit ms − entry ms and a success. load1
// and cpu are sampled by SystemStatusListener at 0, 1 s, 2 s, …
//
// flavor=go is sentinel-golang's core/system: each rule blocks at or above
// its threshold (qps < T, concurrency < T, avgRT < T pass; so
// max-thread=N admits N), the inbound statistic is a 20-bucket ring read
// through a 2 × 500 ms window, avgRT is an integer division, minRt starts
// at 60000 with no floor on the busiest bucket (maxComplete may be 0),
// and the load and cpu rules try checkBbrSimple only with strategy=bbr.
type SentinelSystem struct {
	cfg     SentinelSystemConfig
	sig     Signals
	epoch   int64
	threads int64
	java    [2]sysBucket
	lost    sysBucket   // Java's throw-away bucket
	gring   []sysBucket // flavor=go: 20 slots
}

type sysBucket struct {
	start                  int64
	pass, success, rt, min int64
}

const (
	sysBucketMs = 500
	sysJavaMax  = 5000
	sysGoMax    = 60000
	sysGoSlots  = 20
)

// NewSentinelSystem validates c.
func NewSentinelSystem(c SentinelSystemConfig) (*SentinelSystem, error) {
	if !c.Go && (c.MaxThread != math.Trunc(c.MaxThread) || c.AvgRT != math.Trunc(c.AvgRT)) {
		return nil, fmt.Errorf("sentinel-system: max-thread and avg-rt are whole numbers with flavor=java (SystemRule's maxThread and avgRt are longs); round them, or add flavor=go, whose thresholds are float64")
	}
	if c.QPS < 0 && c.MaxThread < 0 && c.AvgRT < 0 && c.Load < 0 && c.CPU < 0 {
		return nil, fmt.Errorf("sentinel-system needs at least one rule: add qps=, max-thread=, avg-rt=, load= or cpu= (for example sentinel-system:load=8)")
	}
	if c.CPU > 1 {
		if !c.Go {
			return nil, fmt.Errorf("sentinel-system: cpu %s is above 1; Sentinel ignores such a rule (highestCpuUsage must be 0 to 1)", formatNumber(c.CPU))
		}
	}
	if c.BBR && !c.Go {
		return nil, fmt.Errorf("sentinel-system: strategy applies to flavor=go only (Java always checks BBR on load, never on cpu); drop strategy or add flavor=go")
	}
	s := &SentinelSystem{cfg: c, epoch: epochMs(sysBucketMs)}
	if c.Go {
		s.gring = make([]sysBucket, sysGoSlots)
		// NewAtomicBucketWrapArrayWithTime at creation (virtual 0): the slot
		// of 0 holds the bucket at 0, the others the following starts.
		for k := range s.gring {
			s.gring[k] = sysBucket{start: s.epoch + int64(k)*sysBucketMs, min: sysGoMax}
		}
	} else {
		for k := range s.java {
			// Idle since forever: both slots hold deprecated buckets.
			s.java[k] = sysBucket{start: math.MinInt64 / 2, min: sysJavaMax}
		}
	}
	return s, nil
}

// NeedsSignals implements SignalReader.
func (s *SentinelSystem) NeedsSignals() Signal {
	var n Signal
	if s.cfg.Load >= 0 {
		n |= SignalLoad1
	}
	if s.cfg.CPU >= 0 {
		n |= SignalCPU
	}
	return n
}

// BindSignals implements SignalReader.
func (s *SentinelSystem) BindSignals(g Signals) { s.sig = g }

// sampleAt is the instant of the last SystemStatusListener run at or
// before now: 0, 1 s, 2 s, …
func sampleAt(now time.Duration) time.Duration {
	if now < 0 {
		return 0
	}
	return now - now%time.Second
}

// javaCur is LeapArray.currentWindow(t) for the Java flavor: the slot of
// t, reset when it holds an older bucket; when it holds a newer one (the
// clock went back) Java returns a throw-away bucket, so what is written
// there is lost.
func (s *SentinelSystem) javaCur(t int64) *sysBucket {
	ws := floorDiv64(t, sysBucketMs) * sysBucketMs
	b := &s.java[((t/sysBucketMs)%2+2)%2]
	switch {
	case b.start == ws:
	case b.start < ws:
		*b = sysBucket{start: ws, min: sysJavaMax}
	default:
		s.lost = sysBucket{start: ws, min: sysJavaMax}
		return &s.lost
	}
	return b
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// javaValid reports whether a bucket counts in values(t): not deprecated,
// t − windowStart ≤ interval (a bucket "in the future" after a clock step
// back counts, as in Java).
func javaValid(b *sysBucket, t int64) bool { return t-b.start <= 1000 }

// goCur is the go ring's bucket for a write at t (nil when the slot holds
// a newer bucket and the write is lost).
func (s *SentinelSystem) goCur(t int64) *sysBucket {
	ws := t - t%sysBucketMs
	b := &s.gring[(ws/sysBucketMs)%sysGoSlots]
	switch {
	case b.start == ws:
	case b.start < ws:
		*b = sysBucket{start: ws, min: sysGoMax}
	default:
		return nil
	}
	return b
}

// goValid: the SlidingWindowMetric's [ws − 1000 + 500, ws].
func goValid(b *sysBucket, t int64) bool {
	ws := t - t%sysBucketMs
	return b.start >= ws-1000+sysBucketMs && b.start <= ws
}

// stats reads the window at t: passes, successes, RT sum, max bucket
// successes and min RT.
func (s *SentinelSystem) stats(t int64) (pass, succ, rt, maxSucc, minRt int64) {
	if s.cfg.Go {
		minRt = sysGoMax
		for i := range s.gring {
			b := &s.gring[i]
			if !goValid(b, t) {
				continue
			}
			pass += b.pass
			succ += b.success
			rt += b.rt
			maxSucc = max(maxSucc, b.success)
			minRt = min(minRt, b.min)
		}
		return pass, succ, rt, maxSucc, max(minRt, 1)
	}
	s.javaCur(t)
	minRt = sysJavaMax
	for i := range s.java {
		b := &s.java[i]
		if !javaValid(b, t) {
			continue
		}
		pass += b.pass
		succ += b.success
		rt += b.rt
		maxSucc = max(maxSucc, b.success)
		minRt = min(minRt, b.min)
	}
	return pass, succ, rt, max(maxSucc, 1), max(minRt, 1)
}

// Decide implements Limiter.
func (s *SentinelSystem) Decide(now time.Duration) Decision { return completerDecide(s, now) }

// Check implements Stage.
func (s *SentinelSystem) Check(now time.Duration) Decision {
	ok, _ := s.check(now)
	return Decision{Pass: ok}
}

// BlockReason is the rule that blocks at now ("" for a pass): qps,
// thread, rt, load or cpu.
func (s *SentinelSystem) BlockReason(now time.Duration) string {
	_, r := s.check(now)
	return r
}

func (s *SentinelSystem) check(now time.Duration) (bool, string) {
	c := &s.cfg
	t := s.epoch + floorMs(now)
	pass, succ, rtSum, maxSucc, minRt := s.stats(t)
	threads := s.threads
	if c.Go {
		if c.QPS >= 0 && !(float64(pass)/1.0 < c.QPS) {
			return false, "qps"
		}
		if c.MaxThread >= 0 && !(float64(int32(threads)) < c.MaxThread) {
			return false, "thread"
		}
		if c.AvgRT >= 0 {
			var avg float64
			if succ > 0 {
				avg = float64(rtSum / succ)
			}
			if !(avg < c.AvgRT) {
				return false, "rt"
			}
		}
		bbr := func() bool {
			maxComplete := float64(maxSucc) * 2 / 1000 * 1000.0
			return !(threads > 1 && float64(threads) > maxComplete*float64(minRt)/1000.0)
		}
		if c.Load >= 0 && s.sig.Load1(sampleAt(now)) > c.Load && (!c.BBR || !bbr()) {
			return false, "load"
		}
		if c.CPU >= 0 && s.sig.CPU(sampleAt(now)) > c.CPU && (!c.BBR || !bbr()) {
			return false, "cpu"
		}
		return true, ""
	}
	if c.QPS >= 0 && float64(pass)/1.0+1 > c.QPS {
		return false, "qps"
	}
	cur := int64(int32(threads))
	if c.MaxThread >= 0 && float64(cur) > c.MaxThread {
		return false, "thread"
	}
	if c.AvgRT >= 0 {
		var avg float64
		if succ > 0 {
			avg = float64(rtSum) * 1.0 / float64(succ)
		}
		if avg > c.AvgRT {
			return false, "rt"
		}
	}
	if c.Load >= 0 && s.sig.Load1(sampleAt(now)) > c.Load {
		maxSuccessQps := float64(maxSucc) * 2 / 1.0
		if cur > 1 && float64(cur) > maxSuccessQps*float64(minRt)/1000 {
			return false, "load"
		}
	}
	if c.CPU >= 0 && s.sig.CPU(sampleAt(now)) > c.CPU {
		return false, "cpu"
	}
	return true, ""
}

// Record implements Stage.
func (s *SentinelSystem) Record(at time.Duration) { s.Begin(at, at) }

// Begin implements Completer: StatisticSlot's increaseThreadNum and
// addPassRequest on the inbound node. The ticket keeps the entry's
// creation time (the arrival), from which RT is measured.
func (s *SentinelSystem) Begin(arrival, at time.Duration) Ticket {
	s.threads++
	t := s.epoch + floorMs(at)
	if s.cfg.Go {
		if b := s.goCur(t); b != nil {
			b.pass++
		}
	} else {
		s.javaCur(t).pass++
	}
	return Ticket{At: arrival}
}

// Complete implements Completer: addRtAndSuccess(rt, 1) and
// decreaseThreadNum, for every outcome.
func (s *SentinelSystem) Complete(now time.Duration, tk Ticket, _ Outcome) {
	s.threads--
	t := s.epoch + floorMs(now)
	rt := t - (s.epoch + floorMs(tk.At))
	var b *sysBucket
	if s.cfg.Go {
		b = s.goCur(t)
		if b == nil {
			return
		}
	} else {
		b = s.javaCur(t)
	}
	b.success++
	b.rt += rt
	if rt < b.min {
		b.min = rt
	}
}

// InFlight implements Completer.
func (s *SentinelSystem) InFlight() int64 { return s.threads }

// CurrentLimit implements Completer: the thread rule's limit when set,
// else the BBR estimate maxSuccessQps · minRt / 1000 when a load rule is
// set, else NaN.
func (s *SentinelSystem) CurrentLimit(now time.Duration) float64 {
	if s.cfg.MaxThread >= 0 {
		if s.cfg.Go {
			return math.Ceil(s.cfg.MaxThread) // n < T admits ⌈T⌉ in flight
		}
		return s.cfg.MaxThread + 1
	}
	if s.cfg.Load >= 0 || (s.cfg.BBR && s.cfg.CPU >= 0) {
		_, _, _, maxSucc, minRt := s.stats(s.epoch + floorMs(now))
		return float64(maxSucc) * 2 * float64(minRt) / 1000
	}
	return noLimit
}

// Spec implements Limiter.
func (s *SentinelSystem) Spec() string {
	c := &s.cfg
	var b strings.Builder
	b.WriteString("sentinel-system:")
	var parts []string
	if c.QPS >= 0 {
		parts = append(parts, "qps="+formatFloat(c.QPS))
	}
	if c.MaxThread >= 0 {
		parts = append(parts, "max-thread="+formatFloat(c.MaxThread))
	}
	if c.AvgRT >= 0 {
		parts = append(parts, "avg-rt="+formatFloat(c.AvgRT))
	}
	if c.Load >= 0 {
		parts = append(parts, "load="+formatFloat(c.Load))
	}
	if c.CPU >= 0 {
		parts = append(parts, "cpu="+formatFloat(c.CPU))
	}
	if c.Go {
		parts = append(parts, "flavor=go")
		if c.BBR {
			parts = append(parts, "strategy=bbr")
		} else {
			parts = append(parts, "strategy=none")
		}
	} else {
		parts = append(parts, "flavor=java")
	}
	b.WriteString(strings.Join(parts, ","))
	return b.String()
}

// Rate implements Limiter: the qps rule, else 0.
func (s *SentinelSystem) Rate() float64 { return max(s.cfg.QPS, 0) }

// StateBytes implements Limiter.
func (s *SentinelSystem) StateBytes() int {
	return int(unsafe.Sizeof(*s)) + len(s.gring)*int(unsafe.Sizeof(sysBucket{}))
}
