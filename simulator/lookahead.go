package simulator

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// carryDecider is a limiter some of whose decisions depend on arrivals
// after them (sentinel-cluster: a fallback's local check at T + timeout
// counts the passes of every arrival before T + timeout). It takes the
// stream in order (FeedRequests) and gives back, in arrival order, the
// decisions that no later arrival can change any more (TakeDecisions);
// with end, every one left.
type carryDecider interface {
	FeedRequests(clocks []time.Duration, reqs []algorithms.Request)
	TakeDecisions(out []algorithms.Decision, end bool) int
}

// carryRow runs a carryDecider on the fast path across the engine's
// batches: each batch is fed whole, and the arrivals whose decision is
// not final yet are copied out of the batch (which goes back to the pool
// as any other) and carried until a later batch or the end of the stream
// settles them. No batch is held, so the pool cannot run dry, and the
// carry grows as far as exactness needs (the arrivals within one timeout
// of the first undecided one): decisions, bins, decisions.csv and every
// accumulator still see the arrivals in order, exactly as a run fed the
// whole trace in one batch.
type carryRow struct {
	lim   algorithms.Limiter
	cd    carryDecider
	seq   int64               // run index of buf[0]
	buf   []scenarios.Arrival // arrivals fed, not yet recorded
	ds    []algorithms.Decision
	clock []time.Duration
	reqs  []algorithms.Request
}

func newCarryRow(lim algorithms.Limiter) *carryRow {
	cd, ok := lim.(carryDecider)
	if !ok {
		return nil
	}
	return &carryRow{lim: lim, cd: cd}
}

// process feeds batch b and records the decisions it settles.
func (c *carryRow) process(acc *accumulator, b *batch, rows *decisionWriter) (err error) {
	defer c.recover(&err)
	if len(c.buf) == 0 {
		c.seq = b.seq
	}
	c.buf = append(c.buf, b.arr...)
	c.clock, c.reqs = c.clock[:0], c.reqs[:0]
	for j := range b.arr {
		var r algorithms.Request
		requestOf(&b.arr[j], &r)
		c.clock = append(c.clock, b.arr[j].Clock)
		c.reqs = append(c.reqs, r)
	}
	t0 := time.Now()
	c.cd.FeedRequests(c.clock, c.reqs)
	acc.decideNs += int64(time.Since(t0))
	return c.take(acc, rows, false)
}

// finish records the decisions left at the end of the stream.
func (c *carryRow) finish(acc *accumulator, rows *decisionWriter) error {
	return c.take(acc, rows, true)
}

// recover turns a panic of the limiter into the run's error, naming the
// first arrival not recorded yet.
func (c *carryRow) recover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("algorithm %s panicked at arrival %d: %v", c.lim.Spec(), c.seq, r)
	}
}

func (c *carryRow) take(acc *accumulator, rows *decisionWriter, end bool) (err error) {
	defer c.recover(&err)
	if cap(c.ds) < len(c.buf) {
		c.ds = make([]algorithms.Decision, len(c.buf))
	}
	ds := c.ds[:len(c.buf)]
	t0 := time.Now()
	n := c.cd.TakeDecisions(ds, end)
	acc.decideNs += int64(time.Since(t0))
	if err := limiterErr(c.lim); err != nil {
		return err
	}
	if end && n != len(c.buf) {
		return fmt.Errorf("algorithm %s left %d of the last arrivals undecided at the end of the stream", c.lim.Spec(), len(c.buf)-n)
	}
	if n == 0 {
		return nil
	}
	acc.decisions += int64(n)
	if err := recordDecided(c.lim, acc, c.seq, c.buf[:n], ds[:n], rows); err != nil {
		return err
	}
	rest := copy(c.buf, c.buf[n:])
	c.buf = c.buf[:rest]
	c.seq += int64(n)
	return nil
}
