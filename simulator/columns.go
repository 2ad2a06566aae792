package simulator

import (
	"math"
	"time"
)

// TrailingWindow returns, for every bin i of bins, the passes admitted in
// the k bins ending with it (bins i−k+1 … i; bins before the first count
// as empty), where k = Window/Bin rounded to the nearest whole bin (at
// least 1): the quantity the limit bounds, sampled at each bin's end.
// span is k·bin, the window actually summed: equal to window when window
// is a multiple of bin. MaxWindowPassed is the exact maximum over every
// window position; this series is its bin-aligned trace over time, so its
// largest value never exceeds MaxWindowPassed when span = window.
func TrailingWindow(bins []Bin, bin, window time.Duration) (counts []int64, span time.Duration) {
	k := 1
	if bin > 0 {
		k = max(1, int((window+bin/2)/bin))
	}
	counts = make([]int64, len(bins))
	var sum int64
	for i, b := range bins {
		sum += b.Passed
		if i >= k {
			sum -= bins[i-k].Passed
		}
		counts[i] = sum
	}
	return counts, time.Duration(k) * bin
}

// Envelope summarises the values of one chart column: the smallest, the
// mean and the largest.
type Envelope struct{ Min, Mean, Max float64 }

func (e *Envelope) add(v float64, first bool) {
	if first {
		e.Min, e.Max = v, v
	} else {
		e.Min, e.Max = min(e.Min, v), max(e.Max, v)
	}
	e.Mean += v
}

// Column is one pixel column of a chart: the bins whose start falls in
// [From, To), reduced to envelopes. Rates are per second: a bin's count
// divided by the bin width; Window is the trailing-window pass count
// (TrailingWindow) divided by the window span, so it reads against the
// limit on the same axis.
type Column struct {
	From, To              time.Duration
	Bins                  int // how many bins the column holds
	Arrival, Pass, Window Envelope
	// WaitMs is the mean wait of the passes admitted in the column's bins,
	// in milliseconds (0 when none passed).
	WaitMs float64
	// RTMs is the mean response time of the calls that completed in the
	// column's bins, in milliseconds (0 when none did; rows with responses
	// only).
	RTMs float64
	// Completed is how many calls completed in the column's bins: with
	// none, RTMs has no value (a chart leaves a gap, not 0 ms).
	Completed int64
	// Borrowed is the mean rate of the borrowed passes (Bin.Borrowed) over
	// the column's bins, per second: the part of Pass.Mean that waited for
	// a future window.
	Borrowed float64
	// Fallbacks is the mean rate of the arrivals a cluster limiter decided
	// on its fail path (Bin.Fallbacks), per second.
	Fallbacks float64
	// Goodput is the mean rate of responses without error or timeout
	// (completed − errors) over the column's bins, per second.
	Goodput float64
	// The adaptive signals, series.csv's in_flight, limit, rt_p99_ms and
	// cpu: InFlight and Limit are the means over the column's sampled bins
	// (Bin.Sampled; Sampled counts them, Limits those with a limit), CPU
	// the mean over its bins with a CPU signal (CPUs counts them), and
	// RTP99Ms the largest bin RT p99 in ms (as merged bins keep it; no
	// value when Completed is 0).
	InFlight, Limit, CPU, RTP99Ms float64
	Sampled, Limits, CPUs         int
}

// addSignals adds one bin's adaptive signals to the column (sums, divided
// by endSignals).
func (c *Column) addSignals(b *Bin) {
	if b.Sampled {
		c.Sampled++
		c.InFlight += float64(b.InFlight)
		if !math.IsNaN(b.Limit) {
			c.Limits++
			c.Limit += b.Limit
		}
	}
	if b.HasCPU {
		c.CPUs++
		c.CPU += float64(b.CPU)
	}
	c.RTP99Ms = max(c.RTP99Ms, ms(b.RTP99))
}

func (c *Column) endSignals() {
	if c.Sampled > 0 {
		c.InFlight /= float64(c.Sampled)
	}
	if c.Limits > 0 {
		c.Limit /= float64(c.Limits)
	}
	if c.CPUs > 0 {
		c.CPU /= float64(c.CPUs)
	}
}

