package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// EnvoyFraction is a RuntimeFractionalPercent's default_value: Num out of
// Den, Den one of 100 (HUNDRED), 10000 (TEN_THOUSAND) and 1000000
// (MILLION). Den 0 is the zero value, 100%.
type EnvoyFraction struct {
	Num, Den uint64
}

// always is true for 100% (or more: Envoy's evaluateFractionalPercent
// compares random % Den < Num, true for every draw when Num ≥ Den).
func (f EnvoyFraction) always() bool { return f.Den == 0 || f.Num >= f.Den }

func (f EnvoyFraction) String() string {
	if f.always() {
		return "1"
	}
	return fmt.Sprintf("%d/%d", f.Num, f.Den)
}

// envoyDenominators are FractionalPercent's DenominatorType values.
var envoyDenominators = []uint64{100, 10000, 1000000}

// ParseEnvoyFraction reads an enabled= or enforced= parameter: N/D with D
// 100, 10000 or 1000000 (the denominators HUNDRED, TEN_THOUSAND,
// MILLION, exactly as the configuration writes them), or a decimal
// fraction from 0 to 1 that one of them writes exactly (0.5 is 50/100,
// 0.0125 is 125/10000).
func ParseEnvoyFraction(key, v string) (EnvoyFraction, error) {
	bad := fmt.Errorf("envoy-local: %s %q is not a fraction: give N/D with D 100, 10000 or 1000000 (a RuntimeFractionalPercent's numerator and denominator, for example %s=50/100), or a decimal from 0 to 1 such as %s=0.25", key, v, key, key)
	if n, d, ok := strings.Cut(v, "/"); ok {
		num, err1 := strconv.ParseUint(n, 10, 64)
		den, err2 := strconv.ParseUint(d, 10, 64)
		if err1 != nil || err2 != nil || (den != 100 && den != 10000 && den != 1000000) {
			return EnvoyFraction{}, bad
		}
		return EnvoyFraction{num, den}, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		return EnvoyFraction{}, bad
	}
	if x == 1 {
		return EnvoyFraction{}, nil
	}
	for _, den := range envoyDenominators {
		if n := x * float64(den); n == math.Trunc(n) {
			return EnvoyFraction{uint64(n), den}, nil
		}
	}
	return EnvoyFraction{}, fmt.Errorf("envoy-local: %s %q is finer than a millionth; Envoy's denominators are 100, 10000 and 1000000, so write it as N/1000000", key, v)
}

// EnvoyLocalConfig configures an EnvoyLocal.
type EnvoyLocalConfig struct {
	// MaxTokens is token_bucket.max_tokens, the bucket size.
	MaxTokens uint32
	// TokensPerFill is token_bucket.tokens_per_fill.
	TokensPerFill uint32
	// FillInterval is token_bucket.fill_interval, whole milliseconds
	// (Envoy reads it with PROTOBUF_GET_MS), at least 50 ms in timer mode.
	FillInterval time.Duration
	// Timer selects Envoy ≤ 1.30's timer-refilled bucket; false is the
	// atomic bucket of Envoy ≥ 1.31.
	Timer bool
	// Phase is where the timer's grid starts: ticks at Phase + k·FillInterval,
	// k ≥ 1 (timer mode only).
	Phase time.Duration
	// MaxDescriptors is the LRU size of per-key buckets
	// (max_dynamic_descriptors, Envoy ≥ 1.34); read by the per-key wrapper.
	MaxDescriptors int
	// Enabled and Enforced are filter_enabled's and filter_enforced's
	// default_value (zero: 100%). Below 100% each is drawn per request,
	// as Envoy's runtime featureEnabled draws: a request not enabled
	// passes without touching the bucket; a refused request not enforced
	// passes (it was counted as rate limited, its token not taken).
	Enabled, Enforced EnvoyFraction
}

