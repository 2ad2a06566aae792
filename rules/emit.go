package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	labspec "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// EmitFormat describes one format Emit writes, for help texts and errors.
type EmitFormat struct {
	// Name is the --emit (and --rules-format) name.
	Name string
	// Product is the product and the file it configures.
	Product string
	// Families lists the spec families (or chains) the format expresses.
	Families string
	// Example is a spec the format emits.
	Example string
}

// emitter writes one format: text is the configuration for the canonical
// spec's stages, labelled name.
type emitter struct {
	EmitFormat
	write func(name string, stages []labspec.Stage) (string, error)
}

var emitters = []emitter{
	{EmitFormat{"nginx", "nginx: limit_req_zone (http block) + limit_req (location)", "nginx-limit-req, a chain of them (several limit_req in one location), then\n   concurrency with key=ip or key=key (limit_conn)", "nginx-limit-req:rate=10r/s,burst=20,nodelay=true,key=ip"}, emitNginx},
	{EmitFormat{"ingress-nginx", "ingress-nginx: an Ingress with nginx.ingress.kubernetes.io/limit-* annotations", "what the controller's template makes: nginx-limit-req at Nr/s and/or Nr/m with\n   burst = rate × multiplier, nodelay, zone=5m, key=ip, then concurrency,key=ip", "nginx-limit-req:rate=10r/s,burst=50,nodelay=true,zone=5m,key=ip"}, emitIngress},
	{EmitFormat{"sentinel", "Alibaba Sentinel (Java): rule JSON of the dashboard and file/Nacos data sources", "leap-array, warm-up, leaky-bucket, warm-up-rate-limiter (at Sentinel's global\n   statistic and cold factor), concurrency, sentinel-param, circuit-breaker, chains;\n   sentinel-cluster (clusterConfig), sentinel-system (a SystemRule)", "leap-array:limit=100"}, emitSentinel},
	{EmitFormat{"sentinel-go", "sentinel-golang: rules YAML (its file data source's json tags)", "leap-array, leaky-bucket, warm-up, warm-up-rate-limiter, concurrency,\n   sentinel-param, sentinel-system, each flavor=go", "leap-array:limit=100,flavor=go"}, emitSentinelGo},
	{EmitFormat{"envoy-local", "Envoy: the local_ratelimit HTTP filter (an http_filters entry)", "envoy-local without key", "envoy-local:max-tokens=100,tokens-per-fill=10,fill-interval=100ms"}, emitEnvoyLocal},
	{EmitFormat{"envoy-ratelimit", "envoyproxy/ratelimit: the service's config.yaml", "redis-envoy-ratelimit (key=ip, another column, or none)", "redis-envoy-ratelimit:limit=10,unit=second,key=ip"}, emitEnvoyRatelimit},
	{EmitFormat{"spring", "Spring Cloud Gateway: application.yml, a route's RequestRateLimiter", "redis-spring-gateway (key=key)", "redis-spring-gateway:replenish-rate=10,burst-capacity=20,key=key"}, emitSpring},
	{EmitFormat{"traefik", "Traefik: dynamic configuration, a rateLimit middleware", "traefik (key=ip or a header column)", "traefik:average=100,period=1s,burst=50,key=ip"}, emitTraefik},
	{EmitFormat{"kong", "Kong: a declarative (decK) file, a service's rate-limiting plugin", "kong (key=ip, key=key, key=* or a header column)", "kong:second=5,minute=100,policy=local,key=ip"}, emitKong},
	{EmitFormat{"resilience4j", "resilience4j: application.yml, resilience4j.ratelimiter.instances", "resilience4j", "resilience4j:limit-for-period=10,refresh-period=1s,timeout=0s"}, emitResilience4j},
}

// EmitFormats lists the formats Emit writes.
func EmitFormats() []EmitFormat {
	out := make([]EmitFormat, len(emitters))
	for i, e := range emitters {
		out[i] = e.EmitFormat
	}
	return out
}

// EmitFormatNames lists the formats' names.
func EmitFormatNames() []string {
	names := make([]string, len(emitters))
	for i, e := range emitters {
		names[i] = e.Name
	}
	return names
}

func emitNames() string { return strings.Join(EmitFormatNames(), ", ") }

// Emit writes spec (a lab spec or chain, as a row of run or tune shows it)
// as format's configuration, labelled name (a resource, zone, route or
// middleware name). The text is read back with this package's reader of
// that format before it is written: unless it reads back as the same spec
// (the same canonical parameters, so the same decisions), nothing is
// written and the error says why and which formats can express it.
func Emit(w io.Writer, format, specStr, name string) error {
	text, err := EmitText(format, specStr, name)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}

// EmitText is Emit's text.
func EmitText(format, specStr, name string) (string, error) {
	format = strings.ToLower(strings.TrimSpace(format))
	i := slices.IndexFunc(emitters, func(e emitter) bool { return e.Name == format })
	if i < 0 {
		return "", fmt.Errorf("format %q cannot be emitted; use one of %s", format, emitNames())
	}
	e := emitters[i]
	canon, err := CanonicalSpec(specStr)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(name) == "" {
		name = "limit"
	}
	text, err := e.write(name, labspec.Split(canon).Stages)
	if err != nil {
		return "", fmt.Errorf("%s cannot hold %s: %v%s", format, canon, err, whoCan(canon, format))
	}
	if err := readsBack(format, text, canon); err != nil {
		return "", fmt.Errorf("%s cannot hold %s exactly: %v%s", format, canon, err, whoCan(canon, format))
	}
	return text, nil
}

