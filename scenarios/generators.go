package scenarios

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"
)

// source yields the true times of one phase's arrivals, in order. It holds
// O(1) state: arrival times are computed from the arrival's index.
type source interface {
	next() (time.Duration, bool)
}

// constantSource is evenly spaced traffic: arrival k at
// start + round(k·unit/rate), for as long as that is before end.
type constantSource struct {
	start, end time.Duration
	unit       uint64  // nanoseconds per rate unit
	rate       float64 // arrivals per unit
	irate      uint64  // rate when it is a whole number, else 0
	k          uint64
}

func newConstant(start, end, unit time.Duration, rate float64) *constantSource {
	s := &constantSource{start: start, end: end, unit: uint64(unit), rate: rate}
	if rate == math.Trunc(rate) && rate >= 1 && rate < 1<<53 {
		s.irate = uint64(rate)
	}
	return s
}

func (s *constantSource) next() (time.Duration, bool) {
	var off uint64
	if s.irate != 0 {
		// Exact: round(k·unit/rate) with 128-bit intermediate, halves up.
		hi, lo := bits.Mul64(s.k, s.unit)
		if hi >= s.irate {
			return 0, false // the quotient would not fit: far past any end
		}
		q, r := bits.Div64(hi, lo, s.irate)
		if r >= s.irate-r {
			q++
		}
		off = q
	} else {
		f := math.Round(float64(s.k) * float64(s.unit) / s.rate)
		if f >= float64(MaxTime)*2 {
			return 0, false
		}
		off = uint64(f)
	}
	if s.end <= s.start || off >= uint64(s.end-s.start) {
		return 0, false
	}
	s.k++
	return s.start + time.Duration(off), true
}

// rampStage is one linear segment of a ramp, precomputed.
type rampStage struct {
	start, end time.Duration
	r0, a      float64 // rate at start (per second) and its slope (per second²)
	c0, c1     float64 // arrivals counted at the stage's start and end
}

// rampSource places arrival k where the integral of a piecewise-linear
// rate, from the ramp's start, reaches k (k = 0, 1, ...).
type rampSource struct {
	stages []rampStage
	end    time.Duration
	si     int
	k      uint64
	last   time.Duration
}

// newRamp builds a ramp from startRate through stages, rates per second.
// Arrivals at or after end are dropped.
func newRamp(start time.Duration, startRate float64, stages []Stage, perSecond func(float64) float64, end time.Duration) *rampSource {
	s := &rampSource{end: end, last: start}
	r0 := perSecond(startRate)
	t := start
	c := 0.0
	for _, st := range stages {
		r1 := perSecond(st.Target)
		if st.Duration > 0 {
			d := st.Duration.Seconds()
			rs := rampStage{start: t, end: t + st.Duration, r0: r0, a: (r1 - r0) / d, c0: c}
			c += (r0 + r1) / 2 * d
			rs.c1 = c
			if rs.c1 > rs.c0 {
				s.stages = append(s.stages, rs)
			}
		}
		t += st.Duration
		r0 = r1
	}
	if t < s.end {
		s.end = t
	}
	return s
}

func (s *rampSource) next() (time.Duration, bool) {
	x := float64(s.k)
	for s.si < len(s.stages) && x >= s.stages[s.si].c1 {
		s.si++
	}
	for s.si < len(s.stages) {
		st := &s.stages[s.si]
		y := x - st.c0
		if y < 0 {
			y = 0
		}
		// Solve r0·τ + a·τ²/2 = y for the smallest τ ≥ 0, in the form
		// that is stable for a ≈ 0 and a < 0.
		disc := st.r0*st.r0 + 2*st.a*y
		if disc < 0 {
			disc = 0
		}
		den := st.r0 + math.Sqrt(disc)
		tau := 0.0
		if den > 0 {
			tau = 2 * y / den
		}
		t := st.start + time.Duration(math.Round(tau*1e9))
		if t >= st.end {
			s.si++ // float rounding at the stage's edge: next stage
			continue
		}
		if t < s.last {
			t = s.last
		}
		if t >= s.end {
			return 0, false
		}
		s.last = t
		s.k++
		return t, true
	}
	return 0, false
}

// poissonSource draws exponential gaps of mean 1/rate.
type poissonSource struct {
	start, end time.Duration
	meanNs     float64
	t          float64 // nanoseconds since start
	rng        *rand.Rand
}

// newPCG returns the generator every Poisson phase seeded with seed uses.
func newPCG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix64(seed^0x5eed)))
}

func newPoisson(start, end time.Duration, ratePerSecond float64, seed uint64) *poissonSource {
	return &poissonSource{start: start, end: end, meanNs: 1e9 / ratePerSecond, rng: newPCG(seed)}
}

func (s *poissonSource) next() (time.Duration, bool) {
	if s.end <= s.start {
		return 0, false
	}
	s.t += s.rng.ExpFloat64() * s.meanNs
	if s.t >= float64(s.end-s.start) {
		s.end = s.start // stay done
		return 0, false
	}
	return s.start + time.Duration(math.Round(s.t)), true
}

