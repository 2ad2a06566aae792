// Package scenarios describes the traffic that ratelimit-lab replays: the
// built-in catalog, YAML scenario files, recorded traces (CSV) and the
// generators behind them.
//
// A Scenario is a list of phases on the run's true time line. Stream merges
// the phases' arrivals lazily and in time order, so a run of any length holds
// only one pending arrival per phase in memory. Every arrival time is
// computed from its index (never by summing gaps), in integer nanoseconds
// where the rate allows it, so long runs do not drift. Poisson phases draw
// from math/rand/v2's PCG, seeded per phase, so the same scenario and seed
// always give the same arrivals, bit for bit.
package scenarios

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Phase types. The YAML file may also spell PhaseConstant and PhaseRamping
// with k6's executor names, constant-arrival-rate and ramping-arrival-rate.
const (
	// PhaseConstant sends Rate arrivals per TimeUnit, evenly spaced: the
	// k-th arrival (k = 0, 1, ...) is at Start + k·TimeUnit/Rate.
	PhaseConstant = "constant"
	// PhaseRamping changes the rate linearly from StartRate through each
	// stage's Target over the stage's Duration (k6's ramping-arrival-rate).
	// The k-th arrival is where the integral of the rate reaches k.
	PhaseRamping = "ramping"
	// PhasePoisson sends arrivals with exponential gaps of mean
	// TimeUnit/Rate.
	PhasePoisson = "poisson"
	// PhaseBurst sends Count arrivals spread evenly over
	// [Start, Start+Duration): the i-th at Start + i·Duration/Count
	// (rounded down to the nanosecond). Duration 0 puts all of them at
	// Start. With Every > 0 the burst repeats every Every until Until.
	PhaseBurst = "burst"
	// PhaseIdle sends nothing; it only takes up time between sequential
	// phases in a YAML file.
	PhaseIdle = "idle"
	// PhaseClockStep offsets the limiters' clock by Offset from true time
	// Start on. It sends nothing and takes up no time.
	PhaseClockStep = "clock-step"
)

// phaseTypes lists the phase types in documentation order.
var phaseTypes = []string{PhaseConstant, PhaseRamping, PhasePoisson, PhaseBurst, PhaseIdle, PhaseClockStep}

// MaxTime bounds every time in a scenario (start, duration, end, clock
// offset): one year. It keeps every sum of times far from overflowing.
const MaxTime = 365 * 24 * time.Hour

// MaxRate bounds every rate, in arrivals per second: one per nanosecond.
const MaxRate = 1e9

// MaxCount bounds the arrivals of one burst.
const MaxCount = 1_000_000_000

// Scenario is a named traffic pattern with its default run settings.
type Scenario struct {
	// Name is the catalog name, or the file's name field.
	Name string `yaml:"name"`
	// Description is a one-line summary for 'ratelimit-lab list'.
	Description string `yaml:"description,omitempty"`
	// Limit is the limit in requests per second given to every limiter
	// whose spec does not name one. The traffic is defined relative to it:
	// WithLimit scales both.
	Limit float64 `yaml:"limit"`
	// Duration is the length of the run in true time. Arrivals at or after
	// it are cut; phases without a duration of their own run until it.
	Duration time.Duration `yaml:"duration"`
	// Seed seeds every Poisson phase that has no seed of its own.
	Seed uint64 `yaml:"seed"`
	// Phases make up the traffic; they may overlap.
	Phases []Phase `yaml:"phases"`
	// Algorithms are the limiters' spec strings, e.g.
	// "leap-array:sample-count=10".
	Algorithms []string `yaml:"algorithms,omitempty"`
	// Downstream, if not nil, is the service behind every limiter: it gives
	// each pass a response time and maybe an error (see Downstream).
	Downstream *Downstream `yaml:"-"`
	// PriorityShare, between 0 and 1, marks that seeded share of every
	// arrival prioritized (Arrival.Priority; see catalog_priority.go).
	PriorityShare float64 `yaml:"-"`
	// scaled, when WithLimit scaled the traffic, is how: Validate then
	// names --limit as the reason a burst's count rounded to 0.
	scaled *scaling
}

// scaling is what WithLimit did: the limits before and after, and every
// phase's count before.
type scaling struct {
	from, to float64
	counts   []int64
}

