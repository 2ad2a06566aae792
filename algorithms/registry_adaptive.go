package algorithms

import (
	"fmt"
	"strconv"
	"strings"
)

// adaptiveKinds are the concurrency limits and adaptive protections: they
// decide on calls in flight and learn from completions (see Completer),
// so they run on the simulator's evented loop.
var adaptiveKinds = []kind{
	{
		info: Info{Name: "concurrency", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "Sentinel's thread-count flow rule: block iff calls in flight (excluding this one) + 1 > limit, so limit=N admits N at once",
			Reference: "Alibaba Sentinel 1.8 FlowRule grade THREAD (DefaultController); flavor=go: sentinel-golang core/isolation"},
		params: []param{p("limit", "", "most calls in flight (count); flavor=go: a whole number", kindFloat),
			p("flavor", "java", "java (Sentinel 1.8) or go (sentinel-golang core/isolation)", kindString)},
		build: func(a *args) (Limiter, error) {
			var c ConcurrencyConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Go = r.goFlavor()
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewConcurrency(c)
		},
	},
	{
		info: Info{Name: "sentinel-system", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "Sentinel's system adaptive protection on the inbound node: qps, thread, avg RT, load1 with BBR (threads > maxSuccessQps·minRt/1000), cpu",
			Reference: "Alibaba Sentinel 1.8.3+ system rules (checkSystem with checkBbr); flavor=go: sentinel-golang core/system"},
		params: []param{
			p("qps", "-", "inbound pass QPS threshold", kindFloat),
			p("max-thread", "-", "calls in flight (Java admits max-thread+1, a whole number; Go admits ⌈max-thread⌉, any number)", kindFloat),
			p("avg-rt", "-", "average RT threshold, ms (a plain number; whole with flavor=java)", kindFloat),
			p("load", "-", "load1 threshold (needs a load1 signal)", kindFloat),
			p("cpu", "-", "CPU usage threshold 0 to 1 (needs a cpu signal)", kindFloat),
			p("flavor", "java", "java (Sentinel 1.8.3+) or go (sentinel-golang core/system)", kindString),
			p("strategy", "none", "flavor=go: bbr applies checkBbrSimple to the load and cpu rules; none blocks on the threshold alone", kindString),
		},
		build: buildSentinelSystem,
	},
	{
		info: Info{Name: "aegis-bbr", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "go-kratos/aegis BBR: with CPU EMA ≥ threshold (or within 1 s of the first drop), drop iff inFlight > 1 and > maxPASS·minRT·buckets/s/1000",
			Reference: "go-kratos/aegis ratelimit/bbr (head, or v0.2.0 with its truncated RT)"},
		params: []param{
			p("window", "10s", "WithWindow", kindDuration),
			p("buckets", "100", "WithBucket", kindInt),
			p("cpu-threshold", "800", "WithCPUThreshold, per mille (needs a cpu signal)", kindInt),
			p("version", "head", "head or v0.2.0", kindString),
		},
		build: func(a *args) (Limiter, error) {
			var c AegisBBRConfig
			r := a.reader()
			c.Window = r.duration("window")
			c.Buckets = r.int("buckets")
			c.CPUThreshold = int64(r.int("cpu-threshold"))
			if err := r.err(); err != nil {
				return nil, err
			}
			switch v, _ := a.lookup("version"); v {
			case "head":
			case "v0.2.0":
				c.V020 = true
			default:
				return nil, fmt.Errorf("aegis-bbr: version %q is not known; allowed: head, v0.2.0", v)
			}
			return NewAegisBBR(c)
		},
	},
	{
		info: Info{Name: "aimd", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "Netflix AIMDLimit behind SimpleLimiter: +1 when inflight·2 ≥ limit, ×backoff on a drop or RTT > timeout",
			Reference: "Netflix concurrency-limits 0.5.x AIMDLimit, SimpleLimiter (windowed=true: WindowedLimit)"},
		params: append([]param{
			p("initial", "20", "initialLimit", kindInt), p("min", "20", "minLimit", kindInt), p("max", "200", "maxLimit", kindInt),
			p("backoff", "0.9", "backoffRatio, [0.5, 1)", kindFloat), p("timeout", "5s", "an RTT above it backs off", kindDuration),
		}, windowedParams...),
		build: func(a *args) (Limiter, error) { return buildNetflix(a, "aimd") },
	},
	{
		info: Info{Name: "vegas", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "Netflix VegasLimit behind SimpleLimiter: queue = ceil(L·(1 − rtt_noload/rtt)) against log10-based alpha/beta, random minRTT probe",
			Reference: "Netflix concurrency-limits 0.5.x VegasLimit (defaults), SimpleLimiter (windowed=true: WindowedLimit)"},
		params: append([]param{
			p("initial", "20", "initialLimit", kindInt), p("max", "1000", "maxConcurrency", kindInt),
			p("smoothing", "1", "smoothing", kindFloat), p("probe-multiplier", "30", "probeMultiplier", kindInt),
			p("probe", "on", "on: reset rtt_noload after jitter·multiplier·limit samples (jitter from the run's seed); off: never", kindString),
		}, windowedParams...),
		build: func(a *args) (Limiter, error) { return buildNetflix(a, "vegas") },
	},
	{
		info: Info{Name: "gradient2", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "Netflix Gradient2Limit behind SimpleLimiter: L·clamp(tolerance·longRtt/rtt, 0.5, 1) + queue, smoothed",
			Reference: "Netflix concurrency-limits 0.5.x Gradient2Limit (defaults), SimpleLimiter (windowed=true: WindowedLimit)"},
		params: append([]param{
			p("initial", "20", "initialLimit", kindInt), p("min", "20", "minLimit", kindInt), p("max", "200", "maxConcurrency", kindInt),
			p("smoothing", "0.2", "smoothing", kindFloat), p("queue-size", "4", "queueSize", kindInt),
			p("long-window", "600", "longWindow (ExpAvgMeasurement)", kindInt), p("tolerance", "1.5", "rttTolerance, ≥ 1", kindFloat),
		}, windowedParams...),
		build: func(a *args) (Limiter, error) { return buildNetflix(a, "gradient2") },
	},
	{
		info: Info{Name: "envoy-adaptive", Caps: CapKeyColumn | CapClosedLoop | CapStage,
			Summary:   "Envoy's adaptive concurrency GradientController: minRTT windows at min concurrency, limit = trunc(L·g + √(L·g)) every update",
			Reference: "Envoy adaptive_concurrency GradientController (libcircllhist approximate percentile)"},
		params: []param{
			p("interval", "60s", "min_rtt_calc_params.interval", kindDuration),
			alias(p("update-interval", "100ms", "concurrency_limit_params.concurrency_update_interval", kindDuration), "update"),
			p("request-count", "50", "min_rtt_calc_params.request_count", kindInt),
			p("percentile", "50", "sample_aggregate_percentile, percent", kindFloat),
			p("buffer", "25%", "min_rtt_calc_params.buffer", kindString),
			p("min", "3", "min_concurrency", kindInt),
			p("max", "1000", "max_concurrency_limit", kindInt),
			p("jitter", "15%", "min_rtt_calc_params.jitter", kindString),
		},
		build: func(a *args) (Limiter, error) {
			var c EnvoyAdaptiveConfig
			r := a.reader()
			c.Interval = r.duration("interval")
			c.UpdateInterval = r.duration("update-interval")
			c.RequestCount = r.int("request-count")
			c.Percentile = r.float("percentile")
			c.Buffer = r.percent("buffer")
			c.Min = r.int("min")
			c.Max = r.int("max")
			c.Jitter = r.percent("jitter")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewEnvoyAdaptive(c)
		},
	},
	{
		info:  Info{Name: "none", Caps: CapKeyColumn | CapClosedLoop | CapStage, Summary: "lets every call through (the unprotected service, to compare with)", Reference: "the definition"},
		build: func(*args) (Limiter, error) { return NewNone(), nil },
	},
}

