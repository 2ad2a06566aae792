package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// BreakerStrategy is a DegradeRule grade.
type BreakerStrategy int

// The three strategies of Sentinel 1.8's circuit breakers.
const (
	// SlowRatio opens on the share of slow calls (grade RT,
	// ResponseTimeCircuitBreaker).
	SlowRatio BreakerStrategy = iota
	// ErrorRatio opens on the share of failed calls (ExceptionCircuitBreaker).
	ErrorRatio
	// ErrorCount opens on the number of failed calls (ExceptionCircuitBreaker).
	ErrorCount
)

var strategyNames = []string{"slow-ratio", "error-ratio", "error-count"}

func (s BreakerStrategy) String() string {
	if s >= 0 && int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("BreakerStrategy(%d)", int(s))
}

// BreakerState is a circuit breaker's state.
type BreakerState int

// The states of Sentinel's CircuitBreaker.State.
const (
	Closed BreakerState = iota
	Open
	HalfOpen
)

func (s BreakerState) String() string {
	switch s {
	case Closed:
		return "CLOSED"
	case Open:
		return "OPEN"
	case HalfOpen:
		return "HALF_OPEN"
	}
	return fmt.Sprintf("BreakerState(%d)", int(s))
}

// CircuitBreakerConfig is a Sentinel 1.8 DegradeRule.
type CircuitBreakerConfig struct {
	Strategy BreakerStrategy
	// MaxRT is the slowest call that is not slow (the rule's count for
	// grade RT), whole milliseconds; SlowRatio only.
	MaxRT time.Duration
	// Threshold is slowRatioThreshold in [0, 1] for SlowRatio, the ratio in
	// [0, 1] for ErrorRatio, the count (≥ 0) for ErrorCount.
	Threshold float64
	// MinRequests is minRequestAmount (≥ 1).
	MinRequests int
	// StatInterval is statIntervalMs: whole milliseconds.
	StatInterval time.Duration
	// Recovery is timeWindow: whole seconds, at least 1.
	Recovery time.Duration
}

// CircuitBreaker is Sentinel 1.8's circuit breaker (AbstractCircuitBreaker
// with ResponseTimeCircuitBreaker or ExceptionCircuitBreaker), one
// DegradeRule on one resource.
//
// Check is tryPass, asked when the request reaches DegradeSlot: CLOSED
// passes; OPEN blocks until the clock reaches the opening millisecond plus
// Recovery, when the first request passes as the probe and the state
// becomes HALF_OPEN; HALF_OPEN blocks. Complete is onRequestComplete, called
// when an admitted request exits: it counts the call (total, and slow or
// failed) in the statistics, a LeapArray of one bucket of StatInterval
// aligned on the absolute millisecond clock. Then, if OPEN, nothing more;
// if HALF_OPEN, this completion decides alone, whether it is the probe or
// an older call: a slow call (SlowRatio) or a failed one (error strategies)
// reopens the breaker for another Recovery, anything else closes it and
// zeroes the current bucket; if CLOSED and the bucket holds at least
// MinRequests calls, the breaker opens when the ratio (or the count) is
// strictly above Threshold, or, for SlowRatio with Threshold 1, when every
// call counted is slow. A call's RT is exit ms − entry ms on Sentinel's
// millisecond clock, the entry being the request's arrival.
type CircuitBreaker struct {
	cfg        CircuitBreakerConfig
	epoch      int64
	intervalMs int64
	recoveryMs int64
	maxRtMs    int64

	state     BreakerState
	nextRetry int64
	// The one bucket: start, and whether it exists yet.
	bucketSet   bool
	bucketStart int64
	bad, total  int64
}

