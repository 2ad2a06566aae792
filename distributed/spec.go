package distributed

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/gopher-lua/parse"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// The limiter kinds.
const (
	FixedWindow = "redis-fixed-window"
	SlidingLog  = "redis-sliding-log"
	Bucketed    = "redis-bucketed"
	GCRA        = "redis-gcra"
	Script      = "redis-script"
	// The gateways' Redis limiters (gateway_spec.go).
	SpringGateway  = "redis-spring-gateway"
	EnvoyRatelimit = "redis-envoy-ratelimit"
	Cell           = "redis-cell"
)

// Bounds that keep every instant and offset well inside int64 nanoseconds.
const (
	maxInstances = 10_000
	maxDelay     = time.Hour
	maxLimit     = 1 << 40
)

// Spec is a parsed redis-* spec: the limiter and the distributed model.
type Spec struct {
	Kind string
	// Limit is the number of requests per Window (redis-gcra: unused).
	Limit  int64
	Window time.Duration
	// redis-sliding-log: Atomic is false for the §4.2 two-round-trip
	// variant; CountAll adds blocked requests to the ZSET too.
	Atomic, CountAll bool
	// redis-bucketed: Buckets buckets of Window/Buckets each.
	Buckets int
	// redis-gcra: Rate requests per Period, Burst.
	Rate, Burst int64
	Period      time.Duration
	// redis-script: File and its Source.
	File, Source string
	// The gateways' limiters (gateway_spec.go).
	Gateway GatewaySpec

	// Key is the key column of key=COLUMN ("" for one key): each of its
	// values gets its own Redis keys (perkey.go).
	Key string

	// The distributed model.
	Instances  int
	Skew, RTT  time.Duration
	ClockRedis bool
}

type param struct {
	key, def, help string
}

var common = []param{
	{"instances", "1", "gateway instances; arrival i goes to instance i mod instances"},
	{"skew", "0s", "instance k's clock reads true time − skew + ⌊2·skew·k/(instances−1)⌋"},
	{"rtt", "0s", "round trip to Redis; a batch executes rtt/2 after it is sent"},
	{"clock", "instance", "where the script's now comes from: instance (its clock at arrival) or redis (TIME at execution)"},
	{"key", "(none)", "a key column of the trace: each of its values gets its own Redis keys"},
}

var (
	pLimit  = param{"limit", "", "requests per window, a positive whole number"}
	pWindow = param{"window", "1s", "window length, whole ms"}
)

type kind struct {
	info   algorithms.Info
	params []param
}

var kinds = append(coreKinds, gatewayKinds...)

var coreKinds = []kind{
	{algorithms.Info{Name: FixedWindow,
		Summary:   "one Redis key per window: INCR, PEXPIRE when it returns 1; pass iff the value ≤ limit",
		Reference: "Redis INCR per window (seed 002 §1.1), on N instances sharing one Redis"},
		[]param{pLimit, pWindow}},
	{algorithms.Info{Name: SlidingLog,
		Summary:   "ZSET log in Lua: ZREMRANGEBYSCORE, ZCARD, ZADD if count < limit",
		Reference: "the Lua script of seed 002 §3.2 (atomic=false: §4.2's check-then-act)"},
		[]param{pLimit, pWindow,
			{"atomic", "true", "false: ZREMRANGEBYSCORE+ZCARD, then ZADD+PEXPIRE one round trip later"},
			{"count", "passed", "passed: ZADD on pass only; all: every request joins the ZSET"}}},
	{algorithms.Info{Name: Bucketed,
		Summary:   "one ZSET of bucket counters (member = bucket start, ZINCRBY 1 on pass)",
		Reference: "seed 002 §2.3's bucketed ZINCRBY variant, in Lua"},
		[]param{pLimit, pWindow, {"buckets", "10", "buckets per window; must divide the window in whole ms"}}},
	{algorithms.Info{Name: GCRA,
		Summary:   "GCRA in Lua with now passed in: the theoretical arrival time in one key",
		Reference: "go-redis/redis_rate v10 Limiter.AllowN(ctx, key, Limit{rate, burst, period}, cost)"},
		[]param{{"rate", "", "requests per period, a positive whole number"},
			{"burst", "ceil(rate)", "burst, a positive whole number"},
			{"period", "1s", "period, whole ms"}}},
	{algorithms.Info{Name: Script,
		Summary:   "your own Lua file, called as the seed's script: KEYS[1]=key, ARGV=limit,window_ms,now_ms,member",
		Reference: "the user's script; must return 1 (pass) or 0 (block)"},
		[]param{{"file", "(required)", "path of the Lua script"}, pLimit, pWindow}},
}

