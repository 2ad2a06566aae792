package scenarios

import (
	"fmt"
	"math"
	"time"
)

// Clients models the callers in front of the limiters (YAML clients:):
// each request that ends in an outcome named by RetryOn is sent again,
// after a backoff, up to Retries more times, while the retry budget holds
// a token. Retries are new arrivals of the same request on each row's own
// event queue, so every row sees the retries its own decisions cause.
type Clients struct {
	// Users, when positive, is a closed population on top of the
	// scenario's arrivals: each user sends a request, waits for its
	// outcome (retries included), thinks for an exponential time of mean
	// Think, and sends the next, until the scenario's end.
	Users int
	Think time.Duration
	// Retries is how many times a request is sent again at most.
	Retries int
	// Backoff is the wait before retry n (n = 0 for the first retry).
	Backoff Backoff
	// RetryOn: which outcomes are retried (reject: the limiter blocked it;
	// error: the call failed; timeout: the caller gave up).
	RetryOnReject, RetryOnError, RetryOnTimeout bool
	// Budget, when Ratio > 0, is a token bucket of Max tokens (starting
	// full): each success deposits Ratio, each retry costs 1.
	Budget struct {
		Ratio, Max float64
	}
}

// Jitter names the AWS backoff simulator's strategies.
type Jitter uint8

const (
	// JitterNone: min(cap, base·2ⁿ).
	JitterNone Jitter = iota
	// JitterFull: random in [0, min(cap, base·2ⁿ)).
	JitterFull
	// JitterEqual: t/2 + random in [0, t/2), t = min(cap, base·2ⁿ).
	JitterEqual
	// JitterDecorrelated: min(cap, random in [base, 3·previous)), the
	// previous sleep starting at base.
	JitterDecorrelated
)

var jitterNames = []string{"none", "full", "equal", "decorrelated"}

// String names the strategy.
func (j Jitter) String() string { return jitterNames[j] }

// ParseJitter reads a jitter name.
func ParseJitter(s string) (Jitter, bool) {
	for i, n := range jitterNames {
		if n == s {
			return Jitter(i), true
		}
	}
	return 0, false
}

// Backoff is the wait between attempts.
type Backoff struct {
	Base, Cap time.Duration
	Jitter    Jitter
}

// Sleep is the wait before retry n (0-based) given a uniform u in [0, 1)
// and, for decorrelated jitter, the previous sleep (0 before the first).
// These are the formulas of AWS's "Exponential Backoff And Jitter"
// (the backoff simulator's ExpoBackoff, ExpoBackoffFullJitter,
// ExpoBackoffEqualJitter, ExpoBackoffDecorr).
func (b Backoff) Sleep(n int, u float64, prev time.Duration) time.Duration {
	base, cp := float64(b.Base), float64(b.Cap)
	switch b.Jitter {
	case JitterDecorrelated:
		if prev <= 0 {
			prev = b.Base
		}
		lo, hi := base, 3*float64(prev)
		return time.Duration(math.Min(cp, lo+u*(hi-lo)))
	}
	t := math.Min(cp, base*math.Pow(2, float64(n)))
	switch b.Jitter {
	case JitterFull:
		return time.Duration(u * t)
	case JitterEqual:
		return time.Duration(t/2 + u*(t/2))
	}
	return time.Duration(t)
}

// Validate reports the first problem as one line naming the field.
func (c *Clients) Validate(timeout time.Duration) error {
	if c.Users < 0 || (c.Users > 0 && c.Think <= 0) {
		return fmt.Errorf("clients: users need a positive think time, e.g. users: 50, think: 100ms")
	}
	if c.Retries < 0 {
		return fmt.Errorf("clients: retries must not be negative, got %d", c.Retries)
	}
	if c.Retries > 0 && c.RetryOnTimeout && timeout <= 0 {
		return fmt.Errorf("clients: retries on timeout need a timeout; add clients: timeout: 1s (or downstream: timeout:)")
	}
	if c.Backoff.Base < 0 || c.Backoff.Cap < 0 {
		return fmt.Errorf("clients: backoff base and cap must not be negative")
	}
	if c.Budget.Ratio < 0 || c.Budget.Max < 0 {
		return fmt.Errorf("clients: budget ratio and max must not be negative")
	}
	return nil
}