// NewCircuitBreaker validates c and builds the breaker.
func NewCircuitBreaker(c CircuitBreakerConfig) (*CircuitBreaker, error) {
	const name = "circuit-breaker"
	switch c.Strategy {
	case SlowRatio, ErrorRatio:
		if !(c.Threshold >= 0 && c.Threshold <= 1) {
			return nil, fmt.Errorf("%s: threshold must be a ratio between 0 and 1 for strategy=%s, got %s (for example threshold=0.5)", name, c.Strategy, formatNumber(c.Threshold))
		}
	case ErrorCount:
		if !(c.Threshold >= 0) || math.IsInf(c.Threshold, 0) {
			return nil, fmt.Errorf("%s: threshold must be a count of at least 0 for strategy=error-count, got %s (for example threshold=5: the 6th error opens)", name, formatNumber(c.Threshold))
		}
	default:
		return nil, fmt.Errorf("%s: unknown strategy %v; use slow-ratio, error-ratio or error-count", name, c.Strategy)
	}
	var maxRt int64
	if c.Strategy == SlowRatio {
		var err error
		if maxRt, err = wholeMs(name, "max-rt", c.MaxRT, 0); err != nil {
			return nil, err
		}
	} else if c.MaxRT != 0 {
		return nil, fmt.Errorf("%s: max-rt applies to strategy=slow-ratio only, not %s; drop max-rt", name, c.Strategy)
	}
	if c.MinRequests < 1 {
		return nil, fmt.Errorf("%s: min-requests must be at least 1, got %d (Sentinel's minRequestAmount)", name, c.MinRequests)
	}
	ims, err := wholeMs(name, "stat-interval", c.StatInterval, 1)
	if err != nil {
		return nil, err
	}
	// timeWindow is an int of seconds, and retryTimeoutMs = timeWindow·1000
	// an int of ms: at most ⌊(2³¹−1)/1000⌋ s.
	rec, err := wholeSeconds(name, "recovery", c.Recovery, 1, math.MaxInt32/1000, "Sentinel's timeWindow is an int of seconds, its retryTimeoutMs = timeWindow·1000 an int of ms")
	if err != nil {
		return nil, err
	}
	return &CircuitBreaker{
		cfg:        c,
		epoch:      epochMs(ims),
		intervalMs: ims,
		recoveryMs: rec * 1000,
		maxRtMs:    maxRt,
	}, nil
}

// State is the breaker's current state.
func (b *CircuitBreaker) State() BreakerState { return b.state }

// Config returns the rule.
func (b *CircuitBreaker) Config() CircuitBreakerConfig { return b.cfg }

// Decide implements Limiter: tryPass at now. Without completions the
// breaker never leaves CLOSED.
func (b *CircuitBreaker) Decide(now time.Duration) Decision { return b.Check(now) }

// Check implements Stage: AbstractCircuitBreaker.tryPass at now. The
// OPEN → HALF_OPEN transition of the probe happens here.
func (b *CircuitBreaker) Check(now time.Duration) Decision {
	switch b.state {
	case Closed:
		return Decision{Pass: true}
	case Open:
		if b.epoch+floorMs(now) >= b.nextRetry {
			b.state = HalfOpen
			return Decision{Pass: true}
		}
	}
	return Decision{}
}

// Record implements Stage; the breaker keeps no pass statistics.
func (b *CircuitBreaker) Record(time.Duration) {}

// Complete is onRequestComplete for an admitted request that arrived at
// entry and exits at exit (both on the limiters' clock), failed or not.
func (b *CircuitBreaker) Complete(entry, exit time.Duration, failed bool) {
	t := b.epoch + floorMs(exit)
	rt := t - (b.epoch + floorMs(entry))
	bad := failed
	if b.cfg.Strategy == SlowRatio {
		bad = rt > b.maxRtMs
	}
	if b.current(t) {
		if bad {
			b.bad++
		}
		b.total++
	}
	switch b.state {
	case Open:
		return
	case HalfOpen:
		if bad {
			b.state = Open
			b.nextRetry = t + b.recoveryMs
		} else {
			b.state = Closed
			if b.current(t) {
				b.bad, b.total = 0, 0
			}
		}
		return
	}
	// values(): the stored bucket, unless it is older than the interval
	// (never right after current(t), except that a bucket "in the future"
	// after a clock step back still counts).
	if !b.bucketSet || t-b.bucketStart > b.intervalMs || b.total < int64(b.cfg.MinRequests) {
		return
	}
	var cur float64
	switch b.cfg.Strategy {
	case SlowRatio:
		cur = float64(b.bad) * 1.0 / float64(b.total)
		if cur > b.cfg.Threshold || (cur == b.cfg.Threshold && b.cfg.Threshold == 1.0) {
			b.open(t)
		}
		return
	case ErrorRatio:
		cur = float64(b.bad) * 1.0 / float64(b.total)
	case ErrorCount:
		cur = float64(b.bad)
	}
	if cur > b.cfg.Threshold {
		b.open(t)
	}
}

