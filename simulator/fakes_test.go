package simulator

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// sliceStream yields fixed arrivals, then err.
type sliceStream struct {
	arr    []scenarios.Arrival
	i      int
	err    error
	closed bool
}

func (s *sliceStream) Next() (scenarios.Arrival, bool) {
	if s.i >= len(s.arr) {
		return scenarios.Arrival{}, false
	}
	s.i++
	return s.arr[s.i-1], true
}
func (s *sliceStream) Err() error   { return s.err }
func (s *sliceStream) Close() error { s.closed = true; return nil }

// at builds arrivals whose clock is their true time.
func at(ts ...time.Duration) []scenarios.Arrival {
	out := make([]scenarios.Arrival, len(ts))
	for i, t := range ts {
		out[i] = scenarios.Arrival{At: t, Clock: t}
	}
	return out
}

// endless yields arrivals every step forever.
type endless struct {
	step time.Duration
	t    time.Duration
}

func (e *endless) Next() (scenarios.Arrival, bool) {
	e.t += e.step
	return scenarios.Arrival{At: e.t, Clock: e.t}, true
}
func (e *endless) Err() error   { return nil }
func (e *endless) Close() error { return nil }

// alternate passes every other request, starting with a pass.
type alternate struct{ n int }

func (a *alternate) Decide(time.Duration) algorithms.Decision {
	a.n++
	return algorithms.Decision{Pass: a.n%2 == 1}
}
func (a *alternate) Spec() string     { return "alternate" }
func (a *alternate) Rate() float64    { return 10 }
func (a *alternate) StateBytes() int  { return 8 }
func (a *alternate) SampleCount() int { return 2 }

// queue passes everything after a fixed wait.
type queue struct{ wait time.Duration }

func (q *queue) Decide(time.Duration) algorithms.Decision {
	return algorithms.Decision{Pass: true, Wait: q.wait}
}
func (q *queue) Spec() string    { return fmt.Sprintf("queue:wait=%v,x=1", q.wait) }
func (q *queue) Rate() float64   { return 20 }
func (q *queue) StateBytes() int { return 16 }

// scripted returns a fixed sequence of decisions, then blocks.
type scripted struct {
	ds   []algorithms.Decision
	i    int
	seen []time.Duration
}

func (s *scripted) Decide(now time.Duration) algorithms.Decision {
	s.seen = append(s.seen, now)
	if s.i >= len(s.ds) {
		return algorithms.Decision{}
	}
	s.i++
	return s.ds[s.i-1]
}
func (s *scripted) Spec() string    { return "scripted" }
func (s *scripted) Rate() float64   { return 5 }
func (s *scripted) StateBytes() int { return 0 }

// panicky panics on its third decision.
type panicky struct{ n int }

func (p *panicky) Decide(time.Duration) algorithms.Decision {
	p.n++
	if p.n == 3 {
		panic("boom")
	}
	return algorithms.Decision{Pass: true}
}
func (p *panicky) Spec() string    { return "panicky" }
func (p *panicky) Rate() float64   { return 1 }
func (p *panicky) StateBytes() int { return 0 }
