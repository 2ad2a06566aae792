package algorithms

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
)

// ParamInfo describes one parameter of a limiter's spec.
type ParamInfo struct {
	Key string
	// Default is the default value in spec syntax; "" means the value
	// comes from the scenario's limit (or --limit) when the spec omits it.
	Default string
	Help    string
}

// Info describes one limiter for listings.
type Info struct {
	Name      string
	Aliases   []string
	Summary   string
	Reference string
	Params    []ParamInfo
}

type paramKind int

const (
	kindFloat paramKind = iota
	kindInt
	kindDuration
)

type param struct {
	ParamInfo
	kind paramKind
}

type kind struct {
	info   Info
	params []param
	build  func(a *args) (Limiter, error)
}

// args holds the parsed parameters of one spec.
type args struct {
	name         string
	raw          map[string]string
	defaultLimit float64
	params       []param
}

func (a *args) has(key string) bool { _, ok := a.raw[key]; return ok }

func (a *args) lookup(key string) (string, param) {
	for _, p := range a.params {
		if p.Key == key {
			if v, ok := a.raw[key]; ok {
				return v, p
			}
			return p.Default, p
		}
	}
	panic("algorithms: undeclared parameter " + key)
}

func (a *args) float(key string) (float64, error) {
	v, _ := a.lookup(key)
	if v == "" {
		if a.defaultLimit > 0 {
			return a.defaultLimit, nil
		}
		return 0, fmt.Errorf("%s needs a %s: add %s=N to the spec (for example %s:%s=100) or pass --limit", a.name, key, key, a.name, key)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: %s %q is not a number (for example %s=100 or %s=2.5)", a.name, key, v, key, key)
	}
	return f, nil
}

func (a *args) int(key string) (int, error) {
	v, _ := a.lookup(key)
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s: %s %q is not a whole number (for example %s=10)", a.name, key, v, key)
	}
	return int(n), nil
}

func (a *args) duration(key string) (time.Duration, error) {
	v, _ := a.lookup(key)
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s %q is not a duration (use Go syntax, for example %s=500ms or %s=1s)", a.name, key, v, key, key)
	}
	return d, nil
}

// first returns the first error of errs.
func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func p(key, def, help string, k paramKind) param {
	return param{ParamInfo{Key: key, Default: def, Help: help}, k}
}

var (
	pLimit       = p("limit", "", "requests per window", kindFloat)
	pQPS         = p("limit", "", "QPS threshold (count), may be fractional", kindFloat)
	pWindow      = p("window", "1s", "window length", kindDuration)
	pSampleCount = p("sample-count", "2", "buckets in the interval (SAMPLE_COUNT)", kindInt)
	pInterval    = p("interval", "1s", "statistic interval (INTERVAL), whole ms", kindDuration)
	pMaxQueue    = p("max-queue", "500ms", "longest queueing wait (maxQueueingTimeMs)", kindDuration)
	pWarmUp      = p("warm-up", "10s", "warm-up period, whole seconds", kindDuration)
	pColdFactor  = p("cold-factor", "3", "the cold rate is limit/cold-factor", kindInt)
)

