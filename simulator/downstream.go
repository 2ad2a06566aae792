package simulator

import (
	"math"
	"slices"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// downstream is one row's copy of the modelled service (scenarios.Downstream):
// a FIFO queue in front of Servers servers. Requests enter in admission
// order; each starts on the first server to come free (at once if one is
// idle), is served for the service time in force when it starts, and
// leaves. RT is queueing + service. When RT would exceed the timeout the
// caller gives up at admission + timeout with an error, but the server
// still serves the request (it cannot know): abandoned work keeps the queue
// long. A request fails, besides timeouts, when a hash of (seed, arrival
// number) falls under the error share of its phase, so the same arrival
// fails in every row that lets it through.
type downstream struct {
	cfg  *scenarios.Downstream
	free []time.Duration // min-heap of the times the servers come free
	// model, if not nil, receives each service interval (signals.go).
	model *hostModel
	// With phases that change the servers (gated), ids[i] is the server
	// whose free time is free[i], and marks the phase boundaries: server
	// s may start a request at t only if s < ServersAt(t).
	gated bool
	ids   []int32
	marks []time.Duration
	// wrapped is set when a server's free time passed the int64
	// nanoseconds (a queue of centuries of service): the chain then stops
	// the run.
	wrapped bool
}

func newDownstream(cfg *scenarios.Downstream) *downstream {
	n := cfg.Servers
	var marks []time.Duration
	for _, p := range cfg.Phases {
		if p.Servers > 0 {
			n = max(n, p.Servers)
			marks = append(marks, p.From, p.To)
		}
	}
	d := &downstream{cfg: cfg, free: make([]time.Duration, n), gated: len(marks) > 0, marks: marks}
	for i := range d.free {
		d.free[i] = math.MinInt64
	}
	if d.gated {
		slices.Sort(d.marks)
		d.ids = make([]int32, n)
		for i := range d.ids {
			d.ids[i] = int32(i)
		}
	}
	return d
}

// gate moves the heap's first server past the spans in which it may not
// start a request, until the first server may start at
// max(adm, its free time).
func (d *downstream) gate(adm time.Duration) {
	for {
		s, start := int(d.ids[0]), max(adm, d.free[0])
		if s < d.cfg.ServersAt(start) {
			return
		}
		next := time.Duration(math.MaxInt64)
		for _, m := range d.marks {
			if m > start && s < d.cfg.ServersAt(m) {
				next = m
				break
			}
		}
		d.free[0] = next
		d.down(0)
	}
}

// serve admits request seq at adm and returns when the caller sees it
// exit, whether it failed and whether it timed out.
//
// id names the attempt for the error draw: the arrival number, plus the
// retry number in the high bits for a retry (a retry may succeed where
// the first attempt failed). With CancelOnTimeout a request given up on
// leaves its server at the timeout (or never takes one if it had not
// started).
func (d *downstream) serve(id int64, adm time.Duration) (exit time.Duration, failed, timeout bool) {
	// Whether the request waits for the first server to come free (its
	// start is that server's free time, whatever adm is): the host model
	// replays such admissions without keeping them (signals.go).
	waits := !d.gated && adm <= d.free[0]
	start, end, errs, timedOut := d.place(adm)
	d.model.admit(adm, waits, start, end)
	if timedOut {
		return adm + d.cfg.Timeout, true, true
	}
	return end, errs > 0 && unitFloat(d.cfg.Seed, uint64(id)) < errs, false
}

// place puts a request admitted at adm on the first server to come free
// and returns when it starts, when it leaves its server (end == start: it
// never takes one), the error share of its service and whether its caller
// gives up first (at adm + Timeout).
func (d *downstream) place(adm time.Duration) (start, end time.Duration, errs float64, timedOut bool) {
	if d.gated {
		d.gate(adm)
	}
	start = max(adm, d.free[0])
	service, errs := d.cfg.At(start)
	end = start + service
	if end < start {
		d.wrapped = true
	}
	if d.cfg.Timeout > 0 && end-adm > d.cfg.Timeout {
		timedOut = true
		if d.cfg.CancelOnTimeout {
			giveUp := adm + d.cfg.Timeout
			if start >= giveUp {
				return start, start, errs, true
			}
			end = giveUp
		}
	}
	d.free[0] = end
	d.down(0)
	return start, end, errs, timedOut
}

// down restores the heap from i.
func (d *downstream) down(i int) {
	h := d.free
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l] < h[m] {
			m = l
		}
		if r < len(h) && h[r] < h[m] {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		if d.gated {
			d.ids[i], d.ids[m] = d.ids[m], d.ids[i]
		}
		i = m
	}
}

// unitFloat maps (seed, n) to [0, 1) with splitmix64.
func unitFloat(seed, n uint64) float64 {
	z := seed + (n+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}
