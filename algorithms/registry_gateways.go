package algorithms

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The gateway family: the limiters that gateways and JVM libraries ship,
// each exact to its reference's current source. Their files are
// gateway_*.go.

// KeyBound is implemented by limiters whose reference bounds how many
// per-key states it keeps: the per-key wrapper keeps at most MaxKeys
// unless capacity= is given (Envoy's max_dynamic_descriptors, an LRU;
// Traefik's 65 536 sources, evicting the root of its expiry heap: see
// keyed_bound.go). A key pushed out starts again as a new limiter.
type KeyBound interface {
	MaxKeys() int
}

// Expirer is implemented by limiters whose reference drops a key's state
// after a time without use (Traefik's ttlmap, HAProxy's stick-table
// expire): Expired(now) reports that it has, since a new limiter decides
// the same from now on. The limiter applies the expiry itself in Decide;
// the per-key wrapper does not free expired states (Traefik's table still
// counts them towards its 65 536, as its ttlmap does until they are read).
type Expirer interface {
	Expired(now time.Duration) bool
}

// Freshener is implemented by limiters that make a new instance of
// themselves cheaply: Fresh returns a limiter in the state New gives (as
// created at t = 0), sharing the receiver's immutable configuration. (The
// per-key wrapper builds a new key's limiter from its spec, or by value
// for the flat and Traefik tables.)
type Freshener interface {
	Fresh() Limiter
}

// WindowLimiter is implemented by limiters with several limits of
// different lengths (Kong's second … year): WindowLimit is the limit in a
// window of w, the tightest of them at that length. A run's window_limit
// and overshoot use it instead of Rate·w, which would spread the longest
// unit's limit over a shorter window.
type WindowLimiter interface {
	WindowLimit(w time.Duration) float64
}

// EpochReader is implemented by limiters that read a wall clock: EpochMs
// is the Unix ms that virtual time 0 maps to (summary.json's epoch_ms).
type EpochReader interface {
	EpochMs() int64
}