// Caps are the capabilities of every redis-* spec: it needs the run's
// Redis session and takes key=COLUMN (each value gets its own Redis keys).
// redis-gcra, redis-cell and redis-envoy-ratelimit also charge the trace's
// cost (CostCaps: their references take a count); the others' scripts
// count every request as one. None can be a stage of a chain.
const Caps = algorithms.CapRedis | algorithms.CapKeyColumn

// CostCaps are the capabilities of redis-gcra (redis_rate's AllowN(ctx,
// key, limit, n)), redis-cell (CL.THROTTLE's quantity) and
// redis-envoy-ratelimit (the RateLimitRequest's hits_addend).
const CostCaps = Caps | algorithms.CapCost

// Owns reports whether name, a limiter name as package spec reads it, is
// in the Redis family's namespace (redis-*), known or not.
func Owns(name string) bool { return strings.HasPrefix(name, "redis-") }

// IsRedis reports whether spec names a redis-* limiter.
//
// Deprecated: outside this family, ask the registry:
// registry.Caps(spec).Has(algorithms.CapRedis), or build every spec with
// registry.New and an Env.
func IsRedis(s string) bool { return Owns(spec.Split(s).Stages[0].Name) }

// List describes every redis-* limiter for `ratelimit-lab list`.
func List() []algorithms.Info {
	out := make([]algorithms.Info, len(kinds))
	for i, k := range kinds {
		out[i] = k.info
		out[i].Family = "Redis"
		out[i].Caps = Caps
		if k.info.Name == GCRA || k.info.Name == Cell || k.info.Name == EnvoyRatelimit {
			out[i].Caps = CostCaps
		}
		for _, p := range append(slices.Clone(k.params), common...) {
			out[i].Params = append(out[i].Params, algorithms.ParamInfo{Key: p.key, Default: p.def, Help: p.help})
		}
	}
	return out
}

func names() []string {
	var n []string
	for _, k := range kinds {
		n = append(n, k.info.Name)
	}
	return n
}

// wholeExample is the value error messages suggest for a whole-number key,
// the gateways' keys included.
var wholeExample = map[string]string{"limit": "100", "rate": "100", "burst": "100", "buckets": "60", "instances": "4",
	"replenish-rate": "10", "burst-capacity": "20", "requested-tokens": "1", "count": "100", "max-burst": "10"}