// Columns reduces one limiter's bins overlapping [from, to) to at most n
// columns, so that a chart draws in time proportional to its pixels, not to
// the bins. When the bins fit (at most n), every bin is its own column
// spanning the bin, Min = Mean = Max. Otherwise column c covers
// [from + c·(to−from)/n, from + (c+1)·(to−from)/n) and holds the bins whose
// start (or from, for a bin that began before it) falls there; its
// envelopes are the min, mean and max of those bins' values. Columns
// without bins are left out.
func Columns(r *Result, a *AlgoResult, from, to time.Duration, n int) []Column {
	if r.Bin <= 0 || from >= to || n < 1 || len(a.Bins) == 0 {
		return nil
	}
	// Bins overlapping [from, to).
	lo := max(0, floorDiv(int64(from-r.Start), int64(r.Bin)))
	hi := min(int64(len(a.Bins)), floorDiv(int64(to-r.Start)-1, int64(r.Bin))+1)
	if lo >= hi {
		return nil
	}
	_, span := TrailingWindow(nil, r.Bin, r.Window)
	k := int64(span / r.Bin)
	// The trailing-window count of bin j (TrailingWindow), kept as a
	// running sum from lo on, so the cost follows [lo, hi), not the run.
	var running int64
	for j := max(0, lo-k); j < lo; j++ {
		running += a.Bins[j].Passed
	}
	winAt := func(j int64) int64 {
		running += a.Bins[j].Passed
		if j-k >= 0 {
			running -= a.Bins[j-k].Passed
		}
		return running
	}
	binS, spanS := r.Bin.Seconds(), span.Seconds()
	start := func(j int64) time.Duration { return r.Start + time.Duration(j)*r.Bin }
	if hi-lo <= int64(n) {
		out := make([]Column, 0, hi-lo)
		for j := lo; j < hi; j++ {
			b := a.Bins[j]
			c := Column{From: start(j), To: start(j + 1), Bins: 1}
			c.Arrival.add(float64(b.Arrived)/binS, true)
			c.Pass.add(float64(b.Passed)/binS, true)
			c.Window.add(float64(winAt(j))/spanS, true)
			if b.Passed > 0 {
				c.WaitMs = ms(b.WaitSum) / float64(b.Passed)
			}
			if b.Completed > 0 {
				c.RTMs = ms(b.RTSum) / float64(b.Completed)
			}
			c.Completed = b.Completed
			c.Borrowed = float64(b.Borrowed) / binS
			c.Fallbacks = float64(b.Fallbacks) / binS
			c.Goodput = float64(b.Completed-b.Errors) / binS
			c.addSignals(&b)
			c.endSignals()
			out = append(out, c)
		}
		return out
	}
	width := float64(to - from)
	out := make([]Column, 0, n)
	var cur Column
	var waitSum, rtSum time.Duration
	var passed, completed, good int64
	col := -1
	flush := func() {
		if cur.Bins == 0 {
			return
		}
		k := float64(cur.Bins)
		cur.Arrival.Mean /= k
		cur.Pass.Mean /= k
		cur.Window.Mean /= k
		cur.Borrowed /= k
		cur.Fallbacks /= k
		if passed > 0 {
			cur.WaitMs = ms(waitSum) / float64(passed)
		}
		if completed > 0 {
			cur.RTMs = ms(rtSum) / float64(completed)
		}
		cur.Completed = completed
		cur.Goodput = float64(good) / binS / k
		cur.endSignals()
		out = append(out, cur)
	}
	for j := lo; j < hi; j++ {
		s := max(start(j), from)
		c := min(n-1, int(float64(s-from)/width*float64(n)))
		if c != col {
			flush()
			col = c
			cur = Column{
				From: from + time.Duration(width*float64(c)/float64(n)),
				To:   from + time.Duration(width*float64(c+1)/float64(n)),
			}
			waitSum, passed, rtSum, completed, good = 0, 0, 0, 0, 0
		}
		b := a.Bins[j]
		first := cur.Bins == 0
		cur.Bins++
		cur.Arrival.add(float64(b.Arrived)/binS, first)
		cur.Pass.add(float64(b.Passed)/binS, first)
		cur.Window.add(float64(winAt(j))/spanS, first)
		cur.Borrowed += float64(b.Borrowed) / binS
		cur.Fallbacks += float64(b.Fallbacks) / binS
		waitSum += b.WaitSum
		passed += b.Passed
		rtSum += b.RTSum
		completed += b.Completed
		good += b.Completed - b.Errors
		cur.addSignals(&b)
	}
	flush()
	if len(out) > 0 {
		out[len(out)-1].To = to
	}
	return out
}
