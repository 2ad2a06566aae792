package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	labspec "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// Field is one field of a rule that a tune can vary, by the product's
// name.
type Field struct {
	// Name is the product's name for the field, as Patch takes it: nginx
	// "rate", "burst"; Sentinel "count", "maxQueueingTimeMs"; Envoy
	// "token_bucket.max_tokens"; Spring "redis-rate-limiter.replenishRate".
	// In a chain it carries its rule's prefix: nginx "ZONE.rate",
	// Sentinel "FlowRule.count", "ParamFlowRule.count", "DegradeRule.count",
	// sentinel-golang "flow.threshold", "hotspot.threshold".
	Name string
	// Value is the field's current value in the product's syntax (the
	// product's default when the file leaves the field out).
	Value string
	// Stage is the index of the spec stage the field drives, Param that
	// stage's parameter.
	Stage int
	Param string
	// Unit says how the product reads the value ("requests", "ms", "s",
	// "Nr/s or Nr/m", "a duration").
	Unit string
	// conv turns the spec's value into the product's (toProduct).
	conv string
}

// tunable is one field of a family in a format: conv turns the spec's
// value into the product's.
type tunable struct {
	field, param, conv string
}

// tunables lists, per format and family, the fields a tune may vary.
var tunables = map[string]map[string][]tunable{
	"nginx": {"nginx-limit-req": {{"rate", "rate", "nginxrate"}, {"burst", "burst", "num"}, {"delay", "delay", "num"}}},
	"sentinel": {
		"leap-array":           {{"count", "limit", "num"}},
		"warm-up":              {{"count", "limit", "num"}, {"warmUpPeriodSec", "warm-up", "sec"}},
		"leaky-bucket":         {{"count", "limit", "num"}, {"maxQueueingTimeMs", "max-queue", "ms"}},
		"warm-up-rate-limiter": {{"count", "limit", "num"}, {"warmUpPeriodSec", "warm-up", "sec"}, {"maxQueueingTimeMs", "max-queue", "ms"}},
		"concurrency":          {{"count", "limit", "num"}},
		"sentinel-param":       {{"count", "count", "num"}, {"durationInSec", "duration", "sec"}, {"burstCount", "burst", "num"}},
		"circuit-breaker":      {{"timeWindow", "recovery", "sec"}, {"minRequestAmount", "min-requests", "num"}, {"statIntervalMs", "stat-interval", "ms"}},
	},
	"sentinel-go": {
		"leap-array":           {{"threshold", "limit", "num"}},
		"warm-up":              {{"threshold", "limit", "num"}, {"warmUpPeriodSec", "warm-up", "sec"}, {"warmUpColdFactor", "cold-factor", "num"}},
		"leaky-bucket":         {{"threshold", "limit", "num"}, {"maxQueueingTimeMs", "max-queue", "ms"}},
		"warm-up-rate-limiter": {{"threshold", "limit", "num"}, {"warmUpPeriodSec", "warm-up", "sec"}, {"maxQueueingTimeMs", "max-queue", "ms"}},
		"concurrency":          {{"threshold", "limit", "num"}},
		"sentinel-param":       {{"threshold", "count", "num"}, {"durationInSec", "duration", "sec"}, {"burstCount", "burst", "num"}},
	},
	"envoy-local":     {"envoy-local": {{"token_bucket.max_tokens", "max-tokens", "num"}, {"token_bucket.tokens_per_fill", "tokens-per-fill", "num"}, {"token_bucket.fill_interval", "fill-interval", "proto"}}},
	"envoy-ratelimit": {"redis-envoy-ratelimit": {{"rate_limit.requests_per_unit", "limit", "num"}, {"rate_limit.unit", "unit", "text"}}},
	"spring":          {"redis-spring-gateway": {{"redis-rate-limiter.replenishRate", "replenish-rate", "num"}, {"redis-rate-limiter.burstCapacity", "burst-capacity", "num"}, {"redis-rate-limiter.requestedTokens", "requested-tokens", "num"}}},
	"traefik":         {"traefik": {{"average", "average", "num"}, {"period", "period", "dur"}, {"burst", "burst", "num"}}},
	"kong":            {"kong": {{"config.second", "second", "num"}, {"config.minute", "minute", "num"}, {"config.hour", "hour", "num"}, {"config.day", "day", "num"}, {"config.month", "month", "num"}, {"config.year", "year", "num"}}},
	"resilience4j":    {"resilience4j": {{"limitForPeriod", "limit-for-period", "num"}, {"limitRefreshPeriod", "refresh-period", "dur"}, {"timeoutDuration", "timeout", "dur"}}},
}

