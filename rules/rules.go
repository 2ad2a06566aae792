// Package rules reads the rate-limiting rules users already run (Sentinel
// rule JSON, sentinel-golang rules, nginx limit_req, ingress-nginx
// annotations, Envoy's local_ratelimit filter and envoyproxy/ratelimit's
// configuration, Spring Cloud Gateway, Traefik, Kong and resilience4j) and
// turns each into the lab spec that makes the same decisions.
//
// A translation is a plain spec string (or a chain A+B+…), so a run with
// --rules is, by construction, the run with those specs: `rules explain`
// prints them for a user to edit. Every field a translation does not
// honour is reported as a Note with the reason, never dropped silently;
// a value the reference itself would refuse (a negative count, a zone used
// but never defined) is an error naming file:line and the field.
package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Rule is one row a rules file becomes.
type Rule struct {
	// Name labels the row: the resource, zone, location or route.
	Name string
	// Format is the format the rule was read as (see Formats).
	Format string
	// Source is FILE:LINE of the rule (the first, for a merged row).
	Source string
	// What says which rules of the file the row stands for, in the
	// reference's words ("FlowRule grade=QPS controlBehavior=0").
	What string
	// Spec is the lab spec (or chain) that decides as the rule does.
	Spec string
	// Notes lists each field that is ignored or cannot be honoured, with
	// the reason.
	Notes []string
	// KeyColumns are the trace columns the spec reads (key=NAME).
	KeyColumns []string
	// NeedsResponses is set when the spec needs response times in the
	// trace (a thread count, a circuit breaker, a system rule on RT).
	NeedsResponses bool
	// DryRun is set when the reference lets every request through and
	// only accounts (nginx limit_req_dry_run on, an Envoy filter that is
	// not enforced): the row shows what it would reject. Such a rule
	// never shares a row with an enforcing one.
	DryRun bool
	// Outcome is what the lab does with the rule: Translated (the
	// default, "") runs it as Spec; Inactive is a rule the product
	// accepts but does not apply (a disabled Kong plugin, a Traefik
	// average of 0, which Traefik reads as no limit): it has no row;
	// NotSimulated is a rule the product applies that the lab does not
	// simulate (it has no row either). Why says why, in the product's
	// words, for both.
	Outcome Outcome
	// Why says why an Inactive or NotSimulated rule has no row.
	Why string
	// Scope is where the rule applies in the product: "" or "global",
	// or "service NAME", "route NAME", "consumer NAME" (Kong), a
	// resource or route name (others).
	Scope string
}

// Outcome is what becomes of a rule in a run.
type Outcome string

const (
	// Translated rules run as their Spec.
	Translated Outcome = ""
	// Inactive rules are accepted by the product but limit nothing there
	// (disabled, or a value the product reads as no limit).
	Inactive Outcome = "inactive"
	// NotSimulated rules limit in the product, but the lab does not
	// simulate them; Why says what the lab does instead.
	NotSimulated Outcome = "not simulated"
)

// Active reports whether the rule has a row in a run.
func (r Rule) Active() bool { return r.Outcome == Translated }

// Formats lists the formats Load understands, for --rules-format.
var Formats = []string{
	"sentinel", "sentinel-go", "nginx", "ingress-nginx", "envoy-local",
	"envoy-ratelimit", "spring", "traefik", "kong", "resilience4j",
}

// Load reads the rules file at path. format is "" or "auto" to detect it
// from the content, else one of Formats.
func Load(path, format string) ([]Rule, error) {
	data, err := readRulesFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the rules file (%s); check the path", path, oneLine(err))
	}
	return Parse(path, data, format)
}

// Parse reads rules from data; name is the file's path, used in errors and
// to resolve nginx includes.
func Parse(name string, data []byte, format string) ([]Rule, error) {
	format = strings.ToLower(strings.TrimSpace(format))
	if format == "" || format == "auto" {
		f, err := Detect(name, data)
		if err != nil {
			return nil, err
		}
		format = f
	} else if !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("--rules-format %q is unknown; use auto or one of %s", format, strings.Join(Formats, ", "))
	}
	var (
		rules []Rule
		err   error
	)
	if format == "nginx" {
		rules, err = parseNginx(name, data)
	} else {
		var all []*yaml.Node
		all, err = parseDocs(name, data)
		if err != nil {
			return nil, err
		}
		root := all[0]
		if format == "spring" || format == "resilience4j" {
			root = springView(root) // Spring Boot's dotted and relaxed keys
		}
		d := &doc{file: name, all: all}
		switch format {
		case "sentinel":
			rules, err = d.sentinelJava(root)
		case "sentinel-go":
			rules, err = d.sentinelGo(root)
		case "ingress-nginx":
			rules, err = d.ingress(root)
		case "envoy-local":
			rules, err = d.envoyLocal(root)
		case "envoy-ratelimit":
			rules, err = d.envoyRatelimit(root)
		case "spring":
			rules, err = d.spring(root)
		case "traefik":
			rules, err = d.traefik(root)
		case "kong":
			rules, err = d.kong(root)
		case "resilience4j":
			rules, err = d.resilience4j(root)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s: no rate-limiting rule found in this %s file, where the lab reads %s; check that it is the right file, or name its format with --rules-format", name, format, formatReads[format])
	}
	for i := range rules {
		rules[i].Format = format
	}
	return rules, nil
}

