package algorithms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A port, in test code, of Netflix concurrency-limits 0.5.4
// (concurrency-limits-core), written for this test from its source:
// AbstractLimiter.createListener (onSuccess, onDropped, onIgnore),
// SimpleLimiter (acquire, onNewLimit, the AdjustableSemaphore, its
// Listener), AbstractLimit (onSample, setLimit, notifyOnChange),
// AIMDLimit, VegasLimit with its default functions and
// Log10RootIntFunction, Gradient2Limit with ExpAvgMeasurement,
// WindowedLimit with ImmutableAverageSampleWindow. Java's double
// arithmetic, (int) casts and int/long types are kept; an exception thrown
// from _update is a panic that unwinds the listener as in Java (the
// permit is then never released). It is written apart from the product
// (adaptive_netflix.go) as the reference TestNetflixMatchesPort compares
// it with; outside the repository it was compared with the real classes
// (TestAdaptivePortDump, docs/algorithms.md).

// nfLimit is com.netflix.concurrency.limits.Limit.
type nfLimit interface {
	onSample(startTime, rtt int64, inflight int32, didDrop bool)
	getLimit() int32
	notifyOnChange(func(int32))
}

// nfAbstractLimit is AbstractLimit; update is the subclass's _update.
type nfAbstractLimit struct {
	limit     int32
	listeners []func(int32)
	update    func(startTime, rtt int64, inflight int32, didDrop bool) int32
}

func (a *nfAbstractLimit) onSample(startTime, rtt int64, inflight int32, didDrop bool) {
	a.setLimit(a.update(startTime, rtt, inflight, didDrop))
}

func (a *nfAbstractLimit) getLimit() int32 { return a.limit }

func (a *nfAbstractLimit) setLimit(newLimit int32) {
	if newLimit != a.limit {
		a.limit = newLimit
		for _, l := range a.listeners {
			l(newLimit)
		}
	}
}

func (a *nfAbstractLimit) notifyOnChange(c func(int32)) { a.listeners = append(a.listeners, c) }

// d2i is Java's (int) cast of a double (JLS 5.1.3), written here apart
// from the product's javaD2I.
func d2i(x float64) int32 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(math.Trunc(x))
}

// nfAIMD is AIMDLimit.
type nfAIMD struct {
	nfAbstractLimit
	backoffRatio       float64
	timeout            int64
	minLimit, maxLimit int32
}

func newNfAIMD(initial, minLimit, maxLimit int32, backoff float64, timeout int64) *nfAIMD {
	l := &nfAIMD{nfAbstractLimit: nfAbstractLimit{limit: initial}, backoffRatio: backoff, timeout: timeout, minLimit: minLimit, maxLimit: maxLimit}
	l.update = l._update
	return l
}

func (l *nfAIMD) _update(startTime, rtt int64, inflight int32, didDrop bool) int32 {
	currentLimit := l.getLimit()
	if didDrop || rtt > l.timeout {
		currentLimit = d2i(float64(currentLimit) * l.backoffRatio)
	} else if inflight*2 >= currentLimit {
		currentLimit = currentLimit + 1
	}
	return min(l.maxLimit, max(l.minLimit, currentLimit))
}

// nfLog10Lookup is Log10RootIntFunction's lookup table.
var nfLog10Lookup = func() [1000]int32 {
	var t [1000]int32
	for i := range t {
		t[i] = max(1, d2i(math.Log10(float64(i))))
	}
	return t
}()

// nfLog10 is Log10RootIntFunction.create(0).applyAsInt.
func nfLog10(t int32) int32 {
	if t < 1000 {
		return nfLog10Lookup[t] // a negative t is an ArrayIndexOutOfBounds, a panic here too
	}
	return d2i(math.Log10(float64(t)))
}

