package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// WarmUpRateLimiterConfig configures a WarmUpRateLimiter.
type WarmUpRateLimiterConfig struct {
	// Limit is the stable QPS (count).
	Limit float64
	// WarmUp is the warm-up period in whole seconds.
	WarmUp time.Duration
	// ColdFactor divides the limit at the coldest point (default 3).
	ColdFactor int
	// MaxQueue is the longest a request may queue (timeOutMs), in whole ms.
	MaxQueue time.Duration
}

// WarmUpRateLimiter is Sentinel's WarmUpRateLimiterController (Sentinel
// 1.8): the WarmUp token bucket decides the current rate, and the
// throttling queue paces requests at that rate. Each request syncs the
// tokens from the previous second's passes, takes the warm-up rate
// (nextUp(1/(aboveToken·slope + 1/count)) above the warning line, count
// below it), turns it into a cost of round(1000/rate) ms, and queues on
// latestPassedTime exactly as Throttling does on the millisecond path:
// pass now, pass after waiting up to MaxQueue, or block.
//
// A request that queues is counted in the statistics when it is let through
// (arrival + wait), as Sentinel's StatisticSlot counts it after the
// FlowSlot's sleep. Queued passes whose admission time has come are
// recorded before the decision of a request arriving at the same
// millisecond.
type WarmUpRateLimiter struct {
	cfg      WarmUpRateLimiterConfig
	epoch    int64
	maxQueue int64
	tokens   warmTokens
	minute   *buckets // previousPassQps: 60 buckets of 1 s
	latest   int64
	pending  pendingPasses
}

// pendingPasses is a FIFO of queued passes not yet admitted, by absolute
// admission millisecond (strictly increasing, as latestPassedTime is),
// with the acquireCount of each in n, which stays nil (every count 1)
// until a pass of another count is queued.
type pendingPasses struct {
	at   []int64
	n    []int32
	head int
}

func (p *pendingPasses) push(t int64, n int32) {
	if p.head > 0 && len(p.at) == cap(p.at) {
		k := copy(p.at, p.at[p.head:])
		if p.n != nil {
			copy(p.n, p.n[p.head:])
			p.n = p.n[:k]
		}
		p.at, p.head = p.at[:k], 0
	}
	if n != 1 && p.n == nil {
		p.n = make([]int32, len(p.at), cap(p.at))
		for i := range p.n {
			p.n[i] = 1
		}
	}
	p.at = append(p.at, t)
	if p.n != nil {
		p.n = append(p.n, n)
	}
}

// count is the acquireCount of the pass at i.
func (p *pendingPasses) count(i int) int64 {
	if p.n == nil {
		return 1
	}
	return int64(p.n[i])
}

// reset empties the queue, keeping its storage.
func (p *pendingPasses) reset() {
	p.at, p.head = p.at[:0], 0
	if p.n != nil {
		p.n = p.n[:0]
	}
}

// bytes is the queue's storage.
func (p *pendingPasses) bytes() int { return 8*cap(p.at) + 4*cap(p.n) }

// NewWarmUpRateLimiter validates c and builds the limiter.
func NewWarmUpRateLimiter(c WarmUpRateLimiterConfig) (*WarmUpRateLimiter, error) {
	const name = "warm-up-rate-limiter"
	tokens, err := newWarmTokens(name, c.Limit, c.WarmUp, c.ColdFactor)
	if err != nil {
		return nil, err
	}
	q, err := wholeMs(name, "max-queue", c.MaxQueue, 0)
	if err != nil {
		return nil, err
	}
	return &WarmUpRateLimiter{
		cfg:      c,
		epoch:    epochMs(1000),
		maxQueue: q,
		tokens:   tokens,
		minute:   newBuckets(60, 1000),
		latest:   -1,
		pending:  pendingPasses{at: make([]int64, 0, 64)},
	}, nil
}

// Decide implements Limiter.
func (u *WarmUpRateLimiter) Decide(now time.Duration) Decision { return u.decide(now, 1) }

// DecideRequest implements RequestLimiter: canPass(node, acquireCount = the
// request's cost). WarmUpRateLimiterController (Sentinel 1.8) paces it by
// costTime = Math.round(1.0 · acquireCount / warmingQps · 1000) ms (or /
// count below the warning line) and queues it like any other; its pass
// counts acquireCount in the minute behind previousPassQps.
func (u *WarmUpRateLimiter) DecideRequest(now time.Duration, r *Request) Decision {
	return u.decide(now, r.cost())
}

func (u *WarmUpRateLimiter) decide(now time.Duration, n int32) Decision {
	t := u.epoch + floorMs(now)
	p := &u.pending
	for p.head < len(p.at) && p.at[p.head] <= t {
		u.minute.add(p.at[p.head], p.count(p.head))
		p.head++
	}
	if p.head == len(p.at) {
		p.reset()
	}
	d := u.check(now, n)
	if d.Pass {
		if d.Wait > 0 {
			p.push(t+int64(d.Wait/time.Millisecond), n)
		} else {
			u.minute.add(t, int64(n))
		}
	}
	return d
}

