package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// ConcurrencyConfig configures a Concurrency limiter.
type ConcurrencyConfig struct {
	// Limit is the flow rule's count: the most calls in flight.
	Limit float64
	// Go selects sentinel-golang's core/isolation (whole thresholds).
	Go bool
}

// Concurrency is Sentinel's FlowRule of THREAD grade: DefaultController
// compares the resource's current thread count, which counts the calls
// that passed StatisticSlot and have not exited, excluding the current
// request, plus the acquire count 1, with the rule's count:
//
//	block iff curThreadNum + 1 > count
//
// so count = N admits N calls at once. The thread count grows when the
// whole slot chain passed (Record/Begin) and shrinks at exit (Complete),
// whatever the outcome. flavor=go is sentinel-golang's core/isolation
// (MetricType Concurrency): block iff uint32(concurrency) + 1 > threshold,
// the same decisions with a whole threshold.
type Concurrency struct {
	cfg      ConcurrencyConfig
	inflight int64
}

// NewConcurrency validates c.
func NewConcurrency(c ConcurrencyConfig) (*Concurrency, error) {
	if !(c.Limit >= 0) || math.IsInf(c.Limit, 0) {
		return nil, fmt.Errorf("concurrency: limit must be a number of calls, 0 or more, got %s (for example limit=20)", formatNumber(c.Limit))
	}
	if c.Go && (c.Limit != math.Trunc(c.Limit) || c.Limit > math.MaxUint32) {
		return nil, fmt.Errorf("concurrency: flavor=go needs a whole limit up to %d (sentinel-golang's Threshold is a uint32), got %s", uint32(math.MaxUint32), formatNumber(c.Limit))
	}
	return &Concurrency{cfg: c}, nil
}

// Decide implements Limiter.
func (c *Concurrency) Decide(now time.Duration) Decision { return completerDecide(c, now) }

// Check implements Stage.
func (c *Concurrency) Check(time.Duration) Decision {
	if c.cfg.Go {
		// uint32 arithmetic: curCount + batchCount > threshold.
		return Decision{Pass: !(uint32(c.inflight)+1 > uint32(c.cfg.Limit))}
	}
	// Java: (int) curThreadNum + acquireCount > count, in double.
	return Decision{Pass: !(float64(int32(c.inflight)+1) > c.cfg.Limit)}
}

// Record implements Stage.
func (c *Concurrency) Record(at time.Duration) { c.Begin(at, at) }

// Begin implements Completer: increaseThreadNum.
func (c *Concurrency) Begin(arrival, _ time.Duration) Ticket {
	c.inflight++
	return Ticket{At: arrival}
}

// Complete implements Completer: decreaseThreadNum.
func (c *Concurrency) Complete(time.Duration, Ticket, Outcome) { c.inflight-- }

// InFlight implements Completer.
func (c *Concurrency) InFlight() int64 { return c.inflight }

// CurrentLimit implements Completer.
func (c *Concurrency) CurrentLimit(time.Duration) float64 { return c.cfg.Limit }

// Spec implements Limiter.
func (c *Concurrency) Spec() string {
	f := "java"
	if c.cfg.Go {
		f = "go"
	}
	return "concurrency:limit=" + formatFloat(c.cfg.Limit) + ",flavor=" + f
}

// Rate implements Limiter: a concurrency limit has no rate.
func (c *Concurrency) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (c *Concurrency) StateBytes() int { return int(unsafe.Sizeof(*c)) }
