package simulator

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Outputs of the adaptive rows and the clients' retries.

// SeriesAdaptiveColumns are the columns series.csv adds when some row has
// an adaptive stage: the retry attempts that arrived in the bin, the
// goodput (responses without error or timeout, by exit), and the first
// adaptive stage's calls in flight and current limit after the bin's last
// arrival (empty for a bin without arrivals or a limiter without a
// limit).
const SeriesAdaptiveColumns = ",retries,goodput,in_flight,limit,rt_p99_ms,cpu"

// HasAdaptive reports whether any row has an adaptive stage.
func HasAdaptive(r *Result) bool {
	for i := range r.Algorithms {
		if c := r.Algorithms[i].Chain; c != nil && c.Adaptive {
			return true
		}
	}
	return false
}

func appendAdaptiveBin(b []byte, bin *Bin) []byte {
	b = append(b, ',')
	b = strconv.AppendInt(b, bin.Retries, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, bin.Completed-bin.Errors, 10)
	b = append(b, ',')
	if bin.Sampled {
		b = strconv.AppendInt(b, bin.InFlight, 10)
	}
	b = append(b, ',')
	if bin.Sampled && !math.IsNaN(bin.Limit) {
		b = append(b, fmtRatio(bin.Limit)...)
	}
	b = append(b, ',')
	b = append(b, fmtMs(bin.RTP99)...)
	b = append(b, ',')
	if bin.HasCPU {
		b = append(b, fmtRatio(float64(bin.CPU))...)
	}
	return b
}

// binP99 computes each bin's RT p99 from the responses as they exit, in
// clock order: the RTs of the bin being filled are kept, and written to
// the bin (nearest rank) when an exit falls in another bin.
type binP99 struct {
	t0   int64 // the first exit of the bin being filled
	open bool
	rts  []time.Duration
}

func (p *binP99) add(acc *accumulator) func(exit, rt time.Duration) {
	return func(exit, rt time.Duration) {
		if p.open && floorDiv(int64(exit)-acc.start, acc.bin) != floorDiv(p.t0-acc.start, acc.bin) {
			p.flush(acc)
		}
		if !p.open {
			p.t0, p.open = int64(exit), true
		}
		p.rts = append(p.rts, rt)
	}
}

func (p *binP99) flush(acc *accumulator) {
	if !p.open || len(p.rts) == 0 {
		return
	}
	slices.Sort(p.rts)
	i := (99*len(p.rts)+99)/100 - 1 // nearest rank: ceil(0.99·n)
	b := acc.binAt(p.t0)
	b.RTP99 = max(b.RTP99, p.rts[i])
	p.rts, p.open = p.rts[:0], false
}

// adaptiveSummaryJS is what summary.json adds for every evented row: the
// goodput, the retries (sent, and not sent for the run's end) and the
// attempts per request, more RT
// percentiles, and the recovery time after the downstream's first phase.
type adaptiveSummaryJS struct {
	Goodput           int64   `json:"goodput"`
	Retries           int64   `json:"retries"`
	RetriesDropped    int64   `json:"retries_dropped_at_end"`
	AttemptsPerReq    jsonNum `json:"attempts_per_request"`
	RTP90Ms           jsonNum `json:"rt_p90_ms"`
	RTP999Ms          jsonNum `json:"rt_p999_ms"`
	RecoveryMs        jsonNum `json:"recovery_ms"`
	RecoveryTriggered bool    `json:"trigger"`
	TriggerEndMs      jsonNum `json:"trigger_end_ms"`
}

func adaptiveSummary(c *ChainResult) *adaptiveSummaryJS {
	js := &adaptiveSummaryJS{Goodput: c.Goodput, Retries: c.Retries, RetriesDropped: c.RetriesDroppedAtEnd,
		RTP90Ms: jsonNum(fmtMs(c.RTP90)), RTP999Ms: jsonNum(fmtMs(c.RTP999)), RecoveryTriggered: c.Trigger}
	if c.Requests > 0 {
		js.AttemptsPerReq = jsonNum(fmtRatio(float64(c.Requests+c.Retries) / float64(c.Requests)))
	}
	if c.Trigger && c.TriggerEnds {
		js.TriggerEndMs = jsonNum(fmtMs(c.TriggerEnd))
	}
	if c.HasRecovery {
		js.RecoveryMs = jsonNum(fmtMs(c.Recovery))
	}
	return js
}

// adaptiveResult fills the adaptive figures of r; end is the end of the
// run's span (the arrivals', not the bins that hold the last responses).
func (c *chainStats) adaptiveResult(r *ChainResult, a *accumulator, end time.Duration) {
	u := c.unit
	r.Adaptive = len(u.completers) > 0
	r.Requests = a.arrived - c.retries
	var cfg *scenarios.Downstream
	switch {
	case u.ds != nil:
		cfg = u.ds.cfg
	case u.ps != nil:
		cfg = u.ps.cfg
	}
	if cfg == nil || len(cfg.Phases) == 0 {
		return
	}
	ph := cfg.Phases[0]
	if ph.From >= end {
		return // the phase starts after the run: no trigger
	}
	r.Trigger = true
	if ph.To >= end {
		return // the phase lasts to the end: it never ends, nothing to recover from
	}
	r.TriggerEnds, r.TriggerEnd = true, ph.To
	r.Recovery, r.HasRecovery = recovery(a, ph.From, ph.To, end)
}

// recovery finds the first time t ≥ to at which the goodput of [t, t+1s)
// is within ±10% of the baseline: |goodput − baseline| ≤ 0.1·baseline,
// compared in integers so that exactly 10% counts as within. The
// baseline is the mean goodput per second over [from−10s, from) (from
// the start of the run when shorter); when the phase starts with the run
// (nothing before it), it is the mean over the last 10 s of the run after
// the phase, [max(to, end−10s), end): the level goodput settles at. Only
// windows that end within the run count (t+1s ≤ end); false when there is
// no baseline (no bins before, or no goodput in them) or no window comes
// back.
func recovery(a *accumulator, from, to, end time.Duration) (time.Duration, bool) {
	bin := time.Duration(a.bin)
	start := time.Duration(a.start)
	if bin <= 0 || bin > time.Second {
		return 0, false
	}
	good := func(i int) int64 {
		if i < 0 || i >= len(a.bins) {
			return 0
		}
		return a.bins[i].Completed - a.bins[i].Errors
	}
	idx := func(t time.Duration) int { return int((t-start)/bin) - int(a.origin) }
	lo, hi := max(from-10*time.Second, start), from
	if from <= start {
		lo, hi = max(to, end-10*time.Second), end
	}
	var sum int64
	n := int64(0)
	for i := idx(lo); i < idx(hi); i++ {
		sum += good(i)
		n++
	}
	if n == 0 || sum == 0 {
		return 0, false
	}
	w := int(time.Second / bin)
	// within: |g/w − sum/n| ≤ 0.1·sum/n  ⇔  10·|g·n − sum·w| ≤ sum·w.
	target := sum * int64(w)
	for i := idx(to); start+time.Duration(i+int(a.origin)+w)*bin <= end; i++ {
		var g int64
		for k := 0; k < w; k++ {
			g += good(i + k)
		}
		d := g*n - target
		if d < 0 {
			d = -d
		}
		if 10*d <= target {
			return start + time.Duration(i+int(a.origin))*bin - to, true
		}
	}
	return 0, false
}
