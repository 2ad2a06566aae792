package algorithms

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"
)

// This file is Netflix concurrency-limits (Java, 0.5.x) as a lab limiter:
// SimpleLimiter in front of one Limit (AIMDLimit, VegasLimit,
// Gradient2Limit), optionally wrapped in WindowedLimit.
//
// SimpleLimiter.acquire passes iff its AdjustableSemaphore has a permit:
// the permits are the limit minus the calls acquired and not released,
// and a limit change releases or reduces permits by the difference (so
// the count may go negative after a drop). An admitted call records
// startTime (the nano clock, virtual ns here) and currentInflight (the
// in-flight count including itself). At the end, onSuccess (a success or
// an error) or onDropped (a timeout) decrements inFlight and calls the
// limit's onSample(startTime, now − startTime, currentInflight, didDrop),
// whose new limit, if different, adjusts the permits; then the permit is
// released. If onSample throws (VegasLimit on an RTT ≤ 0 ns), the permit
// is never released, as in the Java listener.

// netflixLimit is one Limit's _update, or WindowedLimit around one.
type netflixLimit interface {
	// onSample returns the new limit and whether it threw.
	onSample(start, rtt int64, inflight int32, drop bool) (limit int32, threw bool)
	limit() int32
	spec() string
}

// abstractLimit is AbstractLimit: the int limit set from _update.
type abstractLimit struct {
	lim    int32
	update func(start, rtt int64, inflight int32, drop bool) (int32, bool)
}

func (a *abstractLimit) onSample(start, rtt int64, inflight int32, drop bool) (int32, bool) {
	n, threw := a.update(start, rtt, inflight, drop)
	if threw {
		return a.lim, true
	}
	a.lim = n
	return n, false
}

// NetflixConfig configures a Netflix limiter.
type NetflixConfig struct {
	Kind string // aimd, vegas, gradient2
	// AIMD, Vegas and Gradient2 parameters (defaults from their builders).
	Initial, Min, Max int
	Backoff           float64       // aimd
	Timeout           time.Duration // aimd
	Smoothing         float64       // vegas, gradient2
	ProbeMultiplier   int           // vegas
	Probe             bool          // vegas
	Seed              uint64        // vegas probe jitter
	QueueSize         int           // gradient2
	LongWindow        int           // gradient2
	Tolerance         float64       // gradient2
	// WindowedLimit.
	Windowed             bool
	WindowMin, WindowMax time.Duration
	WindowSize           int
	MinRTT               time.Duration
	// JitterSource, when set, replaces the seeded probe jitter (tests
	// that replay the Java class's ThreadLocalRandom draws).
	JitterSource func() float64
}

// Netflix is SimpleLimiter over a Netflix Limit.
type Netflix struct {
	cfg      NetflixConfig
	lim      netflixLimit
	permits  int64
	inflight int64 // AbstractLimiter.inFlight
	vegas    *vegasLimit
	g2       *gradient2Limit
}