func (b *CircuitBreaker) open(t int64) {
	b.state = Open
	b.nextRetry = t + b.recoveryMs
}

// current is LeapArray.currentWindow(t) with one bucket: it makes the
// stored bucket t's window, resetting a stale one, and reports whether the
// stored bucket is t's window. It is not when the clock stepped back before
// the bucket's start: Sentinel then hands out a throw-away bucket, so the
// call is counted nowhere.
func (b *CircuitBreaker) current(t int64) bool {
	ws := t - t%b.intervalMs
	switch {
	case !b.bucketSet:
		b.bucketSet, b.bucketStart, b.bad, b.total = true, ws, 0, 0
	case ws > b.bucketStart:
		b.bucketStart, b.bad, b.total = ws, 0, 0
	case ws < b.bucketStart:
		return false
	}
	return true
}

// Spec implements Limiter.
func (b *CircuitBreaker) Spec() string {
	s := "circuit-breaker:strategy=" + b.cfg.Strategy.String()
	if b.cfg.Strategy == SlowRatio {
		s += ",max-rt=" + FormatDuration(b.cfg.MaxRT)
	}
	return s + fmt.Sprintf(",threshold=%s,min-requests=%d,stat-interval=%s,recovery=%s",
		formatFloat(b.cfg.Threshold), b.cfg.MinRequests, FormatDuration(b.cfg.StatInterval), FormatDuration(b.cfg.Recovery))
}

// Rate implements Limiter: a breaker limits no rate, so 0.
func (b *CircuitBreaker) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (b *CircuitBreaker) StateBytes() int { return int(unsafe.Sizeof(*b)) }

// resourceWide marks the breaker as one per resource: it cannot be made
// per-key with key= (keyed.go).
func (b *CircuitBreaker) resourceWide() {}

// buildCircuitBreaker parses circuit-breaker:strategy=S,... for the
// registry.
func buildCircuitBreaker(a *args) (Limiter, error) {
	const name = "circuit-breaker"
	var c CircuitBreakerConfig
	s, _ := a.lookup("strategy")
	switch s {
	case "-":
		return nil, fmt.Errorf("%s needs a strategy: add strategy=slow-ratio, strategy=error-ratio or strategy=error-count", name)
	case "slow-ratio":
		c.Strategy = SlowRatio
	case "error-ratio":
		c.Strategy = ErrorRatio
	case "error-count":
		c.Strategy = ErrorCount
	default:
		return nil, fmt.Errorf("%s: unknown strategy %q; use slow-ratio, error-ratio or error-count", name, s)
	}
	if c.Strategy == SlowRatio {
		if !a.has("max-rt") {
			return nil, fmt.Errorf("%s: strategy=slow-ratio needs max-rt, the slowest call that is not slow (for example max-rt=200ms)", name)
		}
		var err error
		if c.MaxRT, err = a.duration("max-rt"); err != nil {
			return nil, err
		}
	} else if a.has("max-rt") {
		return nil, fmt.Errorf("%s: max-rt applies to strategy=slow-ratio only, not %s; drop max-rt", name, c.Strategy)
	}
	switch {
	case a.has("threshold"):
		var err error
		if c.Threshold, err = a.float("threshold"); err != nil {
			return nil, err
		}
	case c.Strategy == SlowRatio:
		c.Threshold = 1
	default:
		return nil, fmt.Errorf("%s: strategy=%s needs a threshold (for example threshold=%s)", name, c.Strategy, map[BreakerStrategy]string{ErrorRatio: "0.5", ErrorCount: "10"}[c.Strategy])
	}
	r := a.reader()
	c.MinRequests = r.int("min-requests")
	c.StatInterval = r.duration("stat-interval")
	c.Recovery = r.duration("recovery")
	if err := r.err(); err != nil {
		return nil, err
	}
	return NewCircuitBreaker(c)
}
