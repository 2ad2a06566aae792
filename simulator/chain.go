package simulator

import (
	"fmt"
	"math"
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

	// req is what per-key stages read of the arrival (RequestStage);
	// keyUser the identity behind its key (the trace's user column), for
	// the per-key users_hurt figures.
	req     algorithms.Request
	keyUser int32

	// tk holds the tickets of the row's adaptive stages (adaptive.go).
	tk [maxCompleters]algorithms.Ticket
	// attempt is 0 for the stream's arrival, n for its n-th retry
	// (retry.go); sleep the last backoff (decorrelated jitter).
	attempt uint8
	sleep   time.Duration
	// user is the closed-population user who sent it (retry.go), −1 for
	// the stream's arrivals.
	user int32
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
	// retry is 1 + the slot of a retry attempt (retry.go), 0 for an
	// arrival of the stream.
	retry    int32
	k        int32 // the stage to ask next (stage events), the job (psTimeout)
	ps       uint8 // psTick or psTimeout (ps.go)
	complete bool
	failed   bool
	timeout  bool
}

// chainUnit drives one row.
type chainUnit struct {
	stages  []algorithms.Stage
	breaker *algorithms.CircuitBreaker
	chain   *algorithms.Chain // the row's chain, for its unbounded twin (or nil)
	ds      *downstream
	ps      *psDownstream // discipline: ps (then ds is nil)
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

	// exiter, when not nil, is told of every exit (a limiter whose
	// reference reads its state when a request exits).
	exiter algorithms.Exiter
	// The adaptive stages (adaptive.go): their indices in stages, and the
	// signals the arrivals script.
	completers []int
	signals    *signalTrack
	err        error
	lim        algorithms.Limiter // for wrapErr's spec

	// Retries (retry.go): the clients, their attempts in flight, the
	// budget, and where finished retry attempts go.
	clients  *scenarios.Clients
	seed     uint64
	retries  []outcome
	freeRty  []int32
	tokens   float64
	outRetry func(*outcome)
	// runEnd is the end of the run in true time: no attempt is sent at or
	// after it, neither a retry (counted in endDropped) nor a closed
	// user's next request.
	runEnd     time.Duration
	endDropped int64
	// onExit, if set, sees every response at its true exit, in clock
	// order (render_adaptive.go's per-bin RT p99).
	onExit func(exit, rt time.Duration)
	// sample, if set, records the adaptive stages' state after each
	// arrival (adaptive.go).
	sample func(at time.Duration, inflight int64, limit float64)
}

// evented reports whether lim needs the chain executor.
func evented(lim algorithms.Limiter) bool {
	switch lim.(type) {
	case *algorithms.Chain, *algorithms.CircuitBreaker, algorithms.Completer:
		return true
	}
	return false
}