// Phase is one source of arrivals (or a clock step) on the run's true time
// line. Which fields matter depends on Type; the others are ignored.
type Phase struct {
	// Type is one of the Phase* constants.
	Type string `yaml:"type"`
	// Start is when the phase begins, from the start of the run. For a
	// burst it is the first arrival (YAML from); for a clock step the
	// moment of the step (YAML at).
	Start time.Duration `yaml:"start"`
	// Duration is how long the phase lasts; 0 means until the scenario's
	// end (constant, poisson, idle). For a burst it is the width of the
	// window the arrivals are spread over (0: all at Start). Ramping
	// phases take their length from their stages.
	Duration time.Duration `yaml:"duration,omitempty"`
	// Rate is arrivals per TimeUnit (constant, poisson).
	Rate float64 `yaml:"rate,omitempty"`
	// TimeUnit is the unit of Rate, StartRate and Target; 0 means 1s.
	TimeUnit time.Duration `yaml:"timeUnit,omitempty"`
	// StartRate is the ramping phase's rate at Start, per TimeUnit.
	StartRate float64 `yaml:"startRate,omitempty"`
	// Stages are the ramping phase's linear segments.
	Stages []Stage `yaml:"stages,omitempty"`
	// Count is the number of arrivals in one burst.
	Count int64 `yaml:"count,omitempty"`
	// Every repeats a burst with this period (0: once). It must be at
	// least Duration, so repetitions do not overlap.
	Every time.Duration `yaml:"every,omitempty"`
	// Until ends a repeating burst: a repetition starts only before Until
	// (true time from the start of the run); 0 means the scenario's end.
	Until time.Duration `yaml:"until,omitempty"`
	// Seed seeds a Poisson phase; nil derives one from the scenario's Seed
	// and the phase's index, so adding a phase does not change the others.
	Seed *uint64 `yaml:"seed,omitempty"`
	// Offset is the clock step (negative: the limiters' clock goes back).
	Offset time.Duration `yaml:"offset,omitempty"`
	// PhaseKeys are the phase's keys, users and priority share
	// (population.go).
	PhaseKeys `yaml:",inline"`
}

// Stage is one segment of a ramping phase: the rate moves linearly from the
// previous target (or StartRate) to Target over Duration.
type Stage struct {
	Target   float64       `yaml:"target"`
	Duration time.Duration `yaml:"duration"`
}

// unit returns the phase's time unit, defaulting to one second.
func (p Phase) unit() time.Duration {
	if p.TimeUnit <= 0 {
		return time.Second
	}
	return p.TimeUnit
}

// perSecond converts a rate per TimeUnit to a rate per second.
func (p Phase) perSecond(r float64) float64 {
	return r * float64(time.Second) / float64(p.unit())
}

// span returns the phase's end in true time given the scenario's end
// (open-ended phases end there).
func (p Phase) end(scenarioEnd time.Duration) time.Duration {
	switch p.Type {
	case PhaseConstant, PhasePoisson, PhaseIdle:
		if p.Duration == 0 {
			return scenarioEnd
		}
		return p.Start + p.Duration
	case PhaseRamping:
		var d time.Duration
		for _, s := range p.Stages {
			d += s.Duration
		}
		return p.Start + d
	case PhaseBurst:
		if p.Every > 0 {
			if p.Until == 0 {
				return scenarioEnd
			}
			return p.Until
		}
		return p.Start + p.Duration
	}
	return p.Start
}

// openEnded reports whether the phase runs until the scenario's end.
func (p Phase) openEnded() bool {
	switch p.Type {
	case PhaseConstant, PhasePoisson, PhaseIdle:
		return p.Duration == 0
	case PhaseBurst:
		return p.Every > 0 && p.Until == 0
	}
	return false
}

// WithLimit returns a copy whose limit is limit and whose traffic is scaled
// by limit/s.Limit: every rate, start rate and target is multiplied, and
// every burst count is multiplied and rounded to the nearest integer. Times
// and seeds are unchanged. A non-positive or non-finite limit is stored
// unscaled, for Validate to report.
func (s Scenario) WithLimit(limit float64) Scenario {
	c := s.clone()
	c.Limit = limit
	if !(limit > 0) || math.IsInf(limit, 0) || !(s.Limit > 0) || math.IsInf(s.Limit, 0) {
		return c
	}
	f := limit / s.Limit
	c.scaled = &scaling{from: s.Limit, to: limit, counts: make([]int64, len(c.Phases))}
	if s.scaled != nil {
		c.scaled.from = s.scaled.from // scaled twice: the first limit is the file's
	}
	for i := range c.Phases {
		c.scaled.counts[i] = c.Phases[i].Count
		if s.scaled != nil && i < len(s.scaled.counts) {
			c.scaled.counts[i] = s.scaled.counts[i]
		}
		p := &c.Phases[i]
		p.Rate *= f
		p.StartRate *= f
		for j := range p.Stages {
			p.Stages[j].Target *= f
		}
		p.Count = int64(math.Round(float64(p.Count) * f))
	}
	return c
}