var kinds = []kind{
	{
		info: Info{Name: "fixed-window", Summary: "one counter per window [kW, (k+1)W) from t = 0; pass while count+1 ≤ limit",
			Reference: "the definition"},
		params: []param{pLimit, pWindow},
		build: func(a *args) (Limiter, error) {
			var c FixedWindowConfig
			var e1, e2 error
			c.Limit, e1 = a.float("limit")
			c.Window, e2 = a.duration("window")
			if err := first(e1, e2); err != nil {
				return nil, err
			}
			return NewFixedWindow(c)
		},
	},
	{
		info: Info{Name: "leap-array", Aliases: []string{"sliding-window"},
			Summary:   "Sentinel's bucketed sliding window (LeapArray) with DefaultController: QPS grade, reject",
			Reference: "Alibaba Sentinel 1.8 DefaultController on a StatisticNode"},
		params: []param{pQPS, pSampleCount, pInterval},
		build: func(a *args) (Limiter, error) {
			var c LeapArrayConfig
			var e1, e2, e3 error
			c.Limit, e1 = a.float("limit")
			c.SampleCount, e2 = a.int("sample-count")
			c.Interval, e3 = a.duration("interval")
			if err := first(e1, e2, e3); err != nil {
				return nil, err
			}
			return NewLeapArray(c)
		},
	},
	{
		info: Info{Name: "sliding-log", Summary: "exact sliding log: pass iff passes in (t − window, t] + 1 ≤ limit",
			Reference: "the definition"},
		params: []param{pLimit, pWindow,
			p("history", "10s", "how far back the clock may step and still get exact decisions (memory: about limit·(1+history/window) timestamps)", kindDuration)},
		build: func(a *args) (Limiter, error) {
			var c SlidingLogConfig
			var e1, e2, e3 error
			c.Limit, e1 = a.float("limit")
			c.Window, e2 = a.duration("window")
			c.History, e3 = a.duration("history")
			if err := first(e1, e2, e3); err != nil {
				return nil, err
			}
			return NewSlidingLog(c)
		},
	},
	{
		info: Info{Name: "token-bucket", Summary: "token bucket that starts full; limit=L is shorthand for rate=L, burst=ceil(L)",
			Reference: "golang.org/x/time/rate v0.16 NewLimiter(rate, burst).AllowN(t, 1)"},
		params: []param{
			p("rate", "", "tokens per second, may be fractional", kindFloat),
			p("burst", "ceil(rate)", "bucket size", kindInt),
			p("limit", "-", "shorthand: rate=limit, burst=ceil(limit)", kindFloat),
		},
		build: func(a *args) (Limiter, error) {
			if a.has("limit") && a.has("rate") {
				return nil, fmt.Errorf("token-bucket: give either limit or rate, not both (limit=L means rate=L, burst=ceil(L))")
			}
			key := "rate"
			if a.has("limit") {
				key = "limit"
			}
			rate, err := a.float(key)
			if err != nil {
				return nil, err
			}
			if err := positiveLimit("token-bucket", key, rate); err != nil {
				return nil, err
			}
			c := TokenBucketConfig{Rate: rate}
			if a.has("burst") {
				if c.Burst, err = a.int("burst"); err != nil {
					return nil, err
				}
			} else {
				b := math.Ceil(rate)
				if b > math.MaxInt32 {
					return nil, fmt.Errorf("token-bucket: rate %s is too large for a default burst; give burst=N", formatFloat(rate))
				}
				c.Burst = int(b)
			}
			return NewTokenBucket(c)
		},
	},
	{
		info: Info{Name: "leaky-bucket", Aliases: []string{"throttling"},
			Summary:   "Sentinel's ThrottlingController: uniform pacing with a bounded queue",
			Reference: "Alibaba Sentinel 1.8 ThrottlingController (formerly RateLimiterController)"},
		params: []param{p("limit", "", "requests per interval, may be fractional", kindFloat), pInterval, pMaxQueue},
		build: func(a *args) (Limiter, error) {
			var c ThrottlingConfig
			var e1, e2, e3 error
			c.Limit, e1 = a.float("limit")
			c.Interval, e2 = a.duration("interval")
			c.MaxQueue, e3 = a.duration("max-queue")
			if err := first(e1, e2, e3); err != nil {
				return nil, err
			}
			return NewThrottling(c)
		},
	},
	{
		info: Info{Name: "warm-up", Summary: "Sentinel's WarmUpController: Guava-style cold start, then reject",
			Reference: "Alibaba Sentinel 1.8 WarmUpController"},
		params: []param{pQPS, pWarmUp, pColdFactor, pSampleCount, pInterval},
		build: func(a *args) (Limiter, error) {
			var c WarmUpConfig
			var e [5]error
			c.Limit, e[0] = a.float("limit")
			c.WarmUp, e[1] = a.duration("warm-up")
			c.ColdFactor, e[2] = a.int("cold-factor")
			c.SampleCount, e[3] = a.int("sample-count")
			c.Interval, e[4] = a.duration("interval")
			if err := first(e[:]...); err != nil {
				return nil, err
			}
			return NewWarmUp(c)
		},
	},
	{
		info: Info{Name: "warm-up-rate-limiter", Summary: "Sentinel's WarmUpRateLimiterController: warm-up rate with queueing",
			Reference: "Alibaba Sentinel 1.8 WarmUpRateLimiterController"},
		params: []param{pQPS, pWarmUp, pColdFactor, pMaxQueue},
		build: func(a *args) (Limiter, error) {
			var c WarmUpRateLimiterConfig
			var e [4]error
			c.Limit, e[0] = a.float("limit")
			c.WarmUp, e[1] = a.duration("warm-up")
			c.ColdFactor, e[2] = a.int("cold-factor")
			c.MaxQueue, e[3] = a.duration("max-queue")
			if err := first(e[:]...); err != nil {
				return nil, err
			}
			return NewWarmUpRateLimiter(c)
		},
	},
	{
		info: Info{Name: "circuit-breaker",
			Summary:   "Sentinel's circuit breaker: CLOSED → OPEN → HALF_OPEN (one probe) on slow calls or errors; put it last in a chain FLOW+circuit-breaker:...",
			Reference: "Alibaba Sentinel 1.8 ResponseTimeCircuitBreaker / ExceptionCircuitBreaker (DegradeRule)"},
		params: []param{
			p("strategy", "-", "slow-ratio, error-ratio or error-count (required)", kindFloat),
			p("max-rt", "-", "slow-ratio: a call slower than this is slow (rule count), whole ms (required for slow-ratio)", kindDuration),
			p("threshold", "-", "slow-ratio: slowRatioThreshold (default 1); error-ratio: the ratio; error-count: the count (required)", kindFloat),
			p("min-requests", "5", "minRequestAmount: calls completed in the current stat interval before it may open", kindInt),
			p("stat-interval", "1s", "statIntervalMs: the one bucket of statistics, whole ms", kindDuration),
			p("recovery", "10s", "timeWindow: how long OPEN lasts before a probe, whole seconds", kindDuration),
		},
		build: buildCircuitBreaker,
	},
}