var convUnit = map[string]string{"num": "a number", "ms": "ms", "sec": "s", "dur": "a duration (500ms, 1s, 1m)", "proto": "a duration in seconds (0.1s)", "nginxrate": "Nr/s or Nr/m", "text": "a word"}

// TunableFields lists r's fields a tune may vary, by the product's names,
// with their current values and the spec parameter each drives. A rule of
// a format or family without such fields has none.
func TunableFields(r Rule) []Field {
	byFam := tunables[r.Format]
	if byFam == nil || !r.Active() {
		return nil
	}
	canon, err := CanonicalSpec(r.Spec)
	if err != nil {
		return nil
	}
	stages := labspec.Split(canon).Stages
	prefixes := stagePrefixes(r, stages)
	var out []Field
	for i, st := range stages {
		for _, tu := range byFam[st.Name] {
			if st.Name == "nginx-limit-req" && tu.param == "delay" && paramOr(st, "nodelay", "") == "true" {
				out = append(out, Field{Name: prefixes[i] + "nodelay", Value: "true", Stage: i, Param: "nodelay", Unit: "true or false", conv: "text"})
				continue
			}
			v, ok := st.Get(tu.param)
			if !ok {
				continue
			}
			pv, err := toProduct(v, tu.conv)
			if err != nil {
				continue
			}
			out = append(out, Field{Name: prefixes[i] + tu.field, Value: pv, Stage: i, Param: tu.param, Unit: convUnit[tu.conv], conv: tu.conv})
		}
		if r.Format == "sentinel" && st.Name == "circuit-breaker" {
			// DegradeRule's count is the slow response time (grade 0) or
			// the error ratio or count (1, 2).
			extra := []tunable{{"count", "threshold", "num"}}
			if param(st, "strategy") == "slow-ratio" {
				extra = []tunable{{"count", "max-rt", "ms"}, {"slowRatioThreshold", "threshold", "num"}}
			}
			for _, tu := range extra {
				if pv, err := toProduct(param(st, tu.param), tu.conv); err == nil {
					out = append(out, Field{Name: prefixes[i] + tu.field, Value: pv, Stage: i, Param: tu.param, Unit: convUnit[tu.conv], conv: tu.conv})
				}
			}
		}
	}
	return out
}

// stagePrefixes names each stage's fields in a chain: nginx by zone,
// Sentinel by rule kind; "" for a single stage.
func stagePrefixes(r Rule, stages []labspec.Stage) []string {
	out := make([]string, len(stages))
	if len(stages) < 2 {
		return out
	}
	zones := nginxZones(r)
	for i, st := range stages {
		switch {
		case r.Format == "nginx" && i < len(zones):
			out[i] = zones[i] + "."
		case r.Format == "sentinel":
			out[i] = map[string]string{"sentinel-param": "ParamFlowRule.", "circuit-breaker": "DegradeRule."}[st.Name]
			if out[i] == "" {
				out[i] = "FlowRule."
			}
		case r.Format == "sentinel-go":
			out[i] = map[string]string{"sentinel-param": "hotspot.", "circuit-breaker": "circuitbreaker.", "concurrency": "isolation."}[st.Name]
			if out[i] == "" {
				out[i] = "flow."
			}
		}
	}
	return out
}

var limitReqRe = regexp.MustCompile(`limit_req zone=([^\s()]+) \(([^()]+):(\d+)\)`)

// nginxZones are the zones of an nginx rule's limit_req, in order.
func nginxZones(r Rule) []string {
	var out []string
	for _, m := range limitReqRe.FindAllStringSubmatch(r.What, -1) {
		out = append(out, m[1])
	}
	return out
}