// nfVegas is VegasLimit with the builder's default functions.
type nfVegas struct {
	nfAbstractLimit
	estimatedLimit  float64
	rttNoload       int64
	maxLimit        int32
	smoothing       float64
	probeMultiplier int32
	probeCount      int32
	probeJitter     float64
	nextDouble      func() float64 // ThreadLocalRandom.current().nextDouble(0.5, 1)
}

func newNfVegas(initial, maxConcurrency int32, smoothing float64, probeMultiplier int32, nextDouble func() float64) *nfVegas {
	v := &nfVegas{nfAbstractLimit: nfAbstractLimit{limit: initial}, estimatedLimit: float64(initial), maxLimit: maxConcurrency,
		smoothing: smoothing, probeMultiplier: probeMultiplier, nextDouble: nextDouble}
	v.update = v._update
	v.resetProbeJitter()
	return v
}

func (v *nfVegas) alphaFunc(limit int32) int32     { return 3 * nfLog10(limit) }
func (v *nfVegas) betaFunc(limit int32) int32      { return 6 * nfLog10(limit) }
func (v *nfVegas) thresholdFunc(limit int32) int32 { return nfLog10(limit) }
func (v *nfVegas) increaseFunc(limit float64) float64 {
	return limit + float64(nfLog10(d2i(limit)))
}
func (v *nfVegas) decreaseFunc(limit float64) float64 {
	return limit - float64(nfLog10(d2i(limit)))
}

func (v *nfVegas) resetProbeJitter() { v.probeJitter = v.nextDouble() }

func (v *nfVegas) shouldProbe() bool {
	return v.probeJitter*float64(v.probeMultiplier)*v.estimatedLimit <= float64(v.probeCount)
}

// nfIllegalArgument is the IllegalArgumentException VegasLimit throws.
type nfIllegalArgument string

func (v *nfVegas) _update(startTime, rtt int64, inflight int32, didDrop bool) int32 {
	if rtt <= 0 {
		panic(nfIllegalArgument("rtt must be >0 but got " + strconv.FormatInt(rtt, 10)))
	}
	v.probeCount++
	if v.shouldProbe() {
		v.resetProbeJitter()
		v.probeCount = 0
		v.rttNoload = rtt
		return d2i(v.estimatedLimit)
	}
	rttNoload := v.rttNoload
	if rttNoload == 0 || rtt < rttNoload {
		v.rttNoload = rtt
		return d2i(v.estimatedLimit)
	}
	return v.updateEstimatedLimit(rtt, rttNoload, inflight, didDrop)
}

func (v *nfVegas) updateEstimatedLimit(rtt, rttNoload int64, inflight int32, didDrop bool) int32 {
	estimatedLimit := v.estimatedLimit
	queueSize := d2i(math.Ceil(estimatedLimit * (1 - float64(rttNoload)/float64(rtt))))
	var newLimit float64
	if didDrop {
		newLimit = v.decreaseFunc(estimatedLimit)
	} else if float64(inflight*2) < estimatedLimit {
		return d2i(estimatedLimit)
	} else {
		alpha := v.alphaFunc(d2i(estimatedLimit))
		beta := v.betaFunc(d2i(estimatedLimit))
		threshold := v.thresholdFunc(d2i(estimatedLimit))
		if queueSize <= threshold {
			newLimit = estimatedLimit + float64(beta)
		} else if queueSize < alpha {
			newLimit = v.increaseFunc(estimatedLimit)
		} else if queueSize > beta {
			newLimit = v.decreaseFunc(estimatedLimit)
		} else {
			return d2i(estimatedLimit)
		}
	}
	newLimit = math.Max(1, math.Min(float64(v.maxLimit), newLimit))
	newLimit = (1-v.smoothing)*estimatedLimit + v.smoothing*newLimit
	v.estimatedLimit = newLimit
	return d2i(newLimit)
}

// nfExpAvg is ExpAvgMeasurement.
type nfExpAvg struct {
	value, sum           float64
	window, warmupWindow int32
	count                int32
}

