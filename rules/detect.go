package rules

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Detection goes by structure first, then by content:
//
//  1. A file whose documents all parse as YAML or JSON objects or lists
//     (JSON after a licence header of //, # or /* */ lines too), or as a
//     TOML document (a .toml file, or one whose first line is a [table]
//     header that is not JSON), is read document by document.
//  2. Each document is told by its apiVersion and kind when it has them
//     (a Kubernetes Ingress is ingress-nginx whatever its annotations
//     hold, a snippet included; a ConfigMap is opened and each data value
//     read as a file of its own; a Service or a Deployment is no rules
//     file and is skipped with a note), then by its top-level keys
//     (flowRules, flow, http.middlewares, domain + descriptors,
//     resilience4j, spring, _format_version, ...), then by the fields of
//     its rule objects.
//  3. Only a file that is none of these is read as an nginx
//     configuration, when its lines hold nginx directives.

// detectDoc names the format of one document, or says why it is skipped
// (skip != ""), or neither when nothing tells.
func detectDoc(root *yaml.Node) (format, skip string) {
	m := mp(root)
	if root.Kind == yaml.MappingNode && m.str("kind") != "" && (m.has("apiVersion") || m.has("metadata")) {
		kind, api := m.str("kind"), m.str("apiVersion")
		group, _, _ := strings.Cut(api, "/")
		switch {
		case kind == "Ingress":
			return "ingress-nginx", ""
		case isTraefikMiddleware(m):
			return "traefik", ""
		case group == "datasource.sentinel.io" && sentinelGoCRDKinds[kind] != "":
			return "sentinel-go", ""
		case kind == "List":
			for _, it := range items(m.get("items")) {
				if f, _ := detectDoc(it); f != "" {
					return f, ""
				}
			}
			return "", "a Kubernetes List with no rules object"
		case bytes.Contains(nodeText(root), []byte("local_ratelimit")) || bytes.Contains(nodeText(root), []byte("LocalRateLimit")):
			return "envoy-local", "" // an Istio EnvoyFilter, or a ConfigMap opened too late
		}
		return "", fmt.Sprintf("a Kubernetes %s (%s), which holds no rules the lab reads", clip(kind), clip(api))
	}
	return detectTree(root), ""
}

// sentinelGoCRDKinds maps the kinds of sentinel-golang's Kubernetes data
// source (pkg/datasource/k8s/api/v1alpha1, group datasource.sentinel.io) to
// the rule kind of their spec.rules.
var sentinelGoCRDKinds = map[string]string{
	"FlowRules": "flow", "IsolationRules": "isolation", "SystemRules": "system",
	"HotspotRules": "hotspot", "CircuitBreakerRules": "circuitbreaker",
}

// isStructured is true when every document is an object or a list (not a
// scalar: an nginx.conf can parse as one long YAML string).
func isStructured(docs []*yaml.Node) bool {
	for _, d := range docs {
		if d.Kind != yaml.MappingNode && d.Kind != yaml.SequenceNode {
			return false
		}
	}
	return len(docs) > 0
}

// looksNginx is true for text with nginx directives and not a YAML/JSON
// document.
func looksNginx(b []byte) bool {
	if len(b) == 0 || b[0] == '{' || b[0] == '[' {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.TrimSuffix(f[0], ";") {
		case "limit_req_zone", "limit_req", "http", "server", "location", "include", "events", "worker_processes", "limit_req_status", "limit_req_dry_run", "user", "pid", "error_log", "limit_conn_zone", "limit_conn", "upstream", "map":
			if !strings.HasSuffix(f[0], ":") {
				return true
			}
		}
	}
	return false
}

// tomlHeader matches a TOML table header line: [a.b] or [[a.b]].
var tomlHeader = regexp.MustCompile(`^\s*\[\[?\s*[A-Za-z0-9_"'.\- ]+\]\]?\s*(#.*)?$`)

// looksTOML is true for a .toml file, or text whose first line that is
// not a comment is a TOML table header or a key = value pair.
func looksTOML(name string, b []byte) bool {
	if strings.EqualFold(filepath.Ext(name), ".toml") {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if tomlHeader.MatchString(t) {
			return true
		}
		k, v, ok := strings.Cut(t, "=")
		return ok && k != "" && !strings.ContainsAny(k, ":{[") && strings.TrimSpace(v) != "" && !strings.HasSuffix(t, ";")
	}
	return false
}

// blankCommentHeader returns data with a leading header of comment lines
// (// …, # …, /* … */) blanked out, newlines kept so lines still count,
// when JSON ({ or [) follows it; else data unchanged.
func blankCommentHeader(data []byte) []byte {
	out := append([]byte(nil), data...)
	i := 0
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
	}
	changed := false
	for i < len(out) {
		switch c := out[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case bytes.HasPrefix(out[i:], []byte("\ufeff")):
			blank(i, i+3)
			i += 3
		case c == '#' || bytes.HasPrefix(out[i:], []byte("//")):
			end := bytes.IndexByte(out[i:], '\n')
			if end < 0 {
				end = len(out) - i
			}
			blank(i, i+end)
			i += end
			changed = true
		case bytes.HasPrefix(out[i:], []byte("/*")):
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return data
			}
			blank(i, i+2+end+2)
			i += 2 + end + 2
			changed = true
		case c == '{' || c == '[':
			if changed {
				return out
			}
			return data
		default:
			return data
		}
	}
	return data
}
