package scenarios

import "time"

// ExpectedArrivals is the mean number of arrivals the scenario generates:
// exact for constant phases and bursts, the mean for Poisson phases, the
// integral of the rate for ramps. It lets a caller size outputs (for
// example decisions.csv) before running.
func (s Scenario) ExpectedArrivals() float64 {
	var n float64
	for _, p := range s.Phases {
		n += p.expected(s.Duration)
	}
	return n
}

func (p Phase) expected(end time.Duration) float64 {
	pe := min(p.end(end), end)
	switch p.Type {
	case PhaseConstant, PhasePoisson:
		if pe <= p.Start {
			return 0
		}
		return p.perSecond(p.Rate) * (pe - p.Start).Seconds()
	case PhaseRamping:
		var n float64
		t, r0 := p.Start, p.perSecond(p.StartRate)
		for _, st := range p.Stages {
			r1 := p.perSecond(st.Target)
			t1 := t + st.Duration
			if st.Duration > 0 && t < pe {
				// The part of the stage before pe: rate goes r0 → r at pe.
				f := min(1, float64(pe-t)/float64(st.Duration))
				r := r0 + (r1-r0)*f
				n += (r0 + r) / 2 * (st.Duration.Seconds() * f)
			}
			t, r0 = t1, r1
		}
		return n
	case PhaseBurst:
		if p.Start >= end {
			return 0
		}
		reps := 1.0
		if p.Every > 0 {
			until := end
			if p.Until != 0 && p.Until < until {
				until = p.Until
			}
			reps = float64((until - p.Start + p.Every - 1) / p.Every)
		}
		return reps * float64(p.Count)
	}
	return 0
}