func (m *nfExpAvg) add(sample float64) float64 {
	if m.count < m.warmupWindow {
		m.count++
		m.sum += sample
		m.value = m.sum / float64(m.count)
	} else {
		factor := 2.0 / float64(m.window+1)
		m.value = m.value*(1-factor) + sample*factor
	}
	return m.value
}

func (m *nfExpAvg) updateValue(op func(float64) float64) { m.value = op(m.value) }

// nfGradient2 is Gradient2Limit with queueSize(int).
type nfGradient2 struct {
	nfAbstractLimit
	estimatedLimit     float64
	lastRtt            int64
	longRtt            nfExpAvg
	maxLimit, minLimit int32
	queueSize          int32
	smoothing          float64
	tolerance          float64
}

func newNfGradient2(initial, minLimit, maxConcurrency int32, smoothing float64, queueSize, longWindow int32, tolerance float64) *nfGradient2 {
	g := &nfGradient2{nfAbstractLimit: nfAbstractLimit{limit: initial}, estimatedLimit: float64(initial), maxLimit: maxConcurrency,
		minLimit: minLimit, queueSize: queueSize, smoothing: smoothing, tolerance: tolerance,
		longRtt: nfExpAvg{window: longWindow, warmupWindow: 10}}
	g.update = g._update
	return g
}

func (g *nfGradient2) _update(startTime, rtt int64, inflight int32, didDrop bool) int32 {
	estimatedLimit := g.estimatedLimit
	queueSize := float64(g.queueSize) // queueSize.applyAsInt((int) estimatedLimit)
	g.lastRtt = rtt
	shortRtt := float64(rtt)
	longRtt := g.longRtt.add(float64(rtt))
	if longRtt/shortRtt > 2 {
		g.longRtt.updateValue(func(current float64) float64 { return current * 0.95 })
	}
	if float64(inflight) < estimatedLimit/2 {
		return d2i(estimatedLimit)
	}
	gradient := math.Max(0.5, math.Min(1.0, g.tolerance*longRtt/shortRtt))
	newLimit := estimatedLimit*gradient + queueSize
	newLimit = estimatedLimit*(1-g.smoothing) + newLimit*g.smoothing
	newLimit = math.Max(float64(g.minLimit), math.Min(float64(g.maxLimit), newLimit))
	g.estimatedLimit = newLimit
	return d2i(newLimit)
}

// nfAvgSampleWindow is ImmutableAverageSampleWindow (a value: addSample
// returns a new one).
type nfAvgSampleWindow struct {
	minRtt, sum int64
	maxInFlight int32
	sampleCount int32
	didDrop     bool
}

func newNfAvgSampleWindow() nfAvgSampleWindow { return nfAvgSampleWindow{minRtt: math.MaxInt64} }

func (w nfAvgSampleWindow) addSample(rtt int64, inflight int32, didDrop bool) nfAvgSampleWindow {
	return nfAvgSampleWindow{min(rtt, w.minRtt), w.sum + rtt, max(inflight, w.maxInFlight), w.sampleCount + 1, w.didDrop || didDrop}
}

func (w nfAvgSampleWindow) getTrackedRttNanos() int64 {
	if w.sampleCount == 0 {
		return 0
	}
	return w.sum / int64(w.sampleCount)
}

// nfWindowed is WindowedLimit with AverageSampleWindowFactory.
type nfWindowed struct {
	delegate                     nfLimit
	nextUpdateTime               int64
	minWindowTime, maxWindowTime int64
	windowSize                   int32
	minRttThreshold              int64
	sample                       nfAvgSampleWindow
}

func (w *nfWindowed) notifyOnChange(c func(int32)) { w.delegate.notifyOnChange(c) }
func (w *nfWindowed) getLimit() int32              { return w.delegate.getLimit() }