// Parse parses a redis-* spec NAME[:key=value,...]. A limit or rate left
// out takes defaultLimit (the scenario's limit), which must then be a
// positive whole number. Errors are one line naming the problem and the fix.
func Parse(text string, defaultLimit float64) (*Spec, error) {
	// No '+' at all, not even a number's exponent that package spec would
	// keep inside a stage: a redis-* spec was never a chain, and its
	// canonical form must not become one.
	if strings.Contains(text, "+") {
		return nil, fmt.Errorf("%q: a redis-* limiter cannot be part of a chain A+B (chains run in memory); give it as its own --algo", strings.TrimSpace(text))
	}
	st := spec.Split(text).Stages[0]
	name := st.Name
	var k *kind
	for i := range kinds {
		if kinds[i].info.Name == name {
			k = &kinds[i]
		}
	}
	if k == nil {
		return nil, fmt.Errorf("unknown algorithm %q%s; Redis algorithms: %s", name, suggest.DidYouMean(name, names()), strings.Join(names(), ", "))
	}
	params := append(slices.Clone(k.params), common...)
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.key
	}
	raw := map[string]string{}
	for _, kv := range st.Params {
		if !kv.OK {
			return nil, fmt.Errorf("%s: parameter %q is not key=value (for example %s:%s=...)", name, strings.TrimSpace(kv.Text), name, keys[0])
		}
		if !slices.Contains(keys, kv.Key) {
			return nil, fmt.Errorf("%s: unknown parameter %q%s; allowed: %s", name, kv.Key, suggest.DidYouMean(kv.Key, keys), strings.Join(keys, ", "))
		}
		if _, dup := raw[kv.Key]; dup {
			return nil, fmt.Errorf("%s: parameter %q is given twice", name, kv.Key)
		}
		raw[kv.Key] = kv.Value
	}
	p := &parser{name: name, raw: raw, params: params, defaultLimit: defaultLimit}
	s := &Spec{Kind: name}
	switch name {
	case FixedWindow, SlidingLog, Bucketed, Script:
		s.Limit = p.whole("limit", true)
		s.Window = p.ms("window")
	case SpringGateway, EnvoyRatelimit, Cell:
		p.gateway(s)
	case GCRA:
		s.Rate = p.whole("rate", true)
		s.Burst = s.Rate
		if _, ok := raw["burst"]; ok {
			s.Burst = p.whole("burst", false)
		}
		s.Period = p.ms("period")
	}
	switch name {
	case SlidingLog:
		s.Atomic = p.choice("atomic", "true", "false") == "true"
		s.CountAll = p.choice("count", "passed", "all") == "all"
	case Bucketed:
		n := p.whole("buckets", false)
		if p.err == nil && (n > math.MaxInt32 || int64(s.Window/time.Millisecond)%n != 0) {
			p.fail("buckets %d does not divide window %v into whole milliseconds; pick a divisor of %d", n, s.Window, s.Window/time.Millisecond)
		}
		s.Buckets = int(n)
	case Script:
		s.File = raw["file"]
		if p.err == nil && s.File == "" {
			p.fail("file is required: give file=PATH of your Lua script")
		}
		if p.err == nil {
			s.Source, p.err = readScript(name, s.File)
		}
	}
	n := p.whole("instances", false)
	if p.err == nil && n > maxInstances {
		p.fail("instances must be at most %d, got %d", maxInstances, n)
	}
	s.Instances = int(n)
	s.Skew = p.delay("skew")
	s.RTT = p.delay("rtt")
	s.ClockRedis = p.choice("clock", "instance", "redis") == "redis"
	s.Key = raw["key"]
	if p.err != nil {
		return nil, p.err
	}
	return s, nil
}

// readScript reads a user's Lua file and checks that it parses as Lua and
// holds a statement (an empty script would only fail later, as NOSCRIPT).
func readScript(name, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: cannot read file %s (%v); give file=PATH of a Lua script", name, path, oneLine(err))
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", fmt.Errorf("%s: file %s is empty; write a script that returns 1 (pass) or 0 (block), see docs/redis.md", name, path)
	}
	chunk, err := parse.Parse(strings.NewReader(string(b)), path)
	if err != nil {
		return "", fmt.Errorf("%s: file %s is not Lua: %s; fix the script", name, path, oneLine(err))
	}
	if len(chunk) == 0 {
		return "", fmt.Errorf("%s: file %s holds only comments; write a script that returns 1 (pass) or 0 (block), see docs/redis.md", name, path)
	}
	return string(b), nil
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

type parser struct {
	name         string
	raw          map[string]string
	params       []param
	defaultLimit float64
	err          error
}

func (p *parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %s", p.name, fmt.Sprintf(format, args...))
	}
}

func (p *parser) get(key string) string {
	if v, ok := p.raw[key]; ok {
		return v
	}
	for _, q := range p.params {
		if q.key == key {
			return q.def
		}
	}
	panic("distributed: undeclared parameter " + key)
}

// whole parses a positive whole number; withDefault takes the scenario's
// limit when the spec leaves the key out.
func (p *parser) whole(key string, withDefault bool) int64 {
	if p.err != nil {
		return 0
	}
	v, given := p.raw[key]
	if !given && withDefault {
		if p.defaultLimit <= 0 {
			p.fail("needs a %s: add %s=N to the spec (for example %s:%s=100) or pass --limit", key, key, p.name, key)
			return 0
		}
		v = strconv.FormatFloat(p.defaultLimit, 'f', -1, 64)
	} else if !given {
		v = p.get(key)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.fail("%s %q is not a number (for example %s=100)", key, v, key)
		return 0
	}
	if f != math.Trunc(f) || f < 1 || f > maxLimit {
		from := ""
		if !given {
			from = " (the scenario's limit)"
		}
		why := ": Redis counts whole requests"
		if key == "instances" || key == "buckets" {
			why = ""
		}
		p.fail("%s must be a positive whole number, got %s%s%s (for example %s=%s)", key, v, from, why, key, wholeExample[key])
		return 0
	}
	return int64(f)
}

