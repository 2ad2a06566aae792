package algorithms

import (
	"fmt"
	"strconv"
	"strings"
)

// keyedKinds are the per-key limiters (issue 15): each reads a key column
// (key=NAME, default key) and keeps one state per key value.
var keyedKinds = []kind{
	{
		info: Info{Name: "nginx-limit-req", Caps: CapKeyColumn | CapShard | CapStage,
			Summary:   "nginx's limit_req per key: excess in milli-requests, burst, delay/nodelay, a zone that fills (states expire or are forced out); a chain of them is several limit_req in one location",
			Reference: "nginx ≥ 1.15.7 ngx_http_limit_req_module (current source), zone sized as ngx_slab on 64-bit"},
		params: []param{
			p("rate", "-", "Nr/s or Nr/m (required); stored as nginx does, in milli-requests per second, Nr/m as ⌊N·1000/60⌋", kindString),
			p("burst", "0", "requests above the rate held as excess", kindInt),
			p("nodelay", "false", "true: pass the burst at once instead of delaying it", kindString),
			p("delay", "0", "requests of the burst passed without delay (limit_req delay=)", kindInt),
			p("zone", "10m", "zone size (k, m): 128 bytes a state for keys up to 48 bytes; at least 32k (8 pages); 0 unbounded", kindString),
			p("key", "key", "the key column", kindString),
		},
		build: buildNginxLimitReq,
	},
	{
		info: Info{Name: "sentinel-param", Caps: CapKeyColumn | CapShard | CapCost | CapStage,
			Summary:   "Sentinel's hot-parameter flow control per key: count tokens per duration, refilled only after a whole duration, LRU of values; reject or throttle",
			Reference: "Alibaba Sentinel 1.8.8+ ParamFlowChecker (QPS grade); flavor=go: sentinel-golang v1.0.4 core/hotspot"},
		params: []param{
			p("count", "", "tokens per duration for each value (a whole number is used; Java truncates)", kindFloat),
			p("duration", "1s", "durationInSec, whole seconds", kindDuration),
			p("burst", "0", "burstCount: extra tokens (reject only)", kindInt),
			p("behavior", "reject", "reject or throttle (CONTROL_BEHAVIOR_RATE_LIMITER)", kindString),
			p("max-queue", "0s", "maxQueueingTimeMs (throttle only); a wait must be strictly shorter", kindDuration),
			p("items", "-", "per-value counts, VALUE:N|VALUE:M", kindString),
			p("capacity", "min(4000·D, 200000)", "values the cache holds (go: min(4000·D, 20000)); 'unbounded' for no limit", kindString),
			p("key", "key", "the key column", kindString),
			pFlavor,
		},
		build: buildSentinelParam,
	},
}

func (a *args) str(key string) string { v, _ := a.lookup(key); return v }

// boolean reads a true/false parameter (also on/off, yes/no, 1/0).
func (a *args) boolean(key string) (bool, error) {
	v := strings.ToLower(a.str(key))
	switch v {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%s: %s %q is not true or false", a.name, key, v)
}

func (a *args) int64(key string) (int64, error) {
	n, err := strconv.ParseInt(a.str(key), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %s %q is not a whole number ≥ 0 (for example %s=10)", a.name, key, a.str(key), key)
	}
	return n, nil
}

func buildNginxLimitReq(a *args) (Limiter, error) {
	if !a.has("rate") {
		return nil, fmt.Errorf("nginx-limit-req needs a rate: add rate=Nr/s or rate=Nr/m (for example nginx-limit-req:rate=10r/s,burst=20)")
	}
	var c NginxLimitReqConfig
	r := a.reader()
	c.Rate = r.nginxRate("rate")
	c.Burst = r.int64("burst")
	c.Delay = r.int64("delay")
	c.NoDelay = r.boolean("nodelay")
	c.Zone = r.size("zone")
	if err := r.err(); err != nil {
		return nil, err
	}
	if c.NoDelay && a.has("delay") {
		return nil, fmt.Errorf("nginx-limit-req: give delay=N or nodelay=true, not both")
	}
	c.Key = a.str("key")
	return NewNginxLimitReq(c)
}

func buildSentinelParam(a *args) (Limiter, error) {
	var c SentinelParamConfig
	r := a.reader()
	c.Count = r.float("count")
	c.Duration = r.duration("duration")
	c.Burst = r.int64("burst")
	c.MaxQueue = r.duration("max-queue")
	c.Go = r.goFlavor()
	if err := r.err(); err != nil {
		return nil, err
	}
	switch strings.ToLower(a.str("behavior")) {
	case "reject", "default":
	case "throttle", "rate-limiter":
		c.Throttle = true
	default:
		return nil, fmt.Errorf("sentinel-param: behavior %q is not known; allowed: reject, throttle", a.str("behavior"))
	}
	if a.has("items") {
		items, err := ParseItems(a.str("items"))
		if err != nil {
			return nil, err
		}
		c.Items = items
	}
	if a.has("capacity") {
		v := strings.ToLower(a.str("capacity"))
		if v == "unbounded" {
			c.Capacity = -1
		} else {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("sentinel-param: capacity %q is not a whole number ≥ 1 or 'unbounded'", v)
			}
			c.Capacity = n
		}
	}
	c.Key = a.str("key")
	return NewSentinelParam(c)
}

// perKeyRefuser is a limiter whose reference has no per-key form in some
// configuration (envoy-local's mode=timer): perKeyError says why, or nil.
type perKeyRefuser interface {
	perKeyError(key string) error
}

// newKeyedSpec builds name:rest made per-key when rest has key= and the
// kind is single-key (key is not a parameter of its own); ok is false when
// it is not such a spec.
func newKeyedSpec(k *kind, rest string, defaultLimit float64) (Limiter, bool, error) {
	own := false
	for _, p := range k.params {
		if p.Key == "key" {
			return nil, false, nil // per-key by itself (nginx-limit-req, sentinel-param)
		}
		own = own || p.Key == "capacity"
	}
	inner, key, capacity, ok, err := cutKeyParams(k.info.Name, rest, own)
	if err != nil || !ok {
		return nil, ok, err
	}
	l, err := newKeyed(inner, key, capacity, defaultLimit)
	if err != nil {
		return nil, true, err
	}
	if r, isRefuser := l.proto.(perKeyRefuser); isRefuser {
		if err := r.perKeyError(l.key); err != nil {
			return nil, true, err
		}
	}
	if _, ok := l.proto.(Completer); ok {
		// Its calls complete: each on its own key's instance.
		return newKeyedCompleter(l), true, nil
	}
	return l, true, nil
}
