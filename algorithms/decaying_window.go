package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// DecayingWindowConfig configures a DecayingWindow.
type DecayingWindowConfig struct {
	// Limit is the largest weighted count a pass may bring the window to.
	Limit float64
	// Window is the window length, divided into Buckets buckets.
	Window time.Duration
	// Buckets is the number of buckets; it must divide Window.
	Buckets int
	// Decay is the decay constant of the bucket weights.
	Decay time.Duration
}

// DecayingWindow is the weighted sliding window of seed 002 §3.4, as the
// lab defines it: buckets of b = window/buckets aligned at t = 0, where a
// bucket no longer vanishes at once but fades. At t in bucket j the
// weighted count is the passes of bucket j (weight 1) plus, for each of
// the buckets−1 buckets i before it, its passes · exp(−(t − (i+1)·b)/decay),
// the age of the bucket's end in ms over decay in ms (both float64, ns
// divided by 1e6), summed from bucket j−1 back to bucket j−buckets+1;
// older buckets count 0. A request passes iff weighted count + 1 ≤ limit,
// and a pass counts in its bucket. The decay smooths the edge of the
// window (a burst leaves the window gradually), at the price of a limit
// that is a weighted sum rather than a number of requests.
//
// The ring holds the newest bucket reached so far and the buckets−1 before
// it. When the clock steps back into an older bucket j, the weighted count
// at t is summed over the buckets the ring still holds up to j (passes
// stamped later than t do not count), and a pass is counted in bucket j if
// the ring still holds it, else nowhere.
type DecayingWindow struct {
	cfg     DecayingWindowConfig
	b       int64 // bucket length, ns
	decayMs float64
	newest  int64 // index of the newest bucket reached
	seen    bool
	counts  []int64   // counts[i mod buckets] is bucket i's passes
	fade    []float64 // fade[k] = exp(−k·b/decay), b and decay in ms
}

// NewDecayingWindow validates c and builds the limiter.
func NewDecayingWindow(c DecayingWindowConfig) (*DecayingWindow, error) {
	const name = "decaying-window"
	if err := positiveLimit(name, "limit", c.Limit); err != nil {
		return nil, err
	}
	if c.Window <= 0 {
		return nil, fmt.Errorf("%s: window must be positive, got %v (for example window=1s)", name, c.Window)
	}
	if c.Buckets < 1 || c.Buckets > maxRingBuckets {
		return nil, fmt.Errorf("%s: buckets must be between 1 and %d, got %d", name, maxRingBuckets, c.Buckets)
	}
	if c.Window%time.Duration(c.Buckets) != 0 {
		return nil, fmt.Errorf("%s: buckets %d does not divide window %v; pick a divisor of the window in ns (for example buckets=10)", name, c.Buckets, c.Window)
	}
	if c.Decay <= 0 {
		return nil, fmt.Errorf("%s: decay must be positive, got %v (for example decay=500ms)", name, c.Decay)
	}
	d := &DecayingWindow{cfg: c, b: int64(c.Window) / int64(c.Buckets),
		decayMs: float64(c.Decay) / 1e6, counts: make([]int64, c.Buckets), fade: make([]float64, c.Buckets)}
	bMs := float64(d.b) / 1e6
	for k := range d.fade {
		d.fade[k] = math.Exp(-(float64(k) * bMs) / d.decayMs)
	}
	return d, nil
}

// Decide implements Limiter.
func (d *DecayingWindow) Decide(now time.Duration) Decision {
	dec := d.Check(now)
	if dec.Pass {
		d.Record(now)
	}
	return dec
}

// Check implements Stage: the weighted count at now against the limit.
//
// It first sums with one exp per decision, exp(−(t − jb)/decay) times a
// table of exp(−k·b/decay), which is within a few ulps per bucket of the
// defined sum; only when that estimate lies within a relative 1e-7 of the
// limit does it compute the defined sum, bucket by bucket, to decide. The
// decisions are therefore exactly the definition's.
func (d *DecayingWindow) Check(now time.Duration) Decision {
	j := d.advance(now)
	n := int64(len(d.counts))
	lo := max(j-n+1, d.newest-n+1)
	if j < lo {
		// Bucket j is no longer held, nor anything before it.
		return Decision{Pass: 1 <= d.cfg.Limit}
	}
	idx := mod(j, n)
	cur := float64(d.counts[idx])
	var older float64
	for k := range j - lo {
		// bucket j−1−k, in slot idx−1−k of the ring
		if idx--; idx < 0 {
			idx = n - 1
		}
		if c := d.counts[idx]; c != 0 {
			older += float64(c) * d.fade[k]
		}
	}
	if older == 0 {
		return Decision{Pass: d.exact(now, j, lo)+1 <= d.cfg.Limit}
	}
	w := cur + math.Exp(-(float64(int64(now)-j*d.b)/1e6)/d.decayMs)*older
	margin := 1e-7 * (w + 1)
	switch {
	case w+1 <= d.cfg.Limit-margin:
		return Decision{Pass: true}
	case w+1 > d.cfg.Limit+margin:
		return Decision{}
	}
	return Decision{Pass: d.exact(now, j, lo)+1 <= d.cfg.Limit}
}

// exact is the weighted count as defined: bucket j with weight 1, then
// buckets j−1 down to lo, each count times exp(−age_ms/decay_ms), each
// product rounded on its own.
func (d *DecayingWindow) exact(now time.Duration, j, lo int64) float64 {
	n := int64(len(d.counts))
	w := float64(d.counts[mod(j, n)])
	for i := j - 1; i >= lo; i-- {
		c := d.counts[mod(i, n)]
		if c == 0 {
			continue // adds exactly +0
		}
		age := float64(int64(now)-(i+1)*d.b) / 1e6
		// The conversion keeps the product rounded on its own (no fused
		// multiply-add), as in a plain sum.
		w += float64(float64(c) * math.Exp(-age/d.decayMs))
	}
	return w
}

// Record implements Stage: a pass counts in its bucket while the ring
// holds it.
func (d *DecayingWindow) Record(at time.Duration) {
	n := int64(len(d.counts))
	if j := d.advance(at); j > d.newest-n {
		d.counts[mod(j, n)]++
	}
}

// advance returns t's bucket, making it the newest (and clearing the
// buckets it reuses) when it is newer than every bucket reached so far.
func (d *DecayingWindow) advance(t time.Duration) int64 {
	j := int64(t) / d.b
	if int64(t)%d.b < 0 {
		j--
	}
	n := int64(len(d.counts))
	switch {
	case !d.seen:
		d.seen, d.newest = true, j
	case j > d.newest:
		if j-d.newest >= n {
			clear(d.counts)
		} else {
			for i := d.newest + 1; i <= j; i++ {
				d.counts[mod(i, n)] = 0
			}
		}
		d.newest = j
	}
	return j
}

// mod is the non-negative remainder.
func mod(a, n int64) int64 {
	m := a % n
	if m < 0 {
		m += n
	}
	return m
}

// Spec implements Limiter.
func (d *DecayingWindow) Spec() string {
	return fmt.Sprintf("decaying-window:limit=%s,window=%s,buckets=%d,decay=%s",
		formatFloat(d.cfg.Limit), FormatDuration(d.cfg.Window), d.cfg.Buckets, FormatDuration(d.cfg.Decay))
}

// Rate implements Limiter.
func (d *DecayingWindow) Rate() float64 { return d.cfg.Limit / d.cfg.Window.Seconds() }

// StateBytes implements Limiter.
func (d *DecayingWindow) StateBytes() int {
	return int(unsafe.Sizeof(*d)) + 8*len(d.counts) + 8*len(d.fade)
}