var windowedParams = []param{
	p("windowed", "false", "true: WindowedLimit feeds the limit one sample per window (average RTT, max inflight)", kindString),
	p("window-min", "1s", "WindowedLimit minWindowTime", kindDuration),
	p("window-max", "1s", "WindowedLimit maxWindowTime", kindDuration),
	p("window-size", "10", "WindowedLimit windowSize", kindInt),
	p("min-rtt", "100us", "WindowedLimit minRttThreshold: faster samples are ignored", kindDuration),
}

// percent reads a percentage written 25% or 25.
func (a *args) percent(key string) (float64, error) {
	v, _ := a.lookup(key)
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s %q is not a percentage (for example %s=25%%)", a.name, key, v, key)
	}
	return f, nil
}

func buildNetflix(a *args, kindName string) (Limiter, error) {
	c := NetflixConfig{Kind: kindName}
	r := a.reader()
	c.Initial = r.int("initial")
	c.Max = r.int("max")
	switch kindName {
	case "aimd":
		c.Min = r.int("min")
		c.Backoff = r.float("backoff")
		c.Timeout = r.duration("timeout")
	case "vegas":
		c.Smoothing = r.float("smoothing")
		c.ProbeMultiplier = r.int("probe-multiplier")
		c.Probe = r.boolean("probe")
	case "gradient2":
		c.Min = r.int("min")
		c.Smoothing = r.float("smoothing")
		c.QueueSize = r.int("queue-size")
		c.LongWindow = r.int("long-window")
		c.Tolerance = r.float("tolerance")
	}
	c.Windowed = r.boolean("windowed")
	c.WindowMin = r.duration("window-min")
	c.WindowMax = r.duration("window-max")
	c.WindowSize = r.int("window-size")
	c.MinRTT = r.duration("min-rtt")
	if err := r.err(); err != nil {
		return nil, err
	}
	if !c.Windowed {
		for _, k := range []string{"window-min", "window-max", "window-size", "min-rtt"} {
			if a.has(k) {
				return nil, fmt.Errorf("%s: %s applies only with windowed=true; drop it or add windowed=true", kindName, k)
			}
		}
	}
	return NewNetflix(c)
}