// ms parses a positive duration in whole milliseconds.
func (p *parser) ms(key string) time.Duration {
	if p.err != nil {
		return 0
	}
	v := p.get(key)
	d, err := time.ParseDuration(v)
	if err != nil {
		p.fail("%s %q is not a duration (use Go syntax, for example %s=1s or %s=500ms)", key, v, key, key)
		return 0
	}
	if d < time.Millisecond || d%time.Millisecond != 0 || d > 24*time.Hour {
		p.fail("%s must be whole milliseconds between 1ms and 24h, got %v (the scripts count in ms)", key, d)
		return 0
	}
	return d
}

// delay parses a non-negative duration up to maxDelay.
func (p *parser) delay(key string) time.Duration {
	if p.err != nil {
		return 0
	}
	v := p.get(key)
	d, err := time.ParseDuration(v)
	if err != nil {
		p.fail("%s %q is not a duration (use Go syntax, for example %s=2ms)", key, v, key)
		return 0
	}
	if d < 0 || d > maxDelay {
		p.fail("%s must be between 0 and %v, got %v (for example %s=2ms)", key, maxDelay, d, key)
		return 0
	}
	return d
}

func (p *parser) choice(key string, allowed ...string) string {
	if p.err != nil {
		return allowed[0]
	}
	v := strings.ToLower(p.get(key))
	if !slices.Contains(allowed, v) {
		p.fail("%s %q is not one of %s", key, v, strings.Join(allowed, ", "))
		return allowed[0]
	}
	return v
}

// String is the canonical spec: every parameter, defaults filled in.
func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Kind + ":")
	switch s.Kind {
	case GCRA:
		fmt.Fprintf(&b, "rate=%d,burst=%d,period=%s", s.Rate, s.Burst, algorithms.FormatDuration(s.Period))
	case Script:
		fmt.Fprintf(&b, "file=%s,limit=%d,window=%s", s.File, s.Limit, algorithms.FormatDuration(s.Window))
	case SpringGateway, EnvoyRatelimit, Cell:
		s.gatewayString(&b)
	default:
		fmt.Fprintf(&b, "limit=%d,window=%s", s.Limit, algorithms.FormatDuration(s.Window))
	}
	switch s.Kind {
	case SlidingLog:
		count := "passed"
		if s.CountAll {
			count = "all"
		}
		fmt.Fprintf(&b, ",atomic=%t,count=%s", s.Atomic, count)
	case Bucketed:
		fmt.Fprintf(&b, ",buckets=%d", s.Buckets)
	}
	clock := "instance"
	if s.ClockRedis {
		clock = "redis"
	}
	fmt.Fprintf(&b, ",instances=%d,skew=%s,rtt=%s,clock=%s", s.Instances, algorithms.FormatDuration(s.Skew), algorithms.FormatDuration(s.RTT), clock)
	if s.Key != "" {
		b.WriteString(",key=" + s.Key)
	}
	return b.String()
}

// Rate is the limit in requests per second.
func (s *Spec) RatePerSecond() float64 {
	switch s.Kind {
	case GCRA:
		return float64(s.Rate) / s.Period.Seconds()
	case SpringGateway, EnvoyRatelimit, Cell:
		return s.gatewayRate()
	}
	return float64(s.Limit) / s.Window.Seconds()
}

// EpochMs is the absolute time, in Unix ms, of virtual time 0: the first
// multiple of lcm(1000 ms, window) (redis-gcra: of lcm(1000 ms, period))
// at or after 1 600 000 000 000 ms.
func (s *Spec) EpochMs() int64 {
	w := s.Window
	switch s.Kind {
	case GCRA:
		w = s.Period
	case SpringGateway, EnvoyRatelimit, Cell:
		w = s.gatewayWindow()
	}
	l := lcm(int64(w/time.Millisecond), 1000)
	const target = 1_600_000_000_000
	return (target + l - 1) / l * l
}

// Offsets returns each instance's clock offset: offset_k = −skew +
// ⌊2·skew·k/(instances−1)⌋ ns, 0 for a single instance.
func (s *Spec) Offsets() []time.Duration {
	out := make([]time.Duration, s.Instances)
	if s.Instances == 1 {
		return out
	}
	den := big.NewInt(int64(s.Instances - 1))
	for k := range out {
		num := new(big.Int).Mul(big.NewInt(2*int64(s.Skew)), big.NewInt(int64(k)))
		num.Div(num, den) // non-negative operands: Div floors
		out[k] = -s.Skew + time.Duration(num.Int64())
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }
