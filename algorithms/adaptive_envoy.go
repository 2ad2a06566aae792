package algorithms

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"
)

// EnvoyAdaptiveConfig configures an EnvoyAdaptive limiter (the
// GradientControllerConfig fields).
type EnvoyAdaptiveConfig struct {
	Interval       time.Duration // min_rtt_calc_params.interval
	UpdateInterval time.Duration // concurrency_limit_params.concurrency_update_interval
	RequestCount   int           // min_rtt_calc_params.request_count
	Percentile     float64       // sample_aggregate_percentile, 0 to 100
	Buffer         float64       // min_rtt_calc_params.buffer, percent
	Min            int           // min_rtt_calc_params.min_concurrency
	Max            int           // concurrency_limit_params.max_concurrency_limit
	Jitter         float64       // min_rtt_calc_params.jitter, percent
	Seed           uint64        // random_.random() for the jitter
}

// EnvoyAdaptive is Envoy's adaptive concurrency filter's
// GradientController. It forwards a request iff the outstanding requests
// are below the concurrency limit. It alternates two phases:
//
//   - minRTT window (at creation, every interval + jitter after the last,
//     and after the limit was set to the minimum 5 windows in a row): the
//     limit drops to min-concurrency, the old limit is kept aside, and the
//     first request-count latencies of requests sent since the window
//     began give minRTT = the percentile of their approximate histogram
//     (libcircllhist, µs); then the old limit returns.
//   - every update: the percentile of the latencies since the
//     last update is sampleRTT, the gradient is
//     clamp((minRTT·(1+buffer))/sampleRTT, 0.5, 2), and the new limit
//     is trunc(L·g + √(L·g)), clamped to [min, max].
//
// Timers due at or before a call run first, in arming order at equal
// times. The jittered interval is interval + random() mod ⌈interval_ms ·
// jitter⌉ ms, random() from the run's seed. A timed-out request is
// sampled at its timeout (Envoy's local 504 passes the filter's
// encodeHeaders).
type EnvoyAdaptive struct {
	cfg        EnvoyAdaptiveConfig
	rnd        splitmix64
	limit      uint32
	deferred   uint32
	outstand   int64
	minRtt     int64 // µs
	sampleRtt  int64 // µs
	epoch      time.Duration
	consecMin  int
	hist       circHist
	minTimer   envoyTimer
	resetTimer envoyTimer
	armSeq     int64
	// Windows counts the minRTT windows entered.
	Windows int64
}

type envoyTimer struct {
	on  bool
	at  time.Duration
	seq int64
}

// NewEnvoyAdaptive validates c and builds the controller at virtual 0.
func NewEnvoyAdaptive(c EnvoyAdaptiveConfig) (*EnvoyAdaptive, error) {
	switch {
	case c.Interval < time.Millisecond:
		return nil, fmt.Errorf("envoy-adaptive: interval must be at least 1ms, got %v (for example interval=60s)", c.Interval)
	case c.UpdateInterval < time.Millisecond:
		return nil, fmt.Errorf("envoy-adaptive: update-interval must be at least 1ms, got %v (for example update-interval=100ms)", c.UpdateInterval)
	case c.RequestCount < 1:
		return nil, fmt.Errorf("envoy-adaptive: request-count must be at least 1, got %d", c.RequestCount)
	case !(c.Percentile >= 0 && c.Percentile <= 100):
		return nil, fmt.Errorf("envoy-adaptive: percentile must be 0 to 100, got %s", formatNumber(c.Percentile))
	case !(c.Jitter >= 0 && c.Jitter <= 100):
		return nil, fmt.Errorf("envoy-adaptive: jitter must be 0%% to 100%%, got %s%%", formatNumber(c.Jitter))
	case !(c.Buffer >= 0 && c.Buffer <= 100):
		return nil, fmt.Errorf("envoy-adaptive: buffer must be 0%% to 100%%, got %s%%", formatNumber(c.Buffer))
	case c.Min < 1 || c.Max < c.Min:
		return nil, fmt.Errorf("envoy-adaptive: need 1 ≤ min ≤ max, got min=%d max=%d", c.Min, c.Max)
	}
	e := &EnvoyAdaptive{cfg: c, rnd: splitmix64{s: c.Seed}, limit: uint32(c.Min)}
	e.enterMinRTT(0)
	e.arm(&e.resetTimer, c.UpdateInterval)
	return e, nil
}

func (e *EnvoyAdaptive) inWindow() bool { return e.deferred > 0 }

func (e *EnvoyAdaptive) arm(t *envoyTimer, at time.Duration) {
	e.armSeq++
	*t = envoyTimer{on: true, at: at, seq: e.armSeq}
}

// advance runs the timers due at or before now.
func (e *EnvoyAdaptive) advance(now time.Duration) {
	for {
		var t *envoyTimer
		for _, c := range []*envoyTimer{&e.minTimer, &e.resetTimer} {
			if c.on && c.at <= now && (t == nil || c.at < t.at || (c.at == t.at && c.seq < t.seq)) {
				t = c
			}
		}
		if t == nil {
			return
		}
		t.on = false
		if t == &e.minTimer {
			e.enterMinRTT(t.at)
		} else {
			at := t.at
			if e.inWindow() {
				continue
			}
			e.resetSampleWindow()
			e.arm(&e.resetTimer, at+e.cfg.UpdateInterval)
		}
	}
}

func (e *EnvoyAdaptive) enterMinRTT(now time.Duration) {
	if e.inWindow() {
		return
	}
	e.Windows++
	e.deferred = e.limit
	e.updateLimit(uint32(e.cfg.Min), now)
	e.hist.clear()
	e.epoch = now
}

func (e *EnvoyAdaptive) updateMinRTT(now time.Duration) {
	if !e.inWindow() || e.hist.total < uint64(e.cfg.RequestCount) {
		return
	}
	e.minRtt = e.quantileAndClear()
	e.updateLimit(e.deferred, now)
	e.deferred = 0
	e.arm(&e.minTimer, now+e.jittered())
	e.arm(&e.resetTimer, now+e.cfg.UpdateInterval)
}

func (e *EnvoyAdaptive) jittered() time.Duration {
	ms := int64(e.cfg.Interval / time.Millisecond)
	pct := e.cfg.Jitter / 100
	if pct == 0 {
		return time.Duration(ms) * time.Millisecond
	}
	rng := uint32(math.Ceil(float64(ms) * pct))
	return time.Duration(ms+int64(e.rnd.next()%uint64(rng))) * time.Millisecond
}

func (e *EnvoyAdaptive) resetSampleWindow() {
	if e.hist.total == 0 {
		return
	}
	e.sampleRtt = e.quantileAndClear()
	e.updateLimit(e.calculateNewLimit(), -1)
}

func (e *EnvoyAdaptive) quantileAndClear() int64 {
	q := e.hist.quantile(e.cfg.Percentile / 100)
	e.hist.clear()
	return int64(int32(q)) // static_cast<int>
}

func (e *EnvoyAdaptive) calculateNewLimit() uint32 {
	buffered := float64(e.minRtt) + float64(e.minRtt)*(e.cfg.Buffer/100)
	raw := buffered / float64(e.sampleRtt)
	g := math.Max(0.5, math.Min(2.0, raw))
	limit := float64(e.limit) * g
	headroom := math.Sqrt(limit)
	nl := uint32(limit + headroom)
	return max(uint32(e.cfg.Min), min(uint32(e.cfg.Max), nl))
}

// updateLimit is updateConcurrencyLimit; now is when a re-measure timer
// set to 0 ms fires (the current time).
func (e *EnvoyAdaptive) updateLimit(nl uint32, now time.Duration) {
	old := e.limit
	e.limit = nl
	if !e.inWindow() && old == uint32(e.cfg.Min) && nl == uint32(e.cfg.Min) {
		e.consecMin++
	} else {
		e.consecMin = 0
	}
	if e.consecMin >= 5 {
		if now < 0 {
			now = e.resetTimer.at // the reset timer's own instant
		}
		e.arm(&e.minTimer, now)
	}
}

// Decide implements Limiter.
func (e *EnvoyAdaptive) Decide(now time.Duration) Decision { return completerDecide(e, now) }

// Check implements Stage: forwardingDecision.
func (e *EnvoyAdaptive) Check(now time.Duration) Decision {
	e.advance(now)
	return Decision{Pass: e.outstand < int64(e.limit)}
}

// Record implements Stage.
func (e *EnvoyAdaptive) Record(at time.Duration) { e.Begin(at, at) }

// Begin implements Completer.
func (e *EnvoyAdaptive) Begin(_, at time.Duration) Ticket {
	e.outstand++
	return Ticket{At: at}
}

// Complete implements Completer: recordLatencySample(send time).
func (e *EnvoyAdaptive) Complete(now time.Duration, tk Ticket, _ Outcome) {
	e.advance(now)
	e.outstand--
	if tk.At < e.epoch {
		return
	}
	// Envoy's monotonic clock never goes back; a step back of the lab's
	// clock is a zero latency.
	us := max(int64((now-tk.At)/time.Microsecond), 0)
	e.hist.insert(float64(us))
	e.updateMinRTT(now)
}

// InFlight implements Completer.
func (e *EnvoyAdaptive) InFlight() int64 { return e.outstand }

// CurrentLimit implements Completer.
func (e *EnvoyAdaptive) CurrentLimit(now time.Duration) float64 {
	e.advance(now)
	return float64(e.limit)
}

// MinRTT is the last minRTT measured (0 before the first).
func (e *EnvoyAdaptive) MinRTT() time.Duration { return time.Duration(e.minRtt) * time.Microsecond }

// Spec implements Limiter.
func (e *EnvoyAdaptive) Spec() string {
	c := &e.cfg
	return fmt.Sprintf("envoy-adaptive:interval=%s,update-interval=%s,request-count=%d,percentile=%s,buffer=%s%%,min=%d,max=%d,jitter=%s%%",
		FormatDuration(c.Interval), FormatDuration(c.UpdateInterval), c.RequestCount, formatFloat(c.Percentile), formatFloat(c.Buffer), c.Min, c.Max, formatFloat(c.Jitter))
}

// Rate implements Limiter.
func (e *EnvoyAdaptive) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (e *EnvoyAdaptive) StateBytes() int { return int(unsafe.Sizeof(*e)) + 16*len(e.hist.bins) }

// circHist is the part of libcircllhist the controller uses: positive
// values in log-linear bins of two significant digits (bin [v·10^e,
// (v+1)·10^e) for v in 10..99), the zero bin, and hist_approx_quantile
// (type 1).
type circHist struct {
	bins  []circBin // sorted by value
	total uint64
}

type circBin struct {
	val, exp int // val 0 is the zero bin
	count    uint64
}

func (b circBin) left() float64 {
	if b.val == 0 {
		return 0
	}
	return float64(b.val) / 10.0 * math.Pow(10, float64(b.exp))
}

func (b circBin) width() float64 {
	if b.val == 0 {
		return 0
	}
	return math.Pow(10, float64(b.exp)) / 10.0
}

func (b circBin) less(o circBin) bool {
	if b.val == 0 || o.val == 0 {
		return b.val == 0 && o.val != 0
	}
	if b.exp != o.exp {
		return b.exp < o.exp
	}
	return b.val < o.val
}

// circBucket is double_to_hist_bucket for d ≥ 0.
func circBucket(d float64) circBin {
	if d == 0 {
		return circBin{}
	}
	exp := int(math.Floor(math.Log10(d)))
	v := int(math.Floor(d/math.Pow(10, float64(exp))*10 + 1e-13))
	if v == 100 {
		v /= 10
		exp++
	}
	if v == 0 {
		return circBin{}
	}
	return circBin{val: v, exp: exp}
}

func (h *circHist) clear() { h.bins, h.total = h.bins[:0], 0 }

func (h *circHist) insert(d float64) {
	b := circBucket(d)
	i, found := slices.BinarySearchFunc(h.bins, b, func(x, t circBin) int {
		switch {
		case x.val == t.val && x.exp == t.exp:
			return 0
		case x.less(t):
			return -1
		}
		return 1
	})
	if found {
		h.bins[i].count++
	} else {
		b.count = 1
		h.bins = slices.Insert(h.bins, i, b)
	}
	h.total++
}

// quantile is hist_approx_quantile for one q in [0, 1].
func (h *circHist) quantile(q float64) float64 {
	if h.total == 0 {
		return math.NaN()
	}
	total := float64(h.total)
	qn := total * q
	i := 0
	var lower, upper float64
	width, left := h.bins[0].width(), h.bins[0].left()
	upper = float64(h.bins[0].count)
	for i < len(h.bins)-1 && upper < qn {
		i++
		width, left = h.bins[i].width(), h.bins[i].left()
		lower = upper
		upper = lower + float64(h.bins[i].count)
	}
	if width == 0 {
		return left
	}
	n := float64(h.bins[i].count)
	k := math.Ceil(qn - lower)
	if k == 0 {
		return left + 1.0/(n+1)*width
	}
	return left + k/(n+1)*width
}

// Reseed implements Seeded.
func (e *EnvoyAdaptive) Reseed(seed uint64) { e.rnd = splitmix64{s: seed} }