func (w *nfWindowed) onSample(startTime, rtt int64, inflight int32, didDrop bool) {
	endTime := startTime + rtt
	if rtt < w.minRttThreshold {
		return
	}
	w.sample = w.sample.addSample(rtt, inflight, didDrop)
	if endTime > w.nextUpdateTime {
		// tryLock always succeeds on one thread; the double check holds.
		if endTime > w.nextUpdateTime {
			current := w.sample
			w.sample = newNfAvgSampleWindow()
			w.nextUpdateTime = endTime + min(max(current.minRtt*2, w.minWindowTime), w.maxWindowTime)
			if current.minRtt < math.MaxInt64 && current.sampleCount >= w.windowSize {
				w.delegate.onSample(startTime, current.getTrackedRttNanos(), current.maxInFlight, current.didDrop)
			}
		}
	}
}

// nfSimpleLimiter is SimpleLimiter (AbstractLimiter with the
// AdjustableSemaphore) on a settable nano clock, without bypass.
type nfSimpleLimiter struct {
	clock          func() int64
	limitAlgorithm nfLimit
	inFlight       int32
	limit          int32
	permits        int32 // the Semaphore's state; reducePermits may take it below 0
}

func newNfSimpleLimiter(l nfLimit, clock func() int64) *nfSimpleLimiter {
	s := &nfSimpleLimiter{clock: clock, limitAlgorithm: l, limit: l.getLimit()}
	l.notifyOnChange(s.onNewLimit)
	s.permits = s.limit
	return s
}

func (s *nfSimpleLimiter) onNewLimit(newLimit int32) {
	oldLimit := s.limit
	s.limit = newLimit
	if newLimit > oldLimit {
		s.permits += newLimit - oldLimit // semaphore.release
	} else {
		s.permits -= oldLimit - newLimit // semaphore.reducePermits
	}
}

// nfListener is SimpleLimiter.Listener around createListener's.
type nfListener struct {
	s               *nfSimpleLimiter
	startTime       int64
	currentInflight int32
}

// acquire is SimpleLimiter.acquire: the listener, or nil when rejected.
func (s *nfSimpleLimiter) acquire() *nfListener {
	if s.permits-1 < 0 { // Semaphore.tryAcquire
		return nil
	}
	s.permits--
	startTime := s.clock()
	s.inFlight++
	return &nfListener{s: s, startTime: startTime, currentInflight: s.inFlight}
}

func (l *nfListener) onSuccess() {
	l.s.inFlight--
	l.s.limitAlgorithm.onSample(l.startTime, l.s.clock()-l.startTime, l.currentInflight, false)
	l.s.permits++
}

func (l *nfListener) onIgnore() {
	l.s.inFlight--
	l.s.permits++
}

func (l *nfListener) onDropped() {
	l.s.inFlight--
	l.s.limitAlgorithm.onSample(l.startTime, l.s.clock()-l.startTime, l.currentInflight, true)
	l.s.permits++
}

// nfParams are one Netflix case's builder parameters (times in ns).
type nfParams struct {
	kind                   string // aimd, vegas, gradient2
	initial, minL, maxL    int32
	backoff                float64
	timeout                int64
	smoothing              float64
	probeMult              int32
	queueSize, longWindow  int32
	tolerance              float64
	windowed               bool
	winMin, winMax, minRtt int64
	winSize                int32
	seed                   uint64
	ignore                 bool // the script has onIgnore completions (port and Java only)
}

// spec is the product's spec for p.
func (p *nfParams) spec() string {
	var s string
	switch p.kind {
	case "aimd":
		s = fmt.Sprintf("aimd:initial=%d,min=%d,max=%d,backoff=%s,timeout=%dns", p.initial, p.minL, p.maxL, strconv.FormatFloat(p.backoff, 'g', -1, 64), p.timeout)
	case "vegas":
		s = fmt.Sprintf("vegas:initial=%d,max=%d,smoothing=%s,probe-multiplier=%d", p.initial, p.maxL, strconv.FormatFloat(p.smoothing, 'g', -1, 64), p.probeMult)
	case "gradient2":
		s = fmt.Sprintf("gradient2:initial=%d,min=%d,max=%d,smoothing=%s,queue-size=%d,long-window=%d,tolerance=%s", p.initial, p.minL, p.maxL,
			strconv.FormatFloat(p.smoothing, 'g', -1, 64), p.queueSize, p.longWindow, strconv.FormatFloat(p.tolerance, 'g', -1, 64))
	}
	if p.windowed {
		s += fmt.Sprintf(",windowed=true,window-min=%dns,window-max=%dns,window-size=%d,min-rtt=%dns", p.winMin, p.winMax, p.winSize, p.minRtt)
	}
	return s
}

