package simulator

import (
	"time"
)

// DefaultMaxBins is the default bound on the bins of a run's series, per
// limiter: 100 000 bins are 83 minutes at 50 ms, 4 MB of memory per limiter
// and at most a few MB of series.csv per limiter.
const DefaultMaxBins = 100_000

func (c *Config) maxBins() int {
	if c.MaxBins > 0 {
		return c.MaxBins
	}
	return DefaultMaxBins
}

// PlanBin returns the bin width a run over span uses when asked for bin:
// bin itself if span/bin bins fit in maxBins, otherwise the smallest
// multiple bin·k, k one of 2, 5, 10, 20, 50, 100, ..., that fits. The
// series keeps a whole number of requested bins per bin, so the counts are
// exactly the sums of the finer ones.
func PlanBin(span, bin time.Duration, maxBins int) time.Duration {
	if bin <= 0 || span <= 0 || maxBins <= 0 {
		return bin
	}
	need := (int64(span)-1)/int64(bin) + 1 // ceil without overflow
	if need <= int64(maxBins) {
		return bin
	}
	for k := int64(1); ; k *= 10 {
		for _, m := range []int64{2, 5, 10} {
			f := k * m
			if f > (1<<62)/int64(bin) {
				return time.Duration(1 << 62)
			}
			if (int64(span)-1)/(int64(bin)*f)+1 <= int64(maxBins) {
				return time.Duration(int64(bin) * f)
			}
		}
	}
}

// commonBin widens every accumulator to one bin width such that the
// union of their series, and the run's span, fit in MaxBins bins. Widths
// only ever double from the planned one, so each is a multiple of the
// others.
func commonBin(cfg *Config, accs []*accumulator, maxAt time.Duration, fed int64) time.Duration {
	w := int64(cfg.Bin)
	for _, a := range accs {
		w = max(w, a.bin)
	}
	for {
		lo := int64(0)
		end := int64(cfg.End)
		if fed > 0 && maxAt >= cfg.End {
			end = int64(maxAt) + 1
		}
		hi := max(int64(1), (end-int64(cfg.Start)+w-1)/w)
		for _, a := range accs {
			if len(a.bins) == 0 {
				continue
			}
			k := w / a.bin
			lo = min(lo, floorDiv(a.origin, k))
			hi = max(hi, floorDiv(a.origin+int64(len(a.bins))-1, k)+1)
		}
		if hi-lo <= int64(cfg.maxBins()) || w > 1<<61 {
			break
		}
		w *= 2
	}
	for _, a := range accs {
		if a.bin != w {
			a.widen(w / a.bin)
		}
	}
	return time.Duration(w)
}

// ClockStep is a step of the limiters' clock: from arrival At on, the
// clock reads By more (negative: back) than before, relative to true time.
// For a trace, where the clock is the recorded timestamp, a step back is a
// timestamp earlier than the one before it; At is then the earlier
// arrival's time, where the clock jumped back from.
type ClockStep struct {
	At, By time.Duration
}

// MaxClockSteps is how many clock steps a Result lists; ClockStepCount
// counts them all.
const MaxClockSteps = 1000

// clockSteps notices clock steps in the arrivals fed to a run.
type clockSteps struct {
	list        []ClockStep
	n           int64
	any         bool
	offset, at  time.Duration
	clockBefore time.Duration
}

// see notes an arrival at true time at whose clock reads clock. Most
// arrivals change nothing but the last times (same offset, clock not
// going back): that case is tested first and kept small.
func (c *clockSteps) see(at, clock time.Duration) {
	off := clock - at
	if c.any && off == c.offset && clock >= c.clockBefore {
		c.at, c.clockBefore = at, clock
		return
	}
	switch {
	case !c.any:
		c.any = true
		if off != 0 {
			c.add(ClockStep{At: at, By: off})
		}
	case off != c.offset:
		c.add(ClockStep{At: at, By: off - c.offset})
	case clock < c.clockBefore:
		// Same offset but the clock went back: a trace's timestamps.
		c.add(ClockStep{At: c.at, By: clock - c.clockBefore})
	}
	c.offset, c.at, c.clockBefore = off, at, clock
}

func (c *clockSteps) add(s ClockStep) {
	c.n++
	if len(c.list) < MaxClockSteps {
		c.list = append(c.list, s)
	}
}