// EnvoyLocal is Envoy's HTTP local rate limit filter
// (envoy.filters.http.local_ratelimit) on one descriptor.
//
// Atomic mode (Envoy ≥ 1.31, runtime flag
// no_timer_based_rate_limit_token_bucket, then the only mode) is
// RateLimitTokenBucket over AtomicTokenBucketImpl: the whole state is one
// double, the time in seconds at which the bucket was last empty. With
// fill_rate = tokens_per_fill / (fill_interval_ms/1000.0) and now the
// monotonic clock in seconds (double(ns)/1e9; the lab's monotonic clock
// reads 0 at t = 0), a request of cost c computes
//
//	total = min(max_tokens, (now − time_old)·fill_rate)
//
// and passes iff total ≥ c, moving time_old to now − (total − c)/fill_rate.
// The bucket starts full: time_old = 0 − max_tokens/fill_rate. Every step
// is IEEE double arithmetic in this order, so tokens are not whole: after a
// pass at 0.1 s a bucket of rate 10/s may hold 0.9999999999999998 tokens a
// tenth of a second later and refuse, exactly as Envoy does.
//
// Timer mode (Envoy ≤ 1.30, TimerTokenBucket) counts whole tokens: a timer
// fires at Phase + k·FillInterval (k ≥ 1, from configuration load) and sets
// tokens = min(max_tokens, tokens + tokens_per_fill); a request passes iff
// tokens > 0 and takes one. A tick at an arrival's instant is applied
// first. 1.30 had no hits_addend, so timer mode takes one token whatever
// the request's cost.
type EnvoyLocal struct {
	atomic envoyAtomicState
	timer  envoyTimerState
	cfg    *envoyLocalParams
}

// envoyAtomicState is what changes in an atomic-mode EnvoyLocal: the one
// double of AtomicTokenBucketImpl. A per-key envoy-local keeps only this
// per key (8 bytes) and the configuration once.
type envoyAtomicState struct {
	timeOld float64 // seconds at which the bucket was empty
}

// envoyTimerState is what changes in a timer-mode EnvoyLocal: the whole
// tokens and the ticks applied so far (16 bytes per key).
type envoyTimerState struct {
	ticks  int64 // ticks applied so far
	tokens uint32
}

type envoyLocalParams struct {
	EnvoyLocalConfig
	fillRate float64 // tokens per second
	maxTok   float64
	// rnd draws filter_enabled and filter_enforced, one generator for the
	// filter (Envoy's runtime has one random generator, not one per
	// bucket): every per-key bucket and every Fresh copy draws from it.
	rnd *splitmix64
}

// draw is Runtime featureEnabled on f: random() % denominator < numerator
// (ProtobufPercentHelper::evaluateFractionalPercent), no draw at 100%.
func (p *envoyLocalParams) draw(f EnvoyFraction) bool {
	if f.always() {
		return true
	}
	return p.rnd.next()%f.Den < f.Num
}

// gate runs decide as Filter::decodeHeaders does around the bucket: a
// request the filter is not enabled for passes untouched; a refusal not
// enforced passes.
func (p *envoyLocalParams) gate(decide func() Decision) Decision {
	if !p.draw(p.Enabled) {
		return Decision{Pass: true}
	}
	d := decide()
	if !d.Pass && !p.draw(p.Enforced) {
		return Decision{Pass: true}
	}
	return d
}

// NewEnvoyLocal validates c and builds the limiter.
func NewEnvoyLocal(c EnvoyLocalConfig) (*EnvoyLocal, error) {
	switch {
	case c.MaxTokens < 1 || c.MaxTokens > math.MaxInt32:
		return nil, fmt.Errorf("envoy-local: max-tokens must be a whole number from 1 to %d, got %d", math.MaxInt32, c.MaxTokens)
	case c.TokensPerFill < 1 || c.TokensPerFill > math.MaxInt32:
		return nil, fmt.Errorf("envoy-local: tokens-per-fill must be a whole number from 1 to %d, got %d", math.MaxInt32, c.TokensPerFill)
	case c.FillInterval <= 0 || c.FillInterval%time.Millisecond != 0:
		return nil, fmt.Errorf("envoy-local: fill-interval must be a positive whole number of milliseconds, got %v (Envoy reads it in ms)", c.FillInterval)
	case c.FillInterval < 50*time.Millisecond:
		// Both the 1.30 timer and the ≥ 1.31 RateLimitTokenBucket refuse it
		// when the filter loads.
		return nil, fmt.Errorf("envoy-local: fill-interval must be at least 50ms, got %v (Envoy refuses the configuration: \"local rate limit token bucket fill timer must be >= 50ms\")", c.FillInterval)
	case c.Phase < 0:
		return nil, fmt.Errorf("envoy-local: phase must not be negative, got %v", c.Phase)
	case c.MaxDescriptors < 1:
		return nil, fmt.Errorf("envoy-local: max-descriptors must be at least 1, got %d", c.MaxDescriptors)
	}
	for _, f := range []EnvoyFraction{c.Enabled, c.Enforced} {
		if f.Den != 0 && f.Den != 100 && f.Den != 10000 && f.Den != 1000000 {
			return nil, fmt.Errorf("envoy-local: a fraction's denominator must be 100, 10000 or 1000000, got %d", f.Den)
		}
	}
	p := &envoyLocalParams{EnvoyLocalConfig: c, rnd: &splitmix64{}}
	// tokens_per_fill / std::chrono::duration<double>(fill_interval).count():
	// the interval is whole ms, converted as double(ms)/1000.
	seconds := float64(c.FillInterval/time.Millisecond) / 1000
	p.fillRate = math.Max(math.Abs(float64(c.TokensPerFill)/seconds), envoyMinFillRate)
	p.maxTok = float64(c.MaxTokens)
	e := &EnvoyLocal{cfg: p}
	e.reset()
	return e, nil
}