// header is the script's header line: every builder parameter, times in ns.
func (p *nfParams) header() string {
	return fmt.Sprintf("CASE %s initial=%d min=%d max=%d backoff=%s timeout=%d smoothing=%s probeMultiplier=%d queueSize=%d longWindow=%d tolerance=%s windowed=%v windowMin=%d windowMax=%d windowSize=%d minRtt=%d seed=%d ignore=%v",
		p.kind, p.initial, p.minL, p.maxL, strconv.FormatFloat(p.backoff, 'g', -1, 64), p.timeout, strconv.FormatFloat(p.smoothing, 'g', -1, 64),
		p.probeMult, p.queueSize, p.longWindow, strconv.FormatFloat(p.tolerance, 'g', -1, 64), p.windowed, p.winMin, p.winMax, p.winSize, p.minRtt, p.seed, p.ignore)
}

// parseNfHeader reads a header back.
func parseNfHeader(h string) *nfParams {
	f := strings.Fields(h)
	p := &nfParams{kind: f[1]}
	kv := map[string]string{}
	for _, x := range f[2:] {
		k, v, _ := strings.Cut(x, "=")
		kv[k] = v
	}
	i32 := func(k string) int32 { v, _ := strconv.ParseInt(kv[k], 10, 32); return int32(v) }
	i64 := func(k string) int64 { v, _ := strconv.ParseInt(kv[k], 10, 64); return v }
	f64 := func(k string) float64 { v, _ := strconv.ParseFloat(kv[k], 64); return v }
	p.initial, p.minL, p.maxL = i32("initial"), i32("min"), i32("max")
	p.backoff, p.timeout, p.smoothing = f64("backoff"), i64("timeout"), f64("smoothing")
	p.probeMult, p.queueSize, p.longWindow, p.tolerance = i32("probeMultiplier"), i32("queueSize"), i32("longWindow"), f64("tolerance")
	p.windowed = kv["windowed"] == "true"
	p.winMin, p.winMax, p.winSize, p.minRtt = i64("windowMin"), i64("windowMax"), i32("windowSize"), i64("minRtt")
	s, _ := strconv.ParseUint(kv["seed"], 10, 64)
	p.seed, p.ignore = s, kv["ignore"] == "true"
	return p
}

// vegasJitter is the probe jitter both sides draw: nextDouble(0.5, 1)'s
// origin + r·(bound − origin) with r from splitmix64 seeded with seed (the
// Java harness sets VegasLimit.probeJitter to the same values).
func vegasJitter(seed uint64) func() float64 {
	r := &splitmix64{s: seed}
	return func() float64 { return 0.5 + 0.5*r.float() }
}

// nfPortSubject is the port under the loop.
type nfPortSubject struct {
	now    int64
	lim    *nfSimpleLimiter
	throws int // samples whose _update threw
}

func netflixPortFor(s *portScript) portSubject {
	p := parseNfHeader(s.header)
	sub := &nfPortSubject{}
	var l nfLimit
	switch p.kind {
	case "aimd":
		l = newNfAIMD(p.initial, p.minL, p.maxL, p.backoff, p.timeout)
	case "vegas":
		l = newNfVegas(p.initial, p.maxL, p.smoothing, p.probeMult, vegasJitter(p.seed))
	case "gradient2":
		l = newNfGradient2(p.initial, p.minL, p.maxL, p.smoothing, p.queueSize, p.longWindow, p.tolerance)
	}
	if p.windowed {
		l = &nfWindowed{delegate: l, minWindowTime: p.winMin, maxWindowTime: p.winMax, windowSize: p.winSize,
			minRttThreshold: p.minRtt, sample: newNfAvgSampleWindow()}
	}
	sub.lim = newNfSimpleLimiter(l, func() int64 { return sub.now })
	return sub
}

