package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// goWarmCalc is sentinel-golang's WarmUpTrafficShapingCalculator
// (github.com/alibaba/sentinel-golang, master, core/flow/tc_warm_up.go),
// shared by GoWarmUp and GoWarmUpRateLimiter. Its arithmetic is written
// with the same Go conversions as sentinel-golang's (uint64 tokens, uint32
// cold factor, float64 to integer truncation), so that it computes the
// same numbers on the same platform.
type goWarmCalc struct {
	threshold      float64
	coldFactor     uint32
	warningToken   uint64
	maxToken       uint64
	slope          float64
	storedTokens   int64
	lastFilledTime uint64
	intervalS      float64 // the metric's interval in seconds, for GetPreviousQPS
}

func newGoWarmCalc(name string, threshold float64, warmUp time.Duration, coldFactor int, interval time.Duration) (goWarmCalc, error) {
	if err := positiveLimit(name, "limit", threshold); err != nil {
		return goWarmCalc{}, err
	}
	if _, err := wholeSeconds(name, "warm-up", warmUp, 1, math.MaxUint32, "for example warm-up=10s; sentinel-golang's WarmUpPeriodSec is a uint32"); err != nil {
		return goWarmCalc{}, err
	}
	if coldFactor <= 1 {
		return goWarmCalc{}, fmt.Errorf("%s: cold-factor must be larger than 1, got %d (sentinel-golang rejects 1 and replaces 0 by its default 3)", name, coldFactor)
	}
	sec := uint32(warmUp / time.Second)
	cf := uint32(coldFactor)
	warningToken := uint64((float64(sec) * threshold) / float64(cf-1))
	maxToken := warningToken + uint64(2*float64(sec)*threshold/float64(1.0+cf))
	slope := float64(cf-1.0) / threshold / float64(maxToken-warningToken)
	return goWarmCalc{
		threshold:    threshold,
		coldFactor:   cf,
		warningToken: warningToken,
		maxToken:     maxToken,
		slope:        slope,
		intervalS:    float64(uint32(interval/time.Millisecond)) / 1000.0,
	}, nil
}