// WithCapacity returns a copy whose downstream (if any) has its capacity
// scaled by f, as --limit scales a closed-loop scenario: the servers of a
// FIFO downstream (and each phase's servers override) are multiplied by
// f, the cores of a processor-sharing one likewise, so that traffic
// described against the capacity ("0.8 times the capacity of 8 servers of
// 20 ms") keeps that ratio while service times, timeouts and the phases'
// times stay as written. Servers are whole: a count that f would make
// fractional is an error naming the scalings that keep them whole.
func (s Scenario) WithCapacity(f float64) (Scenario, error) {
	c := s.clone()
	if s.Downstream == nil || f == 1 {
		return c, nil
	}
	d := *s.Downstream
	d.Phases = append([]DownstreamPhase(nil), s.Downstream.Phases...)
	whole := func(what string, n int) (int, error) {
		x := float64(n) * f
		if r := math.Round(x); math.Abs(x-r) <= 1e-9*x && r >= 1 {
			return int(r), nil
		}
		return 0, fmt.Errorf("--limit scales the downstream's capacity with the traffic (×%g), but %s %d would become %g servers; pick a limit that keeps them whole (a multiple of %g/s)",
			f, what, n, x, s.Limit/float64(gcdServers(s.Downstream)))
	}
	if d.PS {
		d.Cores *= f
	} else {
		n, err := whole("servers:", d.Servers)
		if err != nil {
			return c, err
		}
		d.Servers = n
	}
	for i := range d.Phases {
		p := &d.Phases[i]
		if p.Cores > 0 {
			p.Cores *= f
		}
		if p.Servers > 0 {
			n, err := whole(fmt.Sprintf("phase %d's servers:", i+1), p.Servers)
			if err != nil {
				return c, err
			}
			p.Servers = n
		}
	}
	c.Downstream = &d
	return c, nil
}

// gcdServers is the greatest common divisor of the server counts a
// downstream names (its own, for FIFO, and its phases'): limits that are
// multiples of limit/gcd keep every count whole.
func gcdServers(d *Downstream) int {
	g := 0
	gcd := func(a, b int) int {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	if !d.PS {
		g = d.Servers
	}
	for _, p := range d.Phases {
		if p.Servers > 0 {
			g = gcd(g, p.Servers)
		}
	}
	return max(g, 1)
}

// Silent returns one line for each phase that sends nothing in this run
// because it starts at or after the run's end (duration): its arrivals
// would all be cut. Idle phases and clock steps send nothing anyway.
func (s Scenario) Silent() []string {
	var out []string
	for i, p := range s.Phases {
		if p.Type == PhaseIdle || p.Type == PhaseClockStep || p.Start < s.Duration {
			continue
		}
		out = append(out, fmt.Sprintf("phase %d (%s) starts at %v, at or after the end of the run (duration %v), so it sends nothing", i+1, p.Type, p.Start, s.Duration))
	}
	return out
}

// WithDuration returns a copy that runs for d. Phases without a duration of
// their own stretch or shrink with it; the others keep their times and are
// cut at d.
func (s Scenario) WithDuration(d time.Duration) Scenario {
	c := s.clone()
	c.Duration = d
	return c
}

// WithSeed returns a copy whose Poisson phases without a seed of their own
// draw from seed.
func (s Scenario) WithSeed(seed uint64) Scenario {
	c := s.clone()
	c.Seed = seed
	return c
}

// clone deep-copies the slices so a modified copy never aliases s.
func (s Scenario) clone() Scenario {
	c := s
	c.Phases = make([]Phase, len(s.Phases))
	for i, p := range s.Phases {
		if p.Stages != nil {
			p.Stages = append([]Stage(nil), p.Stages...)
		}
		if p.Seed != nil {
			v := *p.Seed
			p.Seed = &v
		}
		c.Phases[i] = p
	}
	if s.Algorithms != nil {
		c.Algorithms = append([]string(nil), s.Algorithms...)
	}
	return c
}

// Validate reports the first problem that would make the scenario
// meaningless, as one line naming the scenario, the problem and the fix.
// It checks the limiter specs' syntax only; Loader.Validate checks them
// with the Loader's checker.
func (s Scenario) Validate() error { return Loader{}.Validate(s) }

// Validate is Scenario.Validate with l's spec checker.
func (l Loader) Validate(s Scenario) error {
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	}
	if err := s.validate(l.Check); err != nil {
		return fmt.Errorf("scenario %q: %w", name, err)
	}
	return nil
}

