package algorithms

import (
	"math"
	"time"
)

// This file is the contract of the adaptive limiters (concurrency,
// sentinel-system, aegis-bbr, aimd, vegas, gradient2, envoy-adaptive,
// none): limiters that decide on what is in flight and learn from each
// admitted call's completion, so they only make sense on a loop where the
// simulator tells them when each call ends, how long it took and how.
//
// Everything stays on explicit virtual time: Check decides at now, Begin
// counts an admitted call in flight and returns its Ticket, Complete ends
// it at now. The simulator calls them in clock order (completions before
// arrivals at the same instant); a limiter that keeps timers (Envoy's
// minRTT and sample windows, aegis's CPU sampler) runs the ones due at or
// before now first, so a timer or sample at an arrival's instant is taken
// before that arrival.

// Outcome is how an admitted call ended, as the caller saw it.
type Outcome uint8

const (
	// Success is a call that answered without error.
	Success Outcome = iota
	// Failure is a call that answered with an error (Netflix: onSuccess,
	// the limit samples its RTT; Sentinel: a success with an exception).
	Failure
	// Timeout is a call the caller gave up on (Netflix: onDropped).
	Timeout
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Failure:
		return "error"
	}
	return "timeout"
}

// Ticket is what a Completer remembers of one admitted call until its
// completion: the time the reference's clock started it (the arrival for
// Sentinel, whose entry is created before the slot chain; the admission
// for the others) and the in-flight count the reference captured at
// acquire (Netflix's currentInflight). It is small and copied by value.
// Gen is a per-key limiter's (KeyedCompleter): how many times the call's
// key had lost its state when the call began, −1 for a call without a
// key; the limiters themselves leave it 0.
type Ticket struct {
	At  time.Duration
	N   int32
	Gen int32
}

// Completer is a limiter that counts calls in flight and learns from
// their completions. The simulator calls Begin (not Record) for every
// admitted call, at its admission at with the arrival's time arrival, and
// Complete with the ticket when the call ends.
type Completer interface {
	Stage
	// Begin counts one admitted call in flight.
	Begin(arrival, at time.Duration) Ticket
	// Complete ends a call begun with t, at now, with outcome o.
	Complete(now time.Duration, t Ticket, o Outcome)
	// InFlight is the number of calls the limiter counts in flight.
	InFlight() int64
	// CurrentLimit is the limit in force at now (after the timers due),
	// in concurrent calls; NaN when the limiter has none.
	CurrentLimit(now time.Duration) float64
}

// Signal names a sampled host signal a rule reads.
type Signal uint8

const (
	// SignalCPU is the CPU utilisation, 0 to 1.
	SignalCPU Signal = 1 << iota
	// SignalLoad1 is Linux's one-minute load average.
	SignalLoad1
)

// Signals gives the value of each signal in force at a time: the value of
// the last trace row (or model sample) at or before at. A limiter samples
// it on its reference's schedule.
type Signals interface {
	CPU(at time.Duration) float64
	Load1(at time.Duration) float64
}

// SignalReader is a limiter whose rule reads host signals. Before the run
// the simulator checks that the run provides every signal Needs names (a
// rule reading a signal the run lacks is an error) and binds the source.
type SignalReader interface {
	NeedsSignals() Signal
	BindSignals(Signals)
}

// ConstSignals is a Signals that never changes, for tests and examples.
type ConstSignals struct{ Cpu, Load float64 }

// CPU implements Signals.
func (c ConstSignals) CPU(time.Duration) float64 { return c.Cpu }

// Load1 implements Signals.
func (c ConstSignals) Load1(time.Duration) float64 { return c.Load }

// noLimit is CurrentLimit's answer for a limiter without a limit.
var noLimit = math.NaN()

// completerDecide is Decide for a Completer: Check, then Begin on a pass.
// The call never completes, so this is only meaningful for one-shot use.
func completerDecide(c Completer, now time.Duration) Decision {
	d := c.Check(now)
	if d.Pass {
		c.Begin(now, now)
	}
	return d
}

// splitmix64 is a small seeded generator for the limiters that draw a
// random number (Vegas's probe jitter, Envoy's timer jitter).
type splitmix64 struct{ s uint64 }

func (r *splitmix64) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a float64 in [0, 1).
func (r *splitmix64) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// Seeded is a limiter that draws random numbers (Vegas's probe jitter,
// Envoy's minRTT timer jitter); the simulator seeds it with the run's seed
// before the first arrival, so a run is reproducible.
type Seeded interface {
	Reseed(seed uint64)
}
