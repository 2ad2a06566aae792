package algorithms

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
)

// CheckToAdd is the check-then-add race of a two-step limiter, modelled on
// the virtual clock: a pass decided at t is recorded in the wrapped Stage's
// statistics only at t + Gap (plus its queueing wait, if any), and every
// arrival before that decides on a count without it.
//
// This is what happens inside one Sentinel process: FlowSlot's
// DefaultController reads the window count (Check), and StatisticSlot adds
// the pass (Record) only after the rest of the slot chain has run, so
// requests that arrive in between, on other threads, see a stale count.
// Gap is the time between the two steps; with many concurrent callers,
// about rate × Gap passes are "in flight" at any moment, and the limiter
// can let that many through past its limit.
//
// The definition, exactly: the wrapper's clock is the latest now given to
// Check. Record(at) queues the pass at at + Gap; before each Check(now)
// every queued pass due at or before now (in nanoseconds of virtual time)
// is recorded in the wrapped Stage, earliest first. A pass whose time has
// already been reached is recorded at once, so with Gap = 0 the wrapper
// makes exactly the wrapped limiter's decisions, on every trace. When the
// clock steps back, a queued pass waits until the clock reaches its time
// again. The queue is the shared event queue (internal/eventq); it grows
// to the number of passes in flight and then allocates nothing.
type CheckToAdd struct {
	inner Stage
	gap   time.Duration
	now   time.Duration
	q     eventq.Queue[struct{}]
	peak  int // most passes ever in flight: a lower bound of the queue's capacity
}

// NewCheckToAdd wraps s so that its passes are recorded gap after they are
// decided. gap must not be negative.
func NewCheckToAdd(s Stage, gap time.Duration) (*CheckToAdd, error) {
	if gap < 0 {
		return nil, fmt.Errorf("%s: check-to-add must not be negative, got %v (for example check-to-add=2ms; 0 records each pass as it is decided)", registryName(s.Spec()), gap)
	}
	return &CheckToAdd{inner: s, gap: gap, now: math.MinInt64}, nil
}

// Inner returns the wrapped limiter.
func (c *CheckToAdd) Inner() Stage { return c.inner }

// Gap returns the check-to-add delay.
func (c *CheckToAdd) Gap() time.Duration { return c.gap }

// InFlight is the number of passes decided but not yet recorded.
func (c *CheckToAdd) InFlight() int { return c.q.Len() }

// Decide implements Limiter: Check, then for a pass Record at the
// admission (now + Wait).
func (c *CheckToAdd) Decide(now time.Duration) Decision {
	d := c.Check(now)
	if d.Pass {
		c.Record(now + d.Wait)
	}
	return d
}

// Check implements Stage: record every pass due at or before now, then
// let the wrapped limiter decide.
func (c *CheckToAdd) Check(now time.Duration) Decision {
	c.now = now
	for {
		k, _, ok := c.q.Peek()
		if !ok || k.At > now {
			break
		}
		c.q.Pop()
		c.inner.Record(k.At)
	}
	return c.inner.Check(now)
}

// Record implements Stage: the pass admitted at at reaches the statistics
// at at + Gap.
func (c *CheckToAdd) Record(at time.Duration) {
	if at > math.MaxInt64-c.gap {
		at = math.MaxInt64 // saturate instead of wrapping into the past
	} else {
		at += c.gap
	}
	if at <= c.now {
		c.inner.Record(at)
		return
	}
	c.q.Push(eventq.Key{At: at}, struct{}{})
	c.peak = max(c.peak, c.q.Len())
}

// Spec implements Limiter: the wrapped spec plus check-to-add when it is
// not zero.
func (c *CheckToAdd) Spec() string {
	if c.gap == 0 {
		return c.inner.Spec()
	}
	return c.inner.Spec() + ",check-to-add=" + FormatDuration(c.gap)
}

// Rate implements Limiter.
func (c *CheckToAdd) Rate() float64 { return c.inner.Rate() }

// StateBytes implements Limiter: the wrapped state plus the queue, at the
// most passes it has held in flight.
func (c *CheckToAdd) StateBytes() int {
	return int(unsafe.Sizeof(*c)) + c.inner.StateBytes() + c.peak*int(unsafe.Sizeof(eventq.Key{}))
}

// SampleCount forwards the wrapped limiter's bucket count, when it has one.
func (c *CheckToAdd) SampleCount() int {
	if sc, ok := c.inner.(interface{ SampleCount() int }); ok {
		return sc.SampleCount()
	}
	return 0
}

// registryName is the name part of a spec string.
func registryName(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	return name
}
