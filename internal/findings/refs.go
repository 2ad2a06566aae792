package findings

import (
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// IdleGapsFile is the scenario of the seed-ring section, relative to the
// module root: 2 s at 1.5 times the limit after idle gaps of 10 s, 60 s
// and 300 s.
const IdleGapsFile = "internal/findings/testdata/idle-gaps.yaml"

// seedRingGap measures what seed 002's printed ring does after an idle
// gap, against a ring that resets once.
func (g *gen) seedRingGap() error {
	g.section("Seed 002's printed ring after an idle gap")
	g.p("Claim (seed 002 §3.1): after a pause longer than the window the ring simply resets its total to zero, once. The printed code clamps the step count to bucket_count but then moves the bucket start by only bucket_count·bucket_ms (one window) per call, so after a long gap the start lags the clock and every following call wipes the ring again. `seed-ring` runs the code as printed; `leap-array:sample-count=100` is a ring of the same 100 buckets that moves to the current bucket at once (the prose's single reset); `sliding-log` is the exact count.\n\n")
	sc, err := scenarios.LoadFile(filepath.Join(g.root, IdleGapsFile))
	if err != nil {
		return err
	}
	r, err := g.run(sc, nil, time.Second)
	if err != nil {
		return err
	}
	header := []string{"after an idle gap of"}
	for _, a := range r.Algorithms {
		header = append(header, "`"+a.Name+"` 1st s", "2nd s")
	}
	var rows [][]string
	gaps := []struct {
		gap   time.Duration
		start int
	}{{0, 0}, {10 * time.Second, 12}, {60 * time.Second, 74}, {300 * time.Second, 376}}
	worst := int64(0)
	for _, gp := range gaps {
		label := "none (start)"
		if gp.gap > 0 {
			label = num(gp.gap.Seconds()) + " s"
		}
		row := []string{label}
		for i, a := range r.Algorithms {
			p1, p2 := a.Bins[gp.start].Passed, a.Bins[gp.start+1].Passed
			row = append(row, itoa(p1), itoa(p2))
			if i == 0 {
				worst = max(worst, p1, p2)
			}
		}
		rows = append(rows, row)
	}
	g.table(header, rows)
	g.cmd("ratelimit-lab run " + IdleGapsFile + " --bin 1s")
	g.p("Passes in the first and second second of each 2 s spell at 150/s (limit 100/s, window 1 s, 100 buckets of 10 ms).\n\n")
	ring, single := r.Algorithms[0], r.Algorithms[1]
	if ring.MaxWindowPassed > single.MaxWindowPassed {
		last := gaps[len(gaps)-1].start
		arrived := ring.Bins[last].Arrived + ring.Bins[last+1].Arrived
		passed := ring.Bins[last].Passed + ring.Bins[last+1].Passed
		g.p("Verdict: the printed code does not do what the prose says. After a gap of G windows, the next calls each wipe the ring and pass until the bucket start has caught up, about G calls, so up to %d pass in one second (%s the limit) where the single reset passes %d; after the 300 s gap %d of the %d arrivals of the next 2 s pass. Fixing it takes one line: move the start by the unclamped step count.\n\n",
			worst, x(float64(worst)/sc.Limit), single.MaxWindowPassed, passed, arrived)
	} else {
		g.p("Verdict: not reproduced; the printed ring passes no more than the single reset (%d against %d in the busiest second).\n\n", ring.MaxWindowPassed, single.MaxWindowPassed)
	}
	return nil
}

// decaySmoothing compares the decaying window's smoothing with the
// sliding-window counter and leap-array.
func (g *gen) decaySmoothing() error {
	g.section("What the decaying window's smoothing buys")
	g.p("Claim (seed 002 §3.4): weighting each bucket by exp(−age/decay) lets old buckets fade instead of vanishing at once, so the passes come out smoother than from a bucketed window. Measured on `spikes` (a limit's worth within 50 ms every 2 s over a Poisson background at half the limit) and `steady-overload` (evenly spaced at twice the limit), against Cloudflare's sliding-window counter, leap-array and the exact sliding log. \"CV\" is the coefficient of variation (standard deviation / mean) of the passes per 50 ms bin from 1 s on: lower is smoother.\n\n")
	specs := []string{"decaying-window", "decaying-window:decay=2s", "sliding-window-counter", "leap-array", "leap-array:sample-count=10", "sliding-log"}
	var rows [][]string
	var cmds []string
	type res struct {
		cv, over, rate float64
	}
	got := map[string]map[string]res{}
	for _, name := range []string{"spikes", "steady-overload"} {
		sc, err := lookup(name)
		if err != nil {
			return err
		}
		r, err := g.run(sc, specs, simulator.DefaultBin)
		if err != nil {
			return err
		}
		got[name] = map[string]res{}
		for i, a := range r.Algorithms {
			cv := binCV(a.Bins, int(time.Second/r.Bin))
			rate := float64(a.Passed) / sc.Duration.Seconds()
			got[name][specs[i]] = res{cv, a.Overshoot, rate}
			rows = append(rows, []string{"`" + name + "`", "`" + specs[i] + "`", itoa(a.Passed), num(math.Round(rate*10)/10) + "/s",
				itoa(a.MaxWindowPassed), x(a.Overshoot), itoa(a.PeakBinPassed), strings.TrimSuffix(x(cv), "×")})
		}
		cmds = append(cmds, "ratelimit-lab run "+name+" --algo "+strings.Join(specs, " --algo "))
	}
	g.table([]string{"scenario", "limiter", "passed", "mean rate", "max 1 s window", "overshoot", "peak 50 ms", "CV per 50 ms"}, rows)
	g.cmd(cmds...)
	so, sp := got["steady-overload"], got["spikes"]
	d, d2, swc, la := so["decaying-window"], so["decaying-window:decay=2s"], so["sliding-window-counter"], so["leap-array"]
	held, held2 := steadyDecayRate(100, time.Second, 10, 500*time.Millisecond), steadyDecayRate(100, time.Second, 10, 2*time.Second)
	g.p("Verdict: the smoothing is bought with the limit. A steady stream of rate r weighs r·b·(1 + Σₖ₌₁⁹ e^(−k·b/decay)) just before a bucket edge (b = 100 ms), so limit 100 holds a steady stream to about %s/s with the default decay of 500 ms and %s/s with decay 2 s, not 100/s. ",
		num(math.Round(held*10)/10), num(math.Round(held2*10)/10))
	if d.over >= 2 {
		g.p("On `steady-overload` (200/s) `decaying-window` therefore blocks nothing: its series is flat (CV %s) because it passes everything; ", strings.TrimSuffix(x(d.cv), "×"))
	} else {
		g.p("On `steady-overload` `decaying-window` passes %s/s (CV %s); ", num(math.Round(d.rate*10)/10), strings.TrimSuffix(x(d.cv), "×"))
	}
	g.p("with decay 2 s it passes %s/s (CV %s). On `spikes` it lets %s the limit through in its busiest second, against %s for the sliding-window counter and %s for leap-array. ",
		num(math.Round(d2.rate*10)/10), strings.TrimSuffix(x(d2.cv), "×"), x(sp["decaying-window"].over), x(sp["sliding-window-counter"].over), x(sp["leap-array"].over))
	if swc.cv < la.cv && swc.over <= 1.05 && sp["sliding-window-counter"].over <= 1.05 {
		g.p("The smoothest series that also holds the limit comes from the sliding-window counter (CV %s on `steady-overload`, against %s for leap-array's 500 ms buckets), with two counters of state. ", strings.TrimSuffix(x(swc.cv), "×"), strings.TrimSuffix(x(la.cv), "×"))
	}
	g.p("A decaying window limits a weighted sum: its `limit` has to be calibrated against the decay, as the seed itself warns.\n\n")
	return nil
}

// steadyDecayRate is the rate (per second) of an evenly spaced stream
// whose weighted count just before a bucket edge reaches limit in a
// decaying window: limit / (b·(1 + Σ_{k=1}^{buckets−1} exp(−k·b/decay))).
func steadyDecayRate(limit float64, window time.Duration, buckets int, decay time.Duration) float64 {
	b := window.Seconds() / float64(buckets)
	w := 1.0
	for k := 1; k < buckets; k++ {
		w += math.Exp(-float64(k) * b / decay.Seconds())
	}
	return limit / (b * w)
}

// binCV is the coefficient of variation of the passes per bin, skipping
// the first skip bins.
func binCV(bins []simulator.Bin, skip int) float64 {
	if len(bins) <= skip {
		return 0
	}
	bins = bins[skip:]
	var sum, sq float64
	for _, b := range bins {
		sum += float64(b.Passed)
	}
	mean := sum / float64(len(bins))
	if mean == 0 {
		return 0
	}
	for _, b := range bins {
		d := float64(b.Passed) - mean
		sq += d * d
	}
	return math.Sqrt(sq/float64(len(bins))) / mean
}
