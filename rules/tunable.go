package rules

import (
	"fmt"
	"regexp"
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
			v, ok := st.Get(tu.param)
			if !ok {
				continue
			}
			pv, err := toProduct(v, tu.conv)
			if err != nil {
				continue
			}
			if st.Name == "nginx-limit-req" && tu.param == "delay" && paramOr(st, "nodelay", "") == "true" {
				out = append(out, Field{Name: prefixes[i] + "nodelay", Value: "true", Stage: i, Param: "nodelay", Unit: "true or false"})
				continue
			}
			out = append(out, Field{Name: prefixes[i] + tu.field, Value: pv, Stage: i, Param: tu.param, Unit: convUnit[tu.conv]})
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
