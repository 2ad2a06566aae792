package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// WarmUpConfig configures a WarmUp limiter.
type WarmUpConfig struct {
	// Limit is the stable QPS threshold (count).
	Limit float64
	// WarmUp is the warm-up period; Sentinel takes whole seconds.
	WarmUp time.Duration
	// ColdFactor divides the limit at the coldest point (default 3).
	ColdFactor int
	// SampleCount and Interval configure the StatisticNode whose passQps
	// is checked, as for LeapArray.
	SampleCount int
	Interval    time.Duration
}

// WarmUp is Sentinel's WarmUpController (Sentinel 1.8), a Guava-style cold
// start followed by rejection.
//
// A bucket of stored tokens measures how idle the resource has been. With
// warningToken = (int)(warmUpSec·count)/(coldFactor−1) and maxToken =
// warningToken + (int)(2·warmUpSec·count/(1+coldFactor)), the bucket starts
// full (idle since forever). Once per new aligned second it is synced from
// the previous second's passes: below the warning line, or above it while
// the previous second passed fewer than (int)count/coldFactor, it refills
// by elapsed·count/1000 (capped at maxToken); then the previous second's
// passes are taken out. Above the warning line the allowed QPS is
// nextUp(1/((tokens−warningToken)·slope + 1/count)), which starts at
// count/coldFactor; below it, it is count. A request passes iff
// (long)passQps + 1 is within that QPS, where passQps is read from the
// sliding window (SampleCount, Interval) as in LeapArray. So the admitted
// rate climbs a staircase, one step per second, until the tokens fall
// below the warning line.
//
// When the clock goes back, the tokens stay frozen until the clock's second
// passes the last second that was synced.
type WarmUp struct {
	cfg        WarmUpConfig
	epoch      int64
	intervalS  float64
	tokens     warmTokens
	statistics *buckets // passQps: SampleCount buckets over Interval
	minute     *buckets // previousPassQps: 60 buckets of 1 s
}

// warmTokens is the token state and arithmetic shared by WarmUp and
// WarmUpRateLimiter (Sentinel's WarmUpController fields and syncToken).
type warmTokens struct {
	count        float64
	coldFactor   int64
	warningToken int64
	maxToken     int64
	slope        float64
	stored       int64
	lastFilled   int64
}

func newWarmTokens(name string, count float64, warmUp time.Duration, coldFactor int) (warmTokens, error) {
	if err := positiveLimit(name, "limit", count); err != nil {
		return warmTokens{}, err
	}
	if _, err := wholeSeconds(name, "warm-up", warmUp, 1, math.MaxInt32, "for example warm-up=10s; Sentinel's warmUpPeriodInSec is an int"); err != nil {
		return warmTokens{}, err
	}
	if coldFactor <= 1 {
		return warmTokens{}, fmt.Errorf("%s: cold-factor must be larger than 1, got %d (Sentinel's default is 3)", name, coldFactor)
	}
	sec := int32(warmUp / time.Second)
	w := warmTokens{count: count, coldFactor: int64(coldFactor)}
	// Java: (int)(warmUpPeriodInSec * count) / (coldFactor - 1).
	w.warningToken = int64(javaD2I(float64(sec)*count) / int32(coldFactor-1))
	// Java: warningToken + (int)(2 * warmUpPeriodInSec * count / (1.0 + coldFactor)), in int.
	w.maxToken = int64(int32(w.warningToken) + javaD2I(float64(2*sec)*count/(1.0+float64(coldFactor))))
	w.slope = (float64(coldFactor) - 1.0) / count / float64(int32(w.maxToken)-int32(w.warningToken))
	return w, nil
}

// sync is WarmUpController.syncToken at absolute ms t, given the previous
// second's passes.
func (w *warmTokens) sync(t, passQps int64) {
	cur := t - t%1000
	if cur <= w.lastFilled {
		return
	}
	v := w.coolDown(cur, passQps) - passQps
	if v < 0 {
		v = 0
	}
	w.stored, w.lastFilled = v, cur
}

