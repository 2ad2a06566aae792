package simulator

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// eventedRow is a row whose decisions may be known later than its
// arrivals. The engine feeds it every batch in order with process, which
// hands the outcomes that became final, in arrival order, to the row's
// accumulator and decisions writer (a reorder buffer holds the others),
// and calls finish after the last batch to run what is left.
type eventedRow interface {
	process(b *batch) error
	finish() error
}

// newEventedRow returns the evented runner of lim for this run, or nil
// for the fast path; b is the first batch.
func newEventedRow(lim algorithms.Limiter, acc *accumulator, rows *decisionWriter, cfg *Config, b *batch) eventedRow {
	if r := newChainRow(lim, acc, rows, cfg, b); r != nil {
		return r
	}
	return nil
}

// chainRow runs one evented row for the engine: the arrivals go to a
// chainUnit, and its outcomes, in arrival order, to the accumulator and
// the decisions writer.
type chainRow struct {
	p99  binP99
	lim  algorithms.Limiter
	unit *chainUnit
	acc  *accumulator
	rows *decisionWriter
}

// newChainRow returns the evented runner of lim, or nil when lim stays on
// the fast path: it is a chain or a breaker, or the run has a downstream,
// or the arrivals carry responses (seen on the first batch b).
func newChainRow(lim algorithms.Limiter, acc *accumulator, rows *decisionWriter, cfg *Config, b *batch) *chainRow {
	traceResp := len(b.arr) > 0 && b.arr[0].HasResponse
	if !evented(lim) && cfg.Downstream == nil && !traceResp {
		return nil
	}
	r := &chainRow{lim: lim, acc: acc, rows: rows}
	r.unit = newChainUnit(lim, cfg.Downstream, traceResp, r.out)
	acc.chain = &chainStats{unit: r.unit}
	r.unit.outRetry = r.outRetry
	r.unit.sample = r.sample
	r.unit.startUsers(cfg.End)
	if len(r.unit.completers) > 0 || r.unit.clients != nil {
		r.unit.onExit = r.p99.add(acc)
	}
	if r.unit.breaker != nil {
		acc.chain.breaker = r.unit.breaker.Spec()
	}
	return r
}

// outRetry accounts one finished retry attempt: its arrival, decision and
// response, at their own times.
func (r *chainRow) outRetry(o *outcome) {
	r.acc.add(o.at, o.dec, o.prio)
	if r.acc.keys != nil {
		r.acc.keys.add(r.acc, o.at, &o.req.Keys, o.keyUser, o.req.Cost, o.dec)
	}
	if o.attempt > 0 {
		r.acc.binAt(int64(o.at)).Retries++
		r.acc.chain.retries++
	}
	if o.resp {
		r.acc.chain.addResponse(r.acc, o)
	}
}

// sample records the adaptive stages' in-flight count and limit in the
// bin of at (the last arrival of the bin wins).
func (r *chainRow) sample(at time.Duration, inflight int64, limit float64) {
	b := r.acc.exitAt(int64(at))
	b.InFlight, b.Limit, b.Sampled = inflight, limit, true
	if s := r.unit.signals; s != nil {
		b.CPU, b.HasCPU = float32(s.CPU(at)), true
	}
}

func (r *chainRow) out(o *outcome) {
	r.acc.add(o.at, o.dec, o.prio)
	if r.acc.keys != nil {
		r.acc.keys.add(r.acc, o.at, &o.req.Keys, o.keyUser, o.req.Cost, o.dec)
	}
	if o.resp {
		r.acc.chain.addResponse(r.acc, o)
	}
	if r.rows != nil {
		r.rows.outcome(o)
	}
}

func (r *chainRow) process(b *batch) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("algorithm %s panicked at arrival %d: %v", r.lim.Spec(), b.seq, p)
		}
	}()
	if r.unit.err != nil {
		return r.unit.err
	}
	t0 := time.Now()
	for j := range b.arr {
		r.unit.arrive(b.seq+int64(j), b.arr[j])
		if r.unit.err != nil {
			return r.unit.err // a time wrapped (chainUnit.schedule)
		}
	}
	r.acc.decideNs += int64(time.Since(t0))
	r.acc.decisions += int64(len(b.arr))
	if r.rows != nil {
		return r.rows.err()
	}
	return nil
}

// finish runs the events left after the last arrival.
func (r *chainRow) finish() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("algorithm %s panicked after the last arrival: %v", r.lim.Spec(), p)
		}
	}()
	r.unit.flush()
	if r.unit.err != nil {
		return r.unit.err
	}
	r.p99.flush(r.acc)
	if r.rows != nil {
		return r.rows.err()
	}
	return nil
}

// outcome writes one decisions.csv row of an evented row.
func (d *decisionWriter) outcome(o *outcome) {
	b := append(d.buf[:0], d.prefix...)
	b = strconv.AppendInt(b, o.seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(o.clock), 10)
	if o.dec.Pass {
		b = append(b, ",pass,"...)
		b = strconv.AppendInt(b, int64(max(o.dec.Wait, 0)), 10)
		b = append(b, ',', ',')
		if o.resp {
			b = strconv.AppendInt(b, int64(o.rt), 10)
			if o.failed {
				b = append(b, ",1"...)
			} else {
				b = append(b, ",0"...)
			}
		} else {
			b = append(b, ',')
		}
	} else {
		b = append(b, ",block,0,"...)
		if o.stage == stageBreaker {
			b = append(b, "breaker,,"...)
		} else {
			b = append(b, "flow,,"...)
		}
	}
	b = appendPriority(b, o.prio)
	d.buf = b
	d.w.Write(b) // the error is sticky; see err
}

// chainStats accumulates an evented row's responses.
type chainStats struct {
	unit                        *chainUnit
	breaker                     string
	rt                          waitHist
	completed, errors, timeouts int64
	retries                     int64
}

func (c *chainStats) addResponse(a *accumulator, o *outcome) {
	exit := o.at + o.dec.Wait + o.rt
	b := a.exitAt(int64(exit))
	b.Completed++
	c.completed++
	rt := max(o.rt, 0)
	b.RTSum += rt
	b.RTMax = max(b.RTMax, rt)
	c.rt.add(rt)
	if o.failed {
		b.Errors++
		c.errors++
	}
	if o.timeout {
		b.Timeouts++
		c.timeouts++
	}
}

// result summarises the row; the run's bins end at bin index hi, its span
// at runEnd.
func (c *chainStats) result(lo, hi int64, a *accumulator, runEnd time.Duration) *ChainResult {
	u := c.unit
	r := &ChainResult{
		Responses: u.respond, Completed: c.completed, Errors: c.errors, Timeouts: c.timeouts,
		Breaker: c.breaker, Transitions: u.transitions, Probes: u.probes,
		Retries: c.retries, Goodput: c.completed - c.errors,
		RetriesDroppedAtEnd: u.endDropped,
	}
	q3 := c.rt.quantiles(50, 90, 99, 99.9)
	r.RTP90, r.RTP999 = q3[1], q3[3]
	c.adaptiveResult(r, a, runEnd)
	q := c.rt.quantiles(50, 99)
	r.RTP50, r.RTP99, r.RTMax = q[0], q[1], c.rt.max
	end := time.Duration(a.start + hi*a.bin)
	var openedAt time.Duration
	open := false
	for _, t := range u.transitions {
		if t.To == algorithms.Open {
			r.Opens++
			open, openedAt = true, t.At
		} else if open {
			r.OpenTime += max(t.At-openedAt, 0)
			open = false
		}
	}
	if open {
		r.OpenTime += max(end-openedAt, 0)
	}
	return r
}
