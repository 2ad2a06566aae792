package distributed

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// GatewaySpec holds the parameters of the gateways' Redis limiters:
// redis-spring-gateway, redis-envoy-ratelimit and redis-cell.
type GatewaySpec struct {
	// redis-spring-gateway: replenishRate, burstCapacity, requestedTokens.
	ReplenishRate, BurstCapacity, RequestedTokens int64
	// redis-envoy-ratelimit: requests_per_unit, the unit (second … year)
	// and its divider in seconds, and the service's switches.
	Limit                             int64
	Unit                              string
	Divider                           int64
	StopIncrement, LocalCache, Shadow bool
	// redis-spring-gateway with key=: AllowEmptyKey is denyEmptyKey=false
	// (an empty key passes unaccounted); EmptyKeyStatus the status of the
	// refusal otherwise (emptyKeyStatus, 403). Beside the bools, they fit
	// in their padding: a Limiter's state bytes do not grow.
	AllowEmptyKey  bool
	EmptyKeyStatus int16
	// redis-cell: CL.THROTTLE key max_burst count period (whole seconds).
	MaxBurst, Count int64
	Period          time.Duration
}

// envoyUnits are envoyproxy/ratelimit's units and utils.UnitToDivider:
// a month is 30 days and a year 365, counted from the Unix epoch.
var envoyUnits = []struct {
	name    string
	divider int64
}{
	{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
	{"week", 7 * 86400}, {"month", 30 * 86400}, {"year", 365 * 86400},
}

// maxCellPeriod bounds redis-cell's period so that every duration the Lua
// port computes stays a whole number of ns below 2^53.
const maxCellPeriod = 24 * time.Hour

var gatewayKinds = []kind{
	{algorithms.Info{Name: SpringGateway,
		Summary:   "Spring Cloud Gateway's token bucket in Lua: whole seconds of Redis TIME, two keys with a TTL of ⌊2·burst/rate⌋ s",
		Reference: "Spring Cloud Gateway RedisRateLimiter's Lua script, run as it is"},
		[]param{{"replenish-rate", "", "tokens added per second, a positive whole number"},
			{"burst-capacity", "replenish-rate", "tokens the bucket holds; below replenish-rate Spring refuses the config, the lab warns and runs the script as it is"},
			{"requested-tokens", "1", "tokens each request takes"},
			{"deny-empty-key", "true", "with key=: a request whose key is empty is refused (denyEmptyKey); false passes it unaccounted"},
			{"empty-key-status", "403", "the status of that refusal (emptyKeyStatus), counted as a rejection"}}},
	{algorithms.Info{Name: EnvoyRatelimit,
		Summary:   "envoyproxy/ratelimit's Redis fixed window: a key per (now/divider)·divider Unix s, INCRBY + EXPIRE pipelined, over iff the count > limit",
		Reference: "envoyproxy/ratelimit's Redis cache (fixed_cache_impl, base_limiter)"},
		[]param{{"limit", "", "requests_per_unit, a whole number; 0 is a ban (every request over the limit)"},
			{"unit", "second", "second, minute, hour, day, week, month (30 days) or year (365 days)"},
			{"stop-increment-over-limit", "false", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: a GET round trip first (one descriptor: the count is the same)"},
			{"local-cache", "false", "LOCAL_CACHE_SIZE_IN_BYTES > 0: each instance remembers an over-limit key until its window ends and answers without Redis"},
			{"shadow-mode", "false", "the rule's shadow_mode: over-limit requests pass, counted as before"}}},
	{algorithms.Info{Name: Cell,
		Summary:   "redis-cell's CL.THROTTLE: GCRA in integer ns admitting max-burst + 1 at once",
		Reference: "brandur/redis-cell CL.THROTTLE key max_burst count period quantity=cost (rate_limit in src/cell/mod.rs), native and as Lua"},
		[]param{{"max-burst", "count−1", "CL.THROTTLE's max_burst, a whole number ≥ 0; max-burst + 1 requests pass at once"},
			{"count", "", "requests per period, a positive whole number"},
			{"period", "1s", "period, whole seconds (CL.THROTTLE takes seconds)"}}},
}

// gateway parses the parameters of a gateway's limiter into s.Gateway.
func (p *parser) gateway(s *Spec) {
	g := &s.Gateway
	switch s.Kind {
	case SpringGateway:
		g.ReplenishRate = p.whole("replenish-rate", true)
		g.BurstCapacity = g.ReplenishRate
		if _, ok := p.raw["burst-capacity"]; ok {
			g.BurstCapacity = p.whole("burst-capacity", false)
		}
		g.RequestedTokens = p.whole("requested-tokens", false)
		g.AllowEmptyKey = p.choice("deny-empty-key", "true", "false") == "false"
		g.EmptyKeyStatus = 403
		if v, ok := p.raw["empty-key-status"]; ok && p.err == nil {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 100 || n > 599 {
				p.fail("empty-key-status must be an HTTP status from 100 to 599, got %s (for example empty-key-status=403)", v)
			}
			g.EmptyKeyStatus = int16(n)
		}
	case EnvoyRatelimit:
		if p.raw["limit"] == "0" {
			// requests_per_unit: 0 is a valid configuration, the
			// documented ban: INCRBY makes every count ≥ 1 > 0, so every
			// request is over the limit (base_limiter.go).
			g.Limit = 0
		} else {
			g.Limit = p.whole("limit", true)
		}
		if p.err == nil && g.Limit > math.MaxUint32 {
			p.fail("limit must be at most %d (requests_per_unit is a uint32), got %d", uint32(math.MaxUint32), g.Limit)
		}
		names := make([]string, len(envoyUnits))
		for i, u := range envoyUnits {
			names[i] = u.name
		}
		g.Unit = p.choice("unit", names...)
		for _, u := range envoyUnits {
			if u.name == g.Unit {
				g.Divider = u.divider
			}
		}
		g.StopIncrement = p.choice("stop-increment-over-limit", "false", "true") == "true"
		g.LocalCache = p.choice("local-cache", "false", "true") == "true"
		g.Shadow = p.choice("shadow-mode", "false", "true") == "true"
	case Cell:
		g.Count = p.whole("count", true)
		g.Period = p.seconds("period")
		g.MaxBurst = g.Count - 1
		if v, ok := p.raw["max-burst"]; ok && p.err == nil {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || n > maxLimit {
				p.fail("max-burst must be a whole number from 0 to %d, got %s (for example max-burst=10)", int64(maxLimit), v)
			}
			g.MaxBurst = n
		}
		if p.err != nil {
			return
		}
		em := g.cellEmission()
		switch {
		case em < 1000:
			p.fail("count %d per %v is more than one per microsecond; CL.THROTTLE's remaining divides whole microseconds: use count ≤ %d", g.Count, g.Period, int64(g.Period/time.Microsecond))
		case float64(em)*float64(g.MaxBurst+2) > 1<<52:
			p.fail("max-burst %d lets the bucket span more than 52 days; use a smaller max-burst", g.MaxBurst)
		}
	}
}

// seconds parses a positive duration in whole seconds up to maxCellPeriod.
func (p *parser) seconds(key string) time.Duration {
	if p.err != nil {
		return 0
	}
	v := p.get(key)
	d, err := time.ParseDuration(v)
	if err != nil {
		p.fail("%s %q is not a duration (use Go syntax, for example %s=1s or %s=60s)", key, v, key, key)
		return 0
	}
	if d < time.Second || d%time.Second != 0 || d > maxCellPeriod {
		p.fail("%s must be whole seconds between 1s and 24h, got %v (CL.THROTTLE takes its period in seconds)", key, d)
		return 0
	}
	return d
}

// cellEmission is redis-cell's Rate::per_period: (period_ns as f64 /
// count as f64) as i64, a truncated float division.
func (g *GatewaySpec) cellEmission() int64 {
	return int64(float64(g.Period.Nanoseconds()) / float64(g.Count))
}

// springTTL is the script's ttl = math.floor(capacity / rate * 2): 0 means
// the script stores nothing.
func (g *GatewaySpec) springTTL() int64 {
	return int64(math.Floor(float64(g.BurstCapacity) / float64(g.ReplenishRate) * 2))
}

func (s *Spec) gatewayString(b *strings.Builder) {
	g := s.Gateway
	switch s.Kind {
	case SpringGateway:
		fmt.Fprintf(b, "replenish-rate=%d,burst-capacity=%d,requested-tokens=%d", g.ReplenishRate, g.BurstCapacity, g.RequestedTokens)
		if g.AllowEmptyKey {
			b.WriteString(",deny-empty-key=false")
		} else if g.EmptyKeyStatus != 403 {
			fmt.Fprintf(b, ",empty-key-status=%d", g.EmptyKeyStatus)
		}
	case EnvoyRatelimit:
		fmt.Fprintf(b, "limit=%d,unit=%s,stop-increment-over-limit=%t,local-cache=%t,shadow-mode=%t", g.Limit, g.Unit, g.StopIncrement, g.LocalCache, g.Shadow)
	case Cell:
		fmt.Fprintf(b, "max-burst=%d,count=%d,period=%s", g.MaxBurst, g.Count, algorithms.FormatDuration(g.Period))
	}
}

// EmptyKeyPolicy is how a redis-* spec with key= meets a request whose key
// is empty. Spring Cloud Gateway's RequestRateLimiterGatewayFilterFactory
// turns the key resolver's empty answer into EMPTY_KEY and, with
// denyEmptyKey (its default), answers emptyKeyStatus: refused;
// denyEmptyKey=false lets it through unlimited. Envoy produces no
// descriptor for a missing value, so envoyproxy/ratelimit is not asked:
// passed unaccounted. The other scripts build their key from the value
// (redis_rate's "rate:" + key, CL.THROTTLE's key, the seed's scripts):
// an empty value is one more key string, shared by every such request.
func (s *Spec) EmptyKeyPolicy() algorithms.EmptyKeyPolicy {
	switch s.Kind {
	case SpringGateway:
		if s.Gateway.AllowEmptyKey {
			return algorithms.EmptyKeyPass
		}
		return algorithms.EmptyKeyReject
	case EnvoyRatelimit:
		return algorithms.EmptyKeyPass
	}
	return algorithms.EmptyKeyShared
}

func (s *Spec) gatewayRate() float64 {
	g := s.Gateway
	switch s.Kind {
	case SpringGateway:
		return float64(g.ReplenishRate) / float64(g.RequestedTokens)
	case EnvoyRatelimit:
		return float64(g.Limit) / float64(g.Divider)
	}
	return float64(g.Count) / g.Period.Seconds()
}

// gatewayWindow is the span the epoch is aligned to: a second for Spring,
// the unit for envoyproxy/ratelimit (so windows start at t = 0), the period
// for redis-cell.
func (s *Spec) gatewayWindow() time.Duration {
	switch s.Kind {
	case EnvoyRatelimit:
		return time.Duration(s.Gateway.Divider) * time.Second
	case Cell:
		return s.Gateway.Period
	}
	return time.Second
}

// Warnings implements the optional interface algorithms.Warnings reads:
// settings the reference's own configuration would refuse.
func (s *Spec) Warnings() []string {
	g := s.Gateway
	var out []string
	if s.Kind == SpringGateway {
		if g.BurstCapacity < g.ReplenishRate {
			out = append(out, fmt.Sprintf("%s: burst-capacity %d is below replenish-rate %d, which Spring's RedisRateLimiter.Config refuses; the lab runs the script as it is (the bucket never holds more than %d)",
				s.Kind, g.BurstCapacity, g.ReplenishRate, g.BurstCapacity))
		}
		if g.springTTL() == 0 {
			out = append(out, fmt.Sprintf("%s: burst-capacity/replenish-rate = %d/%d is under half a second, so the script's TTL ⌊2·burst/rate⌋ is 0: it stores nothing and every request with requested-tokens ≤ burst-capacity passes",
				s.Kind, g.BurstCapacity, g.ReplenishRate))
		}
		if g.RequestedTokens > g.BurstCapacity {
			out = append(out, fmt.Sprintf("%s: requested-tokens %d exceeds burst-capacity %d: every request is blocked", s.Kind, g.RequestedTokens, g.BurstCapacity))
		}
	}
	return out
}