// readsBack parses text as format and checks it is one row of spec canon.
func readsBack(format, text, canon string) error {
	rs, err := Parse("emitted."+format, []byte(text), format)
	if err != nil {
		return fmt.Errorf("the product's file would not read back (%v)", err)
	}
	var active []Rule
	for _, r := range rs {
		if r.Active() {
			active = append(active, r)
		}
	}
	if len(active) != 1 {
		return fmt.Errorf("the file reads back as %d rows, not one", len(active))
	}
	if active[0].DryRun {
		return fmt.Errorf("the file reads back as a dry run")
	}
	got, err := CanonicalSpec(active[0].Spec)
	if err != nil {
		return err
	}
	if got != canon {
		return fmt.Errorf("the closest file reads back as %s, which decides differently", got)
	}
	return nil
}

// whoCan names the formats that express canon, for an error.
func whoCan(canon, except string) string {
	var can []string
	for _, e := range emitters {
		if e.Name == except {
			continue
		}
		text, err := e.write("limit", labspec.Split(canon).Stages)
		if err == nil && readsBack(e.Name, text, canon) == nil {
			can = append(can, e.Name)
		}
	}
	if len(can) == 0 {
		return "; no format the lab emits expresses it (see rules emit --help for each format's families)"
	}
	return "; it can be emitted as " + strings.Join(can, ", ")
}

// CanonicalSpec is s with every default written out, as the limiter the
// lab builds from it prints itself (algorithms.Limiter.Spec), so two specs
// that decide alike compare equal. A spec whose value depends on the run's
// --limit (a limit left out) is refused: the file must carry a number.
func CanonicalSpec(s string) (string, error) {
	sp, err := labspec.Parse(s)
	if err != nil {
		return "", err
	}
	for _, st := range sp.Stages {
		if strings.HasPrefix(st.Name, "redis-") {
			if sp.IsChain() {
				return "", fmt.Errorf("%s: a chain with a Redis stage has no product file; emit its stages one at a time", s)
			}
			return canonicalRedis(st)
		}
	}
	a, err := algorithms.New(s, 100)
	if err != nil {
		return "", err
	}
	b, err := algorithms.New(s, 7)
	if err != nil {
		return "", err
	}
	if a.Spec() != b.Spec() {
		return "", fmt.Errorf("%s leaves a value to the run's --limit (it reads %s at a limit of 100); write it out", s, a.Spec())
	}
	return a.Spec(), nil
}

// redisDefaults are the defaults of the Redis families a format emits, in
// the order distributed's specs print them.
var redisDefaults = map[string][][2]string{
	"redis-spring-gateway":  {{"replenish-rate", ""}, {"burst-capacity", "=replenish-rate"}, {"requested-tokens", "1"}, {"deny-empty-key", "true"}, {"empty-key-status", "403"}, {"instances", "1"}, {"skew", "0s"}, {"rtt", "0s"}, {"clock", "instance"}, {"key", ""}},
	"redis-envoy-ratelimit": {{"limit", ""}, {"unit", "second"}, {"stop-increment-over-limit", "false"}, {"local-cache", "false"}, {"shadow-mode", "false"}, {"instances", "1"}, {"skew", "0s"}, {"rtt", "0s"}, {"clock", "instance"}, {"key", ""}},
}

// canonicalRedis writes a Redis family's stage with its defaults, values
// normalised (numbers, durations, booleans), for the formats that emit it.
func canonicalRedis(st labspec.Stage) (string, error) {
	defs, ok := redisDefaults[st.Name]
	if !ok {
		return "", fmt.Errorf("%s: no product file holds this Redis limiter; the formats emit redis-spring-gateway and redis-envoy-ratelimit", st.Name)
	}
	vals := map[string]string{}
	for _, p := range st.Params {
		if !slices.ContainsFunc(defs, func(d [2]string) bool { return d[0] == p.Key }) {
			return "", fmt.Errorf("%s: unknown parameter %q", st.Name, p.Key)
		}
		vals[p.Key] = p.Value
	}
	var kv []string
	for _, d := range defs {
		v, ok := vals[d[0]]
		if !ok {
			switch {
			case d[1] == "" && d[0] == "key":
				continue
			case d[1] == "":
				return "", fmt.Errorf("%s leaves %s to the run's --limit; write it out", st.Name, d[0])
			case strings.HasPrefix(d[1], "="):
				v = vals[d[1][1:]]
			default:
				v = d[1]
			}
		}
		switch d[0] {
		case "skew", "rtt":
			dur, err := time.ParseDuration(v)
			if err != nil {
				return "", fmt.Errorf("%s: %s %q is not a duration", st.Name, d[0], v)
			}
			v = dur.String()
		case "deny-empty-key", "stop-increment-over-limit", "local-cache", "shadow-mode":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return "", fmt.Errorf("%s: %s %q is not true or false", st.Name, d[0], v)
			}
			v = strconv.FormatBool(b)
		case "key", "clock", "unit":
		default:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return "", fmt.Errorf("%s: %s %q is not a number", st.Name, d[0], v)
			}
			v = strconv.FormatFloat(f, 'f', -1, 64)
		}
		kv = append(kv, d[0]+"="+v)
	}
	return st.Name + ":" + strings.Join(kv, ","), nil
}

// --- value helpers -------------------------------------------------------------

// param is stage st's value of key ("" when absent).
func param(st labspec.Stage, key string) string {
	v, _ := st.Get(key)
	return v
}

