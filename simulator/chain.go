package simulator

import (
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// This file is the chain executor: a row whose decisions may be known
// only later than the arrival (a chain A+B+…, a circuit breaker, a
// downstream that answers later). It is an evented unit: it is fed the
// arrivals in order, runs everything they cause on an eventq on the
// limiters' clock, and hands out each arrival's outcome in arrival order
// once it is final (a reorder buffer), so the accumulator and
// decisions.csv see the same order as on the fast path.
//
// Event order, the contract the reference comparison uses: events run in
// clock order; at equal times completions first, then the later stages of
// earlier arrivals (with the pass they record), then the arrival; ties in
// arrival order. A stage that comes after no wait runs inside the step
// that reached it (Sentinel's slot chain is one call), so it sees the
// same state as its arrival.

// Event classes.
const (
	classCompletion = 0
	classStage      = 1
	classArrival    = 2
)

// Stage names in decisions.csv.
const (
	stagePass    = 0
	stageFlow    = 1
	stageBreaker = 2
)

// outcome is one arrival's result as it becomes final.
type outcome struct {
	seq   int64
	at    time.Duration // true time of the arrival
	clock time.Duration // the limiters' clock at the arrival
	dec   algorithms.Decision
	stage uint8
	// Response: set when the row has a response source and the pass
	// completed. rt is exit − admission.
	resp, failed, timeout bool
	rt                    time.Duration
	done                  bool
	prio                  bool // the arrival is prioritized

	// The arrival's recorded response (a trace with rt_ms,error).
	traceResp   bool
	traceFailed bool
	traceRT     time.Duration
}

// Transition is one state change of a chain's circuit breaker.
type Transition struct {
	// At is the true time of the change; Clock what the limiters' clock
	// read.
	At, Clock time.Duration
	From, To  algorithms.BreakerState
	// Seq is the arrival that caused it: the probe (OPEN → HALF_OPEN) or
	// the request whose completion decided.
	Seq int64
}

type chainEvent struct {
	complete bool
	k        int // the stage to ask next (stage events)
	failed   bool
	timeout  bool
}

// chainUnit drives one row.
type chainUnit struct {
	stages  []algorithms.Stage
	breaker *algorithms.CircuitBreaker
	ds      *downstream
	// respond is true when passes get a response: a downstream, a trace
	// with responses, or a breaker (which then sees every pass complete at
	// its admission, without error).
	respond   bool
	traceResp bool

	q    eventq.Queue[chainEvent]
	pend []outcome // pend[off+i] is arrival base+i
	off  int
	base int64
	out  func(*outcome)

	transitions []Transition
	probes      int64

	// A row of one limiter that reads requests (algorithms.RequestLimiter)
	// decides through reqStage, which reads req: the arrival being
	// decided (only stage 0 of such a row is asked, at its arrival).
	// exiter, when not nil, is told of every exit (a limiter whose
	// reference reads its state when a request exits).
	req    algorithms.Request
	exiter algorithms.Exiter
}

// evented reports whether lim needs the chain executor.
func evented(lim algorithms.Limiter) bool {
	switch lim.(type) {
	case *algorithms.Chain, *algorithms.CircuitBreaker:
		return true
	}
	return false
}

// newChainUnit builds the unit for lim; ds is the row's own downstream
// (or nil), traceResp whether the arrivals carry responses. out receives
// the outcomes in arrival order.
func newChainUnit(lim algorithms.Limiter, ds *scenarios.Downstream, traceResp bool, out func(*outcome)) *chainUnit {
	u := &chainUnit{out: out, traceResp: traceResp}
	switch l := lim.(type) {
	case *algorithms.Chain:
		u.stages, u.breaker = l.Stages(), l.Breaker()
	case algorithms.RequestLimiter:
		// Before Stage: a row of one limiter that reads the request (a
		// prioritized leap-array) decides it whole, as on the fast path.
		u.stages = []algorithms.Stage{reqStage{l, &u.req}}
	case algorithms.Stage:
		u.stages = []algorithms.Stage{l}
		u.breaker, _ = l.(*algorithms.CircuitBreaker)
	default:
		u.stages = []algorithms.Stage{decideStage{lim}}
	}
	if ds != nil {
		u.ds = newDownstream(ds)
	}
	u.respond = u.ds != nil || traceResp || u.breaker != nil
	if e, ok := lim.(algorithms.Exiter); ok && u.respond && len(u.stages) == 1 {
		// Every pass then completes with an exit event: report them.
		e.ReportExits()
		u.exiter = e
	}
	return u
}

// decideStage makes a plain Limiter a stage whose Record is part of its
// Decide.
type decideStage struct{ algorithms.Limiter }

func (d decideStage) Check(now time.Duration) algorithms.Decision { return d.Decide(now) }
func (d decideStage) Record(time.Duration)                        {}

// reqStage is decideStage for a RequestLimiter: it decides the request
// its unit is arriving.
type reqStage struct {
	algorithms.RequestLimiter
	req *algorithms.Request
}

func (d reqStage) Check(now time.Duration) algorithms.Decision {
	return d.DecideRequest(now, d.req)
}
func (d reqStage) Record(time.Duration) {}

func (u *chainUnit) get(seq int64) *outcome { return &u.pend[u.off+int(seq-u.base)] }

// arrive feeds arrival seq.
func (u *chainUnit) arrive(seq int64, a scenarios.Arrival) {
	u.runUntil(eventq.Key{At: a.Clock, Class: classArrival, Seq: seq})
	if len(u.pend) == u.off {
		u.pend, u.off, u.base = u.pend[:0], 0, seq
	}
	u.pend = append(u.pend, outcome{seq: seq, at: a.At, clock: a.Clock,
		traceResp: a.HasResponse, traceFailed: a.Failed, traceRT: a.RT, prio: a.Priority})
	requestOf(&a, &u.req)
	u.step(seq, 0, a.Clock)
	u.emit()
}

// flush runs every remaining event and hands out every outcome.
func (u *chainUnit) flush() {
	for u.q.Len() > 0 {
		u.pop()
	}
	u.emit()
}

func (u *chainUnit) runUntil(k eventq.Key) {
	for u.q.Before(k) {
		u.pop()
	}
}

func (u *chainUnit) pop() {
	k, ev := u.q.Pop()
	if ev.complete {
		u.complete(k.Seq, k.At, ev.failed, ev.timeout)
	} else {
		u.step(k.Seq, ev.k, k.At)
	}
}

// emit hands out the final outcomes at the head of the buffer.
func (u *chainUnit) emit() {
	i := u.off
	for i < len(u.pend) && u.pend[i].done {
		u.out(&u.pend[i])
		i++
	}
	u.base += int64(i - u.off)
	u.off = i
	if u.off > 1024 && 2*u.off > len(u.pend) {
		n := copy(u.pend, u.pend[u.off:])
		u.pend, u.off = u.pend[:n], 0
	}
}

// step asks stage k and the ones after it at t, until one blocks, one
// makes the request wait (the rest is an event) or the chain is passed.
func (u *chainUnit) step(seq int64, k int, t time.Duration) {
	o := u.get(seq)
	for ; k < len(u.stages); k++ {
		s := u.stages[k]
		var d algorithms.Decision
		if s == algorithms.Stage(u.breaker) {
			before := u.breaker.State()
			d = s.Check(t)
			if after := u.breaker.State(); after != before {
				u.transition(o, t, before, after)
				u.probes++
			}
		} else {
			d = s.Check(t)
		}
		if !d.Pass {
			o.done = true
			o.stage = stageFlow
			if s == algorithms.Stage(u.breaker) {
				o.stage = stageBreaker
			}
			return
		}
		if d.Wait > 0 {
			u.q.Push(eventq.Key{At: t + d.Wait, Class: classStage, Seq: seq}, chainEvent{k: k + 1})
			return
		}
	}
	// Admitted at t: every stage records the pass (StatisticSlot).
	for _, s := range u.stages {
		s.Record(t)
	}
	o.dec = algorithms.Decision{Pass: true, Wait: t - o.clock}
	switch {
	case u.ds != nil:
		exit, failed, timeout := u.ds.serve(seq, t)
		u.q.Push(eventq.Key{At: exit, Class: classCompletion, Seq: seq}, chainEvent{complete: true, failed: failed, timeout: timeout})
	case o.traceResp:
		u.q.Push(eventq.Key{At: t + o.traceRT, Class: classCompletion, Seq: seq}, chainEvent{complete: true, failed: o.traceFailed})
	case u.breaker != nil:
		u.q.Push(eventq.Key{At: t, Class: classCompletion, Seq: seq}, chainEvent{complete: true})
	default:
		o.done = true
	}
}

// complete is the exit of an admitted request at exit.
func (u *chainUnit) complete(seq int64, exit time.Duration, failed, timeout bool) {
	o := u.get(seq)
	if u.exiter != nil {
		u.exiter.Exit(exit)
	}
	if b := u.breaker; b != nil {
		before := b.State()
		b.Complete(o.clock, exit, failed)
		if after := b.State(); after != before {
			u.transition(o, exit, before, after)
		}
	}
	o.resp, o.failed, o.timeout = true, failed, timeout
	o.rt = exit - (o.clock + o.dec.Wait)
	o.done = true
}

func (u *chainUnit) transition(o *outcome, clock time.Duration, from, to algorithms.BreakerState) {
	u.transitions = append(u.transitions, Transition{At: clock + (o.at - o.clock), Clock: clock, From: from, To: to, Seq: o.seq})
}