// newChainUnit builds the unit for lim; ds is the row's own downstream
// (or nil), traceResp whether the arrivals carry responses. out receives
// the outcomes in arrival order.
func newChainUnit(lim algorithms.Limiter, ds *scenarios.Downstream, traceResp bool, out func(*outcome)) *chainUnit {
	u := &chainUnit{out: out, traceResp: traceResp, lim: lim}
	// No two events of a row have the same key (an attempt is one
	// (Seq, Round) and has one event queued at a time; ps ticks number
	// their generation), so the lane keeps the order: the timeouts and a
	// FIFO's exits, in admission order, skip the heap.
	u.q.UseLane()
	switch l := lim.(type) {
	case *algorithms.Chain:
		u.stages, u.breaker = l.Stages(), l.Breaker()
		u.chain = l
	case algorithms.RequestCompleter:
		// A per-key adaptive limiter: its calls are begun and completed
		// on their key's instance (adaptive.go).
		u.stages = []algorithms.Stage{l}
	case algorithms.RequestLimiter:
		// Before Stage: a row of one limiter that reads the request (a
		// per-key limiter, a prioritized leap-array) decides it whole, as
		// on the fast path, with each outcome's own request.
		u.stages = []algorithms.Stage{requestStage{l}}
	case algorithms.Stage:
		u.stages = []algorithms.Stage{l}
		u.breaker, _ = l.(*algorithms.CircuitBreaker)
	default:
		u.stages = []algorithms.Stage{decideStage{lim}}
	}
	if ds != nil && ds.PS {
		u.ps = newPSDownstream(ds)
		u.initRetries(ds)
	} else if ds != nil {
		u.ds = newDownstream(ds)
		u.initRetries(ds)
	}
	u.respond = u.ds != nil || u.ps != nil || traceResp || u.breaker != nil
	u.initAdaptive(lim)
	if (u.ds != nil || u.ps != nil) && u.signals == nil && (len(u.completers) > 0 || u.clients != nil) {
		// The model's CPU for series.csv, even when no rule reads it.
		u.signals = &signalTrack{}
	}
	if u.ds != nil && u.signals != nil {
		newHostModel(ds.Servers, u.signals).attach(u.ds)
	}
	if u.ps != nil && u.signals != nil {
		u.ps.model = newHostModel(int(math.Max(1, math.Round(ds.Cores))), u.signals)
	}
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

// requestStage is decideStage for a RequestLimiter (a per-key limiter on
// a row with a downstream).
type requestStage struct{ algorithms.RequestLimiter }

func (d requestStage) Check(now time.Duration) algorithms.Decision { return d.Decide(now) }
func (d requestStage) Record(time.Duration)                        {}
func (d requestStage) CheckRequest(now time.Duration, r *algorithms.Request) algorithms.Decision {
	return d.DecideRequest(now, r)
}
func (d requestStage) RecordRequest(time.Duration, *algorithms.Request) {}

func (u *chainUnit) get(seq int64) *outcome { return &u.pend[u.off+int(seq-u.base)] }

// arrive feeds arrival seq.
func (u *chainUnit) arrive(seq int64, a scenarios.Arrival) {
	u.runUntil(eventq.Key{At: a.Clock, Class: classArrival, Seq: seq})
	if len(u.pend) == u.off {
		u.pend, u.off, u.base = u.pend[:0], 0, seq
	}
	u.pend = append(u.pend, outcome{seq: seq, at: a.At, clock: a.Clock,
		traceResp: a.HasResponse, traceFailed: a.Failed, traceRT: a.RT, prio: a.Priority, user: -1, keyUser: a.User})
	requestOf(&a, &u.pend[len(u.pend)-1].req)
	switch {
	case u.ds != nil && u.ds.model != nil:
		u.ds.model.advance(a.Clock)
	case u.ps != nil && u.ps.model != nil:
		u.ps.model.advance(a.Clock)
	case u.signals != nil:
		u.signals.see(a.Clock, a.CPU, a.Load1)
	}
	u.step(u.get(seq), 0, 0, a.Clock)
	u.sampleAdaptive(a.At, a.Clock)
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
	if u.ds != nil && u.ds.model != nil {
		u.ds.model.advance(k.At)
	}
	if u.ps != nil {
		if u.ps.model != nil {
			u.ps.model.advance(k.At)
		}
		if ev.ps != 0 {
			u.psEvent(k, ev)
			return
		}
	}
	o := u.event(k.Seq, ev.retry)
	switch {
	case ev.complete:
		u.complete(o, ev.retry, k.At, ev.failed, ev.timeout)
	case ev.retry > 0 && ev.k == 0:
		// A retry or a closed user's request arrives.
		at := o.at
		u.step(o, ev.retry, 0, k.At)
		u.sampleAdaptive(at, k.At)
	default:
		u.step(o, ev.retry, int(ev.k), k.At)
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
func (u *chainUnit) step(o *outcome, retry int32, k int, t time.Duration) {
	seq := o.seq
	if k == 0 && u.chain != nil {
		u.chain.ShadowRequest(t, &o.req) // the unbounded twin, for extra_passes_from_eviction
	}
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
		} else if rs, ok := s.(algorithms.RequestStage); ok {
			d = rs.CheckRequest(t, &o.req)
		} else {
			d = s.Check(t)
		}
		if !d.Pass {
			o.done = true
			o.stage = stageFlow
			if s == algorithms.Stage(u.breaker) {
				o.stage = stageBreaker
			}
			u.attemptEnded(o, retry, outcomeReject, t)
			return
		}
		if d.Wait > 0 {
			u.schedule(o, t, eventq.Key{At: t + d.Wait, Class: classStage, Seq: seq, Round: int(o.attempt)}, chainEvent{k: int32(k + 1), retry: retry}, "the wait its limiters give it", "bound the limiter's wait (a timeout or max-queue, or a higher rate)")
			return
		}
	}
	// Admitted at t: every stage records the pass (StatisticSlot); an
	// adaptive stage counts the call in flight and keeps its ticket.
	if len(u.completers) == 0 {
		for _, s := range u.stages {
			record(s, t, o)
		}
	} else {
		u.begin(o, t)
	}
	o.dec = algorithms.Decision{Pass: true, Wait: t - o.clock}
	switch {
	case u.ps != nil:
		u.psAdmit(o, retry, t)
	case u.ds != nil:
		exit, failed, timeout := u.ds.serve(seq+int64(o.attempt)<<48, t)
		if u.ds.wrapped {
			exit = math.MinInt64 // a server's free time wrapped: report it below
		}
		u.schedule(o, t, eventq.Key{At: exit, Class: classCompletion, Seq: seq, Round: int(o.attempt)}, chainEvent{complete: true, failed: failed, timeout: timeout, retry: retry}, "the downstream's queue and service", "give the downstream more servers or a shorter service, or a timeout with cancel-on-timeout: true")
	case o.traceResp:
		u.schedule(o, t, eventq.Key{At: t + o.traceRT, Class: classCompletion, Seq: seq, Round: int(o.attempt)}, chainEvent{complete: true, failed: o.traceFailed, retry: retry}, "its wait plus its rt_ms", "bound the limiter's wait (a timeout or max-queue, or a higher rate)")
	case u.breaker != nil:
		u.q.Push(eventq.Key{At: t, Class: classCompletion, Seq: seq, Round: int(o.attempt)}, chainEvent{complete: true, retry: retry})
	default:
		o.done = true
		u.attemptEnded(o, retry, outcomeSuccess, t)
	}
}

// schedule pushes k, an event of o at base or later, unless its time
// wrapped past the int64 nanoseconds (k.At < base: base plus a wait, a
// response time, a service or a backoff, each non-negative); then it
// keeps the first such error in u.err, which stops the run (chainRow),
// naming what would have ended the request past the clock and the fix.
func (u *chainUnit) schedule(o *outcome, base time.Duration, k eventq.Key, ev chainEvent, what, fix string) {
	if k.At < base {
		if u.err == nil {
			who := fmt.Sprintf("arrival %d", o.seq)
			if o.user >= 0 {
				who = fmt.Sprintf("closed user %d's request", o.user)
			}
			u.err = wrapErr(u.lim.Spec(), who, o.at, what, fix)
		}
		return
	}
	u.q.Push(k, ev)
}

// complete is the exit of an admitted request at exit.
func (u *chainUnit) complete(o *outcome, retry int32, exit time.Duration, failed, timeout bool) {
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
	if u.onExit != nil {
		u.onExit(exit+(o.at-o.clock), o.rt)
	}
	if len(u.completers) > 0 {
		u.end(o, exit)
	}
	kind := outcomeSuccess
	switch {
	case timeout:
		kind = outcomeTimeout
	case failed:
		kind = outcomeError
	}
	u.attemptEnded(o, retry, kind, exit)
}

func (u *chainUnit) transition(o *outcome, clock time.Duration, from, to algorithms.BreakerState) {
	u.transitions = append(u.transitions, Transition{At: clock + (o.at - o.clock), Clock: clock, From: from, To: to, Seq: o.seq})
}

// record records an admission at t on stage s: RecordRequest, with the
// outcome's own request, for a stage that reads requests.
func record(s algorithms.Stage, t time.Duration, o *outcome) {
	if rs, ok := s.(algorithms.RequestStage); ok {
		rs.RecordRequest(t, &o.req)
		return
	}
	s.Record(t)
}
