package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// TokenBucketConfig configures a TokenBucket.
type TokenBucketConfig struct {
	// Rate is the refill rate in tokens per second; it may be fractional.
	Rate float64
	// Burst is the bucket size.
	Burst int
}

// TokenBucket is a token bucket that starts full: tokens refill at Rate per
// second up to Burst, and a request passes iff it can take its cost in whole
// tokens now (a cost above Burst never passes and takes nothing). It makes
// the same decisions as golang.org/x/time/rate v0.16
// NewLimiter(Rate, Burst).AllowN(epoch+t, cost), reproducing its float64
// arithmetic: the refill is elapsed.Seconds()·Rate, a pass may leave the
// bucket a sub-nanosecond's worth of tokens below zero (x/time/rate truncates
// that wait to 0 and lets it through), and a time before the last pass
// counts as no elapsed time and moves the last pass back.
type TokenBucket struct {
	cfg   TokenBucketConfig
	burst float64
	st    tokenBucketState
}

// tokenBucketState is what changes in a TokenBucket: the tokens left at
// last, and whether a token was ever taken. A per-key token-bucket keeps
// only this per key (24 bytes) and the rate and burst once.
type tokenBucketState struct {
	tokens float64
	last   time.Duration
	seen   bool
}

// NewTokenBucket validates c and builds the limiter.
func NewTokenBucket(c TokenBucketConfig) (*TokenBucket, error) {
	if err := positiveLimit("token-bucket", "rate", c.Rate); err != nil {
		return nil, err
	}
	if c.Burst < 1 {
		return nil, fmt.Errorf("token-bucket: burst must be at least 1, got %d (a bucket smaller than one token passes nothing)", c.Burst)
	}
	return &TokenBucket{cfg: c, burst: float64(c.Burst), st: tokenBucketState{tokens: float64(c.Burst)}}, nil
}

// Decide implements Limiter.
func (b *TokenBucket) Decide(now time.Duration) Decision { return b.Check(now) }

// Record implements Stage; AllowN has already spent the token.
func (b *TokenBucket) Record(time.Duration) {}

// Check implements Stage: AllowN(now, 1), which spends a token on a pass.
func (b *TokenBucket) Check(now time.Duration) Decision {
	return Decision{Pass: b.st.take(now, 1, b.cfg.Rate, b.burst)}
}

// DecideRequest implements RequestLimiter: AllowN(now, cost).
func (b *TokenBucket) DecideRequest(now time.Duration, r *Request) Decision {
	return Decision{Pass: b.st.take(now, r.cost(), b.cfg.Rate, b.burst)}
}

// take is AllowN(now, n) on s with the bucket's rate and burst: it spends
// n tokens and reports true, or changes nothing and reports false.
//
// x/time/rate v0.16 rate.go, Limiter.reserveN: tokens -= n, the wait is
// durationFromTokens(-tokens), and ok = n <= lim.burst && wait <= 0 (AllowN
// reserves with maxFutureReserve 0); only an ok reservation stores last and
// tokens. So n above the burst is refused without consuming anything, even
// when the bucket is full.
func (s *tokenBucketState) take(now time.Duration, n int32, rate, burst float64) bool {
	if float64(n) > burst {
		return false
	}
	tokens := s.tokens
	if s.seen {
		last := s.last
		if now < last {
			last = now
		}
		tokens += durationSeconds(now-last) * rate
	}
	// Before the first pass, x/time/rate's last is the zero time.Time, so
	// the elapsed time saturates and the bucket is full.
	if tokens > burst {
		tokens = burst
	}
	tokens -= float64(n)
	if tokens < 0 && waitForTokens(-tokens, rate) > 0 {
		return false
	}
	s.seen, s.last, s.tokens = true, now, tokens
	return true
}

// durationSeconds is time.Duration.Seconds, spelled out so the order of
// float operations is visibly the same.
func durationSeconds(d time.Duration) float64 {
	sec := d / time.Second
	nsec := d % time.Second
	return float64(sec) + float64(nsec)/1e9
}

// waitForTokens is x/time/rate's Limit.durationFromTokens.
func waitForTokens(tokens, rate float64) time.Duration {
	d := (tokens / rate) * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return math.MaxInt64
	}
	return time.Duration(d)
}

// Spec implements Limiter.
func (b *TokenBucket) Spec() string {
	return fmt.Sprintf("token-bucket:rate=%s,burst=%d", formatFloat(b.cfg.Rate), b.cfg.Burst)
}

// Rate implements Limiter.
func (b *TokenBucket) Rate() float64 { return b.cfg.Rate }

// StateBytes implements Limiter.
func (b *TokenBucket) StateBytes() int { return int(unsafe.Sizeof(*b)) }

// keyedTable implements keyedStater: only the tokens and their time per
// key; the rate and burst are the spec's.
func (b *TokenBucket) keyedTable() keyedTable {
	rate, burst := b.cfg.Rate, b.burst
	return stateTable(tokenBucketState{tokens: burst},
		func(st *tokenBucketState, now time.Duration, r *Request) Decision {
			return Decision{Pass: st.take(now, r.cost(), rate, burst)}
		})
}