// toProduct writes a canonical spec value in the product's units.
func toProduct(v, conv string) (string, error) {
	switch conv {
	case "num", "nginxrate", "text":
		return v, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return "", err
	}
	switch conv {
	case "ms":
		n, err := wholeMillis(d, "the field")
		return strconv.FormatInt(n, 10), err
	case "sec":
		n, err := wholeSecs(d, "the field")
		return strconv.FormatInt(n, 10), err
	case "proto":
		return protoDuration(d), nil
	case "dur":
		return springDuration(d), nil
	}
	return "", fmt.Errorf("unknown conversion %s", conv)
}

// fieldNames lists r's tunable field names, for errors.
func fieldNames(r Rule) string {
	var names []string
	for _, f := range TunableFields(r) {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// SetFor is the field assignment that makes r run as spec: for each of
// r's tunable fields, the value spec gives its parameter, where it differs
// from the current one. A spec that differs from r's in anything a field
// does not carry (another family, a chain's shape, a key) is refused,
// naming the parameter.
func SetFor(r Rule, spec string) (map[string]string, error) {
	have, err := CanonicalSpec(r.Spec)
	if err != nil {
		return nil, err
	}
	want, err := CanonicalSpec(spec)
	if err != nil {
		return nil, err
	}
	hs, ws := labspec.Split(have).Stages, labspec.Split(want).Stages
	if len(hs) != len(ws) {
		return nil, fmt.Errorf("%s has %d stage(s) and %s has %d; a patch changes values, not the chain", r.Name, len(hs), want, len(ws))
	}
	fields := TunableFields(r)
	set := map[string]string{}
	for i := range hs {
		if hs[i].Name != ws[i].Name {
			return nil, fmt.Errorf("%s: stage %d is %s in the file and %s in %s; a patch changes values, not the limiter", r.Name, i+1, hs[i].Name, ws[i].Name, want)
		}
		keys := map[string]bool{}
		for _, p := range append(append([]labspec.Param(nil), hs[i].Params...), ws[i].Params...) {
			keys[p.Key] = true
		}
		for k := range keys {
			hv, _ := hs[i].Get(k)
			wv, _ := ws[i].Get(k)
			if hv == wv {
				continue
			}
			if hs[i].Name == "nginx-limit-req" && (k == "nodelay" || k == "delay") {
				if err := nginxDelaySet(r, fields, i, ws[i], set); err != nil {
					return nil, err
				}
				continue
			}
			if hs[i].Name == "sentinel-param" && k == "capacity" {
				continue // follows durationInSec when it is the default; compared below
			}
			j := slices.IndexFunc(fields, func(f Field) bool { return f.Stage == i && f.Param == k })
			if j < 0 {
				return nil, fmt.Errorf("%s: %s=%s in %s is not a field of the rule the lab can set (its fields are %s)", r.Name, k, wv, want, fieldNames(r))
			}
			pv, err := toProduct(wv, fields[j].conv)
			if err != nil {
				return nil, fmt.Errorf("%s: %s=%s: %v", r.Name, k, wv, err)
			}
			set[fields[j].Name] = pv
		}
	}
	return set, nil
}

// nginxDelaySet sets the zone's nodelay or delay as st has it.
func nginxDelaySet(r Rule, fields []Field, i int, st labspec.Stage, set map[string]string) error {
	j := slices.IndexFunc(fields, func(f Field) bool { return f.Stage == i && (f.Param == "delay" || f.Param == "nodelay") })
	if j < 0 {
		return fmt.Errorf("%s: zone %d has no delay field", r.Name, i+1)
	}
	pre := fields[j].Name[:len(fields[j].Name)-len(fields[j].Param)]
	delete(set, pre+"delay")
	delete(set, pre+"nodelay")
	if v, _ := st.Get("nodelay"); v == "true" {
		set[pre+"nodelay"] = "true"
	} else {
		v, _ := st.Get("delay")
		set[pre+"delay"] = v
	}
	return nil
}