// burstSource spreads n arrivals evenly over [from, from+width), the i-th at
// from + floor(i·width/n), and repeats every period while from+r·every < until.
type burstSource struct {
	from, width, every, until time.Duration
	n                         uint64
	r                         int64
	i                         uint64
}

func (s *burstSource) next() (time.Duration, bool) {
	if s.n == 0 {
		return 0, false
	}
	if s.i == s.n {
		if s.every <= 0 {
			return 0, false
		}
		s.r++
		s.i = 0
	}
	base := s.from + time.Duration(s.r)*s.every
	if base >= s.until {
		s.n = 0
		return 0, false
	}
	hi, lo := bits.Mul64(s.i, uint64(s.width))
	q, _ := bits.Div64(hi, lo, s.n) // i < n, so q < width: no overflow
	s.i++
	return base + time.Duration(q), true
}

// emptySource yields nothing.
type emptySource struct{}

func (emptySource) next() (time.Duration, bool) { return 0, false }

// splitmix64 is SplitMix64's finaliser, used to derive seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// phaseSeed derives the seed of phase i from the scenario's seed.
func phaseSeed(seed uint64, i int) uint64 {
	return splitmix64(seed ^ splitmix64(uint64(i)+1))
}

// sourceStream exposes one source as a Stream (At = Clock).
type sourceStream struct {
	src source
	err error
}

func (s *sourceStream) Next() (Arrival, bool) {
	if s.src == nil {
		return Arrival{}, false
	}
	t, ok := s.src.next()
	if !ok {
		s.src = nil
		return Arrival{}, false
	}
	return Arrival{At: t, Clock: t}, true
}

func (s *sourceStream) Err() error   { return s.err }
func (s *sourceStream) Close() error { return nil }

// standalone validates p as a one-phase scenario and streams it.
func standalone(p Phase, end time.Duration) Stream {
	if fe := p.check(); fe != nil {
		return &sourceStream{err: fmt.Errorf("%s: %s", p.Type, fe.msg)}
	}
	if e := checkTime("end", end); e != nil {
		return &sourceStream{err: fmt.Errorf("%s: %s", p.Type, e.msg)}
	}
	return &sourceStream{src: p.source(end, 0, 0)}
}

// Constant streams rate arrivals per second evenly spaced over
// [start, start+duration): the k-th at start + k/rate, rounded to the
// nearest nanosecond.
func Constant(start, duration time.Duration, rate float64) Stream {
	return standalone(Phase{Type: PhaseConstant, Start: start, Duration: duration, Rate: rate}, start+duration)
}

// Poisson streams a Poisson process of rate arrivals per second over
// [start, start+duration), drawn from a PCG generator seeded with seed.
func Poisson(start, duration time.Duration, rate float64, seed uint64) Stream {
	return standalone(Phase{Type: PhasePoisson, Start: start, Duration: duration, Rate: rate, Seed: &seed}, start+duration)
}

// Burst streams n arrivals spread evenly over [from, to): the i-th at
// from + i·(to−from)/n, rounded down to the nanosecond. With to == from all
// n arrive at from.
func Burst(from, to time.Duration, n int64) Stream {
	if to < from {
		return &sourceStream{err: fmt.Errorf("burst: to %v is before from %v; swap them", to, from)}
	}
	return standalone(Phase{Type: PhaseBurst, Start: from, Duration: to - from, Count: n}, to+1)
}

// Ramp streams traffic whose rate (per second) moves linearly from
// startRate through each stage's Target over the stage's Duration, starting
// at start. The k-th arrival (k = 0, 1, ...) is where the integral of the
// rate reaches k, found by solving the quadratic of each stage exactly.
func Ramp(start time.Duration, startRate float64, stages ...Stage) Stream {
	p := Phase{Type: PhaseRamping, Start: start, StartRate: startRate, Stages: stages}
	return standalone(p, p.end(0))
}

// Idle streams nothing.
func Idle() Stream { return &sourceStream{} }

// source builds the phase's arrival source for a scenario ending at end;
// seed and index derive a Poisson phase's seed when it has none.
func (p Phase) source(end time.Duration, seed uint64, index int) source {
	pe := p.end(end)
	if pe > end {
		pe = end
	}
	switch p.Type {
	case PhaseConstant:
		return newConstant(p.Start, pe, p.unit(), p.Rate)
	case PhasePoisson:
		sd := phaseSeed(seed, index)
		if p.Seed != nil {
			sd = *p.Seed
		}
		return newPoisson(p.Start, pe, p.perSecond(p.Rate), sd)
	case PhaseRamping:
		return newRamp(p.Start, p.StartRate, p.Stages, p.perSecond, pe)
	case PhaseBurst:
		until := p.Start + 1 // one repetition
		if p.Every > 0 {
			until = end
			if p.Until != 0 && p.Until < until {
				until = p.Until
			}
		}
		return &burstSource{from: p.Start, width: p.Duration, every: p.Every, until: until, n: uint64(p.Count)}
	}
	return emptySource{}
}