// formatReads says where each format's rules are, for the error when a
// file has none.
var formatReads = map[string]string{
	"sentinel":        "FlowRule, DegradeRule, ParamFlowRule and SystemRule objects (a list or {\"flowRules\": [...], ...})",
	"sentinel-go":     "flow, isolation, hotspot, circuitbreaker and system rules",
	"nginx":           "limit_req and limit_conn in http, server and location blocks (with the limit_req_zone or limit_conn_zone each names)",
	"ingress-nginx":   "an Ingress's nginx.ingress.kubernetes.io/limit-rps, limit-rpm and limit-connections annotations",
	"envoy-local":     "a local_ratelimit filter's token_bucket and descriptors",
	"envoy-ratelimit": "descriptors with a rate_limit",
	"spring":          "RequestRateLimiter filters under spring.cloud.gateway routes and default-filters, and resilience4j.ratelimiter.instances",
	"traefik":         "rateLimit middlewares (http.middlewares.NAME.rateLimit, or a Middleware's spec.rateLimit)",
	"kong":            "rate-limiting plugins (top level, or under services and routes)",
	"resilience4j":    "resilience4j.ratelimiter.instances (dotted keys such as resilience4j.ratelimiter.instances.NAME.limit-for-period too)",
}

// Detect names the format of a rules file from its content.
func Detect(name string, data []byte) (string, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(trimmed) == 0 {
		return "", fmt.Errorf("%s: the rules file is empty; give a Sentinel rule JSON, an nginx.conf or a gateway's YAML", name)
	}
	if looksNginx(trimmed) {
		return "nginx", nil
	}
	all, err := parseDocs(name, data)
	if err != nil {
		return "", err
	}
	for _, root := range all {
		if f := detectTree(root); f != "" {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: cannot tell which kind of rules file this is; give --rules-format, one of %s", name, strings.Join(Formats, ", "))
}

// looksNginx is true for text with nginx directives and not a YAML/JSON
// document.
func looksNginx(b []byte) bool {
	if b[0] == '{' || b[0] == '[' {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.TrimSuffix(f[0], ";") {
		case "limit_req_zone", "limit_req", "http", "server", "location", "include", "events", "worker_processes", "limit_req_status", "limit_req_dry_run", "user", "pid", "error_log",
			"limit_conn_zone", "limit_conn", "limit_conn_status", "limit_conn_dry_run", "stream":
			if !strings.HasSuffix(f[0], ":") {
				return true
			}
		}
	}
	return false
}

func detectTree(root *yaml.Node) string {
	switch root.Kind {
	case yaml.SequenceNode:
		for _, it := range root.Content {
			if f := detectRuleObject(it); f != "" {
				return f
			}
		}
		return ""
	case yaml.MappingNode:
	default:
		return ""
	}
	m := mp(root)
	switch {
	case m.has("flowRules") || m.has("degradeRules") || m.has("paramFlowRules") || m.has("systemRules"):
		return "sentinel"
	case m.has("flow") || m.has("isolation") || m.has("hotspot") || m.has("circuitbreaker") || m.has("circuitBreaker") || m.has("system"):
		if m.has("flowRules") {
			return "sentinel"
		}
		return "sentinel-go"
	case m.str("kind") == "Ingress":
		return "ingress-nginx"
	case m.has("domain") && m.has("descriptors"):
		return "envoy-ratelimit"
	case hasTopKey(m, "resilience4j"):
		return "resilience4j"
	case hasTopKey(m, "spring"):
		return "spring"
	case m.has("http") && mp(m.get("http")).has("middlewares"), isTraefikMiddleware(m):
		return "traefik"
	case m.has("_format_version") || ((m.has("services") || m.has("routes") || m.has("plugins")) && bytes.Contains(nodeText(root), []byte("rate-limiting"))):
		return "kong"
	case bytes.Contains(nodeText(root), []byte("local_ratelimit")) || bytes.Contains(nodeText(root), []byte("LocalRateLimit")) || m.has("token_bucket"):
		return "envoy-local"
	}
	if f := detectRuleObject(root); f != "" {
		return f
	}
	return ""
}

// isTraefikMiddleware is true for a Kubernetes Middleware resource of
// Traefik's CRDs (traefik.io/v1alpha1, or traefik.containo.us/v1alpha1
// before Traefik 3).
func isTraefikMiddleware(m mapping) bool {
	api, _, _ := strings.Cut(m.str("apiVersion"), "/")
	return m.str("kind") == "Middleware" && (api == "traefik.io" || api == "traefik.containo.us")
}

// detectRuleObject tells a lone Sentinel rule (Java or Go) by its fields.
func detectRuleObject(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	m := mp(n)
	for _, k := range []string{"grade", "controlBehavior", "paramIdx", "highestSystemLoad", "highestCpuUsage", "timeWindow", "count", "limitApp"} {
		if m.has(k) && !m.has("threshold") {
			return "sentinel"
		}
	}
	for _, k := range []string{"threshold", "tokenCalculateStrategy", "metricType", "paramIndex", "triggerCount", "retryTimeoutMs"} {
		if m.has(k) {
			return "sentinel-go"
		}
	}
	return ""
}

// nodeText renders a node back to YAML, for content sniffing.
func nodeText(n *yaml.Node) []byte {
	b, _ := yaml.Marshal(n)
	return b
}

// parseDocs parses JSON or YAML (every document of a multi-document YAML
// file) into node trees with line numbers. JSON is checked with
// encoding/json first so that its syntax errors name the line where the
// JSON breaks.
func parseDocs(name string, data []byte) ([]*yaml.Node, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		var v any
		if err := json.Unmarshal(trimmed, &v); err != nil {
			off := int64(0)
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &se):
				off = se.Offset
			case errors.As(err, &te):
				off = te.Offset
			}
			lead := len(data) - len(bytes.TrimLeft(data, " \t\r\n\ufeff"))
			line := 1 + bytes.Count(data[:min(int(off)+lead, len(data))], []byte("\n"))
			return nil, fmt.Errorf("%s:%d: the JSON does not parse (%s); fix the syntax there", name, line, oneLine(err))
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			msg := strings.TrimPrefix(oneLine(err), "yaml: ")
			line := 0
			if _, rest, ok := strings.Cut(msg, "line "); ok {
				fmt.Sscanf(rest, "%d", &line)
			}
			if line > 0 {
				return nil, fmt.Errorf("%s:%d: the YAML does not parse (%s); fix the syntax there", name, line, msg)
			}
			return nil, fmt.Errorf("%s: the YAML does not parse (%s); fix the syntax", name, msg)
		}
		if len(doc.Content) > 0 {
			docs = append(docs, doc.Content[0])
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: the rules file is empty; give a Sentinel rule JSON, an nginx.conf or a gateway's YAML", name)
	}
	return docs, nil
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// doc carries the file name while a tree is translated.
type doc struct {
	file string
	all  []*yaml.Node // every document of a multi-document file
}

// errAt is a one-line error at n's line naming the field.
func (d *doc) errAt(n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	if line > 0 {
		return fmt.Errorf("%s:%d: %s", d.file, line, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s", d.file, fmt.Sprintf(format, args...))
}

func (d *doc) pos(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d", filepath.ToSlash(d.file), n.Line)
}

// mapping reads fields of a YAML/JSON object.
type mapping struct{ n *yaml.Node }

// get returns the value node of key (nil when absent or n is no mapping).
func (m mapping) get(key string) *yaml.Node {
	if m.n == nil || m.n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		if m.n.Content[i].Value == key {
			v := m.n.Content[i+1]
			if v.Kind == yaml.AliasNode {
				return v.Alias
			}
			return v
		}
	}
	return nil
}

// keyNode returns the key node of key, for its line.
func (m mapping) keyNode(key string) *yaml.Node {
	if m.n == nil || m.n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		if m.n.Content[i].Value == key {
			return m.n.Content[i]
		}
	}
	return nil
}

func (m mapping) has(key string) bool { return m.get(key) != nil }

func (m mapping) str(key string) string {
	v := m.get(key)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// keys returns the mapping's keys in order.
func (m mapping) keys() []string {
	if m.n == nil || m.n.Kind != yaml.MappingNode {
		return nil
	}
	var ks []string
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		ks = append(ks, m.n.Content[i].Value)
	}
	return ks
}

// path follows keys down nested mappings; nil if any is missing.
func (m mapping) path(keys ...string) *yaml.Node {
	n := m.n
	for _, k := range keys {
		n = mp(n).get(k)
		if n == nil {
			return nil
		}
	}
	return n
}

// items returns a sequence's items (nil for anything else).
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// sortedKeys returns a map's keys, sorted, for stable output.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func mp(n *yaml.Node) mapping { return mapping{n} }

// maxRulesFile bounds a rules file (and each nginx include).
const maxRulesFile = 16 << 20

// readRulesFile reads a regular file of at most maxRulesFile bytes, so an
// include of a device or a huge file fails at once.
func readRulesFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxRulesFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxRulesFile>>20)
	}
	return os.ReadFile(path)
}