// paramOr is stage st's value of key, or def when absent.
func paramOr(st labspec.Stage, key, def string) string {
	if v, ok := st.Get(key); ok {
		return v
	}
	return def
}

// onlyParams refuses a stage with a parameter outside allowed whose value
// is not the default given (allowed maps a key to "" for any value).
func onlyParams(st labspec.Stage, allowed map[string]string, why string) error {
	for _, p := range st.Params {
		want, ok := allowed[p.Key]
		if !ok {
			return fmt.Errorf("%s=%s: %s", p.Key, p.Value, why)
		}
		if want != "" && want != p.Value {
			return fmt.Errorf("%s=%s (only %s): %s", p.Key, p.Value, want, why)
		}
	}
	return nil
}

func parseDur(st labspec.Stage, key string) (time.Duration, error) {
	v := param(st, key)
	if v == "" {
		return 0, fmt.Errorf("%s has no %s", st.Name, key)
	}
	return time.ParseDuration(v)
}

// wholeMillis is d in whole milliseconds, or an error saying field counts
// milliseconds.
func wholeMillis(d time.Duration, field string) (int64, error) {
	if d%time.Millisecond != 0 {
		return 0, fmt.Errorf("%s counts whole milliseconds, and %v is not", field, d)
	}
	return int64(d / time.Millisecond), nil
}

func wholeSecs(d time.Duration, field string) (int64, error) {
	if d%time.Second != 0 {
		return 0, fmt.Errorf("%s counts whole seconds, and %v is not", field, d)
	}
	return int64(d / time.Second), nil
}

// springDuration writes d in Spring Boot's simple style (and Go's, which
// Traefik reads): the largest unit that holds it whole.
func springDuration(d time.Duration) string {
	units := []struct {
		u time.Duration
		s string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "us"}, {1, "ns"}}
	if d == 0 {
		return "0s"
	}
	for _, u := range units {
		if d%u.u == 0 {
			return strconv.FormatInt(int64(d/u.u), 10) + u.s
		}
	}
	return d.String()
}

// protoDuration writes d as a protobuf Duration's JSON: seconds with up to
// nine decimals and an s.
func protoDuration(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if ns := int64(d % time.Second); ns != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
	}
	return s + "s"
}