// coolDown is WarmUpController.coolDownTokens.
func (w *warmTokens) coolDown(cur, passQps int64) int64 {
	old := w.stored
	v := old
	refill := func() int64 {
		return javaD2L(float64(old) + float64(cur-w.lastFilled)*w.count/1000)
	}
	if old < w.warningToken {
		v = refill()
	} else if old > w.warningToken {
		if passQps < int64(javaD2I(w.count)/int32(w.coldFactor)) {
			v = refill()
		}
	}
	return min(v, w.maxToken)
}

// warningQps is the QPS allowed above the warning line at the current
// tokens, as Sentinel computes it.
func (w *warmTokens) warningQps() float64 {
	above := w.stored - w.warningToken
	return nextUp(1.0 / (float64(above)*w.slope + 1.0/w.count))
}

// NewWarmUp validates c and builds the limiter.
func NewWarmUp(c WarmUpConfig) (*WarmUp, error) {
	tokens, err := newWarmTokens("warm-up", c.Limit, c.WarmUp, c.ColdFactor)
	if err != nil {
		return nil, err
	}
	bucket, err := bucketLength("warm-up", c.SampleCount, c.Interval)
	if err != nil {
		return nil, err
	}
	return &WarmUp{
		cfg:        c,
		epoch:      epochMs(bucket),
		intervalS:  float64(int64(c.Interval/time.Millisecond)) / 1000.0,
		tokens:     tokens,
		statistics: newBuckets(c.SampleCount, bucket),
		minute:     newBuckets(60, 1000),
	}, nil
}

// Decide implements Limiter.
func (u *WarmUp) Decide(now time.Duration) Decision { return u.decide(now, 1) }

// DecideRequest implements RequestLimiter: WarmUpController.canPass(node,
// acquireCount = the request's cost) (Sentinel 1.8: passQps + acquireCount
// ≤ warningQps above the warning line, ≤ count below it), then
// addPassRequest(acquireCount) in the window and the minute. A cost above
// the allowed QPS never passes.
func (u *WarmUp) DecideRequest(now time.Duration, r *Request) Decision {
	return u.decide(now, r.cost())
}

func (u *WarmUp) decide(now time.Duration, n int32) Decision {
	d := u.check(now, int64(n))
	if d.Pass {
		u.record(now, int64(n))
	}
	return d
}

// Record implements Stage: the pass counts in the window and in the
// minute behind previousPassQps.
func (u *WarmUp) Record(at time.Duration) { u.record(at, 1) }

func (u *WarmUp) record(at time.Duration, n int64) {
	t := u.epoch + floorMs(at)
	u.statistics.add(t, n)
	u.minute.add(t, n)
}

// Check implements Stage: WarmUpController.canPass.
func (u *WarmUp) Check(now time.Duration) Decision { return u.check(now, 1) }

// check is WarmUpController.canPass(node, acquireCount n).
func (u *WarmUp) check(now time.Duration, n int64) Decision {
	t := u.epoch + floorMs(now)
	passQps := javaD2L(float64(u.statistics.sum(t)) / u.intervalS)
	u.tokens.sync(t, u.minute.previous(t))
	var ok bool
	if u.tokens.stored >= u.tokens.warningToken {
		ok = float64(passQps+n) <= u.tokens.warningQps()
	} else {
		ok = float64(passQps+n) <= u.tokens.count
	}
	if !ok {
		return Decision{}
	}
	return Decision{Pass: true}
}

// Spec implements Limiter.
func (u *WarmUp) Spec() string {
	return fmt.Sprintf("warm-up:limit=%s,warm-up=%s,cold-factor=%d,sample-count=%d,interval=%s",
		formatFloat(u.cfg.Limit), FormatDuration(u.cfg.WarmUp), u.cfg.ColdFactor, u.cfg.SampleCount, FormatDuration(u.cfg.Interval))
}

// Rate implements Limiter.
func (u *WarmUp) Rate() float64 { return u.cfg.Limit }

// StateBytes implements Limiter.
func (u *WarmUp) StateBytes() int {
	return int(unsafe.Sizeof(*u)) + u.statistics.stateBytes() + u.minute.stateBytes()
}