// NewNetflix validates c and builds the limiter.
func NewNetflix(c NetflixConfig) (*Netflix, error) {
	n := &Netflix{cfg: c}
	var a *abstractLimit
	switch c.Kind {
	case "aimd":
		if !(c.Backoff < 1.0 && c.Backoff >= 0.5) {
			return nil, fmt.Errorf("aimd: backoff must be in [0.5, 1.0), got %s (AIMDLimit.Builder.backoffRatio)", formatNumber(c.Backoff))
		}
		if c.Timeout <= 0 {
			return nil, fmt.Errorf("aimd: timeout must be positive, got %v", c.Timeout)
		}
		l := &aimdLimit{minLimit: int32(c.Min), maxLimit: int32(c.Max), backoff: c.Backoff, timeout: int64(c.Timeout)}
		a = &abstractLimit{lim: int32(c.Initial)}
		l.cur = func() int32 { return a.lim }
		a.update = l.update
	case "vegas":
		src := c.JitterSource
		if src == nil {
			r := &splitmix64{s: c.Seed}
			src = func() float64 { return 0.5 + 0.5*r.float() }
		}
		mult := float64(c.ProbeMultiplier)
		if !c.Probe {
			mult = math.Inf(1)
		}
		v := &vegasLimit{estimated: float64(c.Initial), maxLimit: int32(c.Max), smoothing: c.Smoothing, probeMult: mult, jitter: src}
		v.probeJitter = src()
		a = &abstractLimit{lim: int32(c.Initial), update: v.update}
		n.vegas = v
	case "gradient2":
		if c.Tolerance < 1 {
			return nil, fmt.Errorf("gradient2: tolerance must be at least 1.0, got %s", formatNumber(c.Tolerance))
		}
		g := &gradient2Limit{estimated: float64(c.Initial), maxLimit: int32(c.Max), minLimit: int32(c.Min),
			queueSize: float64(c.QueueSize), smoothing: c.Smoothing, tolerance: c.Tolerance,
			long: expAvg{window: c.LongWindow, warmup: 10}}
		a = &abstractLimit{lim: int32(c.Initial), update: g.update}
		n.g2 = g
	default:
		return nil, fmt.Errorf("unknown Netflix limit %q", c.Kind)
	}
	if c.Initial < 0 || c.Max < 1 {
		return nil, fmt.Errorf("%s: initial must be 0 or more and max at least 1", c.Kind)
	}
	n.lim = a
	if c.Windowed {
		if c.WindowMin < 100*time.Millisecond || c.WindowMax < 100*time.Millisecond {
			return nil, fmt.Errorf("%s: window-min and window-max must be at least 100ms (WindowedLimit.Builder)", c.Kind)
		}
		if c.WindowSize < 10 {
			return nil, fmt.Errorf("%s: window-size must be at least 10 (WindowedLimit.Builder), got %d", c.Kind, c.WindowSize)
		}
		n.lim = &windowedLimit{delegate: a, minWindow: int64(c.WindowMin), maxWindow: int64(c.WindowMax),
			size: int32(c.WindowSize), minRtt: int64(c.MinRTT), win: newAvgWindow()}
	}
	n.permits = int64(n.lim.limit())
	return n, nil
}

func (a *abstractLimit) limit() int32 { return a.lim }
func (a *abstractLimit) spec() string { return "" }

// Decide implements Limiter.
func (n *Netflix) Decide(now time.Duration) Decision { return completerDecide(n, now) }

// Check implements Stage: semaphore.tryAcquire.
func (n *Netflix) Check(time.Duration) Decision { return Decision{Pass: n.permits > 0} }

// Record implements Stage.
func (n *Netflix) Record(at time.Duration) { n.Begin(at, at) }

// Begin implements Completer: the permit and createListener.
func (n *Netflix) Begin(_, at time.Duration) Ticket {
	n.permits--
	n.inflight++
	return Ticket{At: at, N: int32(n.inflight)}
}

// Complete implements Completer.
func (n *Netflix) Complete(now time.Duration, tk Ticket, o Outcome) {
	n.inflight--
	old := n.lim.limit()
	nl, threw := n.lim.onSample(int64(tk.At), int64(now-tk.At), tk.N, o == Timeout)
	if nl != old {
		// onNewLimit: release or reducePermits by the difference.
		n.permits += int64(nl) - int64(old)
	}
	if !threw {
		n.permits++
	}
}

// InFlight implements Completer.
func (n *Netflix) InFlight() int64 { return n.inflight }

// CurrentLimit implements Completer.
func (n *Netflix) CurrentLimit(time.Duration) float64 { return float64(n.lim.limit()) }

