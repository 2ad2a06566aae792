package simulator

import (
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// accumulator collects one limiter's decisions as they stream in, in the
// style of vegeta's Metrics: everything is counted on the fly and nothing
// proportional to the number of arrivals is kept.
type accumulator struct {
	start, bin int64
	// bins[i] covers [start+(origin+i)·bin, start+(origin+i+1)·bin). It
	// holds at most maxBins bins; bin starts at Config.Bin and doubles
	// whenever more would be needed.
	bins    []Bin
	origin  int64
	maxBins int64
	// The bin of the last binAt, [curLo, curLo+curW) at bins[curI], so
	// that consecutive arrivals in one bin skip the division; curW is 0
	// when nothing is cached.
	curLo, curW int64
	curI        int
	// The same for admissions after a wait (admAt), which would otherwise
	// evict the arrival's bin from the cache at every queued pass.
	admLo, admW int64
	admI        int
	// The same for a row's exits and samples at its current time
	// (exitAt), which interleave with the arrivals of retries (their
	// arrival bin, up to a timeout earlier).
	exitLo, exitW int64
	exitI         int

	arrived, passed, blocked int64
	waits                    waitHist
	window                   *windowMax
	adm                      []int64 // addBatch's admission times

	decideNs  int64
	decisions int64

	chain *chainStats // evented rows only (chain.go)
	prio  prioAcc     // prioritized arrivals (priority.go)
	keys  *keyStats   // keyed rows only (keys.go)

	// wrapped is set by addBatch when a pass's arrival + wait passes the
	// int64 nanoseconds (its index in the batch plus 1, 0: none); process
	// then stops the run with wrapErr.
	wrapped int
}

func newAccumulator(cfg *Config) *accumulator {
	// No bin is allocated up front: the series grows as arrivals and
	// admissions reach new bins (see binAt), so its memory follows the
	// traffic and MaxBins, not the span.
	return &accumulator{
		start:   int64(cfg.Start),
		bin:     int64(cfg.Bin),
		maxBins: int64(cfg.maxBins()),
		window:  newWindowMax(cfg.Window, cfg.Reorder),
	}
}

// binAt returns the bin holding true time t, growing the series as needed
// and, when it would hold more than maxBins bins, doubling the bin width
// (see widen) until it fits.
func (a *accumulator) binAt(t int64) *Bin {
	if uint64(t-a.curLo) < uint64(a.curW) {
		return &a.bins[a.curI]
	}
	return a.binAtSlow(t)
}

// binAtSlow is binAt for a time outside the cached bin.
func (a *accumulator) binAtSlow(t int64) *Bin {
	b := a.locate(t)
	a.curI = int(floorDiv(t-a.start, a.bin) - a.origin)
	a.curLo = a.start + (a.origin+int64(a.curI))*a.bin
	a.curW = a.bin
	return b
}

// admAt is binAt for an admission time, with its own cached bin.
func (a *accumulator) admAt(t int64) *Bin {
	if uint64(t-a.admLo) < uint64(a.admW) {
		return &a.bins[a.admI]
	}
	b := a.locate(t)
	a.admI = int(floorDiv(t-a.start, a.bin) - a.origin)
	a.admLo = a.start + (a.origin+int64(a.admI))*a.bin
	a.admW = a.bin
	return b
}

// exitAt is binAt for an exit or a sample, with its own cached bin.
func (a *accumulator) exitAt(t int64) *Bin {
	if uint64(t-a.exitLo) < uint64(a.exitW) {
		return &a.bins[a.exitI]
	}
	b := a.locate(t)
	a.exitI = int(floorDiv(t-a.start, a.bin) - a.origin)
	a.exitLo = a.start + (a.origin+int64(a.exitI))*a.bin
	a.exitW = a.bin
	return b
}

// locate is binAt without the cache.
func (a *accumulator) locate(t int64) *Bin {
	origin, bin := a.origin, a.bin
	defer func() {
		// Bins renumbered or merged: forget the cached ones.
		if a.origin != origin || a.bin != bin {
			a.curW, a.admW, a.exitW = 0, 0, 0
		}
	}()
	for {
		i := floorDiv(t-a.start, a.bin)
		if len(a.bins) == 0 {
			a.bins = make([]Bin, 1, 64)
			a.origin = i
			return &a.bins[0]
		}
		i -= a.origin
		if i >= 0 && i < int64(len(a.bins)) {
			return &a.bins[i]
		}
		lo, hi := min(i, 0), max(i+1, int64(len(a.bins)))
		if hi-lo > a.maxBins {
			a.widen(2)
			continue
		}
		if i < 0 {
			grow := -i
			nb := make([]Bin, int64(len(a.bins))+grow, max(int64(len(a.bins))+grow, int64(2*len(a.bins))))
			copy(nb[grow:], a.bins)
			a.bins = nb
			a.origin -= grow
			return &a.bins[0]
		}
		need := int(i) + 1
		if need <= cap(a.bins) {
			a.bins = a.bins[:need]
		} else {
			nb := make([]Bin, need, min(max(need, 2*len(a.bins)), int(a.maxBins)))
			copy(nb, a.bins)
			a.bins = nb
		}
		return &a.bins[i]
	}
}

// widen merges every k consecutive bins (aligned on start) into one: the
// bin becomes k times wider. Counts and wait sums add up; WaitMax is the
// largest.
func (a *accumulator) widen(k int64) {
	a.bin *= k
	a.curW, a.admW, a.exitW = 0, 0, 0
	if len(a.bins) == 0 {
		return
	}
	origin := floorDiv(a.origin, k)
	last := floorDiv(a.origin+int64(len(a.bins))-1, k)
	nb := make([]Bin, last-origin+1)
	for i, b := range a.bins {
		nb[floorDiv(a.origin+int64(i), k)-origin].merge(b)
	}
	a.bins, a.origin = nb, origin
}

// merge adds o's counts to b.
func (b *Bin) merge(o Bin) {
	b.Arrived += o.Arrived
	b.Passed += o.Passed
	b.Blocked += o.Blocked
	b.WaitSum += o.WaitSum
	b.WaitMax = max(b.WaitMax, o.WaitMax)
	b.Borrowed += o.Borrowed
	b.Fallbacks += o.Fallbacks
	b.KeysHurt += o.KeysHurt
	b.Completed += o.Completed
	b.Errors += o.Errors
	b.Timeouts += o.Timeouts
	b.RTSum += o.RTSum
	b.RTMax = max(b.RTMax, o.RTMax)
	b.Retries += o.Retries
	if o.Sampled {
		// The later bin's state is the merged bin's last.
		b.InFlight, b.Limit, b.Sampled = o.InFlight, o.Limit, true
	}
	b.RTP99 = max(b.RTP99, o.RTP99)
	if o.HasCPU {
		b.CPU, b.HasCPU = o.CPU, true
	}
}

// add records one decision for an arrival at true time at; prio is the
// arrival's priority flag.
func (a *accumulator) add(at time.Duration, d algorithms.Decision, prio bool) {
	a.arrived++
	b := a.binAt(int64(at))
	b.Arrived++
	if prio {
		a.prio.arrived++
		if d.Pass {
			a.prio.passed++
		}
	}
	if !d.Pass {
		a.blocked++
		b.Blocked++
		return
	}
	a.passed++
	w := max(d.Wait, 0)
	adm := int64(at + w)
	if w > 0 {
		b = a.admAt(adm)
	}
	b.Passed++
	b.WaitSum += w
	if w > b.WaitMax {
		b.WaitMax = w
	}
	if prio && w > 0 && a.prio.borrows {
		a.prio.borrow(b, w)
	}
	if w == 0 {
		// waitHist.add for no wait, inlined: max stays ≥ 0.
		a.waits.n++
		a.waits.zero++
	} else {
		a.waits.add(w)
	}
	a.window.add(adm)
}

// addBatch is add for every arrival of a batch with its decision (same
// counts, same admissions in the same order), with the counters kept in
// registers and the admission times handed to the window maximum in one
// call (windowMax.addMany).
func (a *accumulator) addBatch(arr []scenarios.Arrival, ds []algorithms.Decision) {
	ds = ds[:len(arr)]
	if cap(a.adm) < len(arr) {
		// Room for a whole batch at once: grown by append it would
		// allocate (and touch) about twice that.
		a.adm = make([]int64, 0, len(arr))
	}
	adm := a.adm[:0]
	var passed, zero int64
	// The counts of the cached bin (a.bins[a.curI]) since the last flush,
	// in registers: incrementing the bin in memory would make every
	// arrival wait for the previous one's store. They are flushed before
	// anything that may move or merge the bins (locate, via binAtSlow or
	// admAt) and at the end.
	var cArrived, cBlocked, cPassed int64
	flush := func() {
		if cArrived != 0 {
			b := &a.bins[a.curI]
			b.Arrived += cArrived
			b.Blocked += cBlocked
			b.Passed += cPassed
			cArrived, cBlocked, cPassed = 0, 0, 0
		}
	}
	for j := range arr {
		at, d := int64(arr[j].At), ds[j]
		if uint64(at-a.curLo) >= uint64(a.curW) {
			flush()
			a.binAtSlow(at)
		}
		cArrived++
		if arr[j].Priority {
			a.prio.arrived++
			if d.Pass {
				a.prio.passed++
			}
		}
		if !d.Pass {
			cBlocked++
			continue
		}
		passed++
		if d.Wait <= 0 {
			// An immediate pass: its admission is its arrival.
			cPassed++
			zero++
			adm = append(adm, at)
			continue
		}
		w := d.Wait
		t := at + int64(w)
		if t < at {
			// The wait wrapped the int64 clock (a limiter that waits
			// centuries, e.g. guava at rate 1e-10 with timeout=inf):
			// nothing after this is meaningful, so stop; process
			// reports it.
			flush()
			a.wrapped = j + 1
			return
		}
		if uint64(t-a.admLo) >= uint64(a.admW) {
			flush()
		}
		b := a.admAt(t)
		b.Passed++
		b.WaitSum += w
		if w > b.WaitMax {
			b.WaitMax = w
		}
		if arr[j].Priority && a.prio.borrows {
			a.prio.borrow(b, w)
		}
		a.waits.add(w)
		adm = append(adm, t)
	}
	flush()
	n := int64(len(arr))
	a.arrived += n
	a.passed += passed
	a.blocked += n - passed
	// waitHist.add for the zero waits, as in add.
	a.waits.n += zero
	a.waits.zero += zero
	a.adm = adm
	a.window.addMany(adm)
}

// registryName is the part of a spec before the first ':'.
func registryName(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	return name
}

// finish turns the accumulator into an AlgoResult; the bins are aligned to
// [lo, hi) (bin indexes relative to start) by the caller; end is the end
// of the run's span.
func (a *accumulator) finish(lim algorithms.Limiter, window time.Duration, lo, hi int64, end time.Duration) AlgoResult {
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
	r.Cluster = clusterFigures(lim)
	r.KongSync = kongSyncFigures(lim)
	r.Replicas = replicaFigures(lim) // replicas.go
	r.EpochMs, r.HasEpochMs = wallEpoch(lim)
	r.MaxWindowPassed, r.LateAdmissions = a.window.result()
	if at, ok := a.window.busiest(); ok {
		r.MaxWindowEnd, r.HasMaxWindow = time.Duration(at), true
	}
	r.WindowLimit = r.Rate * window.Seconds()
	if wl, ok := lim.(algorithms.WindowLimiter); ok {
		r.WindowLimit = wl.WindowLimit(window)
	}
	if r.WindowLimit > 0 {
		r.Overshoot = float64(r.MaxWindowPassed) / r.WindowLimit
	}
	if r.SampleCount > 0 {
		r.SmoothBound = 1 + 1/float64(r.SampleCount)
	}
	q := a.waits.quantiles(50, 99)
	r.WaitP50, r.WaitP99, r.WaitMax = q[0], q[1], a.waits.max
	if a.decisions > 0 {
		r.NsPerDecision = float64(a.decideNs) / float64(a.decisions)
	}
	if a.chain != nil {
		r.Chain = a.chain.result(lo, hi, a, end)
	}
	r.Priority = a.prio.result(a.arrived, a.passed)
	if a.keys != nil {
		r.Keys = a.keys.result(a.passed)
	}
	r.Bins = make([]Bin, hi-lo)
	if len(a.bins) > 0 {
		copy(r.Bins[a.origin-lo:], a.bins)
	}
	for _, b := range r.Bins {
		r.PeakBinPassed = max(r.PeakBinPassed, b.Passed)
	}
	return r
}