// List describes every limiter, in a fixed order, for `ratelimit-lab list`.
func List() []Info {
	out := make([]Info, len(kinds))
	for i, k := range kinds {
		out[i] = k.info
		out[i].Params = make([]ParamInfo, len(k.params))
		for j, p := range k.params {
			out[i].Params[j] = p.ParamInfo
		}
	}
	return out
}

// Names returns every limiter name and alias, sorted.
func Names() []string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.info.Name)
		names = append(names, k.info.Aliases...)
	}
	sort.Strings(names)
	return names
}

func findKind(name string) (*kind, error) {
	for i := range kinds {
		k := &kinds[i]
		if k.info.Name == name {
			return k, nil
		}
		for _, a := range k.info.Aliases {
			if a == name {
				return k, nil
			}
		}
	}
	return nil, fmt.Errorf("unknown algorithm %q%s; known algorithms: %s",
		name, suggest.DidYouMean(name, Names()), strings.Join(Names(), ", "))
}

// New builds a limiter from a spec string NAME[:key=value,...], for
// example "leap-array:limit=100,sample-count=10,interval=1s". Durations use
// Go syntax. Parameters left out take their defaults; a limit left out
// takes defaultLimit (the scenario's limit), and is an error when
// defaultLimit is not positive. Errors are one line naming the problem and
// the allowed names, keys or range.
//
// A spec A+B+… (a '+' followed by a limiter name) builds a *Chain of those
// stages, at most one circuit-breaker, last; a lone circuit-breaker spec
// builds a *CircuitBreaker.
func New(spec string, defaultLimit float64) (Limiter, error) {
	if len(splitChain(spec)) > 1 {
		return newChainSpec(spec, defaultLimit)
	}
	name, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return nil, fmt.Errorf("empty algorithm spec %q: write NAME[:key=value,...], for example leap-array:sample-count=10", spec)
	}
	k, err := findKind(name)
	if err != nil {
		return nil, err
	}
	a := &args{name: k.info.Name, raw: map[string]string{}, defaultLimit: defaultLimit, params: k.params}
	keys := make([]string, len(k.params))
	for i, p := range k.params {
		keys[i] = p.Key
	}
	if strings.TrimSpace(rest) != "" {
		for _, kv := range strings.Split(rest, ",") {
			key, val, ok := strings.Cut(kv, "=")
			key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
			if !ok || key == "" || val == "" {
				return nil, fmt.Errorf("%s: parameter %q is not key=value (for example %s:%s=...)", a.name, strings.TrimSpace(kv), a.name, keys[0])
			}
			if !slices.Contains(keys, key) {
				return nil, fmt.Errorf("%s: unknown parameter %q%s; allowed: %s", a.name, key, suggest.DidYouMean(key, keys), strings.Join(keys, ", "))
			}
			if _, dup := a.raw[key]; dup {
				return nil, fmt.Errorf("%s: parameter %q is given twice", a.name, key)
			}
			a.raw[key] = val
		}
	}
	l, err := k.build(a)
	if err != nil {
		// Not a typed nil inside the interface.
		return nil, err
	}
	return l, nil
}