// validate is Validate without the scenario's name.
func (s Scenario) validate(check SpecChecker) error {
	if !(s.Limit > 0) || math.IsInf(s.Limit, 0) {
		return fmt.Errorf("limit %v is not a positive number; set a limit in requests per second, e.g. 100", s.Limit)
	}
	if s.Duration <= 0 {
		return fmt.Errorf("duration %v is not positive; set a duration such as 10s", s.Duration)
	}
	if s.Duration > MaxTime {
		return fmt.Errorf("duration %v is longer than %v; shorten it", s.Duration, MaxTime)
	}
	if len(s.Phases) == 0 {
		return errors.New("no phases; add at least one phase of traffic")
	}
	for i, p := range s.Phases {
		if p.Type == PhaseBurst && p.Count == 0 && s.scaled != nil && i < len(s.scaled.counts) && s.scaled.counts[i] > 0 {
			// The YAML refuses count: 0 (a burst needs at least one
			// arrival); a count that --limit rounds to 0 is refused the
			// same way, with the reason and the smallest limit that keeps
			// one arrival: round(count·limit/L) ≥ 1 from limit = L/(2·count).
			n := s.scaled.counts[i]
			return fmt.Errorf("phase %d (burst): --limit %g scales the traffic by %g (the scenario's limit is %g), so its count %d becomes %g, which rounds to 0; a burst needs at least one arrival: give --limit %g or more",
				i+1, s.scaled.to, s.scaled.to/s.scaled.from, s.scaled.from, n, float64(n)*s.scaled.to/s.scaled.from, math.Ceil(100*s.scaled.from/(2*float64(n)))/100)
		}
		if fe := p.check(); fe != nil {
			return fmt.Errorf("phase %d (%s): %s", i+1, p.Type, fe.msg)
		}
	}
	if fe := checkClock(s.Phases); fe != nil {
		return fmt.Errorf("phase %d (%s): %s", fe.phase+1, PhaseClockStep, fe.msg)
	}
	for _, a := range s.Algorithms {
		if err := checkSpec(check, a, s.Limit); err != nil {
			return err
		}
	}
	return nil
}

// fieldError is a problem with one field (by its YAML key) of one phase.
type fieldError struct {
	phase int
	key   string
	stage int // index of the stage for key "stages", else -1
	msg   string
}

func fe(key, format string, args ...any) *fieldError {
	return &fieldError{key: key, stage: -1, msg: fmt.Sprintf(format, args...)}
}

// checkTime checks that a time field lies in [0, MaxTime].
func checkTime(key string, d time.Duration) *fieldError {
	if d < 0 {
		return fe(key, "%s %v is negative; times count from the start of the run, use 0 or more", key, d)
	}
	if d > MaxTime {
		return fe(key, "%s %v is longer than %v; shorten it", key, d, MaxTime)
	}
	return nil
}

// checkRate checks a rate per TimeUnit (positive required or not).
func (p Phase) checkRate(key string, r float64, positive bool) *fieldError {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return fe(key, "%s %v is not a finite number; write a number of arrivals per timeUnit, e.g. 100", key, r)
	}
	if positive && r <= 0 {
		return fe(key, "%s %v is not positive; write a rate above 0 (use an idle phase for a pause)", key, r)
	}
	if r < 0 {
		return fe(key, "%s %v is negative; write 0 or more", key, r)
	}
	if p.perSecond(r) > MaxRate {
		return fe(key, "%s %v per %v is more than %g per second; lower it", key, r, p.unit(), float64(MaxRate))
	}
	return nil
}

