package algorithms

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Layer is one layer of a Hierarchical window: a ring of Count buckets of
// Len each, aligned at t = 0.
type Layer struct {
	Len   time.Duration
	Count int
}

// HierarchicalConfig configures a Hierarchical window.
type HierarchicalConfig struct {
	// Limit: a request passes iff the estimate + 1 ≤ Limit.
	Limit float64
	// Window is the window length W.
	Window time.Duration
	// Layers, finest first: lengths strictly increasing, each a multiple
	// of the one before (so a coarse bucket is a whole number of finer
	// ones), each at most Window; the coarsest must hold a window
	// (Count·Len ≥ Window).
	Layers []Layer
}

// ParseLayers reads a layers parameter: LEN*COUNT joined by '+', finest
// first, for example 100ms*10+1s*2.
func ParseLayers(s string) ([]Layer, error) {
	var out []Layer
	for _, part := range strings.Split(s, "+") {
		lenS, countS, ok := strings.Cut(strings.TrimSpace(part), "*")
		if !ok {
			return nil, fmt.Errorf("hierarchical: layer %q is not LEN*COUNT (for example layers=100ms*10+1s*2)", strings.TrimSpace(part))
		}
		d, err := time.ParseDuration(strings.TrimSpace(lenS))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("hierarchical: layer %q: %q is not a positive duration (for example 100ms*10)", strings.TrimSpace(part), strings.TrimSpace(lenS))
		}
		n, err := strconv.Atoi(strings.TrimSpace(countS))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("hierarchical: layer %q: %q is not a whole count of at least 1 (for example 100ms*10)", strings.TrimSpace(part), strings.TrimSpace(countS))
		}
		out = append(out, Layer{Len: d, Count: n})
	}
	return out, nil
}

// FormatLayers is the layers parameter of ls, as ParseLayers reads it.
func FormatLayers(ls []Layer) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = FormatDuration(l.Len) + "*" + strconv.Itoa(l.Count)
	}
	return strings.Join(parts, "+")
}

// UncertainSpan is G, the longest stretch at the window's old edge whose
// passes the estimate may miss: the minimum over the layers of
// max(Len, Window − (Count−1)·Len). docs/algorithms.md proves that every
// window (t − W, t] then holds at most ⌊limit⌋ plus the passes of the open
// span (t − W, t − W + G), t its last pass.
func (c HierarchicalConfig) UncertainSpan() time.Duration {
	g := time.Duration(-1)
	for _, l := range c.Layers {
		h := max(l.Len, c.Window-time.Duration(l.Count-1)*l.Len)
		if g < 0 || h < g {
			g = h
		}
	}
	return g
}

// Buckets is the number of counters the layers hold.
func (c HierarchicalConfig) Buckets() int {
	n := 0
	for _, l := range c.Layers {
		n += l.Count
	}
	return n
}

// Hierarchical is seed 002 §2.4's layered window as the lab defines it
// (docs/algorithms.md, "hierarchical"): several rings of buckets at
// different lengths, every pass counted in each; at t the finest layer
// answers for the recent span it holds, each coarser layer for what lies
// before it (a coarse bucket part-held by a finer layer counts its other
// passes exactly, by subtraction), and the one bucket at the window's old
// edge t − W is weighted by the share of its not-finer-held span that lies
// inside the window. A request passes iff estimate + 1 ≤ limit.
//
// One layer of W/len buckets is the plain ring (leap-array at interval 1s
// decides the same); one layer of 2 buckets of W is Cloudflare's
// sliding-window counter.
//
// The layers only move forward: when the clock steps back, the check reads
// them as at the newest instant reached, and a pass counts in each layer
// that still holds its bucket.
type Hierarchical struct {
	cfg    HierarchicalConfig
	w      int64
	layers []hLayer
	newest int64 // the newest instant reached, ns
	seen   bool
}

type hLayer struct {
	b, c   int64
	j      int64   // the newest bucket reached
	counts []int64 // counts[i mod c] is bucket i's passes
	total  int64   // the sum of counts
}

// reach is the start of the oldest bucket the layer holds.
func (l *hLayer) reach() int64 { return (l.j - l.c + 1) * l.b }

// NewHierarchical validates c and builds the limiter.
func NewHierarchical(c HierarchicalConfig) (*Hierarchical, error) {
	const name = "hierarchical"
	if err := positiveLimit(name, "limit", c.Limit); err != nil {
		return nil, err
	}
	if c.Window <= 0 {
		return nil, fmt.Errorf("%s: window must be positive, got %v (for example window=1s)", name, c.Window)
	}
	if len(c.Layers) == 0 {
		return nil, fmt.Errorf("%s: needs layers=LEN*COUNT+... finest first (for example layers=100ms*10+1s*2)", name)
	}
	total := 0
	for i, l := range c.Layers {
		if l.Len <= 0 || l.Count < 1 {
			return nil, fmt.Errorf("%s: layer %d must have a positive length and a count of at least 1, got %v*%d", name, i+1, l.Len, l.Count)
		}
		if l.Len > c.Window {
			return nil, fmt.Errorf("%s: layer %s*%d has buckets longer than the window %s; use buckets of at most the window", name, FormatDuration(l.Len), l.Count, FormatDuration(c.Window))
		}
		if i > 0 {
			prev := c.Layers[i-1].Len
			if l.Len <= prev || l.Len%prev != 0 {
				return nil, fmt.Errorf("%s: layer %s follows %s; list the layers finest first, each length a multiple of the one before (for example layers=100ms*10+1s*2)", name, FormatDuration(l.Len), FormatDuration(prev))
			}
		}
		total += l.Count
		if total > maxRingBuckets {
			return nil, fmt.Errorf("%s: the layers hold more than %d buckets; use fewer or longer buckets", name, maxRingBuckets)
		}
	}
	last := c.Layers[len(c.Layers)-1]
	if time.Duration(last.Count)*last.Len < c.Window {
		return nil, fmt.Errorf("%s: the coarsest layer %s*%d holds only %s of the %s window; give it at least %d buckets",
			name, FormatDuration(last.Len), last.Count, FormatDuration(time.Duration(last.Count)*last.Len), FormatDuration(c.Window), (c.Window+last.Len-1)/last.Len)
	}
	h := &Hierarchical{cfg: c, w: int64(c.Window)}
	for _, l := range c.Layers {
		h.layers = append(h.layers, hLayer{b: int64(l.Len), c: int64(l.Count), counts: make([]int64, l.Count)})
	}
	return h, nil
}

