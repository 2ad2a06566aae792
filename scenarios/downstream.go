package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Downstream models the service behind the limiters (YAML downstream:):
// Servers requests are served at once, each for Service; a request that
// would take longer than Timeout from its admission (queueing + service) is
// given up by the caller at admission + Timeout and counts as an error.
// Phases change the service time and the share of failing requests over a
// span of time. The simulator gives each limiter row its own copy.
type Downstream struct {
	Servers int
	Service time.Duration
	// Timeout 0 means the caller never gives up.
	Timeout time.Duration
	Phases  []DownstreamPhase
	// Seed decides which requests fail (see simulator's downstream).
	Seed uint64
	// CancelOnTimeout: a request the caller gave up on stops using its
	// server at the timeout (default: abandoned work keeps running, as in
	// real servers).
	CancelOnTimeout bool
	// Clients, if not nil, are the callers' timeouts and retries.
	Clients *Clients
	// IOShare is the share of each request's service spent waiting on
	// I/O rather than on a CPU (0 by default: all CPU). The model's CPU
	// utilisation counts the CPU share of each request in service over
	// Servers (one core each); its load1 counts every request in service,
	// as Linux counts tasks in I/O wait.
	IOShare float64
	// PS selects processor sharing (discipline: ps) on Cores: each of N
	// requests in service progresses at min(1, Cores/N) / (1 + Kappa·(N−1))
	// (the Universal Scalability Law's coherency term); there is no queue.
	// FIFO (the default) is Servers and a queue.
	PS    bool
	Cores float64
	Kappa float64
}

// DownstreamPhase applies from From (inclusive) to To (exclusive), by the
// time a request's service starts.
type DownstreamPhase struct {
	From, To time.Duration
	Service  time.Duration
	// Errors is the share of requests that fail, in [0, 1].
	Errors float64
	// IOShare overrides the downstream's in this phase when HasIO.
	IOShare float64
	HasIO   bool
	// Cores overrides the downstream's cores in this phase (ps only) when
	// positive.
	Cores float64
	// Servers overrides the downstream's servers in this phase (fifo) when
	// positive: a server beyond it starts nothing during the phase (one
	// in service finishes its request).
	Servers int
}

// ServersAt is the servers in force at t (fifo).
func (d *Downstream) ServersAt(t time.Duration) int {
	for i := len(d.Phases) - 1; i >= 0; i-- {
		p := &d.Phases[i]
		if t >= p.From && t < p.To && p.Servers > 0 {
			return p.Servers
		}
	}
	return d.Servers
}

// CoresAt is the cores in force at t (ps).
func (d *Downstream) CoresAt(t time.Duration) float64 {
	for i := len(d.Phases) - 1; i >= 0; i-- {
		p := &d.Phases[i]
		if t >= p.From && t < p.To && p.Cores > 0 {
			return p.Cores
		}
	}
	return d.Cores
}

// Validate reports the first problem as one line naming the field.
func (d *Downstream) Validate() error {
	if d.Servers < 1 {
		return fmt.Errorf("downstream: servers must be at least 1, got %d", d.Servers)
	}
	if d.Service < 0 {
		return fmt.Errorf("downstream: service must not be negative, got %v", d.Service)
	}
	if d.PS && !(d.Cores > 0) {
		return fmt.Errorf("downstream: cores must be positive with discipline: ps, got %g", d.Cores)
	}
	if d.Kappa < 0 {
		return fmt.Errorf("downstream: kappa must not be negative, got %g", d.Kappa)
	}
	if d.Timeout < 0 {
		return fmt.Errorf("downstream: timeout must not be negative (0 means none), got %v", d.Timeout)
	}
	for i, p := range d.Phases {
		if p.To <= p.From {
			return fmt.Errorf("downstream: phase %d: to (%v) must be after from (%v)", i+1, p.To, p.From)
		}
		if p.From < 0 {
			return fmt.Errorf("downstream: phase %d: from must not be negative, got %v", i+1, p.From)
		}
		if p.Service < 0 {
			return fmt.Errorf("downstream: phase %d: service must not be negative, got %v", i+1, p.Service)
		}
		if !(p.Errors >= 0 && p.Errors <= 1) {
			return fmt.Errorf("downstream: phase %d: errors must be a share between 0 and 1, got %g", i+1, p.Errors)
		}
	}
	if i, j, ok := d.Overlap(); ok {
		a, b := d.Phases[i], d.Phases[j]
		return fmt.Errorf("downstream: phases %d [%v, %v) and %d [%v, %v) overlap; end one before the other starts (phases may not overlap)", i+1, a.From, a.To, j+1, b.From, b.To)
	}
	return nil
}

// Overlap returns two phases whose [From, To) spans share an instant, i
// before j in Phases, and false if no two do. Phases may not overlap:
// which one would be in force where they meet is not defined, so both
// Validate and the YAML parser reject it.
func (d *Downstream) Overlap() (i, j int, ok bool) {
	idx := make([]int, len(d.Phases))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(d.Phases[a].From, d.Phases[b].From) })
	// last is the phase seen so far that ends latest.
	last := -1
	for _, k := range idx {
		if last >= 0 && d.Phases[k].From < d.Phases[last].To {
			return min(last, k), max(last, k), true
		}
		if last < 0 || d.Phases[k].To > d.Phases[last].To {
			last = k
		}
	}
	return 0, 0, false
}

// IOAt is the I/O share in force at t.
func (d *Downstream) IOAt(t time.Duration) float64 {
	for i := len(d.Phases) - 1; i >= 0; i-- {
		p := &d.Phases[i]
		if t >= p.From && t < p.To && p.HasIO {
			return p.IOShare
		}
	}
	return d.IOShare
}

// At returns the service time and error share in force at t: the phase
// holding t (phases do not overlap, see Overlap), else the base service
// without errors.
func (d *Downstream) At(t time.Duration) (time.Duration, float64) {
	for i := len(d.Phases) - 1; i >= 0; i-- {
		p := &d.Phases[i]
		if t >= p.From && t < p.To {
			return p.Service, p.Errors
		}
	}
	return d.Service, 0
}
