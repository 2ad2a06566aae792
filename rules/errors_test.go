package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFiles: each malformed file is one line naming file:line and the
// field or directive, and the fix.
func TestBadFiles(t *testing.T) {
	cases := []struct {
		name, file, content string
		want                []string
	}{
		{"bad JSON", "r.json", "[\n  {\"resource\": \"a\", \"count\": 10,}\n]\n", []string{"r.json:2:", "JSON does not parse"}},
		{"bad YAML", "r.yaml", "flow:\n  - resource: a\n   threshold: [1\n", []string{"r.yaml:", "YAML does not parse"}},
		{"count not a number", "r.json", "[{\"resource\": \"a\", \"count\": \"ten\"}]", []string{"count", "not a number"}},
		{"unknown kind", "r.json", `{"flowRules": [], "authorityRules": []}`, []string{"authorityRules", "not a kind"}},
		{"nginx zone undefined", "nginx.conf", "http {\n  server {\n    location / {\n      limit_req zone=nope burst=5;\n    }\n  }\n}\n", []string{"nginx.conf:4:", "no limit_req_zone defines \"nope\""}},
		{"nginx bad argument", "nginx.conf", "limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\nserver { location / { limit_req zone=one burts=5; } }\n", []string{"nginx.conf:2:", "invalid parameter \"burts=5\""}},
		{"nginx bad rate", "nginx.conf", "limit_req_zone $binary_remote_addr zone=one:10m rate=10r/h;\n", []string{"nginx.conf:1:", "Nr/s or Nr/m"}},
		{"nginx missing semicolon", "nginx.conf", "http {\n limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s\n}\n", []string{"nginx.conf:", "no ';'"}},
		{"nginx unclosed block", "nginx.conf", "http {\n server {\n", []string{"nginx.conf:", "not closed"}},
		{"nginx missing include", "nginx.conf", "http { include missing.conf; }\n", []string{"nginx.conf:1:", "missing.conf", "cannot be read"}},
		{"nginx duplicate zone", "nginx.conf", "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\nlimit_req_zone $binary_remote_addr zone=one:1m rate=2r/s;\n", []string{"nginx.conf:2:", "defined twice"}},
		{"ingress negative", "ing.yaml", "kind: Ingress\nmetadata:\n  name: a\n  annotations:\n    nginx.ingress.kubernetes.io/limit-rps: \"-3\"\n", []string{"ing.yaml:5:", "limit-rps", "negative"}},
		{"envoy zero tokens", "envoy.yaml", "stat_prefix: x\ntoken_bucket:\n  max_tokens: 0\n  fill_interval: 1s\n", []string{"envoy.yaml:3:", "max_tokens"}},
		{"envoy-ratelimit bad unit", "rl.yaml", "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: fortnight\n      requests_per_unit: 5\n", []string{"rl.yaml:5:", "unit", "fortnight"}},
		{"spring no rate", "app.yml", "spring:\n  cloud:\n    gateway:\n      routes:\n        - id: r\n          filters:\n            - name: RequestRateLimiter\n              args:\n                redis-rate-limiter.burstCapacity: 5\n", []string{"app.yml:7:", "replenishRate"}},
		{"traefik negative average in a Middleware", "m.yaml", "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata: {name: m}\nspec:\n  rateLimit:\n    average: -1\n", []string{"m.yaml:6:", "average", "0 or more"}},
		{"kong bad policy", "kong.yaml", "_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config:\n      minute: 5\n      policy: memcached\n", []string{"kong.yaml:6:", "policy"}},
		{"r4j missing base", "r.yml", "resilience4j:\n  ratelimiter:\n    instances:\n      a:\n        baseConfig: nope\n", []string{"r.yml:5:", "baseConfig \"nope\""}},
		{"empty", "r.json", "  \n", []string{"empty"}},
		{"unknown content", "r.yaml", "foo: bar\n", []string{"cannot tell", "--rules-format"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path, "")
			if err == nil {
				t.Fatalf("no error for %q", c.content)
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if strings.Contains(msg, "\n") {
				t.Errorf("error has more than one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestNegativeLimitHint: a negative value of a field where 0 is refused
// too asks for a positive value, never "0 or more". (Sentinel's negative
// counts are dropped rules, not errors: TestSentinelDropsInvalidRules.)
func TestNegativeLimitHint(t *testing.T) {
	for _, c := range []struct {
		name, file, content, want string
	}{
		{"kong minute", "kong.yaml", "_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config:\n      minute: -3\n", "minute: is negative (-3); the reference ignores such a rule, so give a positive value"},
		{"kong minute 0", "kong.yaml", "_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config:\n      minute: 0\n", "kong.yaml:5: rate-limiting config field minute: is 0; Kong's schema requires a limit above 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.file, []byte(c.content), "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestForcedFormat: --rules-format overrides detection, and an unknown one
// names the choices.
func TestForcedFormat(t *testing.T) {
	if _, err := Parse("x", []byte("[]"), "protobuf"); err == nil || !strings.Contains(err.Error(), "sentinel, sentinel-go, nginx") {
		t.Fatalf("err = %v", err)
	}
	rules, err := Parse("x.json", []byte(`[{"resource": "a", "threshold": 3}]`), "sentinel-go")
	if err != nil || len(rules) != 1 || rules[0].Spec != "leap-array:limit=3,sample-count=2,interval=1s,flavor=go" {
		t.Fatalf("rules = %+v, err = %v", rules, err)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../examples/rules/*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"flowRules":[{"resource":"a","count":1}]}`))
	f.Add([]byte("limit_req_zone $a zone=b:1m rate=1r/s; location / { limit_req zone=b; }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := Parse("fuzz", data, "")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		for _, r := range rules {
			if r.Name == "" || (r.Active() && r.Spec == "") || (!r.Active() && r.Why == "") {
				t.Fatalf("rule without a name, an active rule without a spec, or an inactive one without why: %+v", r)
			}
		}
	})
}