// Record implements Stage: the pass counts in the minute behind
// previousPassQps at at.
func (u *WarmUpRateLimiter) Record(at time.Duration) { u.minute.add(u.epoch+floorMs(at), 1) }

// Check implements Stage: WarmUpRateLimiterController.canPass, which moves
// latestPassedTime for every pass.
func (u *WarmUpRateLimiter) Check(now time.Duration) Decision { return u.check(now, 1) }

// check is canPass(node, acquireCount n).
func (u *WarmUpRateLimiter) check(now time.Duration, n int32) Decision {
	t := u.epoch + floorMs(now)
	u.tokens.sync(t, u.minute.previous(t))
	var cost int64
	if u.tokens.stored >= u.tokens.warningToken {
		cost = javaRound(1.0 * float64(n) / u.tokens.warningQps() * 1000)
	} else {
		cost = javaRound(1.0 * float64(n) / u.tokens.count * 1000)
	}
	wait, ok := queue(&u.latest, cost, u.maxQueue, t)
	if !ok {
		return Decision{}
	}
	return Decision{Pass: true, Wait: time.Duration(wait) * time.Millisecond}
}

// Spec implements Limiter.
func (u *WarmUpRateLimiter) Spec() string {
	return fmt.Sprintf("warm-up-rate-limiter:limit=%s,warm-up=%s,cold-factor=%d,max-queue=%s",
		formatFloat(u.cfg.Limit), FormatDuration(u.cfg.WarmUp), u.cfg.ColdFactor, FormatDuration(u.cfg.MaxQueue))
}

// Rate implements Limiter.
func (u *WarmUpRateLimiter) Rate() float64 { return u.cfg.Limit }

// Warnings implements Warner: max-queue=0 makes Sentinel's rule loader
// drop the rule, as for leaky-bucket; above 2000/s its cost,
// Math.round(1000/rate) whole milliseconds, is 0, so once warm it passes
// everything.
func (u *WarmUpRateLimiter) Warnings() []string {
	var out []string
	if u.cfg.MaxQueue == 0 {
		out = append(out, maxQueueZero("warm-up-rate-limiter"))
	}
	switch warm, edge := warmUpRateLimiterFree(u.cfg.Limit); {
	case warm:
		out = append(out, fmt.Sprintf("warm-up-rate-limiter at %s/s limits nothing once warm: its cost, Math.round(1000/limit) ms, is 0 above %d/s (Sentinel's own arithmetic); use leaky-bucket, which counts in nanoseconds at such rates",
			formatNumber(u.cfg.Limit), maxWarmUpRateLimiterRate))
	case edge:
		out = append(out, fmt.Sprintf("warm-up-rate-limiter at %s/s limits nothing while its tokens sit at the warning line: there its rate, nextUp(1/(1/limit)), is just above %s/s and its cost, Math.round(1000/rate) ms, is 0 (Sentinel's own arithmetic), so it can pass far more than the limit; use at most %d/s, or leaky-bucket, which counts in nanoseconds",
			formatNumber(u.cfg.Limit), formatNumber(u.cfg.Limit), maxWarmUpRateLimiterRate-1))
	}
	return out
}

// maxWarmUpRateLimiterRate is the largest limit at which
// WarmUpRateLimiterController's cost once warm, Math.round(1000/limit) ms,
// is not 0.
const maxWarmUpRateLimiterRate = 2000

// warmUpRateLimiterFree reports where Check's cost, Math.round(1000/rate)
// ms, is 0 for this limit (alibaba/Sentinel
// sentinel-core/.../flow/controller/WarmUpRateLimiterController.java,
// canPass: restToken >= warningToken takes warmingQps =
// Math.nextUp(1.0 / (aboveToken * slope + 1.0 / count))): warm,
// below the warning line, where rate is the limit; edge, at the warning
// line (aboveToken 0), where rate is warningQps's largest value,
// nextUp(1/(0·slope + 1/limit)), one ulp above the limit at 2000/s, so
// that the cost of 0.49999999999999994 ms rounds to 0. The rate falls as
// the stored tokens rise above the line, so edge is the only other place.
func warmUpRateLimiterFree(limit float64) (warm, edge bool) {
	warm = javaRound(1.0*1/limit*1000) == 0
	top := nextUp(1.0 / (0*1.0 + 1.0/limit))
	edge = javaRound(1.0*1/top*1000) == 0
	return warm, edge && !warm
}

// StateBytes implements Limiter.
func (u *WarmUpRateLimiter) StateBytes() int {
	return int(unsafe.Sizeof(*u)) + u.minute.stateBytes() + u.pending.bytes()
}
