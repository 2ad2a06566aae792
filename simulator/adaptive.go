package simulator

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// This file feeds the adaptive limiters (algorithms.Completer) on the
// chain executor: every admitted call is begun on each adaptive stage
// (which counts it in flight and hands back a ticket) and completed on it
// when its response arrives, from the downstream or from the trace's
// rt_ms and error, at the exit the caller sees; the outcome is a timeout,
// an error or a success. The scripted signals (cpu, load1) of the
// arrivals are kept per row and sampled by each limiter on its
// reference's schedule.

// maxCompleters bounds the adaptive stages of one chain (their tickets
// travel with each outcome).
const maxCompleters = 2

// stagesOf lists lim's stages (lim itself when it is not a chain).
func stagesOf(lim algorithms.Limiter) []algorithms.Limiter {
	if c, ok := lim.(*algorithms.Chain); ok {
		out := make([]algorithms.Limiter, 0, len(c.Stages()))
		for _, s := range c.Stages() {
			out = append(out, s)
		}
		return out
	}
	return []algorithms.Limiter{lim}
}

// signalNames names the signals of s.
func signalNames(s algorithms.Signal) string {
	var n []string
	if s&algorithms.SignalCPU != 0 {
		n = append(n, "cpu")
	}
	if s&algorithms.SignalLoad1 != 0 {
		n = append(n, "load1")
	}
	return strings.Join(n, " and ")
}

// prepareAdaptive checks the adaptive stages of every limiter before the
// run (at most maxCompleters per chain, every signal a rule reads provided
// by the run) and seeds those that draw random numbers.
func prepareAdaptive(limiters []algorithms.Limiter, cfg *Config) error {
	if cfg.Downstream != nil {
		if cfg.Seed == 0 {
			cfg.Seed = cfg.Downstream.Seed
		}
		// The modelled downstream gives its CPU and load1 (signals.go).
		cfg.Signals |= algorithms.SignalCPU | algorithms.SignalLoad1
	}
	for i, lim := range limiters {
		n := 0
		for _, s := range stagesOf(lim) {
			if _, ok := s.(algorithms.Completer); ok {
				n++
			}
			if r, ok := s.(algorithms.SignalReader); ok {
				if miss := r.NeedsSignals() &^ cfg.Signals; miss != 0 {
					return fmt.Errorf("%s reads %s, but the run has no %s signal; add a %s column to the trace (each value holds from its row on) or drop that rule",
						s.Spec(), signalNames(r.NeedsSignals()), signalNames(miss), signalNames(miss))
				}
			}
			if sd, ok := s.(algorithms.Seeded); ok {
				sd.Reseed(cfg.Seed + uint64(i)*0x9e3779b97f4a7c15)
			}
		}
		if n > maxCompleters {
			return fmt.Errorf("%s has %d adaptive stages; a chain holds at most %d", lim.Spec(), n, maxCompleters)
		}
	}
	return nil
}

// SignalStream is a stream that says which host signals its arrivals
// script (a trace's cpu and load1 columns). Run adds them to
// Config.Signals.
type SignalStream interface {
	Signals() algorithms.Signal
}

// initAdaptive finds the unit's adaptive stages and binds their signals.
func (u *chainUnit) initAdaptive(lim algorithms.Limiter) {
	for k, s := range u.stages {
		if _, ok := s.(algorithms.Completer); ok {
			u.completers = append(u.completers, k)
		}
		if r, ok := s.(algorithms.SignalReader); ok {
			if u.signals == nil {
				u.signals = &signalTrack{}
			}
			r.BindSignals(u.signals)
		}
	}
	if len(u.completers) > 0 && !u.respond {
		u.err = fmt.Errorf("%s counts calls in flight, so it needs to know when each ends: give the scenario a downstream: block, or replay a trace with rt_ms (and error) columns", lim.Spec())
	}
}

// begin records the admission at t on every stage: Begin on the adaptive
// ones (keeping their tickets in o), Record on the others.
func (u *chainUnit) begin(o *outcome, t time.Duration) {
	j := 0
	for k, s := range u.stages {
		if j < len(u.completers) && u.completers[j] == k {
			if rc, ok := s.(algorithms.RequestCompleter); ok {
				o.tk[j] = rc.BeginRequest(o.clock, t, &o.req)
				j++
				continue
			}
			o.tk[j] = s.(algorithms.Completer).Begin(o.clock, t)
			j++
			continue
		}
		record(s, t, o)
	}
}

// end completes o on every adaptive stage at exit.
func (u *chainUnit) end(o *outcome, exit time.Duration) {
	oc := algorithms.Success
	switch {
	case o.timeout:
		oc = algorithms.Timeout
	case o.failed:
		oc = algorithms.Failure
	}
	for j, k := range u.completers {
		if rc, ok := u.stages[k].(algorithms.RequestCompleter); ok {
			// A per-key stage: the key of the call's own request.
			rc.CompleteRequest(exit, o.tk[j], &o.req, oc)
			continue
		}
		u.stages[k].(algorithms.Completer).Complete(exit, o.tk[j], oc)
	}
}

// signalTrack is the scripted signals of a row: each arrival's cpu and
// load1 hold from its time on (0 before the first). It keeps the changes
// of the last few seconds: every limiter samples at most about a second
// behind the call it serves.
type signalTrack struct {
	pts  []signalPoint
	head int
}

type signalPoint struct {
	at        time.Duration
	cpu, load float32
}

const signalKeep = 5 * time.Second

func (s *signalTrack) see(at time.Duration, cpu, load float32) {
	if n := len(s.pts); n > s.head {
		last := s.pts[n-1]
		if last.cpu == cpu && last.load == load {
			return
		}
	}
	s.pts = append(s.pts, signalPoint{at, cpu, load})
	// Drop what no sample can ask for any more, keeping the value in
	// force at at − signalKeep.
	for s.head+1 < len(s.pts) && s.pts[s.head+1].at <= at-signalKeep {
		s.head++
	}
	if s.head > 1024 && 2*s.head > len(s.pts) {
		n := copy(s.pts, s.pts[s.head:])
		s.pts, s.head = s.pts[:n], 0
	}
}

func (s *signalTrack) at(t time.Duration) (signalPoint, bool) {
	p := s.pts[s.head:]
	if n := len(p); n > 0 && p[n-1].at <= t {
		return p[n-1], true // the usual case: a sample at the current time
	}
	i := sort.Search(len(p), func(i int) bool { return p[i].at > t })
	if i == 0 {
		return signalPoint{}, false
	}
	return p[i-1], true
}

// CPU implements algorithms.Signals.
func (s *signalTrack) CPU(t time.Duration) float64 {
	p, _ := s.at(t)
	return float64(p.cpu)
}

// Load1 implements algorithms.Signals.
func (s *signalTrack) Load1(t time.Duration) float64 {
	p, _ := s.at(t)
	return float64(p.load)
}