// reset puts the bucket in its state at creation (t = 0): full.
func (e *EnvoyLocal) reset() { e.atomic, e.timer = e.cfg.freshAtomic(), e.cfg.freshTimer() }

// freshAtomic is a full atomic bucket at t = 0. init_fill:
// time_in_seconds = now − max_tokens/fill_rate, now = 0.
func (p *envoyLocalParams) freshAtomic() envoyAtomicState {
	return envoyAtomicState{timeOld: 0 - p.maxTok/p.fillRate}
}

// freshTimer is a full timer bucket with no ticks applied.
func (p *envoyLocalParams) freshTimer() envoyTimerState {
	return envoyTimerState{tokens: p.MaxTokens}
}

// envoyMinFillRate is AtomicTokenBucketImpl's kMinFillRate: one token a year.
const envoyMinFillRate = 1.0 / (365 * 24 * 60 * 60)

// Decide implements Limiter.
func (e *EnvoyLocal) Decide(now time.Duration) Decision { return e.consume(now, 1) }

// DecideRequest implements RequestLimiter: atomic mode consumes the
// request's cost (hits_addend), timer mode one token.
func (e *EnvoyLocal) DecideRequest(now time.Duration, r *Request) Decision {
	c := r.Cost
	if c < 1 {
		c = 1
	}
	return e.consume(now, c)
}

// Check implements Stage: Envoy takes the token while deciding.
func (e *EnvoyLocal) Check(now time.Duration) Decision { return e.consume(now, 1) }

// Record implements Stage; the token is already taken.
func (e *EnvoyLocal) Record(time.Duration) {}

func (e *EnvoyLocal) consume(now time.Duration, cost int32) Decision {
	return e.cfg.gate(func() Decision {
		if e.cfg.Timer {
			return e.timer.consume(now, e.cfg)
		}
		return e.atomic.consume(now, cost, e.cfg)
	})
}

// Reseed implements Seeded: filter_enabled and filter_enforced are drawn
// from seed (the simulator passes the run's seed and the row's index).
func (e *EnvoyLocal) Reseed(seed uint64) { *e.cfg.rnd = splitmix64{s: seed} }

// consume is the timer bucket's request on s with configuration c: one
// token whatever the cost. The single-key limiter and the per-key table
// both decide through it.
func (s *envoyTimerState) consume(now time.Duration, c *envoyLocalParams) Decision {
	s.tick(now, c)
	if s.tokens == 0 {
		return Decision{}
	}
	s.tokens--
	return Decision{Pass: true}
}

// consume is RateLimitTokenBucket::consume of cost on s with
// configuration c. The single-key limiter and the per-key table both
// decide through it.
func (s *envoyAtomicState) consume(now time.Duration, cost int32, c *envoyLocalParams) Decision {
	// timeNowInSeconds: duration<double>(ns).count() = double(ns)/1e9.
	tNow := float64(now) / 1e9
	total := (tNow - s.timeOld) * c.fillRate
	if c.maxTok < total { // std::min(max_tokens_, x)
		total = c.maxTok
	}
	// RateLimitTokenBucket::consume: tokens = to_consume / factor, factor 1.
	tokens := float64(cost) / 1.0
	if total < tokens {
		return Decision{}
	}
	s.timeOld = tNow - (total-tokens)/c.fillRate
	return Decision{Pass: true}
}