func (s *nfPortSubject) state() string {
	return fmt.Sprintf("%d %d %d", s.lim.limit, s.lim.permits, s.lim.inFlight)
}

func (s *nfPortSubject) decide(t int64) (string, bool, any) {
	s.now = t
	l := s.lim.acquire()
	if l == nil {
		return "B " + s.state(), false, nil
	}
	return "P " + s.state(), true, l
}

func (s *nfPortSubject) complete(t int64, h any, o uint8) string {
	s.now = t
	l := h.(*nfListener)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(nfIllegalArgument); !ok {
					panic(r)
				}
				s.throws++ // the exception leaves the listener: no release
			}
		}()
		switch o {
		case portTimeout:
			l.onDropped()
		case portIgnore:
			l.onIgnore()
		default:
			l.onSuccess()
		}
	}()
	return "C " + s.state()
}

// nfProductSubject is the lab's limiter under the loop.
type nfProductSubject struct{ n *Netflix }

func netflixProductFor(t *testing.T, s *portScript) portSubject {
	p := parseNfHeader(s.header)
	n := mustNew(t, p.spec(), 0).(*Netflix)
	n.Reseed(p.seed)
	return &nfProductSubject{n: n}
}

func (s *nfProductSubject) state(now time.Duration) string {
	return fmt.Sprintf("%d %d %d", int64(s.n.CurrentLimit(now)), s.n.permits, s.n.InFlight())
}

func (s *nfProductSubject) decide(t int64) (string, bool, any) {
	now := time.Duration(t)
	if !s.n.Check(now).Pass {
		return "B " + s.state(now), false, nil
	}
	tk := s.n.Begin(now, now)
	return "P " + s.state(now), true, tk
}

func (s *nfProductSubject) complete(t int64, h any, o uint8) string {
	now := time.Duration(t)
	oc := Success
	switch o {
	case portError:
		oc = Failure
	case portTimeout:
		oc = Timeout
	}
	s.n.Complete(now, h.(Ticket), oc)
	return "C " + s.state(now)
}

// netflixScripts are the random cases: each limit with its defaults and
// with random parameters, windowed or not, on arrivals at a random load
// around the limit with bursts at one instant, idle gaps, completions of
// 0 ns (Vegas throws) or under the windowed min-rtt, a third of the
// scripts on whole ms (so a sample can end at a window's end), 5% errors, 3%
// timeouts (drops) and a latency step of ×2 to ×4 halfway.
func netflixScripts(seed uint64) []*portScript {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []*portScript
	i := 0
	for _, kind := range []string{"aimd", "vegas", "gradient2"} {
		for _, windowed := range []bool{false, true} {
			for k := range 8 {
				p := &nfParams{kind: kind, initial: 20, minL: 20, maxL: 200, backoff: 0.9, timeout: int64(5 * time.Second),
					smoothing: 0.2, probeMult: 30, queueSize: 4, longWindow: 600, tolerance: 1.5,
					windowed: windowed, winMin: int64(time.Second), winMax: int64(time.Second), winSize: 10, minRtt: int64(100 * time.Microsecond),
					seed: r.Uint64()}
				if kind == "vegas" {
					p.maxL, p.smoothing = 1000, 1
				}
				if k > 0 { // random parameters
					p.initial = int32(1 + r.IntN(60))
					p.minL = int32(1 + r.IntN(int(p.initial)))
					p.maxL = p.initial + int32(r.IntN(300))
					p.backoff = 0.5 + 0.49*r.Float64()
					p.timeout = int64(time.Duration(2+r.IntN(40)) * time.Millisecond)
					p.smoothing = []float64{1, 0.2, 0.5, 0.05 + 0.9*r.Float64()}[r.IntN(4)]
					p.probeMult = int32(1 + r.IntN(40))
					p.queueSize = int32(r.IntN(10))
					p.longWindow = int32(1 + r.IntN(700))
					p.tolerance = 1 + r.Float64()
					p.winMin = int64(time.Duration(100+r.IntN(900)) * time.Millisecond)
					p.winMax = p.winMin + int64(time.Duration(r.IntN(3))*time.Second)
					p.winSize = int32(10 + r.IntN(30))
					p.minRtt = []int64{0, int64(100 * time.Microsecond), int64(time.Millisecond)}[r.IntN(3)]
				}
				p.ignore = k == 7
				out = append(out, &portScript{header: p.header(), arrivals: nfArrivals(r, p, 3000+r.IntN(2000))})
				i++
			}
		}
	}
	return out
}