var gatewayKinds = []kind{
	{
		info: Info{Name: "envoy-local", Caps: CapKeyColumn | CapCost | CapStage,
			Summary:   "Envoy's local rate limit: a token bucket, refilled continuously in doubles (atomic, ≥ 1.31) or by a timer every fill-interval (timer, ≤ 1.30)",
			Reference: "Envoy local_ratelimit: AtomicTokenBucketImpl (atomic, ≥ 1.31), TimerTokenBucket (timer, ≤ 1.30)"},
		params: []param{
			p("max-tokens", "", "token_bucket.max_tokens: the bucket size, whole", kindFloat),
			p("tokens-per-fill", "1", "token_bucket.tokens_per_fill (Envoy's default 1)", kindInt),
			p("fill-interval", "1s", "token_bucket.fill_interval, whole ms, at least 50ms", kindDuration),
			p("mode", "atomic", "atomic (Envoy ≥ 1.31: continuous double-precision refill) or timer (≤ 1.30: whole refills on a timer)", kindString),
			p("phase", "0s", "mode=timer: the timer ticks at phase + k·fill-interval, k ≥ 1", kindDuration),
			p("max-descriptors", "20", "with key=: max_dynamic_descriptors, the LRU of per-key buckets (Envoy ≥ 1.34)", kindInt),
			p("enabled", "1", "filter_enabled's default_value, N/D (D 100, 10000 or 1000000) or a decimal: the share of requests the filter checks, drawn per request from the run's seed; the others pass untouched", kindString),
			p("enforced", "1", "filter_enforced's default_value, as enabled: the share of refusals enforced, drawn per refusal; the others pass", kindString),
		},
		build: func(a *args) (Limiter, error) {
			var c EnvoyLocalConfig
			r := a.reader()
			c.MaxTokens = uint32(r.wholeCount("max-tokens", math.MaxInt32))
			n := r.int("tokens-per-fill")
			c.TokensPerFill = uint32(max(n, 0))
			if r.err() == nil && n < 1 {
				r.fail(fmt.Errorf("envoy-local: tokens-per-fill must be at least 1, got %d", n))
			}
			c.FillInterval = r.duration("fill-interval")
			c.Timer = r.choice("mode", "atomic", "timer")
			c.Phase = r.duration("phase")
			c.MaxDescriptors = r.int("max-descriptors")
			for _, f := range []struct {
				key string
				to  *EnvoyFraction
			}{{"enabled", &c.Enabled}, {"enforced", &c.Enforced}} {
				v, _ := a.lookup(f.key)
				x, err := ParseEnvoyFraction(f.key, v)
				r.fail(err)
				*f.to = x
			}
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewEnvoyLocal(c)
		},
	},
	{
		info: Info{Name: "traefik", Caps: CapKeyColumn | CapStage,
			Summary:   "Traefik's RateLimiter middleware: x/time/rate Reserve per source, a delay up to 1/(2·⌊rate⌋) waited, more refused; a source idle into its second whole second gets a new bucket",
			Reference: "Traefik v3 RateLimiter middleware, in memory (x/time/rate and ttlmap)"},
		params: []param{
			p("average", "", "requests per period, whole", kindFloat),
			p("period", "1s", "the period of average", kindDuration),
			p("burst", "1", "bucket size", kindInt),
		},
		build: func(a *args) (Limiter, error) {
			var c TraefikConfig
			r := a.reader()
			c.Average = r.wholeCount("average", math.MaxInt64/int64(time.Second))
			c.Period = r.duration("period")
			c.Burst = int64(r.int("burst"))
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewTraefik(c)
		},
	},
	{
		info: Info{Name: "haproxy", Caps: CapKeyColumn | CapShard | CapStage,
			Summary:   "HAProxy stick-table http_req_rate(period) with `deny if { sc_http_req_rate(0) gt limit }`: a two-period weighted counter that counts denied requests too",
			Reference: "HAProxy freq_ctr.c (track-sc0, sc_http_req_rate)"},
		params: []param{
			p("limit", "", "deny when the rate is greater than this, whole (left out: the scenario's limit per second × period)", kindFloat),
			p("period", "10s", "http_req_rate(<period>), whole ms (1s when limit is left out)", kindDuration),
			p("expire", "0s", "the stick table's expire (0: the entry never expires)", kindDuration),
		},
		build: func(a *args) (Limiter, error) {
			var c HAProxyConfig
			r := a.reader()
			c.Limit = r.wholeCount("limit", math.MaxInt32)
			c.Period = r.duration("period")
			c.Expire = r.duration("expire")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewHAProxy(c)
		},
	},
	{
		info: Info{Name: "kong", Caps: CapKeyColumn | CapShard | CapStage,
			Summary:   "Kong's rate-limiting plugin: fixed UTC calendar windows per second/minute/hour/day/month/year, all checked; policy=redis counts rejected requests; with sync-rate > 0 each of instances nodes counts locally and pushes to Redis on a timer",
			Reference: "Kong Gateway OSS rate-limiting plugin (handler.lua, policies, timestamp.lua)"},
		params: []param{
			p("second", "-", "requests per second (with none of the units given: the scenario's limit)", kindFloat),
			p("minute", "-", "requests per UTC minute", kindFloat),
			p("hour", "-", "requests per UTC hour", kindFloat),
			p("day", "-", "requests per UTC day", kindFloat),
			p("month", "-", "requests per UTC calendar month (the counter's TTL is 30 days)", kindFloat),
			p("year", "-", "requests per UTC calendar year (the counter's TTL is 365 days)", kindFloat),
			p("policy", "local", "local (the node's shared dict; rejected requests not counted) or redis (INCR before checking: rejected requests counted)", kindString),
			p("sync-rate", "-1", "with policy=redis: -1 (INCR in Redis on every request) or DURATION (a number is seconds, at least 20ms): each node counts locally and pushes its deltas every sync-rate (kong_sync)", kindString),
			p("instances", "1", "with sync-rate > 0: Kong nodes, arrival i on node i mod instances", kindInt),
			p("rtt", "0s", "with sync-rate > 0: round trip to Redis (a command executes rtt/2 after it is sent; under 2s, one configured unit)", kindDuration),
			p("skew", "0s", "with sync-rate > 0: node k's clock reads true time − skew + ⌊2·skew·k/(instances−1)⌋", kindDuration),
			p("route", "none", "with sync-rate > 0: a trace column holding each arrival's node (0 … instances−1); none: node i mod instances", kindString),
		},
		build: func(a *args) (Limiter, error) {
			var c KongConfig
			given := false
			for u, name := range kongUnitNames {
				if !a.has(name) {
					continue
				}
				given = true
				v, err := a.float(name)
				if err != nil {
					return nil, err
				}
				if !(v > 0) {
					return nil, fmt.Errorf("kong: %s must be a positive number, got %s (for example %s=100)", name, formatNumber(v), name)
				}
				c.Limits[u] = v
			}
			if !given {
				if a.defaultLimit <= 0 {
					return nil, fmt.Errorf("kong needs a limit: add second=N, minute=N, hour=N, day=N, month=N or year=N (for example kong:minute=100) or pass --limit")
				}
				c.Limits[kongSecond] = a.defaultLimit
			}
			var err error
			if c.Redis, err = a.choice("policy", "local", "redis"); err != nil {
				return nil, err
			}
			if sc, err := a.kongSync(c.Redis); err != nil {
				return nil, err
			} else if sc.SyncRate > 0 {
				sc.Limits = c.Limits
				k, err := NewKongSync(sc)
				if err != nil || sc.Route == "" {
					return k, err
				}
				return &KongSyncRouted{k}, nil
			}
			return NewKong(c)
		},
	},
	{
		info: Info{Name: "resilience4j", Caps: CapKeyColumn | CapShard | CapCost | CapStage,
			Summary:   "resilience4j AtomicRateLimiter: limit-for-period permits per refresh-period cycle from creation; a caller waits up to timeout for a later cycle",
			Reference: "resilience4j AtomicRateLimiter, acquirePermission"},
		params: []param{
			p("limit-for-period", "", "permits per cycle (limitForPeriod; left out: the scenario's limit per second × refresh-period, resilience4j's 50 without one)", kindInt),
			p("timeout", "5s", "longest wait for a permit (timeoutDuration)", kindDuration),
			p("refresh-period", "500ns", "cycle length (limitRefreshPeriod; 1s when limit-for-period takes the scenario's limit)", kindDuration),
		},
		build: func(a *args) (Limiter, error) {
			var c Resilience4jConfig
			r := a.reader()
			c.LimitForPeriod = int32(r.int("limit-for-period"))
			c.RefreshPeriod = r.duration("refresh-period")
			c.Timeout = r.duration("timeout")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewResilience4j(c)
		},
	},
	{
		info: Info{Name: "bucket4j", Caps: CapKeyColumn | CapShard | CapCost | CapStage,
			Summary:   "Bucket4j local bucket, tryConsume: greedy refill (continuous, integer remainders kept) or intervally (whole refills at creation + k·period)",
			Reference: "Bucket4j 8 local bucket (LockFreeBucket), tryConsume"},
		params: []param{
			p("capacity", "", "bucket size, whole; it starts full", kindFloat),
			p("refill-tokens", "", "tokens per refill-period, whole", kindFloat),
			p("refill-period", "1s", "refill period", kindDuration),
			p("refill", "greedy", "greedy (refillGreedy) or intervally (refillIntervally)", kindString),
			p("clock", "millis", "millis (TimeMeter.SYSTEM_MILLISECONDS, the local builder's default) or nanos (SYSTEM_NANOTIME)", kindString),
		},
		build: func(a *args) (Limiter, error) {
			var c Bucket4jConfig
			r := a.reader()
			c.Capacity = r.wholeCount("capacity", math.MaxInt32)
			c.RefillTokens = r.wholeCount("refill-tokens", math.MaxInt32)
			c.RefillPeriod = r.duration("refill-period")
			c.Intervally = r.choice("refill", "greedy", "intervally")
			c.Nanos = r.choice("clock", "millis", "nanos")
			if err := r.err(); err != nil {
				return nil, err
			}
			return NewBucket4j(c)
		},
	},
}

