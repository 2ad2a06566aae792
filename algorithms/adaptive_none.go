package algorithms

import (
	"time"
	"unsafe"
)

// None lets every call through; it counts them in flight so a scenario can
// show the unprotected service beside the protected ones.
type None struct{ inflight int64 }

// NewNone builds the pass-everything limiter.
func NewNone() *None { return &None{} }

// Decide implements Limiter.
func (n *None) Decide(now time.Duration) Decision { return completerDecide(n, now) }

// Check implements Stage: always a pass.
func (n *None) Check(time.Duration) Decision { return Decision{Pass: true} }

// Record implements Stage.
func (n *None) Record(at time.Duration) { n.Begin(at, at) }

// Begin implements Completer.
func (n *None) Begin(_, at time.Duration) Ticket {
	n.inflight++
	return Ticket{At: at}
}

// Complete implements Completer.
func (n *None) Complete(time.Duration, Ticket, Outcome) { n.inflight-- }

// InFlight implements Completer.
func (n *None) InFlight() int64 { return n.inflight }

// CurrentLimit implements Completer: none.
func (n *None) CurrentLimit(time.Duration) float64 { return noLimit }

// Spec implements Limiter.
func (n *None) Spec() string { return "none" }

// Rate implements Limiter.
func (n *None) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (n *None) StateBytes() int { return int(unsafe.Sizeof(*n)) }