// Spec implements Limiter.
func (n *Netflix) Spec() string {
	c := &n.cfg
	var p []string
	switch c.Kind {
	case "aimd":
		p = append(p, fmt.Sprintf("initial=%d,min=%d,max=%d,backoff=%s,timeout=%s", c.Initial, c.Min, c.Max, formatFloat(c.Backoff), FormatDuration(c.Timeout)))
	case "vegas":
		probe := "on"
		if !c.Probe {
			probe = "off"
		}
		p = append(p, fmt.Sprintf("initial=%d,max=%d,smoothing=%s,probe-multiplier=%d,probe=%s", c.Initial, c.Max, formatFloat(c.Smoothing), c.ProbeMultiplier, probe))
	case "gradient2":
		p = append(p, fmt.Sprintf("initial=%d,min=%d,max=%d,smoothing=%s,queue-size=%d,long-window=%d,tolerance=%s", c.Initial, c.Min, c.Max, formatFloat(c.Smoothing), c.QueueSize, c.LongWindow, formatFloat(c.Tolerance)))
	}
	if c.Windowed {
		p = append(p, fmt.Sprintf("windowed=true,window-min=%s,window-max=%s,window-size=%d,min-rtt=%s", FormatDuration(c.WindowMin), FormatDuration(c.WindowMax), c.WindowSize, FormatDuration(c.MinRTT)))
	} else {
		p = append(p, "windowed=false")
	}
	return c.Kind + ":" + strings.Join(p, ",")
}

// Rate implements Limiter.
func (n *Netflix) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (n *Netflix) StateBytes() int { return int(unsafe.Sizeof(*n)) + 128 }

// aimdLimit is AIMDLimit._update.
type aimdLimit struct {
	cur                func() int32
	minLimit, maxLimit int32
	backoff            float64
	timeout            int64
}

func (l *aimdLimit) update(_, rtt int64, inflight int32, drop bool) (int32, bool) {
	c := l.cur()
	if drop || rtt > l.timeout {
		c = javaD2I(float64(c) * l.backoff)
	} else if int64(inflight)*2 >= int64(c) {
		c = c + 1
	}
	return min(l.maxLimit, max(l.minLimit, c)), false
}

// log10Root is Log10RootIntFunction.create(0).
func log10Root(t int32) int32 {
	if t < 1000 {
		if t < 0 {
			panic("Log10RootIntFunction: negative index") // ArrayIndexOutOfBounds in Java
		}
		return max(1, javaD2I(math.Log10(float64(t))))
	}
	return javaD2I(math.Log10(float64(t)))
}

// vegasLimit is VegasLimit with its default functions.
type vegasLimit struct {
	estimated   float64
	rttNoLoad   int64
	maxLimit    int32
	smoothing   float64
	probeMult   float64
	probeCount  int64
	probeJitter float64
	jitter      func() float64
}

func (v *vegasLimit) update(_, rtt int64, inflight int32, drop bool) (int32, bool) {
	if rtt <= 0 {
		return 0, true // IllegalArgumentException
	}
	v.probeCount++
	if v.probeJitter*v.probeMult*v.estimated <= float64(v.probeCount) {
		v.probeJitter = v.jitter()
		v.probeCount = 0
		v.rttNoLoad = rtt
		return javaD2I(v.estimated), false
	}
	if v.rttNoLoad == 0 || rtt < v.rttNoLoad {
		v.rttNoLoad = rtt
		return javaD2I(v.estimated), false
	}
	est := v.estimated
	queueSize := javaD2I(math.Ceil(est * (1 - float64(v.rttNoLoad)/float64(rtt))))
	var nl float64
	if drop {
		nl = est - float64(log10Root(javaD2I(est)))
	} else if float64(int64(inflight)*2) < est {
		return javaD2I(est), false
	} else {
		e := javaD2I(est)
		alpha := 3 * log10Root(e)
		beta := 6 * log10Root(e)
		threshold := log10Root(e)
		switch {
		case queueSize <= threshold:
			nl = est + float64(beta)
		case queueSize < alpha:
			nl = est + float64(log10Root(javaD2I(est)))
		case queueSize > beta:
			nl = est - float64(log10Root(javaD2I(est)))
		default:
			return javaD2I(est), false
		}
	}
	nl = math.Max(1, math.Min(float64(v.maxLimit), nl))
	nl = (1-v.smoothing)*est + v.smoothing*nl
	v.estimated = nl
	return javaD2I(nl), false
}

