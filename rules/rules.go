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
// to resolve nginx includes. Each document of a multi-document file is
// read by its own format (format "" or "auto"; see detect.go), and the
// rules of every document come back together, each with its Format; a
// document that holds no rules (a Service, a Deployment) is skipped with
// a note on the file's first rule naming its file:line and kind.
func Parse(name string, data []byte, format string) ([]Rule, error) {
	format = strings.ToLower(strings.TrimSpace(format))
	auto := format == "" || format == "auto"
	if !auto && !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("--rules-format %q is unknown; use auto or one of %s", format, strings.Join(Formats, ", "))
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: the rules file is empty; give a Sentinel rule JSON, an nginx.conf or a gateway's YAML", name)
	}
	if format == "nginx" {
		return finish(name, "nginx", func() ([]Rule, error) { return parseNginx(name, data) })
	}
	docs, err := parseDocs(name, data)
	if auto && (err != nil || !isStructured(docs)) && looksNginx(trimmed) {
		return finish(name, "nginx", func() ([]Rule, error) { return parseNginx(name, data) })
	}
	if err != nil {
		return nil, err
	}
	docs, skipped, err := expandContainers(name, docs)
	if err != nil {
		return nil, err
	}
	var (
		out     []Rule
		formats []string
		sentJ   []*yaml.Node // Sentinel documents, read together so that a
		sentG   []*yaml.Node // resource's rules of several documents chain
	)
	for _, root := range docs {
		f := format
		if auto {
			var skip string
			f, skip = detectDoc(root)
			if skip != "" {
				skipped = append(skipped, fmt.Sprintf("%s:%d: skipped, %s", filepath.ToSlash(name), root.Line, skip))
				continue
			}
			if f == "" {
				if len(docs) == 1 {
					return nil, fmt.Errorf("%s: cannot tell which kind of rules file this is; give --rules-format, one of %s", name, strings.Join(Formats, ", "))
				}
				skipped = append(skipped, fmt.Sprintf("%s:%d: skipped, a document with no rules the lab reads (give --rules-format to read every document as one format)", filepath.ToSlash(name), root.Line))
				continue
			}
		}
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
		switch f {
		case "sentinel":
			sentJ = append(sentJ, root)
			continue
		case "sentinel-go":
			sentG = append(sentG, root)
			continue
		}
		rs, err := readDoc(name, f, root)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	if len(sentJ) > 0 {
		d := &doc{file: name}
		rs, err := d.sentinelJavaDocs(sentJ)
		if err != nil {
			return nil, err
		}
		out = append(out, setFormat(rs, "sentinel")...)
	}
	if len(sentG) > 0 {
		d := &doc{file: name}
		rs, err := d.sentinelGoDocs(sentG)
		if err != nil {
			return nil, err
		}
		out = append(out, setFormat(rs, "sentinel-go")...)
	}
	if len(out) == 0 {
		if len(formats) == 0 {
			return nil, fmt.Errorf("%s: no rate-limiting rule found: every document was skipped (%s); check that it is the right file, or name its format with --rules-format", name, strings.Join(skipped, "; "))
		}
		return nil, fmt.Errorf("%s: no rate-limiting rule found in this %s file, where the lab reads %s; check that it is the right file, or name its format with --rules-format", name, strings.Join(formats, "/"), formatReads[formats[0]])
	}
	if len(skipped) > 0 {
		out[0].Notes = append(out[0].Notes, skipped...)
	}
	return out, nil
}

// readDoc reads one document of a format other than nginx and Sentinel's.
func readDoc(name, format string, root *yaml.Node) ([]Rule, error) {
	if format == "spring" || format == "resilience4j" {
		root = springView(root) // Spring Boot's dotted and relaxed keys
	}
	d := &doc{file: name, all: []*yaml.Node{root}}
	var (
		rules []Rule
		err   error
	)
	switch format {
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
	return setFormat(rules, format), err
}

func setFormat(rules []Rule, format string) []Rule {
	for i := range rules {
		rules[i].Format = format
	}
	return rules
}

// finish runs a whole-file reader and checks it found rules.
func finish(name, format string, read func() ([]Rule, error)) ([]Rule, error) {
	rules, err := read()
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s: no rate-limiting rule found in this %s file, where the lab reads %s; check that it is the right file, or name its format with --rules-format", name, format, formatReads[format])
	}
	return setFormat(rules, format), nil
}