// yamlString quotes s for YAML when a plain scalar would not read back as
// the same string.
func yamlString(s string) string {
	if regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`).MatchString(s) && !slices.Contains([]string{"true", "false", "yes", "no", "on", "off", "null", "y", "n"}, strings.ToLower(s)) {
		return s
	}
	return strconv.Quote(s)
}

// header is the comment at the top of every emitted file.
func header(b *bytes.Buffer, comment, canon, where string) {
	fmt.Fprintf(b, "%s Written by ratelimit-lab: %s\n", comment, canon)
	if where != "" {
		fmt.Fprintf(b, "%s %s\n", comment, where)
	}
}

// --- nginx -------------------------------------------------------------------

var zoneNameRe = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func emitNginx(name string, stages []labspec.Stage) (string, error) {
	zone := zoneNameRe.ReplaceAllString(name, "_")
	var b bytes.Buffer
	header(&b, "#", labspec.Spec{Stages: stages}.String(), "limit_req_zone goes in the http block, limit_req in the location it limits.")
	var reqs []string
	for i, st := range stages {
		if st.Name == "concurrency" && i > 0 {
			if err := onlyParams(st, map[string]string{"limit": "", "flavor": "java", "key": ""}, "limit_conn counts the requests in progress per key"); err != nil {
				return "", err
			}
			kv := map[string]string{"ip": "$binary_remote_addr", "key": "$http_x_api_key"}[param(st, "key")]
			if kv == "" {
				return "", fmt.Errorf("key=%s: limit_conn here keys on the client address (key=ip) or the key column (key=key)", param(st, "key"))
			}
			zn := fmt.Sprintf("%s_conn_%d", zone, i+1)
			fmt.Fprintf(&b, "limit_conn_zone %s zone=%s:10m;\n", kv, zn)
			reqs = append(reqs, "limit_conn "+zn+" "+param(st, "limit"))
			continue
		}
		if st.Name != "nginx-limit-req" || (i > 0 && stages[i-1].Name != "nginx-limit-req") {
			return "", fmt.Errorf("nginx limits with limit_req (nginx-limit-req stages), not %s", st.Name)
		}
		if err := onlyParams(st, map[string]string{"rate": "", "burst": "", "delay": "", "nodelay": "", "zone": "", "key": ""}, "limit_req has no such argument"); err != nil {
			return "", err
		}
		zn := zone
		if len(stages) > 1 {
			zn = fmt.Sprintf("%s_%d", zone, i+1)
		}
		var keyVar string
		switch k := param(st, "key"); k {
		case "ip":
			keyVar = "$binary_remote_addr"
		case "*":
			keyVar = "$server_name"
		case "key":
			keyVar = "$http_x_api_key"
		default:
			return "", fmt.Errorf("key=%s: nginx's zones read the client address (key=ip), a constant (key=*) or a variable the lab reads from the key column (key=key)", k)
		}
		fmt.Fprintf(&b, "limit_req_zone %s zone=%s:%s rate=%s;\n", keyVar, zn, param(st, "zone"), param(st, "rate"))
		req := "limit_req zone=" + zn
		if bu := param(st, "burst"); bu != "" && bu != "0" {
			req += " burst=" + bu
		}
		if param(st, "nodelay") == "true" {
			req += " nodelay"
		} else if d := param(st, "delay"); d != "" && d != "0" {
			req += " delay=" + d
		}
		reqs = append(reqs, req)
	}
	if slices.ContainsFunc(stages, func(st labspec.Stage) bool { return param(st, "key") == "key" }) {
		b.WriteString("# $http_x_api_key stands for the trace's key column: use the variable that holds your key.\n")
	}
	b.WriteString("\nserver {\n    location / {\n")
	for _, r := range reqs {
		fmt.Fprintf(&b, "        %s;\n", r)
	}
	b.WriteString("    }\n}\n")
	return b.String(), nil
}

// --- ingress-nginx -------------------------------------------------------------

// emitIngress writes an Ingress whose annotations the controller expands
// into the spec: one limit-rps and/or one limit-rpm stage, sharing the
// burst multiplier, then limit-connections.
func emitIngress(name string, stages []labspec.Stage) (string, error) {
	ann := map[string]string{}
	var mult int64 = -1
	for i, st := range stages {
		switch {
		case st.Name == "nginx-limit-req":
			if param(st, "nodelay") != "true" || param(st, "zone") != "5m" || param(st, "key") != "ip" || paramOr(st, "delay", "0") != "0" {
				return "", fmt.Errorf("the controller writes limit_req with nodelay, a 5m zone keyed on the client address (nodelay=true,zone=5m,key=ip)")
			}
			rate := param(st, "rate")
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSuffix(rate, "r/s"), "r/m"), 10, 64)
			if err != nil || len(rate) < 4 {
				return "", fmt.Errorf("rate=%s is not Nr/s or Nr/m", rate)
			}
			perMin := n
			if strings.HasSuffix(rate, "r/s") {
				perMin = n * 60
			}
			// The controller writes the limit-rps zone first, then the
			// limit-rpm one: a first stage is limit-rps when it is whole
			// requests per second (and must be, with a second stage).
			a := "limit-rpm"
			if _, seen := ann["limit-rps"]; !seen && perMin%60 == 0 && (len(ann) == 0) {
				a, n = "limit-rps", perMin/60
			} else {
				n = perMin
			}
			if _, dup := ann[a]; dup || (a == "limit-rpm" && i+1 < len(stages) && stages[i+1].Name == "nginx-limit-req") {
				return "", fmt.Errorf("the annotations make at most a limit-rps zone then a limit-rpm zone")
			}
			burst, _ := strconv.ParseInt(paramOr(st, "burst", "0"), 10, 64)
			if burst%n != 0 || (mult >= 0 && burst/n != mult) {
				return "", fmt.Errorf("burst=%d: the controller's burst is the annotation's rate times limit-burst-multiplier, one multiplier for both zones", burst)
			}
			mult = burst / n
			ann[a] = strconv.FormatInt(n, 10)
		case st.Name == "concurrency" && i == len(stages)-1 && param(st, "key") == "ip" && paramOr(st, "flavor", "java") == "java":
			ann["limit-connections"] = param(st, "limit")
		default:
			return "", fmt.Errorf("the annotations make nginx-limit-req stages and a last concurrency:key=ip stage, not %s", st.String())
		}
	}
	if mult >= 0 {
		ann["limit-burst-multiplier"] = strconv.FormatInt(mult, 10)
	}
	var b bytes.Buffer
	header(&b, "#", labspec.Spec{Stages: stages}.String(), "")
	ing := strings.Trim(regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower(name), "-"), "-")
	if ing == "" {
		ing = "limit"
	}
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  annotations:\n", ing)
	for _, k := range []string{"limit-rps", "limit-rpm", "limit-burst-multiplier", "limit-connections"} {
		if v, ok := ann[k]; ok {
			fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %q\n", k, v)
		}
	}
	fmt.Fprintf(&b, "spec:\n  ingressClassName: nginx\n  rules:\n    - http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: %s\n                port:\n                  number: 80\n", ing)
	return b.String(), nil
}

// --- Sentinel (Java) ------------------------------------------------------------

// jsonObj writes an ordered JSON object (values already JSON) at indent.
func jsonObj(b *bytes.Buffer, indent string, kv ...string) {
	b.WriteString(indent + "{\n")
	for i := 0; i+1 < len(kv); i += 2 {
		sep := ","
		if i+2 >= len(kv) {
			sep = ""
		}
		fmt.Fprintf(b, "%s  %q: %s%s\n", indent, kv[i], kv[i+1], sep)
	}
	b.WriteString(indent + "}")
}

func emitSentinel(name string, stages []labspec.Stage) (string, error) {
	res := strconv.Quote(name)
	var objs []string
	for _, st := range stages {
		if f := param(st, "flavor"); f != "" && f != "java" {
			return "", fmt.Errorf("flavor=%s is sentinel-golang's; emit it as sentinel-go", f)
		}
		var kv []string
		flow := func(grade, cb string) {
			kv = []string{"resource", res, "limitApp", `"default"`, "grade", grade, "count", param(st, "limit"), "strategy", "0", "controlBehavior", cb}
		}
		switch st.Name {
		case "leap-array":
			if err := onlyParams(st, map[string]string{"limit": "", "sample-count": "2", "interval": "1s"}, "a FlowRule runs on Sentinel's process-wide statistic (SampleCountProperty 2, IntervalProperty 1 s) with the default occupy timeout"); err != nil {
				return "", err
			}
			flow("1", "0")
		case "warm-up", "warm-up-rate-limiter":
			if err := onlyParams(st, map[string]string{"limit": "", "warm-up": "", "cold-factor": "3", "max-queue": "", "sample-count": "2", "interval": "1s"}, "Sentinel's cold factor is the process-wide csp.sentinel.flow.cold.factor (3), its statistic 2 buckets over 1 s"); err != nil {
				return "", err
			}
			wu, err := parseDur(st, "warm-up")
			if err != nil {
				return "", err
			}
			secs, err := wholeSecs(wu, "warmUpPeriodSec")
			if err != nil {
				return "", err
			}
			if st.Name == "warm-up" {
				flow("1", "1")
			} else {
				flow("1", "3")
			}
			kv = append(kv, "warmUpPeriodSec", strconv.FormatInt(secs, 10))
			if st.Name == "warm-up-rate-limiter" {
				mq, err := parseDur(st, "max-queue")
				if err != nil {
					return "", err
				}
				ms, err := wholeMillis(mq, "maxQueueingTimeMs")
				if err != nil {
					return "", err
				}
				kv = append(kv, "maxQueueingTimeMs", strconv.FormatInt(ms, 10))
			}
		case "leaky-bucket":
			if err := onlyParams(st, map[string]string{"limit": "", "interval": "1s", "max-queue": ""}, "a FlowRule's count is per second"); err != nil {
				return "", err
			}
			mq, err := parseDur(st, "max-queue")
			if err != nil {
				return "", err
			}
			ms, err := wholeMillis(mq, "maxQueueingTimeMs")
			if err != nil {
				return "", err
			}
			flow("1", "2")
			kv = append(kv, "maxQueueingTimeMs", strconv.FormatInt(ms, 10))
		case "concurrency":
			if err := onlyParams(st, map[string]string{"limit": "", "flavor": "java"}, "a THREAD FlowRule counts the resource's threads, for every caller together"); err != nil {
				return "", err
			}
			flow("0", "0")
		case "sentinel-param":
			if err := onlyParams(st, map[string]string{"count": "", "duration": "", "burst": "", "behavior": "", "max-queue": "", "capacity": "", "key": "key", "flavor": "java"}, "a ParamFlowRule reads argument 0 (the key column) with these fields only"); err != nil {
				return "", err
			}
			d, err := parseDur(st, "duration")
			if err != nil {
				return "", err
			}
			secs, err := wholeSecs(d, "durationInSec")
			if err != nil {
				return "", err
			}
			kv = []string{"resource", res, "limitApp", `"default"`, "grade", "1", "paramIdx", "0", "count", param(st, "count"), "durationInSec", strconv.FormatInt(secs, 10), "burstCount", paramOr(st, "burst", "0")}
			if param(st, "behavior") == "throttle" {
				mq, err := parseDur(st, "max-queue")
				if err != nil {
					return "", err
				}
				ms, err := wholeMillis(mq, "maxQueueingTimeMs")
				if err != nil {
					return "", err
				}
				kv = append(kv, "controlBehavior", "2", "maxQueueingTimeMs", strconv.FormatInt(ms, 10))
			} else {
				kv = append(kv, "controlBehavior", "0")
			}
		case "sentinel-system":
			if len(stages) > 1 {
				return "", fmt.Errorf("a SystemRule applies to every inbound resource; emit it alone")
			}
			if err := onlyParams(st, map[string]string{"qps": "", "max-thread": "", "avg-rt": "", "load": "", "cpu": "", "flavor": "java", "strategy": ""}, "a SystemRule has highestSystemLoad, highestCpuUsage, qps, avgRt and maxThread"); err != nil {
				return "", err
			}
			kv = nil
			for _, f := range [][2]string{{"load", "highestSystemLoad"}, {"cpu", "highestCpuUsage"}, {"qps", "qps"}, {"avg-rt", "avgRt"}, {"max-thread", "maxThread"}} {
				if v := param(st, f[0]); v != "" {
					kv = append(kv, f[1], v)
				}
			}
		case "sentinel-cluster":
			if err := onlyParams(st, map[string]string{"count": "", "threshold": "", "fallback": "", "sample-count": "", "interval": "", "instances": "1", "connected": "1", "rtt": "0s", "timeout": "20ms", "down": "none", "exceed": "1", "max-occupy": "1", "max-qps": "30000", "local-sample-count": "2", "local-interval": "1s", "skew": "0s", "route": "none"}, "the rule file holds clusterConfig; the token server's ServerFlowConfig, the clients and the network are the deployment's (set them with --algo)"); err != nil {
				return "", err
			}
			iv, err := parseDur(st, "interval")
			if err != nil {
				return "", err
			}
			ivms, err := wholeMillis(iv, "windowIntervalMs")
			if err != nil {
				return "", err
			}
			tt := map[string]string{"avg-local": "0", "global": "1"}[param(st, "threshold")]
			fb := map[string]string{"local": "true", "pass": "false"}[param(st, "fallback")]
			if tt == "" || fb == "" {
				return "", fmt.Errorf("threshold=%s, fallback=%s: clusterConfig has thresholdType 0/1 and fallbackToLocalWhenFail", param(st, "threshold"), param(st, "fallback"))
			}
			kv = []string{"resource", res, "limitApp", `"default"`, "grade", "1", "count", param(st, "count"), "strategy", "0", "controlBehavior", "0", "clusterMode", "true",
				"clusterConfig", fmt.Sprintf(`{"flowId": 1, "thresholdType": %s, "fallbackToLocalWhenFail": %s, "sampleCount": %s, "windowIntervalMs": %d}`, tt, fb, param(st, "sample-count"), ivms)}
		case "circuit-breaker":
			if err := onlyParams(st, map[string]string{"strategy": "", "max-rt": "", "threshold": "", "min-requests": "", "stat-interval": "", "recovery": ""}, "a DegradeRule has no such field"); err != nil {
				return "", err
			}
			rec, err := parseDur(st, "recovery")
			if err != nil {
				return "", err
			}
			si, err := parseDur(st, "stat-interval")
			if err != nil {
				return "", err
			}
			sims, err := wholeMillis(si, "statIntervalMs")
			if err != nil {
				return "", err
			}
			recs, err := wholeSecs(rec, "timeWindow")
			if err != nil {
				return "", err
			}
			kv = []string{"resource", res, "limitApp", `"default"`}
			switch param(st, "strategy") {
			case "slow-ratio":
				rt, err := parseDur(st, "max-rt")
				if err != nil {
					return "", err
				}
				ms, err := wholeMillis(rt, "count (the slow response time)")
				if err != nil {
					return "", err
				}
				kv = append(kv, "grade", "0", "count", strconv.FormatInt(ms, 10), "slowRatioThreshold", param(st, "threshold"))
			case "error-ratio":
				kv = append(kv, "grade", "1", "count", param(st, "threshold"))
			case "error-count":
				kv = append(kv, "grade", "2", "count", param(st, "threshold"))
			default:
				return "", fmt.Errorf("strategy=%s is no DegradeRule grade", param(st, "strategy"))
			}
			kv = append(kv, "timeWindow", strconv.FormatInt(recs, 10), "minRequestAmount", param(st, "min-requests"), "statIntervalMs", strconv.FormatInt(sims, 10))
		default:
			return "", fmt.Errorf("Sentinel has no rule for %s", st.Name)
		}
		if st.Name != "circuit-breaker" && st.Name != "sentinel-param" && st.Name != "sentinel-system" && st.Name != "sentinel-cluster" {
			kv = append(kv, "clusterMode", "false")
		}
		var ob bytes.Buffer
		jsonObj(&ob, "  ", kv...)
		objs = append(objs, ob.String())
	}
	return "[\n" + strings.Join(objs, ",\n") + "\n]\n", nil
}

// --- sentinel-golang ----------------------------------------------------------

func emitSentinelGo(name string, stages []labspec.Stage) (string, error) {
	kinds := map[string][]string{}
	var order []string
	add := func(kind string, lines ...string) {
		if _, ok := kinds[kind]; !ok {
			order = append(order, kind)
		}
		item := "  - resource: " + yamlString(name) + "\n"
		for _, l := range lines {
			item += "    " + l + "\n"
		}
		kinds[kind] = append(kinds[kind], item)
	}
	for _, st := range stages {
		if param(st, "flavor") != "go" {
			return "", fmt.Errorf("sentinel-golang's limiters are the flavor=go ones; %s is Sentinel Java's (emit it as sentinel)", st.Name)
		}
		ms := func(key, field string) (string, error) {
			d, err := parseDur(st, key)
			if err != nil {
				return "", err
			}
			n, err := wholeMillis(d, field)
			return strconv.FormatInt(n, 10), err
		}
		switch st.Name {
		case "leap-array", "leaky-bucket", "warm-up", "warm-up-rate-limiter":
			strategy, behavior := "Direct", "Reject"
			if strings.HasPrefix(st.Name, "warm-up") {
				strategy = "WarmUp"
			}
			if st.Name == "leaky-bucket" || st.Name == "warm-up-rate-limiter" {
				behavior = "Throttling"
			}
			iv, err := ms("interval", "statIntervalInMs")
			if err != nil {
				return "", err
			}
			lines := []string{"threshold: " + param(st, "limit"), "tokenCalculateStrategy: " + strategy, "controlBehavior: " + behavior, "statIntervalInMs: " + iv}
			if strategy == "WarmUp" {
				wu, err := parseDur(st, "warm-up")
				if err != nil {
					return "", err
				}
				secs, err := wholeSecs(wu, "warmUpPeriodSec")
				if err != nil {
					return "", err
				}
				lines = append(lines, "warmUpPeriodSec: "+strconv.FormatInt(secs, 10), "warmUpColdFactor: "+param(st, "cold-factor"))
			}
			if behavior == "Throttling" {
				mq, err := ms("max-queue", "maxQueueingTimeMs")
				if err != nil {
					return "", err
				}
				lines = append(lines, "maxQueueingTimeMs: "+mq)
			}
			add("flow", lines...)
		case "concurrency":
			add("isolation", "metricType: Concurrency", "threshold: "+param(st, "limit"))
		case "sentinel-system":
			if len(stages) > 1 {
				return "", fmt.Errorf("system rules apply to every inbound resource; emit them alone")
			}
			strategy := map[string]string{"none": "NoAdaptive", "bbr": "BBR"}[paramOr(st, "strategy", "none")]
			if strategy == "" {
				return "", fmt.Errorf("strategy=%s: sentinel-golang's system strategies are NoAdaptive and BBR", param(st, "strategy"))
			}
			for _, f := range [][2]string{{"load", "Load"}, {"avg-rt", "AvgRT"}, {"max-thread", "Concurrency"}, {"qps", "InboundQPS"}, {"cpu", "CpuUsage"}} {
				v := param(st, f[0])
				if v == "" {
					continue
				}
				kinds["system"] = append(kinds["system"], fmt.Sprintf("  - metricType: %s\n    triggerCount: %s\n    strategy: %s\n", f[1], v, strategy))
				if !slices.Contains(order, "system") {
					order = append(order, "system")
				}
			}
		case "sentinel-param":
			if k := param(st, "key"); k != "key" {
				return "", fmt.Errorf("key=%s: a hotspot rule the lab emits reads argument 0, the key column (key=key)", k)
			}
			d, err := parseDur(st, "duration")
			if err != nil {
				return "", err
			}
			secs, err := wholeSecs(d, "durationInSec")
			if err != nil {
				return "", err
			}
			lines := []string{"metricType: QPS", "paramIndex: 0", "threshold: " + param(st, "count"), "durationInSec: " + strconv.FormatInt(secs, 10), "burstCount: " + paramOr(st, "burst", "0"), "paramsMaxCapacity: " + param(st, "capacity")}
			if param(st, "behavior") == "throttle" {
				mq, err := ms("max-queue", "maxQueueingTimeMs")
				if err != nil {
					return "", err
				}
				lines = append(lines, "controlBehavior: Throttling", "maxQueueingTimeMs: "+mq)
			} else {
				lines = append(lines, "controlBehavior: Reject")
			}
			add("hotspot", lines...)
		default:
			return "", fmt.Errorf("sentinel-golang has no rule for %s", st.Name)
		}
	}
	var b bytes.Buffer
	header(&b, "#", labspec.Spec{Stages: stages}.String(), "")
	for _, k := range order {
		b.WriteString(k + ":\n")
		for _, it := range kinds[k] {
			b.WriteString(it)
		}
	}
	return b.String(), nil
}

// --- Envoy -------------------------------------------------------------------

func envoyFractionYAML(v, indent string) (string, bool) {
	num, den, ok := strings.Cut(v, "/")
	if !ok {
		return "", false
	}
	name := map[string]string{"100": "HUNDRED", "10000": "TEN_THOUSAND", "1000000": "MILLION"}[den]
	if name == "" {
		return "", false
	}
	return fmt.Sprintf("%sdefault_value:\n%s  numerator: %s\n%s  denominator: %s\n", indent, indent, num, indent, name), true
}

func emitEnvoyLocal(name string, stages []labspec.Stage) (string, error) {
	st, err := oneStage(stages, "envoy-local", "Envoy's local_ratelimit filter is one envoy-local token bucket", map[string]string{"max-tokens": "", "tokens-per-fill": "", "fill-interval": "", "mode": "atomic", "phase": "0s", "max-descriptors": "20", "enabled": "", "enforced": ""}, "the filter's file sets the bucket and the enabled/enforced fractions only (mode=timer is Envoy 1.30 and earlier, the rest the lab's own)")
	if err != nil {
		return "", err
	}
	fi, err := parseDur(st, "fill-interval")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	header(&b, "#", st.String(), "An http_filters entry of Envoy's HTTP connection manager.")
	fmt.Fprintf(&b, "name: envoy.filters.http.local_ratelimit\ntyped_config:\n  \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n  stat_prefix: %s\n", yamlString(name))
	fmt.Fprintf(&b, "  token_bucket:\n    max_tokens: %s\n    tokens_per_fill: %s\n    fill_interval: %s\n", param(st, "max-tokens"), param(st, "tokens-per-fill"), protoDuration(fi))
	for _, f := range []struct{ key, field, rt string }{{"enabled", "filter_enabled", "local_rate_limit_enabled"}, {"enforced", "filter_enforced", "local_rate_limit_enforced"}} {
		v := param(st, f.key)
		if v == "" {
			v = "100/100"
		}
		dv, ok := envoyFractionYAML(v, "    ")
		if !ok {
			return "", fmt.Errorf("%s=%s: Envoy's fractions have a denominator of 100, 10000 or 1000000", f.key, v)
		}
		fmt.Fprintf(&b, "  %s:\n    runtime_key: %s\n%s", f.field, f.rt, dv)
	}
	return b.String(), nil
}

func emitEnvoyRatelimit(name string, stages []labspec.Stage) (string, error) {
	st, err := oneStage(stages, "redis-envoy-ratelimit", "envoyproxy/ratelimit's descriptors are redis-envoy-ratelimit", map[string]string{"limit": "", "unit": "", "stop-increment-over-limit": "false", "local-cache": "false", "shadow-mode": "", "instances": "1", "skew": "0s", "rtt": "0s", "clock": "instance", "key": ""}, "the service's settings (STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, LOCAL_CACHE_SIZE_IN_BYTES) and the deployment are not in its config.yaml")
	if err != nil {
		return "", err
	}
	lim := param(st, "limit")
	if _, err := strconv.ParseUint(lim, 10, 32); err != nil {
		return "", fmt.Errorf("limit=%s: requests_per_unit is a whole number (a uint32)", lim)
	}
	var b bytes.Buffer
	header(&b, "#", st.String(), "envoyproxy/ratelimit service configuration.")
	fmt.Fprintf(&b, "domain: %s\ndescriptors:\n", yamlString(name))
	switch k := param(st, "key"); k {
	case "":
		b.WriteString("  - key: generic_key\n    value: " + yamlString(name) + "\n")
	case "ip":
		b.WriteString("  - key: remote_address\n")
	default:
		b.WriteString("  - key: " + yamlString(k) + "\n")
	}
	fmt.Fprintf(&b, "    rate_limit:\n      unit: %s\n      requests_per_unit: %s\n", param(st, "unit"), lim)
	if param(st, "shadow-mode") == "true" {
		b.WriteString("    shadow_mode: true\n")
	}
	return b.String(), nil
}

// oneStage is the one stage a format's rule holds: named name (else
// errors with is), with no parameter outside allowed (onlyParams, why).
func oneStage(stages []labspec.Stage, name, is string, allowed map[string]string, why string) (labspec.Stage, error) {
	if len(stages) != 1 || stages[0].Name != name {
		return labspec.Stage{}, errors.New(is)
	}
	return stages[0], onlyParams(stages[0], allowed, why)
}

// --- Spring Cloud Gateway, Traefik, Kong, resilience4j -----------------------------

func emitSpring(name string, stages []labspec.Stage) (string, error) {
	st, err := oneStage(stages, "redis-spring-gateway", "Spring Cloud Gateway's RequestRateLimiter is redis-spring-gateway", map[string]string{"replenish-rate": "", "burst-capacity": "", "requested-tokens": "", "deny-empty-key": "true", "empty-key-status": "403", "instances": "1", "skew": "0s", "rtt": "0s", "clock": "instance", "key": "key"}, "a route's filter sets the three redis-rate-limiter values, its key resolver reading the key column")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	header(&b, "#", st.String(), "userKeyResolver stands for the KeyResolver bean whose value the trace's key column holds.")
	fmt.Fprintf(&b, `spring:
  cloud:
    gateway:
      routes:
        - id: %s
          uri: http://localhost:8080
          predicates:
            - Path=/**
          filters:
            - name: RequestRateLimiter
              args:
                redis-rate-limiter.replenishRate: %s
                redis-rate-limiter.burstCapacity: %s
                redis-rate-limiter.requestedTokens: %s
                key-resolver: "#{@userKeyResolver}"
`, yamlString(name), param(st, "replenish-rate"), param(st, "burst-capacity"), param(st, "requested-tokens"))
	return b.String(), nil
}

func emitTraefik(name string, stages []labspec.Stage) (string, error) {
	st, err := oneStage(stages, "traefik", "Traefik's rateLimit middleware is the traefik limiter", map[string]string{"average": "", "period": "", "burst": "", "key": ""}, "the middleware sets average, period, burst and its source criterion")
	if err != nil {
		return "", err
	}
	p, err := parseDur(st, "period")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	header(&b, "#", st.String(), "Traefik dynamic configuration.")
	fmt.Fprintf(&b, "http:\n  middlewares:\n    %s:\n      rateLimit:\n        average: %s\n        period: %s\n        burst: %s\n", yamlString(name), param(st, "average"), springDuration(p), param(st, "burst"))
	switch k := param(st, "key"); k {
	case "ip", "":
	default:
		fmt.Fprintf(&b, "        sourceCriterion:\n          requestHeaderName: %s\n", yamlString(k))
	}
	return b.String(), nil
}

func emitKong(name string, stages []labspec.Stage) (string, error) {
	st, err := oneStage(stages, "kong", "Kong's rate-limiting plugin is the kong limiter", map[string]string{"second": "", "minute": "", "hour": "", "day": "", "month": "", "year": "", "policy": "", "sync-rate": "", "key": "", "fallback": ""}, "the plugin's configuration has no such field (instances is the deployment's)")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	header(&b, "#", st.String(), "Kong declarative configuration (decK).")
	fmt.Fprintf(&b, "_format_version: \"3.0\"\nservices:\n  - name: %s\n    url: http://upstream:8080\n    plugins:\n      - name: rate-limiting\n        config:\n", yamlString(name))
	for _, p := range []string{"second", "minute", "hour", "day", "month", "year"} {
		if v := param(st, p); v != "" {
			fmt.Fprintf(&b, "          %s: %s\n", p, v)
		}
	}
	fmt.Fprintf(&b, "          policy: %s\n", param(st, "policy"))
	switch k := param(st, "key"); k {
	case "ip":
		b.WriteString("          limit_by: ip\n")
	case "key":
		b.WriteString("          limit_by: consumer\n")
	case "*":
		b.WriteString("          limit_by: service\n")
	case "":
		return "", fmt.Errorf("a kong spec without key= has no limit_by; give key=ip, key=key, key=* or a header column")
	default:
		fmt.Fprintf(&b, "          limit_by: header\n          header_name: %s\n", yamlString(k))
	}
	if v := param(st, "sync-rate"); v != "" {
		fmt.Fprintf(&b, "          sync_rate: %s\n", v)
	}
	if param(st, "policy") == "redis" {
		b.WriteString("          redis:\n            host: redis\n            port: 6379\n")
	}
	return b.String(), nil
}

func emitResilience4j(name string, stages []labspec.Stage) (string, error) {
	st, err := oneStage(stages, "resilience4j", "resilience4j's RateLimiter is the resilience4j limiter", map[string]string{"limit-for-period": "", "refresh-period": "", "timeout": ""}, "a RateLimiterConfig has limitForPeriod, limitRefreshPeriod and timeoutDuration")
	if err != nil {
		return "", err
	}
	rp, err := parseDur(st, "refresh-period")
	if err != nil {
		return "", err
	}
	to, err := parseDur(st, "timeout")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	header(&b, "#", st.String(), "")
	fmt.Fprintf(&b, "resilience4j:\n  ratelimiter:\n    instances:\n      %s:\n        limitForPeriod: %s\n        limitRefreshPeriod: %s\n        timeoutDuration: %s\n", yamlString(name), param(st, "limit-for-period"), springDuration(rp), springDuration(to))
	return b.String(), nil
}