// allowed is CalculateAllowedTokens at absolute ms t, given the passes of
// the window read by GetPreviousQPS.
func (c *goWarmCalc) allowed(t int64, previousPasses int64) float64 {
	previousQps := float64(previousPasses) / c.intervalS
	c.syncToken(uint64(t), previousQps)
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

func (c *goWarmCalc) syncToken(currentTime uint64, passQps float64) {
	currentTime = currentTime - currentTime%1000
	if currentTime <= c.lastFilledTime {
		return
	}
	c.storedTokens = c.coolDownTokens(currentTime, passQps)
	if c.storedTokens += int64(-passQps); c.storedTokens < 0 {
		c.storedTokens = 0
	}
	c.lastFilledTime = currentTime
}

func (c *goWarmCalc) coolDownTokens(currentTime uint64, passQps float64) int64 {
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

// GoWarmUp is sentinel-golang's flow rule with TokenCalculateStrategy
// WarmUp and ControlBehavior Reject (warm-up:flavor=go): the
// WarmUpTrafficShapingCalculator gives the allowed count, and the
// RejectTrafficShapingChecker compares it with the window's count.
//
// The tokens start at 0 with lastFilledTime 0, so the first request fills
// them to maxToken (idle since forever), with warningToken =
// uint64(sec·T/(coldFactor−1)) and maxToken = warningToken +
// uint64(2·sec·T/(1+coldFactor)). Once per new aligned second the first
// request syncs them from the "previous QPS": the passes of the S buckets
// ending just before the current bucket (the window read at t − w), divided
// by the interval in seconds; Java instead reads the previous aligned
// second from a 60-second metric. Below the warning line, or above it when
// the previous QPS is below uint32(T)/coldFactor, they refill by
// elapsed·T/1000 (capped at maxToken); then int64(previous QPS) is taken
// out. Above the warning line the allowed count is
// nextafter(1/((tokens−warningToken)·slope + 1/T)), else T. A request
// passes iff R + 1 ≤ allowed, where R is the count of the current window
// (per stat interval, as in GoLeapArray).
type GoWarmUp struct {
	cfg        WarmUpConfig
	clock      goClock
	calc       goWarmCalc
	statistics *goStat
}

// NewGoWarmUp validates c and builds the limiter.
func NewGoWarmUp(c WarmUpConfig) (*GoWarmUp, error) {
	const name = "warm-up"
	w, err := goStatParams(name, c.SampleCount, c.Interval)
	if err != nil {
		return nil, err
	}
	calc, err := newGoWarmCalc(name, c.Limit, c.WarmUp, c.ColdFactor, c.Interval)
	if err != nil {
		return nil, err
	}
	e := goEpochMs(w)
	return &GoWarmUp{cfg: c, clock: goClock{e}, calc: calc, statistics: newGoStat(c.SampleCount, w, e)}, nil
}

// Decide implements Limiter.
func (u *GoWarmUp) Decide(now time.Duration) Decision {
	d := u.Check(now)
	if d.Pass {
		u.Record(now)
	}
	return d
}

// Check implements Stage: PerformChecking with the warm-up calculator and
// the reject checker.
func (u *GoWarmUp) Check(now time.Duration) Decision { return u.check(now, 1) }

// DecideRequest implements RequestLimiter: an entry with BatchCount = the
// request's cost. The warm-up calculator ignores the batch
// (WarmUpTrafficShapingCalculator.CalculateAllowedTokens(_ uint32, _
// int32), core/flow/tc_warm_up.go); the reject checker blocks iff
// curCount + batchCount > allowed; a pass adds BatchCount.
func (u *GoWarmUp) DecideRequest(now time.Duration, r *Request) Decision {
	n := r.cost()
	d := u.check(now, n)
	if d.Pass {
		u.statistics.addN(u.clock.ms(now), int64(n))
	}
	return d
}

func (u *GoWarmUp) check(now time.Duration, n int32) Decision {
	t := u.clock.ms(now)
	allowed := u.calc.allowed(t, u.statistics.previous(t))
	if float64(u.statistics.window(t))+float64(n) > allowed {
		u.statistics.touch(t) // the stat slot counts the block
		return Decision{}
	}
	return Decision{Pass: true}
}

// Record implements Stage: the stat slot's pass on the resource node.
func (u *GoWarmUp) Record(at time.Duration) { u.statistics.add(u.clock.ms(at)) }

// Spec implements Limiter.
func (u *GoWarmUp) Spec() string {
	return fmt.Sprintf("warm-up:limit=%s,warm-up=%s,cold-factor=%d,sample-count=%d,interval=%s,flavor=go",
		formatFloat(u.cfg.Limit), FormatDuration(u.cfg.WarmUp), u.cfg.ColdFactor, u.cfg.SampleCount, FormatDuration(u.cfg.Interval))
}

// Rate implements Limiter: Limit per Interval.
func (u *GoWarmUp) Rate() float64 { return u.cfg.Limit / u.cfg.Interval.Seconds() }

// StateBytes implements Limiter.
func (u *GoWarmUp) StateBytes() int { return int(unsafe.Sizeof(*u)) + u.statistics.stateBytes() }

// GoWarmUpRateLimiterConfig configures a GoWarmUpRateLimiter: the Java
// parameters plus the statistic the warm-up calculator reads.
type GoWarmUpRateLimiterConfig struct {
	WarmUpRateLimiterConfig
	SampleCount int
	Interval    time.Duration
}

// GoWarmUpRateLimiter is sentinel-golang's flow rule with
// TokenCalculateStrategy WarmUp and ControlBehavior Throttling
// (warm-up-rate-limiter:flavor=go): the warm-up calculator of GoWarmUp
// gives the current threshold, and the ThrottlingChecker of GoThrottling
// spaces requests ceil(1/threshold · I_ns) ns apart on it, queueing up to
// MaxQueue. While the allowed threshold is below 1 (a cold start with
// Limit/coldFactor < 1) every request is blocked, and as nothing passes the
// tokens never drain: such a rule blocks for good.
//
// A request that queues is counted in the statistics when it is let
// through (arrival + wait, in ns), as sentinel-golang's stat slot counts it
// after the flow slot's Sleep. Decide records every queued pass whose
// admission instant is at or before an arrival before deciding that
// arrival.
type GoWarmUpRateLimiter struct {
	cfg        GoWarmUpRateLimiterConfig
	clock      goClock
	calc       goWarmCalc
	q          goThrottle
	statistics *goStat
	pending    pendingPasses // admission instants in virtual ns
}

// NewGoWarmUpRateLimiter validates c and builds the limiter.
func NewGoWarmUpRateLimiter(c GoWarmUpRateLimiterConfig) (*GoWarmUpRateLimiter, error) {
	const name = "warm-up-rate-limiter"
	w, err := goStatParams(name, c.SampleCount, c.Interval)
	if err != nil {
		return nil, err
	}
	calc, err := newGoWarmCalc(name, c.Limit, c.WarmUp, c.ColdFactor, c.Interval)
	if err != nil {
		return nil, err
	}
	qms, err := goDurationMs(name, "max-queue", c.MaxQueue, 0)
	if err != nil {
		return nil, err
	}
	e := goEpochMs(w)
	return &GoWarmUpRateLimiter{
		cfg:        c,
		clock:      goClock{e},
		calc:       calc,
		q:          goThrottle{maxQueueNs: qms * 1_000_000, statIntervalNs: int64(c.Interval)},
		statistics: newGoStat(c.SampleCount, w, e),
		pending:    pendingPasses{at: make([]int64, 0, 64)},
	}, nil
}

// Decide implements Limiter.
func (u *GoWarmUpRateLimiter) Decide(now time.Duration) Decision { return u.decide(now, 1) }

// DecideRequest implements RequestLimiter: an entry with BatchCount = the
// request's cost: the throttling checker spaces it by its own interval
// (goThrottle.check) and its pass adds BatchCount when it is let through.
func (u *GoWarmUpRateLimiter) DecideRequest(now time.Duration, r *Request) Decision {
	return u.decide(now, r.cost())
}

func (u *GoWarmUpRateLimiter) decide(now time.Duration, n int32) Decision {
	p := &u.pending
	for p.head < len(p.at) && p.at[p.head] <= int64(now) {
		u.statistics.addN(u.clock.ms(time.Duration(p.at[p.head])), p.count(p.head))
		p.head++
	}
	if p.head == len(p.at) {
		p.reset()
	}
	d := u.check(now, n)
	if d.Pass {
		if d.Wait > 0 {
			p.push(int64(now+d.Wait), n)
		} else {
			u.statistics.addN(u.clock.ms(now), int64(n))
		}
	}
	return d
}

// Check implements Stage: PerformChecking with the warm-up calculator and
// the throttling checker, which moves lastPassedTime for every pass.
func (u *GoWarmUpRateLimiter) Check(now time.Duration) Decision { return u.check(now, 1) }

func (u *GoWarmUpRateLimiter) check(now time.Duration, n int32) Decision {
	t := u.clock.ms(now)
	allowed := u.calc.allowed(t, u.statistics.previous(t))
	wait, ok := u.q.check(allowed, u.clock.ns(now), n)
	if !ok {
		u.statistics.touch(t) // the stat slot counts the block
		return Decision{}
	}
	return Decision{Pass: true, Wait: time.Duration(wait)}
}

// Record implements Stage: the stat slot's pass on the resource node at
// at.
func (u *GoWarmUpRateLimiter) Record(at time.Duration) { u.statistics.add(u.clock.ms(at)) }

// Spec implements Limiter.
func (u *GoWarmUpRateLimiter) Spec() string {
	return fmt.Sprintf("warm-up-rate-limiter:limit=%s,warm-up=%s,cold-factor=%d,max-queue=%s,sample-count=%d,interval=%s,flavor=go",
		formatFloat(u.cfg.Limit), FormatDuration(u.cfg.WarmUp), u.cfg.ColdFactor, FormatDuration(u.cfg.MaxQueue),
		u.cfg.SampleCount, FormatDuration(u.cfg.Interval))
}

// Rate implements Limiter: Limit per Interval.
func (u *GoWarmUpRateLimiter) Rate() float64 { return u.cfg.Limit / u.cfg.Interval.Seconds() }

// StateBytes implements Limiter.
func (u *GoWarmUpRateLimiter) StateBytes() int {
	return int(unsafe.Sizeof(*u)) + u.statistics.stateBytes() + u.pending.bytes()
}