// scenarioRates are the gateways whose rate is a count per period: when
// the count is left out and the scenario has a limit L (per second), the
// count is L per 1s (period left out) or L·period (period given), so that
// every gateway spec takes the scenario's limit as README says. Without a
// scenario limit the kind's own defaults stay (envoy-local's
// tokens_per_fill 1, resilience4j's 50 per 500ns).
var scenarioRates = map[string]struct{ count, period string }{
	"envoy-local":  {"tokens-per-fill", "fill-interval"},
	"haproxy":      {"limit", "period"},
	"resilience4j": {"limit-for-period", "refresh-period"},
}

func init() {
	for i := range kinds { // the registry's copy of gatewayKinds
		k := &kinds[i]
		sr, ok := scenarioRates[k.info.Name]
		if !ok {
			continue
		}
		build := k.build
		k.build = func(a *args) (Limiter, error) {
			if err := a.scenarioRate(sr.count, sr.period); err != nil {
				return nil, err
			}
			return build(a)
		}
	}
}

// scenarioRate sets count from the scenario's limit (see scenarioRates)
// when the spec leaves it out.
func (a *args) scenarioRate(count, period string) error {
	if a.has(count) {
		return nil
	}
	if a.defaultLimit <= 0 {
		if a.name == "resilience4j" {
			a.raw[count] = "50" // RateLimiterConfig's default limitForPeriod
		}
		return nil
	}
	per := time.Second
	if a.has(period) {
		d, err := a.duration(period)
		if err != nil {
			return err
		}
		per = d
	} else {
		a.raw[period] = "1s"
	}
	v := a.defaultLimit * per.Seconds()
	if !(v >= 1) || v != math.Trunc(v) || v > math.MaxInt32 {
		return fmt.Errorf("%s: %s left out takes the scenario's limit per second × %s, %s × %s = %s, not a whole number from 1 to %d; give %s=N", a.name, count, period, formatNumber(a.defaultLimit), FormatDuration(per), formatNumber(v), math.MaxInt32, count)
	}
	a.raw[count] = formatFloat(v)
	return nil
}

// wholeCount reads a parameter (or the scenario's limit) that must be a
// whole number from 1 to maxV.
func (a *args) wholeCount(key string, maxV int64) (int64, error) {
	f, err := a.float(key)
	if err != nil {
		return 0, err
	}
	if !(f >= 1) || f != math.Trunc(f) || f > float64(maxV) {
		return 0, fmt.Errorf("%s: %s must be a whole number from 1 to %d, got %s (for example %s=100)", a.name, key, maxV, formatNumber(f), key)
	}
	return int64(f), nil
}

// choice reads a parameter with two allowed values: false for the first
// (the default), true for the second.
func (a *args) choice(key, no, yes string) (bool, error) {
	v, _ := a.lookup(key)
	switch strings.ToLower(v) {
	case no:
		return false, nil
	case yes:
		return true, nil
	}
	return false, fmt.Errorf("%s: %s %q is not known; allowed: %s, %s", a.name, key, v, no, yes)
}
