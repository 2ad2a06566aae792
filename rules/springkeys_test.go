package rules

import (
	"strings"
	"testing"
)

// Spring Boot's relaxed YAML: a dotted key holds several levels, may be
// merged with nested keys, and property names may be kebab-case or
// snake_case; the file is detected as resilience4j (or spring) and read as
// if nested.
func TestSpringDottedKeys(t *testing.T) {
	for _, c := range []struct {
		name, body, format string
		want               []string // NAME=SPEC
	}{
		{"dotted top key", "resilience4j.ratelimiter:\n  instances:\n    backendA:\n      limitForPeriod: 10\n      limitRefreshPeriod: 1s\n      timeoutDuration: 0\n",
			"resilience4j", []string{"backendA=resilience4j:limit-for-period=10,refresh-period=1s,timeout=0s"}},
		{"fully dotted, kebab-case", "resilience4j.ratelimiter.instances.x.limit-for-period: 10\nresilience4j.ratelimiter.instances.x.limit-refresh-period: 2s\nresilience4j.ratelimiter.instances.x.timeout-duration: 100ms\n",
			"resilience4j", []string{"x=resilience4j:limit-for-period=10,refresh-period=2s,timeout=100ms"}},
		{"dotted merged with nested, snake_case base", "resilience4j:\n  ratelimiter:\n    instances:\n      y:\n        base_config: shared\n    configs.shared.limit_for_period: 3\nresilience4j.ratelimiter.instances.z.limitForPeriod: 4\n",
			"resilience4j", []string{"y=resilience4j:limit-for-period=3,refresh-period=500ns,timeout=5s", "z=resilience4j:limit-for-period=4,refresh-period=500ns,timeout=5s"}},
		{"bracketed instance name keeps its dots and case", "resilience4j.ratelimiter.instances.[api.v2-Orders].limit-for-period: 7\n",
			"resilience4j", []string{"api.v2-Orders=resilience4j:limit-for-period=7,refresh-period=500ns,timeout=5s"}},
		{"spring gateway under a dotted key", "spring.cloud.gateway:\n  routes:\n    - id: orders\n      filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.replenishRate: 10\n            redis-rate-limiter.burstCapacity: 20\n",
			"spring", []string{"orders=redis-spring-gateway:replenish-rate=10,burst-capacity=20,key=key"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse("application.yml", []byte(c.body), "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				if r.Format != c.format {
					t.Errorf("row %q read as %s, want %s", r.Name, r.Format, c.format)
				}
				got = append(got, r.Name+"="+r.Spec)
			}
			if g, w := strings.Join(got, "|"), strings.Join(c.want, "|"); g != w {
				t.Errorf("rows\n %s\nwant\n %s", g, w)
			}
		})
	}
}

// A file with no rule of its format says where the lab looks for them,
// and never suggests running rules explain on it (the command that just
// failed).
func TestNoRuleHint(t *testing.T) {
	for _, f := range Formats {
		body := "a: 1\n"
		if f == "nginx" {
			body = "events {}\n"
		}
		rs, err := Parse("f", []byte(body), f)
		if (f == "sentinel" || f == "sentinel-go") && err == nil {
			// Sentinel reads {"a": 1} as a rule with no resource, which
			// it drops: the file loads, the rule is inactive.
			if len(rs) != 1 || rs[0].Active() || !strings.Contains(rs[0].Why, "no resource") {
				t.Errorf("%s: %+v, want one inactive rule without a resource", f, rs)
			}
			continue
		}
		if err == nil {
			t.Fatalf("%s: no error", f)
		}
		msg := err.Error()
		if strings.Contains(msg, "rules explain") {
			t.Errorf("%s: the fix is the failing command: %s", f, msg)
		}
		if strings.Contains(msg, "no rate-limiting rule found") && !strings.Contains(msg, "where the lab reads "+formatReads[f]+";") || formatReads[f] == "" {
			t.Errorf("%s: %s lacks where the lab reads the rules", f, msg)
		}
	}
}