func nfArrivals(r *rand.Rand, p *nfParams, n int) []portArrival {
	base := float64(time.Duration(1+r.IntN(20)) * time.Millisecond)
	conc := float64(p.initial) * (0.3 + 3*r.Float64()) // offered concurrency
	if p.windowed {
		conc *= 1 + 4*r.Float64()
	}
	timeout := int64(base * (3 + 5*r.Float64()))
	grid := r.IntN(3) == 0
	var at int64
	out := make([]portArrival, 0, n)
	for len(out) < n {
		rtBase := base
		if len(out) > n/2 {
			rtBase *= 2 + float64(r.IntN(3))
		}
		switch x := r.IntN(1000); {
		case x < 3: // idle
			at += int64(time.Duration(500+r.IntN(4500)) * time.Millisecond)
		case x < 60: // the same instant
		default:
			at += int64(r.ExpFloat64() * base / conc)
		}
		a := portArrival{t: at, rt: int64(rtBase * (0.5 + r.ExpFloat64()))}
		if grid { // whole ms: ends fall on a window's nextUpdateTime
			a.t -= a.t % int64(time.Millisecond)
			a.rt -= a.rt % int64(time.Millisecond)
		}
		switch x := r.IntN(100); {
		case x < 5:
			a.o = portError
		case x < 8:
			a.o, a.rt = portTimeout, timeout
			if grid {
				a.rt -= a.rt % int64(time.Millisecond)
			}
		case x < 10 && p.ignore:
			a.o = portIgnore
		}
		switch r.IntN(60) {
		case 0:
			a.rt = 0
		case 1:
			a.rt = int64(r.IntN(int(200 * time.Microsecond)))
		}
		out = append(out, a)
	}
	return out
}

// TestNetflixMatchesPort runs the product's aimd, vegas and gradient2,
// windowed or not, and the port of the Java classes on the same random
// scripts: every decision and, after every completion and decision, the
// limit, the semaphore's permits and the in-flight count are the same.
func TestNetflixMatchesPort(t *testing.T) {
	decisions, changes, throws := 0, 0, 0
	for _, s := range netflixScripts(16) {
		if strings.Contains(s.header, " ignore=true") {
			continue
		}
		ps := netflixPortFor(s).(*nfPortSubject)
		port := runPortScript(s, ps)
		throws += ps.throws
		decisions += compareRuns(t, s, port, runPortScript(s, netflixProductFor(t, s)))
		last := ""
		for _, l := range port {
			f := strings.Fields(l)
			if f[1] != last {
				changes++
				last = f[1]
			}
		}
	}
	t.Logf("%d decisions, %d limit changes identical; %d Vegas samples threw", decisions, changes, throws)
	if decisions < 100_000 || changes < 5_000 || throws < 10 {
		t.Errorf("the scripts are too tame: %d decisions, %d limit changes, %d throws", decisions, changes, throws)
	}
}
