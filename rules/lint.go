package rules

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	specsyntax "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// Lint is one configuration trap found in a rule, as its product applies
// it (ingress annotations expanded into the limit_req they generate,
// defaults made explicit): what the product's documentation or source
// says, what it means for this rule's numbers, a trace of a few lines and
// a command that replay it, and the fix.
type Lint struct {
	// ID names the trap (ingress-burst, traefik-burst-1, ...).
	ID string
	// Rule is the rule's name, Source its FILE:LINE.
	Rule, Source string
	// Product is the behaviour in the product's own words.
	Product string
	// Says is what it does to this rule.
	Says string
	// Trace is a small CSV trace (header and lines) that shows it, and
	// Command the ratelimit-lab command that replays it (the trace as
	// demo.csv).
	Trace, Command string
	// Fix is the change that removes the trap.
	Fix string
}

// LintRules returns the traps of rs, in order of the rules.
func LintRules(rs []Rule) []Lint {
	var out []Lint
	for _, r := range rs {
		if !r.Active() {
			continue
		}
		for _, st := range specsyntax.Split(r.Spec).Stages {
			p := map[string]string{}
			for _, kv := range st.Params {
				p[kv.Key] = kv.Value
			}
			for _, check := range lintChecks {
				if l, ok := check(r, st.Name, p); ok {
					l.Rule, l.Source = r.Name, r.Source
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// lintChecks are the traps, each asked about every stage of every rule.
var lintChecks = []func(r Rule, name string, p map[string]string) (Lint, bool){
	lintIngressBurst,
	lintTraefikBurst,
	lintSpringBurstZero,
	lintSpringRequestedAboveBurst,
	lintWarmUpRateLimiterRounding,
	lintSlowRatioOne,
}

// demoTrace is a CSV trace of arrivals at the given milliseconds.
func demoTrace(ms ...int64) string {
	var b strings.Builder
	b.WriteString("t_ms\n")
	for _, m := range ms {
		b.WriteString(strconv.FormatInt(m, 10) + "\n")
	}
	return b.String()
}

// withoutKey is a stage's spec with its key= parameter dropped (or set to
// key=* for nginx, whose zones always need one), so that a trace without
// key columns replays it.
func withoutKey(name string, p map[string]string, order ...string) string {
	var kv []string
	for _, k := range order {
		if v, ok := p[k]; ok {
			kv = append(kv, k+"="+v)
		}
	}
	if name == "nginx-limit-req" {
		kv = append(kv, "key=*")
	}
	return name + ":" + strings.Join(kv, ",")
}

// lintIngressBurst: ingress-nginx writes limit_req with burst = limit ×
// limit-burst-multiplier (5 unless the annotation sets it) and nodelay
// (internal/ingress/controller/template/template.go, buildRateLimit;
// annotations/ratelimit: defBurst = 5).
func lintIngressBurst(r Rule, name string, p map[string]string) (Lint, bool) {
	if r.Format != "ingress-nginx" || name != "nginx-limit-req" {
		return Lint{}, false
	}
	burst, err := strconv.ParseInt(p["burst"], 10, 64)
	if err != nil || burst <= 0 {
		return Lint{}, false
	}
	rate := p["rate"]
	return Lint{
		ID:      "ingress-burst",
		Product: `ingress-nginx: "nginx.ingress.kubernetes.io/limit-burst-multiplier: multiplier of the limit rate for burst size. The default burst multiplier is 5, this annotation override the default multiplier."; the controller writes limit_req ... burst=<limit × multiplier> nodelay`,
		Says:    fmt.Sprintf("limit_req rate=%s burst=%d nodelay: %d requests from one address pass at the same instant, where the rate alone admits one per %s; a second request 1ms after the first passes", rate, burst, burst+1, nginxSpacing(rate)),
		Trace:   demoTrace(0, 1),
		Command: fmt.Sprintf("ratelimit-lab why --trace demo.csv --algo '%s' --seq 1", withoutKey(name, p, "rate", "burst", "nodelay")),
		Fix:     `set nginx.ingress.kubernetes.io/limit-burst-multiplier: "1" for the smallest burst the annotations allow (burst = limit), or write limit_req yourself in a configuration snippet`,
	}, true
}

// nginxSpacing is the interval limit_req enforces between requests at
// rate (10r/s: 100ms).
func nginxSpacing(rate string) string {
	milli, err := algorithms.ParseNginxRate(rate)
	if err != nil || milli <= 0 {
		return "rate"
	}
	return (time.Duration(1e6/float64(milli)*1e6) * time.Nanosecond).Round(time.Microsecond).String()
}

// lintTraefikBurst: Traefik's rateLimit with burst 1 and a period over a
// second lets one request through per period/average, with no room for
// two close together (pkg/middlewares/ratelimiter/rate_limiter.go: the
// bucket holds burst tokens, and a request that would wait more than
// maxDelay gets 429).
func lintTraefikBurst(r Rule, name string, p map[string]string) (Lint, bool) {
	if name != "traefik" || p["burst"] != "1" {
		return Lint{}, false
	}
	period, err := time.ParseDuration(p["period"])
	if err != nil || period <= time.Second {
		return Lint{}, false
	}
	avg, err := strconv.ParseInt(p["average"], 10, 64)
	if err != nil || avg < 1 {
		return Lint{}, false
	}
	every := period / time.Duration(avg)
	return Lint{
		ID:      "traefik-burst-1",
		Product: `Traefik: "the average and period parameters define the rate at which the bucket refills, and the burst is the size (volume) of the bucket"; burst defaults to 1`,
		Says:    fmt.Sprintf("average=%d period=%v with burst 1 admits one request per %v: a second request %v after the first gets 429, although the period allows %d", avg, period, every, time.Second, avg),
		Trace:   demoTrace(0, 1000),
		Command: fmt.Sprintf("ratelimit-lab why --trace demo.csv --algo '%s' --seq 1", withoutKey(name, p, "average", "period", "burst")),
		Fix:     fmt.Sprintf("set burst to the requests a client may send together, up to average (burst: %d)", avg),
	}, true
}

// lintSpringBurstZero: Spring Cloud Gateway's RedisRateLimiter with
// burstCapacity 0 denies everything (request_rate_limiter.lua: allowed
// iff the bucket, at most capacity tokens, holds requested tokens).
func lintSpringBurstZero(r Rule, name string, p map[string]string) (Lint, bool) {
	if name != "redis-spring-gateway" || p["burst-capacity"] != "0" {
		return Lint{}, false
	}
	return Lint{
		ID:      "spring-burst-zero",
		Product: `Spring Cloud Gateway: "The redis-rate-limiter.burstCapacity property is the maximum number of requests a user is allowed in a single second ... Setting this value to zero blocks all requests."`,
		Says:    fmt.Sprintf("replenishRate=%s burstCapacity=0: the bucket never holds a token, so every request gets 429 (the lab refuses to run burst-capacity=0; the replay shows a bucket of 1 refusing the second of two requests at the same instant, and an empty bucket refuses the first too)", p["replenish-rate"]),
		Trace:   demoTrace(0, 0),
		Command: "ratelimit-lab run --trace demo.csv --algo 'redis-spring-gateway:replenish-rate=1,burst-capacity=1' --decisions --chart none --html=false",
		Fix:     "give burstCapacity at least replenishRate (the tokens a user may spend in one second), which Spring's configuration requires anyway",
	}, true
}

// lintSpringRequestedAboveBurst is x/time/rate's WaitN with n above the
// burst (golang/go #52618) as Spring Cloud Gateway writes it: a request
// costing requestedTokens can never pass when the bucket holds at most
// burstCapacity < requestedTokens (request_rate_limiter.lua, as
// distributed/scripts/spring_gateway.lua runs it: filled_tokens =
// min(capacity, ...), allowed = filled_tokens >= requested).
func lintSpringRequestedAboveBurst(r Rule, name string, p map[string]string) (Lint, bool) {
	if name != "redis-spring-gateway" {
		return Lint{}, false
	}
	req, err1 := strconv.ParseInt(p["requested-tokens"], 10, 64)
	burst, err2 := strconv.ParseInt(p["burst-capacity"], 10, 64)
	if err1 != nil || err2 != nil || burst < 1 || req <= burst {
		return Lint{}, false
	}
	return Lint{
		ID:      "spring-requested-above-burst",
		Product: `Spring Cloud Gateway: "The redis-rate-limiter.requestedTokens property is how many tokens a request costs"; request_rate_limiter.lua caps the bucket at burstCapacity (filled_tokens = math.min(capacity, ...)) and allows a request only if filled_tokens >= requested`,
		Says:    fmt.Sprintf("requestedTokens=%d above burstCapacity=%d: the bucket never holds %d tokens, so every request gets 429, as x/time/rate's WaitN with n above the burst always fails (golang/go #52618)", req, burst, req),
		Trace:   demoTrace(0, 1000),
		Command: fmt.Sprintf("ratelimit-lab run --trace demo.csv --algo 'redis-spring-gateway:replenish-rate=%s,burst-capacity=%d,requested-tokens=%d' --decisions --chart none --html=false", p["replenish-rate"], burst, req),
		Fix:     fmt.Sprintf("give burstCapacity at least requestedTokens (burstCapacity: %d or more), or lower requestedTokens", req),
	}, true
}

// lintWarmUpRateLimiterRounding: Sentinel's WarmUpRateLimiterController
// (controlBehavior 3) spaces requests by Math.round(1.0 · acquireCount /
// qps · 1000) whole milliseconds once warm, so above 1000 QPS the spacing
// rounds to 1 ms (at most 1000 QPS) or, above 2000 QPS, to 0 (no limit).
func lintWarmUpRateLimiterRounding(r Rule, name string, p map[string]string) (Lint, bool) {
	if name != "warm-up-rate-limiter" {
		return Lint{}, false
	}
	limit, err := strconv.ParseFloat(p["limit"], 64)
	if err != nil || limit <= 1000 {
		return Lint{}, false
	}
	cost := int64(javaRound(1000 / limit))
	says := fmt.Sprintf("count=%s: the spacing Math.round(1000/%s) is %d ms, so once warm the rule passes at most 1000 requests per second, not %s", p["limit"], p["limit"], cost, p["limit"])
	if cost == 0 {
		says = fmt.Sprintf("count=%s: the spacing Math.round(1000/%s) is 0 ms, so once warm the rule limits nothing", p["limit"], p["limit"])
	}
	return Lint{
		ID:      "sentinel-ms-rounding",
		Product: "Sentinel's WarmUpRateLimiterController: costTime = Math.round(1.0 * acquireCount / warmingQps * 1000), in whole milliseconds (alibaba/Sentinel #259, #1615)",
		Says:    says,
		Trace:   demoTrace(0, 0),
		Command: fmt.Sprintf("ratelimit-lab run --trace demo.csv --algo 'warm-up-rate-limiter:limit=%s' --chart none --html=false", p["limit"]),
		Fix:     "use controlBehavior 2 (the throttling controller, which counts in nanoseconds above 1000 QPS) or split the resource",
	}, true
}

// javaRound is Math.round for a non-negative double.
func javaRound(x float64) float64 { return float64(int64(x + 0.5)) }

// lintSlowRatioOne: a slow-call ratio of 1.0 opens the breaker only when
// every request of the statistic interval is slow (Sentinel's
// ResponseTimeCircuitBreaker.handleStateChangeWhenThresholdExceeded:
// currentRatio > maxSlowRequestRatio, or equal to it at 1.0, the case
// added for alibaba/Sentinel #1769; before it, never).
func lintSlowRatioOne(r Rule, name string, p map[string]string) (Lint, bool) {
	if name != "circuit-breaker" || p["strategy"] != "slow-ratio" {
		return Lint{}, false
	}
	if th, err := strconv.ParseFloat(p["threshold"], 64); err != nil || th < 1 {
		return Lint{}, false
	}
	return Lint{
		ID:      "slow-ratio-1",
		Product: "Sentinel's DegradeRule slowRatioThreshold (1.0 when the rule does not set it): the breaker opens when the ratio of slow calls exceeds it; at 1.0 only when every call is slow (alibaba/Sentinel #1769: before that fix, never)",
		Says:    fmt.Sprintf("slowRatioThreshold=%s: one call under max-rt %s in a statistic interval keeps the breaker closed however slow the rest are", p["threshold"], p["max-rt"]),
		Trace:   "t_ms,rt_ms,error\n0,300,0\n1,300,0\n2,1,0\n",
		Command: fmt.Sprintf("ratelimit-lab run --trace demo.csv --algo 'leap-array:limit=1000+circuit-breaker:strategy=slow-ratio,max-rt=%s,threshold=1,min-requests=3' --algo 'leap-array:limit=1000+circuit-breaker:strategy=slow-ratio,max-rt=%s,threshold=0.5,min-requests=3' --wide --chart none --html=false", p["max-rt"], p["max-rt"]),
		Fix:     "set slowRatioThreshold below 1 (for example 0.5), so that a majority of slow calls opens the breaker",
	}, true
}

// Note is the trap in one line, as explain shows it under its rule and a
// run among its notes: what it does here and the fix (rules lint gives
// the product's wording and a replay).
func (l Lint) Note() string {
	return fmt.Sprintf("[%s] %s; fix: %s", l.ID, l.Says, l.Fix)
}

// LintsOf returns the traps of the rule r among ls.
func LintsOf(ls []Lint, r Rule) []Lint {
	var out []Lint
	for _, l := range ls {
		if l.Rule == r.Name && l.Source == r.Source {
			out = append(out, l)
		}
	}
	return out
}

// WriteLints prints the traps of file, one block each.
func WriteLints(w io.Writer, file string, ls []Lint) error {
	var b strings.Builder
	if len(ls) == 0 {
		fmt.Fprintf(&b, "%s: no trap found\n", file)
	}
	for i, l := range ls {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  %s [%s]\n", l.Source, l.Rule, l.ID)
		fmt.Fprintf(&b, "  product: %s\n", l.Product)
		fmt.Fprintf(&b, "  here:    %s\n", l.Says)
		fmt.Fprintf(&b, "  replay:  %s\n", l.Command)
		fmt.Fprintf(&b, "           with demo.csv: %s\n", strings.Join(strings.Split(strings.TrimSpace(l.Trace), "\n"), " | "))
		fmt.Fprintf(&b, "  fix:     %s\n", l.Fix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
