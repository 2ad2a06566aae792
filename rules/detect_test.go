package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetectStructureFirst: apiVersion/kind, top-level keys and TOML
// tables decide before the lines' content; nginx only when nothing
// structured holds.
func TestDetectStructureFirst(t *testing.T) {
	const ingress = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: a\n  annotations:\n    nginx.ingress.kubernetes.io/limit-rps: \"5\"\n    nginx.ingress.kubernetes.io/server-snippet: |\n      location /x {\n        limit_req zone=z;\n      }\n"
	for _, c := range []struct{ name, file, body, want string }{
		{"ingress with a server-snippet", "ing.yaml", ingress, "ingress-nginx"},
		{"ingress with a configuration-snippet", "ing.yaml", strings.Replace(ingress, "server-snippet", "configuration-snippet", 1), "ingress-nginx"},
		{"JSON after // lines", "r.json", "// pushed by the dashboard\n// do not edit\n[{\"resource\": \"a\", \"count\": 5}]\n", "sentinel"},
		{"JSON after # lines", "r.json", "# licence\n{\"flowRules\": [{\"resource\": \"a\", \"count\": 5}]}\n", "sentinel"},
		{"JSON after a /* */ block", "r.json", "/*\n * Licensed under the Apache License\n */\n[{\"resource\": \"a\", \"threshold\": 5}]\n", "sentinel-go"},
		{"TOML tables", "dyn.conf", "[http.middlewares.m.rateLimit]\naverage = 5\n", "traefik"},
		{"TOML after a comment", "dyn.toml", "# traefik\n[http.middlewares]\n  [http.middlewares.m.rateLimit]\n    average = 5\n", "traefik"},
		{"sentinel-golang CRD", "crd.yaml", "apiVersion: datasource.sentinel.io/v1alpha1\nkind: FlowRules\nmetadata:\n  name: f\nspec:\n  rules:\n    - resource: a\n      threshold: 5\n", "sentinel-go"},
		{"ConfigMap of envoyproxy/ratelimit", "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  config.yaml: |\n    domain: d\n    descriptors:\n      - key: k\n        rate_limit: {unit: second, requests_per_unit: 5}\n", "envoy-ratelimit"},
		{"a Service then rules", "m.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n---\nhttp:\n  middlewares:\n    m:\n      rateLimit: {average: 5}\n", "traefik"},
		{"capitalised sentinel-golang JSON", "r.json", "[{\"Resource\": \"a\", \"Threshold\": 5}]", "sentinel-go"},
		{"dashboard ParamFlowRuleEntity", "p.json", "[{\"app\": \"x\", \"rule\": {\"resource\": \"a\", \"paramIdx\": 0, \"count\": 5}}]", "sentinel"},
		{"nginx.conf", "nginx.conf", "http {\n  limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n  server {\n    limit_req zone=one;\n  }\n}\n", "nginx"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Detect(c.file, []byte(c.body))
			if err != nil || got != c.want {
				t.Fatalf("Detect = %q, %v; want %q", got, err, c.want)
			}
			rules, err := Parse(c.file, []byte(c.body), "")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if rules[0].Format != c.want {
				t.Errorf("rule format %q, want %q", rules[0].Format, c.want)
			}
		})
	}
}

// A multi-document file reads each document by its own format, keeps
// every document's rules, and notes each skipped document at its line
// with its kind; a file of nothing but skipped documents is one line
// naming them.
func TestMultiDocumentFormats(t *testing.T) {
	body := "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n---\n" +
		"apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata:\n  name: mw\nspec:\n  rateLimit:\n    average: 10\n---\n" +
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing\n  annotations:\n    nginx.ingress.kubernetes.io/limit-rps: \"4\"\n"
	rules, err := Parse("m.yaml", []byte(body), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Format != "traefik" || rules[1].Format != "ingress-nginx" {
		t.Fatalf("rules = %+v", rules)
	}
	if !strings.Contains(strings.Join(rules[0].Notes, "|"), "m.yaml:1: skipped, a Kubernetes Service (v1)") {
		t.Errorf("no skip note: %q", rules[0].Notes)
	}
	_, err = Parse("m.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"), "")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "m.yaml:6: skipped, a Kubernetes Deployment") {
		t.Fatalf("err = %v", err)
	}
}