// advance moves every layer to the bucket of t when t is newer than every
// instant reached, clearing the buckets each ring reuses, and returns the
// instant the layers are read at: max(t, newest).
func (h *Hierarchical) advance(t int64) int64 {
	switch {
	case !h.seen:
		h.seen, h.newest = true, t
		for i := range h.layers {
			h.layers[i].j = floorDiv(t, h.layers[i].b)
		}
		return t
	case t <= h.newest:
		return h.newest
	}
	h.newest = t
	for i := range h.layers {
		l := &h.layers[i]
		j := floorDiv(t, l.b)
		if j-l.j >= l.c {
			clear(l.counts)
			l.total = 0
		} else {
			for k := l.j + 1; k <= j; k++ {
				idx := mod(k, l.c)
				l.total -= l.counts[idx]
				l.counts[idx] = 0
			}
		}
		l.j = j
	}
	return t
}

// Estimate is the merged count at now (after moving the layers to now):
// the number the check compares with the limit.
func (h *Hierarchical) Estimate(now time.Duration) float64 {
	return h.estimate(h.advance(int64(now)))
}

func (h *Hierarchical) estimate(t int64) float64 {
	s := t - h.w
	// The first (finest) layer whose ring holds the bucket of s answers at
	// the old edge; the finer ones each reach back to some r > s.
	ans := -1
	near := -1 // among the finer layers, the one reaching furthest back
	for i := range h.layers {
		if h.layers[i].reach() <= s {
			ans = i
			break
		}
		if near < 0 || h.layers[i].reach() < h.layers[near].reach() {
			near = i
		}
	}
	if ans < 0 {
		// No layer holds the old edge: the passes from the furthest reach
		// on, counted exactly; (s, reach) is not counted.
		return float64(h.layers[near].total)
	}
	l := &h.layers[ans]
	k := floorDiv(s, l.b) // the bucket of s
	u := k * l.b
	nB := l.counts[mod(k, l.c)]
	e := u + l.b
	var known int64 // passes of bucket k in [e, u+b), from a finer layer
	if near >= 0 && h.layers[near].reach() < e {
		f := &h.layers[near]
		e = f.reach()
		for i := floorDiv(e, f.b); i < floorDiv(u+l.b, f.b); i++ {
			known += f.counts[mod(i, f.c)]
		}
	}
	// The held buckets older than k are out of the window.
	older := int64(0)
	for i := l.j - l.c + 1; i < k; i++ {
		older += l.counts[mod(i, l.c)]
	}
	exact := l.total - older - nB + known
	rest := nB - known // the passes of [u, e)
	var part float64
	if rest != 0 {
		part = float64(rest) * float64(e-s) / float64(e-u)
	}
	return part + float64(exact)
}

// Config is the limiter's configuration.
func (h *Hierarchical) Config() HierarchicalConfig { return h.cfg }

// Decide implements Limiter.
func (h *Hierarchical) Decide(now time.Duration) Decision {
	d := h.Check(now)
	if d.Pass {
		h.Record(now)
	}
	return d
}

// Check implements Stage: the merged estimate against the limit.
func (h *Hierarchical) Check(now time.Duration) Decision {
	return Decision{Pass: h.estimate(h.advance(int64(now)))+1 <= h.cfg.Limit}
}

// Record implements Stage: the pass counts in its bucket in every layer
// that still holds it.
func (h *Hierarchical) Record(at time.Duration) {
	t := int64(at)
	h.advance(t)
	for i := range h.layers {
		l := &h.layers[i]
		if k := floorDiv(t, l.b); k > l.j-l.c {
			l.counts[mod(k, l.c)]++
			l.total++
		}
	}
}

// Spec implements Limiter.
func (h *Hierarchical) Spec() string {
	return fmt.Sprintf("hierarchical:limit=%s,window=%s,layers=%s", formatFloat(h.cfg.Limit), FormatDuration(h.cfg.Window), FormatLayers(h.cfg.Layers))
}

// Rate implements Limiter.
func (h *Hierarchical) Rate() float64 { return h.cfg.Limit / h.cfg.Window.Seconds() }

// StateBytes implements Limiter.
func (h *Hierarchical) StateBytes() int {
	n := int(unsafe.Sizeof(*h)) + len(h.layers)*int(unsafe.Sizeof(hLayer{}))
	for _, l := range h.layers {
		n += 8 * len(l.counts)
	}
	return n
}

// DefaultLayers are the layers of a spec that gives none: ten buckets of a
// tenth of the window and two of the window (when the window is not ten
// whole ns apart, the two alone).
func DefaultLayers(window time.Duration) []Layer {
	if window >= 10 && window%10 == 0 {
		return []Layer{{Len: window / 10, Count: 10}, {Len: window, Count: 2}}
	}
	return []Layer{{Len: window, Count: 2}}
}
