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
	specpkg "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// ParamInfo describes one parameter of a limiter's spec.
type ParamInfo struct {
	Key string
	// Default is the default value in spec syntax; "" means the value
	// comes from the scenario's limit (or --limit) when the spec omits it.
	Default string
	Help    string
	// Aliases are other names the spec accepts for the parameter (an
	// earlier documented name); Spec writes Key.
	Aliases []string
}

// Info describes one limiter for listings.
type Info struct {
	Name string
	// Family is the group the limiter belongs to ("windows", "gateways",
	// "per-key", "adaptive", ...), as the root --help describes them.
	Family    string
	Aliases   []string
	Summary   string
	Reference string
	Params    []ParamInfo
	// Caps are what the spec can do and needs (see Caps).
	Caps Caps
}

type paramKind int

const (
	kindFloat paramKind = iota
	kindInt
	kindDuration
	kindString
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

// goFlavor reads the flavor parameter: false for java (the default),
// true for go (sentinel-golang), an error naming the allowed values else.
func (a *args) goFlavor() (bool, error) {
	v, _ := a.lookup("flavor")
	switch strings.ToLower(v) {
	case "java":
		return false, nil
	case "go":
		return true, nil
	}
	return false, fmt.Errorf("%s: flavor %q is not known; allowed: java (Alibaba Sentinel 1.8, the default), go (sentinel-golang)", a.name, v)
}

// ignoredOccupy checks the occupy-timeout of a controller that takes it
// and ignores it (Sentinel's WarmUpController and ThrottlingController
// have canPass(node, n, prioritized) and never read prioritized).
func (a *args) ignoredOccupy() error {
	d, err := a.duration("occupy-timeout")
	if err != nil {
		return err
	}
	if _, err := wholeMs(a.name, "occupy-timeout", d, 0); err != nil {
		return err
	}
	return nil
}

func p(key, def, help string, k paramKind) param {
	return param{ParamInfo{Key: key, Default: def, Help: help}, k}
}

// alias gives p other accepted names.
func alias(p param, names ...string) param {
	p.Aliases = names
	return p
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
	pOccupy      = p("occupy-timeout", "0.5s", "prioritized requests wait below this for a future bucket (OccupyTimeoutProperty); 0 = off", kindDuration)
	pOccupyIgn   = p("occupy-timeout", "0.5s", "taken and ignored, as Sentinel's controller ignores prioritized", kindDuration)
	pFlavor      = p("flavor", "java", "java (Alibaba Sentinel 1.8) or go (sentinel-golang, limit counted per interval)", kindString)
)

// kinds is every limiter the registry builds, in the order `list` shows
// them: the core table below, then each family's own table, declared in
// that family's file (one line here per family).
var kinds = slices.Concat(
	coreKinds,    // each sets its own Family
	layeredKinds, // hierarchical_registry.go: the layered window, in windows
	inFamily("gateways", gatewayKinds),
	inFamily("per-key", keyedKinds),
	inFamily("adaptive", adaptiveKinds),
	inFamily("Sentinel", clusterKinds),
)

// inFamily sets the Family of every kind in a family's table.
func inFamily(family string, ks []kind) []kind {
	for i := range ks {
		ks[i].info.Family = family
	}
	return ks
}

var coreKinds = []kind{
	{
		info: Info{Name: "fixed-window", Caps: CapKeyColumn | CapShard | CapStage | CapCheckToAdd, Family: "windows", Summary: "one counter per window [kW, (k+1)W) from t = 0; pass while count+1 ≤ limit",
			Reference: "the definition"},
		params: []param{pLimit, pWindow},
		build: func(a *args) (Limiter, error) {
			var c FixedWindowConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Window = r.duration("window")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewFixedWindow(c)
		},
	},
	{
		info: Info{Name: "leap-array", Caps: CapKeyColumn | CapShard | CapCost | CapStage | CapCheckToAdd, Family: "windows", Aliases: []string{"sliding-window"},
			Summary:   "Sentinel's bucketed sliding window (LeapArray) with DefaultController: QPS grade, reject",
			Reference: "Alibaba Sentinel 1.8 DefaultController on a StatisticNode; flavor=go: sentinel-golang Direct + Reject"},
		params: []param{pQPS, pSampleCount, pInterval, pOccupy, pFlavor},
		build: func(a *args) (Limiter, error) {
			var c LeapArrayConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.SampleCount = r.int("sample-count")
			c.Interval = r.duration("interval")
			golang := r.goFlavor()
			c.OccupyTimeout = r.duration("occupy-timeout")
			if err := r.err(); err != nil {
				return nil, err
			}
			if golang {
				if a.has("occupy-timeout") {
					return nil, fmt.Errorf("leap-array: occupy-timeout applies only with flavor=java; sentinel-golang has no prioritized entries: drop it or drop flavor=go")
				}
				c.OccupyTimeout = 0
				return NewGoLeapArray(c)
			}
			return NewLeapArray(c)
		},
	},
	{
		info: Info{Name: "sliding-log", Caps: CapKeyColumn | CapShard | CapStage | CapCheckToAdd, Family: "windows", Summary: "exact sliding log: pass iff passes in (t − window, t] + 1 ≤ limit",
			Reference: "the definition"},
		params: []param{pLimit, pWindow,
			p("history", "10s", "how far back the clock may step and still get exact decisions (memory: about limit·(1+history/window) timestamps)", kindDuration)},
		build: func(a *args) (Limiter, error) {
			var c SlidingLogConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Window = r.duration("window")
			c.History = r.duration("history")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewSlidingLog(c)
		},
	},
	{
		info: Info{Name: "token-bucket", Caps: CapKeyColumn | CapShard | CapCost | CapStage, Family: "buckets", Summary: "token bucket that starts full; limit=L is shorthand for rate=L, burst=ceil(L)",
			Reference: "golang.org/x/time/rate v0.16 NewLimiter(rate, burst).AllowN(t, cost)"},
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
					return nil, fmt.Errorf("token-bucket: rate %s is too large for a default burst; give burst=N", formatNumber(rate))
				}
				c.Burst = int(b)
			}
			return NewTokenBucket(c)
		},
	},
	{
		info: Info{Name: "leaky-bucket", Caps: CapKeyColumn | CapShard | CapCost | CapStage, Family: "Sentinel", Aliases: []string{"throttling"},
			Summary:   "Sentinel's ThrottlingController: uniform pacing with a bounded queue",
			Reference: "Alibaba Sentinel 1.8 ThrottlingController (formerly RateLimiterController); flavor=go: sentinel-golang Direct + Throttling"},
		params: []param{p("limit", "", "requests per interval, may be fractional", kindFloat), pInterval, pMaxQueue, pOccupyIgn, pFlavor},
		build: func(a *args) (Limiter, error) {
			if err := a.ignoredOccupy(); err != nil {
				return nil, err
			}
			var c ThrottlingConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Interval = r.duration("interval")
			c.MaxQueue = r.duration("max-queue")
			golang := r.goFlavor()
			if err := r.err(); err != nil {
				return nil, err
			}
			if golang {
				return NewGoThrottling(c)
			}
			return NewThrottling(c)
		},
	},
	{
		info: Info{Name: "warm-up", Caps: CapKeyColumn | CapShard | CapCost | CapStage | CapCheckToAdd, Family: "Sentinel", Summary: "Sentinel's WarmUpController: Guava-style cold start, then reject",
			Reference: "Alibaba Sentinel 1.8 WarmUpController; flavor=go: sentinel-golang WarmUp + Reject"},
		params: []param{pQPS, pWarmUp, pColdFactor, pSampleCount, pInterval, pOccupyIgn, pFlavor},
		build: func(a *args) (Limiter, error) {
			if err := a.ignoredOccupy(); err != nil {
				return nil, err
			}
			var c WarmUpConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.WarmUp = r.duration("warm-up")
			c.ColdFactor = r.int("cold-factor")
			c.SampleCount = r.int("sample-count")
			c.Interval = r.duration("interval")
			golang := r.goFlavor()
			if err := r.err(); err != nil {
				return nil, err
			}
			if golang {
				return NewGoWarmUp(c)
			}
			return NewWarmUp(c)
		},
	},
	{
		info: Info{Name: "warm-up-rate-limiter", Caps: CapKeyColumn | CapShard | CapCost | CapStage, Family: "Sentinel", Summary: "Sentinel's WarmUpRateLimiterController: warm-up rate with queueing",
			Reference: "Alibaba Sentinel 1.8 WarmUpRateLimiterController; flavor=go: sentinel-golang WarmUp + Throttling"},
		params: []param{pQPS, pWarmUp, pColdFactor, pMaxQueue,
			p("sample-count", "2", "flavor=go only: buckets of the statistic the warm-up reads", kindInt),
			p("interval", "1s", "flavor=go only: the rule's StatIntervalInMs, whole ms", kindDuration),
			pFlavor},
		build: func(a *args) (Limiter, error) {
			var c WarmUpRateLimiterConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.WarmUp = r.duration("warm-up")
			c.ColdFactor = r.int("cold-factor")
			c.MaxQueue = r.duration("max-queue")
			golang := r.goFlavor()
			if err := r.err(); err != nil {
				return nil, err
			}
			if golang {
				g := GoWarmUpRateLimiterConfig{WarmUpRateLimiterConfig: c}
				g.SampleCount = r.int("sample-count")
				g.Interval = r.duration("interval")
				if err := r.err(); err != nil {
					return nil, err
				}
				return NewGoWarmUpRateLimiter(g)
			}
			if a.has("sample-count") || a.has("interval") {
				return nil, fmt.Errorf("warm-up-rate-limiter: sample-count and interval apply only with flavor=go (Java's WarmUpRateLimiterController reads the previous second); drop them or add flavor=go")
			}
			return NewWarmUpRateLimiter(c)
		},
	},
	{
		info: Info{Name: "guava-bursty", Caps: CapKeyColumn | CapShard | CapCost | CapStage, Family: "buckets", Summary: "Guava's SmoothBursty: next caller pays, up to max-burst of idle permits stored; tryAcquire(cost, timeout)",
			Reference: "Guava 33 RateLimiter.create(rate) (SmoothBursty), tryAcquire(permits, timeout) or acquire(permits) for timeout=inf"},
		params: []param{pRate, p("max-burst", "1s", "seconds of permits an idle limiter stores (maxBurstSeconds)", kindDuration), pGuavaTimeout},
		build: func(a *args) (Limiter, error) {
			var c GuavaBurstyConfig
			r := a.reader()
			c.Rate = r.float("rate")
			c.MaxBurst = r.duration("max-burst")
			c.Timeout = r.guavaTimeout()
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewGuavaBursty(c)
		},
	},
	{
		info: Info{Name: "guava-warming-up", Caps: CapKeyColumn | CapShard | CapCost | CapStage, Family: "buckets", Summary: "Guava's SmoothWarmingUp: starts cold, stored permits cost up to cold-factor times the stable interval; tryAcquire(cost, timeout)",
			Reference: "Guava 33 RateLimiter.create(rate, warmupPeriod) with coldFactor (SmoothWarmingUp), tryAcquire(permits, timeout) or acquire(permits) for timeout=inf"},
		params: []param{pRate, p("warm-up", "-", "warm-up period (warmupPeriod), required, truncated to whole µs", kindDuration),
			p("cold-factor", "3", "cold interval / stable interval, larger than 1", kindFloat), pGuavaTimeout},
		build: func(a *args) (Limiter, error) {
			if !a.has("warm-up") {
				return nil, fmt.Errorf("guava-warming-up needs a warm-up: add warm-up=D to the spec (for example guava-warming-up:warm-up=4s)")
			}
			var c GuavaWarmingUpConfig
			r := a.reader()
			c.Rate = r.float("rate")
			c.WarmUp = r.duration("warm-up")
			c.ColdFactor = r.float("cold-factor")
			c.Timeout = r.guavaTimeout()
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewGuavaWarmingUp(c)
		},
	},
	{
		info: Info{Name: "uber", Caps: CapKeyColumn | CapShard | CapStage, Family: "buckets", Summary: "go.uber.org/ratelimit: every request passes and sleeps until its turn, up to slack requests at once after idling",
			Reference: "go.uber.org/ratelimit v0.3.1 New(rate, WithSlack(slack)).Take(), Per 1 s; wait = the Sleep duration"},
		params: []param{p("rate", "", "Takes per second, a whole number", kindInt), p("slack", "10", "unspent permissions kept for a burst (0 is WithoutSlack)", kindInt)},
		build: func(a *args) (Limiter, error) {
			var c UberConfig
			r := a.reader()
			c.Rate = r.wholeRate("rate")
			c.Slack = r.int("slack")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewUber(c)
		},
	},
	{
		info: Info{Name: "sliding-window-counter", Caps: CapKeyColumn | CapShard | CapStage | CapCheckToAdd, Family: "windows", Summary: "Cloudflare's approximation: prev·(W − elapsed)/W + curr; pass iff estimate + 1 ≤ limit",
			Reference: "the definition (Cloudflare's sliding-window counter, windows aligned at t = 0)"},
		params: []param{pLimit, pWindow},
		build: func(a *args) (Limiter, error) {
			var c SlidingWindowCounterConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Window = r.duration("window")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewSlidingWindowCounter(c)
		},
	},
	{
		info: Info{Name: "seed-ring", Caps: CapKeyColumn | CapShard | CapStage, Family: "windows", Summary: "seed 002's printed ring of buckets, with its clamp that re-wipes the ring after a long idle gap; pass iff total < limit",
			Reference: "seed 002 §3.1 SlidingWindowRateLimiter, as printed"},
		params: []param{pLimit, p("window", "1s", "window (window_ms), whole ms", kindDuration), p("buckets", "100", "bucket_count; bucket_ms = window_ms // buckets", kindInt)},
		build: func(a *args) (Limiter, error) {
			var c SeedRingConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Window = r.duration("window")
			c.Buckets = r.int("buckets")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewSeedRing(c)
		},
	},
	{
		info: Info{Name: "decaying-window", Caps: CapKeyColumn | CapShard | CapStage, Family: "windows", Summary: "weighted window: older buckets fade by exp(−age/decay); pass iff weighted count + 1 ≤ limit",
			Reference: "the definition (seed 002 §3.4's weighted window, as docs/algorithms.md defines it)"},
		params: []param{pLimit, pWindow, p("buckets", "10", "buckets in the window, must divide it", kindInt), p("decay", "500ms", "decay constant", kindDuration)},
		build: func(a *args) (Limiter, error) {
			var c DecayingWindowConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Window = r.duration("window")
			c.Buckets = r.int("buckets")
			c.Decay = r.duration("decay")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewDecayingWindow(c)
		},
	},
	{
		info: Info{Name: "circuit-breaker", Caps: CapClosedLoop | CapStage, Family: "breakers",
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
		params := k.allParams()
		out[i].Params = make([]ParamInfo, len(params))
		for j, p := range params {
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

// OtherFamilyError is New's error for a name in another family's
// namespace (redis-*): a limiter this package does not build, which runs
// on its own and never as a stage of a chain. Whoever knows every family
// (package registry) builds such a spec; the engine leaves it to them.
type OtherFamilyError struct {
	Name string // the stage's name, lower-cased
}

func (e *OtherFamilyError) Error() string {
	return fmt.Sprintf("%q is a Redis limiter: it runs on its own (`--algo %s:...`), not as a stage of a chain A+B", e.Name, e.Name)
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
	if strings.HasPrefix(name, "redis-") {
		return nil, &OtherFamilyError{Name: name}
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
	sp := specpkg.Split(spec)
	if sp.IsChain() {
		return newChainSpec(spec, defaultLimit)
	}
	st := sp.Stages[0]
	if hasReplicas(st) {
		return newReplicasSpec(st, defaultLimit) // replicas.go
	}
	if st.Name == "" {
		return nil, fmt.Errorf("empty algorithm spec %q: write NAME[:key=value,...], for example leap-array:sample-count=10", spec)
	}
	k, err := findKind(st.Name)
	if err != nil {
		return nil, err
	}
	// Any single-key kind with key=COLUMN (and capacity=N) is made per-key
	// (keyed.go).
	if l, ok, err := newKeyedSpec(k, st.Rest, defaultLimit); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	a := &args{name: k.info.Name, raw: map[string]string{}, defaultLimit: defaultLimit, params: k.allParams()}
	keys := make([]string, len(a.params))
	for i, p := range a.params {
		keys[i] = p.Key
	}
	for _, kv := range st.Params {
		key := kv.Key
		if !kv.OK {
			return nil, fmt.Errorf("%s: parameter %q is not key=value (for example %s:%s=...)", a.name, strings.TrimSpace(kv.Text), a.name, keys[0])
		}
		var names []string // of the parameter, when it has aliases
		for _, p := range a.params {
			if p.Key == key || slices.Contains(p.Aliases, key) {
				key = p.Key
				if len(p.Aliases) > 0 {
					names = append([]string{p.Key}, p.Aliases...)
				}
			}
		}
		if !slices.Contains(keys, key) {
			return nil, fmt.Errorf("%s: unknown parameter %q%s; allowed: %s", a.name, key, suggest.DidYouMean(key, keys), strings.Join(keys, ", "))
		}
		if _, dup := a.raw[key]; dup {
			if names != nil {
				return nil, fmt.Errorf("%s: parameter %q is given twice (%s name one parameter; keep one)", a.name, key, strings.Join(names, " and "))
			}
			return nil, fmt.Errorf("%s: parameter %q is given twice", a.name, key)
		}
		a.raw[key] = kv.Value
	}
	l, err := k.build(a)
	if err == nil {
		l, err = withCheckToAdd(k, a, l)
	}
	if err != nil {
		// Not a typed nil inside the interface.
		return nil, err
	}
	return l, nil
}

// checkToAddKinds are the names of the kinds that declare CapCheckToAdd:
// their reference checks and records a pass in two steps (FlowSlot, then
// StatisticSlot), and each accepts check-to-add=DURATION (see CheckToAdd).
var checkToAddKinds = namesWith(CapCheckToAdd)

// namesWith returns the name of every kind whose Caps have c, in the
// registry's order.
func namesWith(c Caps) []string {
	var names []string
	for _, k := range kinds {
		if k.info.Caps.Has(c) {
			names = append(names, k.info.Name)
		}
	}
	return names
}

var pCheckToAdd = p("check-to-add", "0s",
	"time between the check and the recorded pass (FlowSlot to StatisticSlot); passes decided meanwhile are not yet counted", kindDuration)

// allParams is k's parameters, with check-to-add last for the kinds that
// declare CapCheckToAdd.
func (k *kind) allParams() []param {
	if !k.info.Caps.Has(CapCheckToAdd) {
		return k.params
	}
	return append(k.params[:len(k.params):len(k.params)], pCheckToAdd)
}

// withCheckToAdd wraps l as the spec's check-to-add asks, or returns it
// unchanged (the same limiter, spec and type) when the gap is 0 or the
// kind does not take the parameter.
func withCheckToAdd(k *kind, a *args, l Limiter) (Limiter, error) {
	if !k.info.Caps.Has(CapCheckToAdd) {
		return l, nil
	}
	gap, err := a.duration("check-to-add")
	if err != nil {
		return nil, err
	}
	if gap < 0 {
		return nil, fmt.Errorf("%s: check-to-add must not be negative, got %v (for example check-to-add=2ms; 0 records each pass as it is decided)", a.name, gap)
	}
	if gap == 0 {
		return l, nil
	}
	s, ok := l.(Stage)
	if !ok {
		return nil, fmt.Errorf("%s: check-to-add needs a limiter that checks and records in two steps", a.name)
	}
	return NewCheckToAdd(s, gap)
}