// A ConfigMap's data keys are files: each is read by its own format, its
// rules at the outer file's lines, its syntax errors too.
func TestConfigMapKeys(t *testing.T) {
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n" +
		"  a.yaml: |\n    domain: a\n    descriptors:\n      - key: k\n        rate_limit: {unit: second, requests_per_unit: 5}\n" +
		"  b.yaml: |\n    http:\n      middlewares:\n        m:\n          rateLimit: {average: 3}\n" +
		"  settings.env: \"LOG_LEVEL=debug\"\n"
	rules, err := Parse("cm.yaml", []byte(body), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Source != "cm.yaml:10" || rules[0].Format != "envoy-ratelimit" || rules[1].Format != "traefik" || rules[1].Source != "cm.yaml:15" {
		t.Fatalf("rules = %+v", rules)
	}
	if !strings.Contains(strings.Join(rules[0].Notes, "|"), `cm.yaml:16: ConfigMap data key "settings.env" skipped`) {
		t.Errorf("notes %q", rules[0].Notes)
	}
	bad := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  config.yaml: |\n    domain: a\n    descriptors: [\n"
	if _, err := Parse("cm.yaml", []byte(bad), ""); err == nil || !strings.HasPrefix(err.Error(), "cm.yaml:") || !strings.Contains(err.Error(), `ConfigMap data key "config.yaml"`) {
		t.Fatalf("err = %v", err)
	}
}

// A JSON file after a licence header still names the line where its JSON
// breaks, never "the YAML does not parse".
func TestJSONAfterHeaderErrorLine(t *testing.T) {
	body := "/*\n * Licence\n */\n[\n  {\"resource\": \"a\", \"count\": 5,}\n]\n"
	_, err := Parse("r.json", []byte(body), "")
	if err == nil || !strings.HasPrefix(err.Error(), "r.json:5: the JSON does not parse") {
		t.Fatalf("err = %v", err)
	}
}

// TOML errors name the line.
func TestTOMLErrorLine(t *testing.T) {
	_, err := Parse("d.toml", []byte("[http.middlewares.m.rateLimit]\naverage = = 5\n"), "")
	if err == nil || !strings.HasPrefix(err.Error(), "d.toml:2: the TOML does not parse") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

// resilience4j's limiters: is the alias of instances: (its
// CommonRateLimiterConfigurationProperties.getLimiters returns the
// instances map), merged with it.
func TestResilience4jLimitersAlias(t *testing.T) {
	body := "resilience4j:\n  ratelimiter:\n    instances:\n      a:\n        limitForPeriod: 5\n    limiters:\n      b:\n        limitForPeriod: 7\n"
	rules, err := Parse("app.yml", []byte(body), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Name != "a" || rules[1].Name != "b" || !strings.Contains(rules[1].Spec, "limit-for-period=7") {
		t.Fatalf("rules = %+v", rules)
	}
}

func FuzzDetect(f *testing.F) {
	for _, dir := range []string{"../examples/rules/*", "testdata/real/*"} {
		files, _ := filepath.Glob(dir)
		for _, p := range files {
			if strings.HasSuffix(p, ".golden") {
				continue
			}
			if b, err := os.ReadFile(p); err == nil {
				f.Add(filepath.Base(p), b)
			}
		}
	}
	f.Add("x.json", []byte("// c\n/* d */\n{\"flowRules\": []}"))
	f.Add("x.toml", []byte("[a]\nb = 1\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		got, err := Detect(name, data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		found := false
		for _, f := range Formats {
			found = found || f == got
		}
		if !found {
			t.Fatalf("Detect = %q, not a format", got)
		}
	})
}

func FuzzParseTOML(f *testing.F) {
	files, _ := filepath.Glob("testdata/real/*.toml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a.b = 1\n[[c]]\nd = \"e\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := parseTOML("f.toml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if root == nil {
			t.Fatal("nil tree without an error")
		}
	})
}

func FuzzBlankCommentHeader(f *testing.F) {
	f.Add([]byte("/* a */\n// b\n# c\n[1]"))
	f.Add([]byte("/* open"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := blankCommentHeader(data)
		if len(out) != len(data) || strings.Count(string(out), "\n") != strings.Count(string(data), "\n") {
			t.Fatalf("length or lines changed: %q -> %q", data, out)
		}
	})
}