// tick applies the timer ticks due by now: Phase + k·FillInterval ≤ now,
// k ≥ 1. Ticks already applied stay applied when the clock steps back.
func (s *envoyTimerState) tick(now time.Duration, c *envoyLocalParams) {
	since := now - c.Phase
	if since < c.FillInterval {
		return
	}
	k := int64(since / c.FillInterval)
	if k <= s.ticks {
		return
	}
	n := k - s.ticks
	s.ticks = k
	// Each tick sets min(max, tokens + per_fill); n ticks in a row give
	// min(max, tokens + n·per_fill) (no uint32 overflow: both < 2^31).
	room := int64(c.MaxTokens) - int64(s.tokens)
	if n >= (room+int64(c.TokensPerFill)-1)/int64(c.TokensPerFill) {
		s.tokens = c.MaxTokens
		return
	}
	s.tokens += uint32(n) * c.TokensPerFill
}

// MaxKeys is max_dynamic_descriptors: the most per-key buckets Envoy keeps
// (an LRU; a key pushed out starts again with a full bucket).
func (e *EnvoyLocal) MaxKeys() int { return e.cfg.MaxDescriptors }

// perKeyError refuses timer mode per key: Envoy's per-key buckets are its
// dynamic descriptors (a descriptor entry with no value, one bucket per
// value seen, max_dynamic_descriptors), which came in 1.34 with the atomic
// bucket only; 1.30's timer-refilled limiter had static descriptors alone,
// one bucket per descriptor value written in the configuration. key=* (one
// state for every request) is one bucket, as 1.30 has.
func (e *EnvoyLocal) perKeyError(key string) error {
	if !e.cfg.Timer || key == "*" {
		return nil
	}
	return fmt.Errorf("envoy-local: mode=timer cannot be per key (key=%s): Envoy's per-key buckets, its dynamic descriptors (≥ 1.34), are always the atomic kind, and 1.30's timer mode had none; use mode=atomic with key=, or mode=timer without key=", key)
}

// Spec implements Limiter.
func (e *EnvoyLocal) Spec() string {
	c := e.cfg
	mode := "atomic"
	if c.Timer {
		mode = "timer"
	}
	s := fmt.Sprintf("envoy-local:max-tokens=%d,tokens-per-fill=%d,fill-interval=%s,mode=%s,phase=%s,max-descriptors=%d",
		c.MaxTokens, c.TokensPerFill, FormatDuration(c.FillInterval), mode, FormatDuration(c.Phase), c.MaxDescriptors)
	// The fractions only below 100%, so the specs of filters always on
	// read as before.
	if !c.Enabled.always() {
		s += ",enabled=" + c.Enabled.String()
	}
	if !c.Enforced.always() {
		s += ",enforced=" + c.Enforced.String()
	}
	return s
}

// Rate implements Limiter: tokens_per_fill per fill_interval.
func (e *EnvoyLocal) Rate() float64 {
	return float64(e.cfg.TokensPerFill) / e.cfg.FillInterval.Seconds()
}

// StateBytes implements Limiter: the bucket's state and a pointer to the
// shared configuration.
func (e *EnvoyLocal) StateBytes() int { return int(unsafe.Sizeof(*e)) }

// keyedTable implements keyedStater: the bucket per key, of the mode's
// kind. max_dynamic_descriptors stays the table's bound (KeyBound, read by
// newKeyed from the prototype).
func (e *EnvoyLocal) keyedTable() keyedTable {
	p := e.cfg
	if p.Timer {
		return stateTable(p.freshTimer(),
			func(st *envoyTimerState, now time.Duration, _ *Request) Decision {
				return p.gate(func() Decision { return st.consume(now, p) })
			})
	}
	return stateTable(p.freshAtomic(),
		func(st *envoyAtomicState, now time.Duration, r *Request) Decision {
			return p.gate(func() Decision { return st.consume(now, r.cost(), p) })
		})
}

// Fresh implements Freshener: a new bucket (full, no ticks applied)
// sharing l's configuration.
func (e *EnvoyLocal) Fresh() Limiter {
	n := &EnvoyLocal{cfg: e.cfg}
	n.reset()
	return n
}
