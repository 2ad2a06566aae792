package simulator

import (
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// accumulator collects one limiter's decisions as they stream in, in the
// style of vegeta's Metrics: everything is counted on the fly and nothing
// proportional to the number of arrivals is kept.
type accumulator struct {
	start, bin int64
	// bins[i] covers [start+(origin+i)·bin, start+(origin+i+1)·bin).
	bins   []Bin
	origin int64

	arrived, passed, blocked int64
	waits                    waitHist
	window                   *windowMax

	decideNs  int64
	decisions int64
}

func newAccumulator(cfg *Config) *accumulator {
	n := int((cfg.End - cfg.Start + cfg.Bin - 1) / cfg.Bin)
	return &accumulator{
		start:  int64(cfg.Start),
		bin:    int64(cfg.Bin),
		bins:   make([]Bin, max(n, 1)),
		window: newWindowMax(cfg.Window, cfg.Reorder),
	}
}

// binAt returns the bin holding true time t, growing the series as needed.
func (a *accumulator) binAt(t int64) *Bin {
	d := t - a.start
	i := d / a.bin
	if d < 0 && d%a.bin != 0 {
		i-- // floor division
	}
	i -= a.origin
	if i < 0 {
		grow := -i
		nb := make([]Bin, int64(len(a.bins))+grow)
		copy(nb[grow:], a.bins)
		a.bins = nb
		a.origin -= grow
		i = 0
	} else if i >= int64(len(a.bins)) {
		need := int(i) + 1
		if need <= cap(a.bins) {
			a.bins = a.bins[:need]
		} else {
			nb := make([]Bin, need, max(need, 2*len(a.bins)))
			copy(nb, a.bins)
			a.bins = nb
		}
	}
	return &a.bins[i]
}

// add records one decision for an arrival at true time at.
func (a *accumulator) add(at time.Duration, d algorithms.Decision) {
	a.arrived++
	b := a.binAt(int64(at))
	b.Arrived++
	if !d.Pass {
		a.blocked++
		b.Blocked++
		return
	}
	a.passed++
	w := max(d.Wait, 0)
	adm := int64(at + w)
	if w > 0 {
		b = a.binAt(adm)
	}
	b.Passed++
	b.WaitSum += w
	if w > b.WaitMax {
		b.WaitMax = w
	}
	a.waits.add(w)
	a.window.add(adm)
}

// registryName is the part of a spec before the first ':'.
func registryName(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	return name
}

// finish turns the accumulator into an AlgoResult; the bins are aligned to
// [lo, hi) (bin indexes relative to start) by the caller.
func (a *accumulator) finish(lim algorithms.Limiter, window time.Duration, lo, hi int64) AlgoResult {
	spec := lim.Spec()
	r := AlgoResult{
		Spec:       spec,
		Name:       registryName(spec),
		Rate:       lim.Rate(),
		StateBytes: lim.StateBytes(),
		Arrived:    a.arrived,
		Passed:     a.passed,
		Blocked:    a.blocked,
	}
	if sc, ok := lim.(interface{ SampleCount() int }); ok {
		r.SampleCount = sc.SampleCount()
	}
	r.Redis = redisFigures(lim)
	r.MaxWindowPassed, r.LateAdmissions = a.window.result()
	r.WindowLimit = r.Rate * window.Seconds()
	if r.WindowLimit > 0 {
		r.Overshoot = float64(r.MaxWindowPassed) / r.WindowLimit
	}
	if r.SampleCount > 0 {
		r.SmoothBound = r.WindowLimit * (1 + 1/float64(r.SampleCount))
	}
	q := a.waits.quantiles(50, 99)
	r.WaitP50, r.WaitP99, r.WaitMax = q[0], q[1], a.waits.max
	if a.decisions > 0 {
		r.NsPerDecision = float64(a.decideNs) / float64(a.decisions)
	}
	r.Bins = make([]Bin, hi-lo)
	copy(r.Bins[a.origin-lo:], a.bins)
	for _, b := range r.Bins {
		r.PeakBinPassed = max(r.PeakBinPassed, b.Passed)
	}
	return r
}