// expAvg is ExpAvgMeasurement.
type expAvg struct {
	value, sum     float64
	window, warmup int
	count          int
}

func (m *expAvg) add(s float64) float64 {
	if m.count < m.warmup {
		m.count++
		m.sum += s
		m.value = m.sum / float64(m.count)
	} else {
		f := 2.0 / float64(m.window+1)
		m.value = m.value*(1-f) + s*f
	}
	return m.value
}

// gradient2Limit is Gradient2Limit with a constant queue size.
type gradient2Limit struct {
	estimated          float64
	maxLimit, minLimit int32
	queueSize          float64
	smoothing          float64
	tolerance          float64
	long               expAvg
}

func (g *gradient2Limit) update(_, rtt int64, inflight int32, _ bool) (int32, bool) {
	est := g.estimated
	queueSize := g.queueSize
	shortRtt := float64(rtt)
	longRtt := g.long.add(float64(rtt))
	if longRtt/shortRtt > 2 {
		g.long.value = g.long.value * 0.95
	}
	if float64(inflight) < est/2 {
		return javaD2I(est), false
	}
	gradient := math.Max(0.5, math.Min(1.0, g.tolerance*longRtt/shortRtt))
	nl := est*gradient + queueSize
	nl = est*(1-g.smoothing) + nl*g.smoothing
	nl = math.Max(float64(g.minLimit), math.Min(float64(g.maxLimit), nl))
	g.estimated = nl
	return javaD2I(nl), false
}

// avgWindow is ImmutableAverageSampleWindow.
type avgWindow struct {
	minRtt, sum int64
	maxInFlight int32
	count       int32
	didDrop     bool
}

func newAvgWindow() avgWindow { return avgWindow{minRtt: math.MaxInt64} }

// windowedLimit is WindowedLimit with the average sample window.
type windowedLimit struct {
	delegate                     *abstractLimit
	nextUpdate                   int64
	minWindow, maxWindow, minRtt int64
	size                         int32
	win                          avgWindow
}

func (w *windowedLimit) limit() int32 { return w.delegate.lim }
func (w *windowedLimit) spec() string { return "" }

func (w *windowedLimit) onSample(start, rtt int64, inflight int32, drop bool) (int32, bool) {
	end := start + rtt
	if rtt < w.minRtt {
		return w.delegate.lim, false
	}
	w.win.minRtt = min(w.win.minRtt, rtt)
	w.win.sum += rtt
	w.win.maxInFlight = max(w.win.maxInFlight, inflight)
	w.win.count++
	w.win.didDrop = w.win.didDrop || drop
	if end > w.nextUpdate {
		cur := w.win
		w.win = newAvgWindow()
		cand := cur.minRtt
		// Math.min(Math.max(candidate * 2, min), max) in long arithmetic.
		w.nextUpdate = end + min(max(cand*2, w.minWindow), w.maxWindow)
		if cur.minRtt < math.MaxInt64 && cur.count >= w.size {
			var tracked int64
			if cur.count != 0 {
				tracked = cur.sum / int64(cur.count)
			}
			return w.delegate.onSample(start, tracked, cur.maxInFlight, cur.didDrop)
		}
	}
	return w.delegate.lim, false
}

// Reseed implements Seeded: Vegas's probe jitter is drawn again from seed.
func (n *Netflix) Reseed(seed uint64) {
	if n.vegas == nil || n.cfg.JitterSource != nil {
		return
	}
	r := &splitmix64{s: seed}
	n.vegas.jitter = func() float64 { return 0.5 + 0.5*r.float() }
	n.vegas.probeJitter = n.vegas.jitter()
}