// check validates one phase on its own.
func (p Phase) check() *fieldError {
	startKey := "start"
	switch p.Type {
	case PhaseBurst:
		startKey = "from"
	case PhaseClockStep:
		startKey = "at"
	}
	if e := p.checkKeys(); e != nil {
		return e
	}
	if e := checkTime(startKey, p.Start); e != nil {
		return e
	}
	if e := checkTime("duration", p.Duration); e != nil {
		return e
	}
	if p.TimeUnit < 0 || p.TimeUnit > MaxTime {
		return fe("timeUnit", "timeUnit %v is out of range; use a positive duration such as 1s or 1m", p.TimeUnit)
	}
	switch p.Type {
	case PhaseConstant, PhasePoisson:
		return p.checkRate("rate", p.Rate, true)
	case PhaseRamping:
		if e := p.checkRate("startRate", p.StartRate, false); e != nil {
			return e
		}
		if len(p.Stages) == 0 {
			return fe("stages", "a ramping phase needs stages; add stages: [{target: 100, duration: 10s}]")
		}
		var total time.Duration
		for j, st := range p.Stages {
			if e := p.checkRate("target", st.Target, false); e != nil {
				e.key, e.stage = "stages", j
				e.msg = fmt.Sprintf("stage %d: %s", j+1, e.msg)
				return e
			}
			if e := checkTime("duration", st.Duration); e != nil {
				e.key, e.stage = "stages", j
				e.msg = fmt.Sprintf("stage %d: %s", j+1, e.msg)
				return e
			}
			total += st.Duration
			if total > MaxTime {
				return fe("stages", "the stages last more than %v; shorten them", MaxTime)
			}
		}
		if total == 0 {
			return fe("stages", "the stages last 0s in all; give at least one stage a duration")
		}
	case PhaseBurst:
		if p.Count < 0 || p.Count > MaxCount {
			return fe("count", "count %d is out of range; use 1 to %d arrivals", p.Count, MaxCount)
		}
		if p.Every < 0 || p.Every > MaxTime {
			return fe("every", "every %v is out of range; use a positive period such as 2s", p.Every)
		}
		if p.Every > 0 && p.Every < p.Duration {
			return fe("every", "every %v is shorter than the burst's width %v, so repetitions would overlap; make every at least %v", p.Every, p.Duration, p.Duration)
		}
		if e := checkTime("until", p.Until); e != nil {
			return e
		}
		if p.Until != 0 && p.Every == 0 {
			return fe("until", "until only applies to a repeating burst; add every: or remove until:")
		}
		if p.Until != 0 && p.Until <= p.Start {
			return fe("until", "until %v is not after from %v; set until later than from", p.Until, p.Start)
		}
	case PhaseIdle:
	case PhaseClockStep:
		if p.Offset < -MaxTime || p.Offset > MaxTime {
			return fe("offset", "offset %v is out of range; use a duration such as -800ms", p.Offset)
		}
		if p.Offset == 0 {
			return fe("offset", "offset is 0, so the step does nothing; set offset: -800ms (back) or 1s (forward)")
		}
	case "":
		return fe("type", "the phase has no type; add type: with one of %s", quoteList(phaseTypes))
	default:
		msg := fmt.Sprintf("unknown phase type %q", p.Type)
		if near := nearest(p.Type, phaseTypes); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return fe("type", "%s (types: %s)", msg, quoteList(phaseTypes))
	}
	return nil
}

// checkClock checks that no clock step makes the limiters' clock read a
// negative time.
func checkClock(phases []Phase) *fieldError {
	steps := clockSteps(phases)
	var sum time.Duration
	for _, st := range steps {
		sum += st.offset
		if st.at+sum < 0 {
			e := fe("offset", "at %v the limiters' clock would read %v, before the start of the run; step back by at most %v", st.at, st.at+sum, st.at+sum-st.offset)
			e.phase = st.phase
			return e
		}
	}
	return nil
}

// clockStep is one step of the limiters' clock.
type clockStep struct {
	at, offset time.Duration
	phase      int
}

// clockSteps returns the scenario's clock steps sorted by time, ties in
// phase order.
func clockSteps(phases []Phase) []clockStep {
	var steps []clockStep
	for i, p := range phases {
		if p.Type == PhaseClockStep {
			steps = append(steps, clockStep{at: p.Start, offset: p.Offset, phase: i})
		}
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].at < steps[b].at })
	return steps
}

// quoteList renders names as "a", "b", "c".
func quoteList(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", n)
	}
	return out
}