// formatReads says where each format's rules are, for the error when a
// file has none.
var formatReads = map[string]string{
	"sentinel":        "FlowRule, DegradeRule, ParamFlowRule, SystemRule and GatewayFlowRule objects, or the dashboard's rule entities (a list or {\"flowRules\": [...], ...})",
	"sentinel-go":     "flow, isolation, hotspot, circuitbreaker and system rules (a list, a map of kinds, or the datasource.sentinel.io CRDs' spec.rules)",
	"nginx":           "limit_req and limit_conn in http, server and location blocks (with the limit_req_zone or limit_conn_zone each names)",
	"ingress-nginx":   "an Ingress's nginx.ingress.kubernetes.io/limit-rps, limit-rpm and limit-connections annotations",
	"envoy-local":     "a local_ratelimit filter's token_bucket and descriptors",
	"envoy-ratelimit": "descriptors with a rate_limit (a ConfigMap's data keys are read as files too)",
	"spring":          "RequestRateLimiter filters under spring.cloud.gateway routes and default-filters, and resilience4j.ratelimiter.instances",
	"traefik":         "rateLimit middlewares (http.middlewares.NAME.rateLimit in YAML or TOML, or a Middleware's spec.rateLimit)",
	"kong":            "rate-limiting plugins (top level, or under services, routes and consumers; _plugin_configs)",
	"resilience4j":    "resilience4j.ratelimiter.instances or its alias limiters (dotted keys such as resilience4j.ratelimiter.instances.NAME.limit-for-period too)",
}

// Detect names the format of a rules file from its content: the format of
// its first document that holds rules (see detect.go).
func Detect(name string, data []byte) (string, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(trimmed) == 0 {
		return "", fmt.Errorf("%s: the rules file is empty; give a Sentinel rule JSON, an nginx.conf or a gateway's YAML", name)
	}
	all, err := parseDocs(name, data)
	if (err != nil || !isStructured(all)) && looksNginx(trimmed) {
		return "nginx", nil
	}
	if err != nil {
		return "", err
	}
	all, _, err = expandContainers(name, all)
	if err != nil {
		return "", err
	}
	for _, root := range all {
		if f, _ := detectDoc(root); f != "" {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: cannot tell which kind of rules file this is; give --rules-format, one of %s", name, strings.Join(Formats, ", "))
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

// detectRuleObject tells a lone Sentinel rule (Java or Go) by its fields:
// sentinel-golang's by fields only its structs have, in any case (its
// data sources read JSON with encoding/json, which matches a field's name
// case-insensitively); Sentinel's by FlowRule, DegradeRule, ParamFlowRule,
// SystemRule and GatewayFlowRule fields, or a dashboard entity's nested
// rule (ParamFlowRuleEntity, AuthorityRuleEntity).
func detectRuleObject(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	m := mp(n)
	for _, k := range []string{"threshold", "tokenCalculateStrategy", "metricType", "paramIndex", "triggerCount", "retryTimeoutMs"} {
		if hasFold(m, k) {
			return "sentinel-go"
		}
	}
	if inner := m.get("rule"); inner != nil && inner.Kind == yaml.MappingNode {
		return detectRuleObject(inner)
	}
	for _, k := range []string{"grade", "controlBehavior", "paramIdx", "highestSystemLoad", "highestCpuUsage", "timeWindow", "count", "limitApp", "resourceMode", "intervalSec", "paramItem"} {
		if m.has(k) {
			return "sentinel"
		}
	}
	return ""
}

// hasFold is true when m has key in any case, as encoding/json matches.
func hasFold(m mapping, key string) bool {
	for _, k := range m.keys() {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// nodeText renders a node back to YAML, for content sniffing.
func nodeText(n *yaml.Node) []byte {
	b, _ := yaml.Marshal(n)
	return b
}

// parseDocs parses JSON, TOML or YAML (every document of a multi-document
// YAML file) into node trees with line numbers. JSON is checked with
// encoding/json first so that its syntax errors name the line where the
// JSON breaks; a header of comment lines before it (// …, # …, /* … */,
// a licence) is read as blank lines. TOML is read when looksTOML says so
// and the text is not JSON.
func parseDocs(name string, data []byte) ([]*yaml.Node, error) {
	data = blankCommentHeader(data)
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		var v any
		if err := json.Unmarshal(trimmed, &v); err != nil {
			if trimmed[0] == '[' && looksTOML(name, data) {
				root, terr := parseTOML(name, data)
				if terr != nil {
					return nil, terr
				}
				return []*yaml.Node{root}, nil
			}
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
	} else if looksTOML(name, data) {
		root, err := parseTOML(name, data)
		if err != nil {
			return nil, err
		}
		return []*yaml.Node{root}, nil
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
	// crd holds the sentinel-golang rules read from its Kubernetes CRDs,
	// whose controllers convert string enums and scale some thresholds.
	crd map[*yaml.Node]bool
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