func buildSentinelSystem(a *args) (Limiter, error) {
	c := SentinelSystemConfig{QPS: -1, MaxThread: -1, AvgRT: -1, Load: -1, CPU: -1}
	r := a.reader()
	if a.has("qps") {
		c.QPS = r.float("qps")
	}
	if a.has("max-thread") {
		c.MaxThread = r.float("max-thread")
	}
	if a.has("avg-rt") {
		c.AvgRT = r.float("avg-rt")
	}
	if a.has("load") {
		c.Load = r.float("load")
	}
	if a.has("cpu") {
		c.CPU = r.float("cpu")
	}
	c.Go = r.goFlavor()
	if err := r.err(); err != nil {
		return nil, err
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"qps", c.QPS}, {"max-thread", c.MaxThread}, {"avg-rt", c.AvgRT}, {"load", c.Load}, {"cpu", c.CPU}} {
		if a.has(k.key) && k.v < 0 {
			return nil, fmt.Errorf("sentinel-system: %s must not be negative, got %s (leave it out to not set the rule)", k.key, formatNumber(k.v))
		}
	}
	switch s, _ := a.lookup("strategy"); s {
	case "none":
	case "bbr":
		c.BBR = true
	default:
		return nil, fmt.Errorf("sentinel-system: strategy %q is not known; allowed: bbr, none (flavor=go)", s)
	}
	if a.has("strategy") && !c.Go {
		return nil, fmt.Errorf("sentinel-system: strategy applies to flavor=go only (Java always checks BBR on load, never on cpu); drop strategy or add flavor=go")
	}
	return NewSentinelSystem(c)
}
