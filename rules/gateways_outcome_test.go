package rules

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGatewayRealFiles pins what `rules explain` prints for the gateway
// files in the shapes real repositories hold (rules/testdata/real/gw-*):
// every rule with its outcome, why and scope.
func TestGatewayRealFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/real/gw-*")
	if len(files) < 3 {
		t.Fatalf("want the gw-* files in testdata/real, found %v", files)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") { // TestRealFiles' own goldens
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			rs, err := Load(f, "")
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteExplain(&b, filepath.ToSlash(f), rs, 0); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", filepath.Base(f)+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./rules -run TestGatewayRealFiles -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("explain changed (go test ./rules -run TestGatewayRealFiles -update to accept):\n--- got\n%s--- want\n%s", b.String(), want)
			}
		})
	}
}

// byName finds the rule named name.
func byName(t *testing.T, rs []Rule, name string) Rule {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
	}
	t.Fatalf("no rule %q in %v", name, names)
	return Rule{}
}

func hasNote(r Rule, part string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, part) })
}

// envoyproxy/ratelimit: what the service loads, each rule as the service
// counts it (src/config/config_impl.go, src/limiter/cache_key.go).
func TestEnvoyRatelimitOutcomes(t *testing.T) {
	rs, err := Load("testdata/real/gw-envoy-ratelimit.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, spec string
		outcome    Outcome
	}{
		{"edge.remote_address", "redis-envoy-ratelimit:limit=10,unit=second,key=ip", Translated},
		// A wildcard without share_threshold: a counter per value.
		{"edge.path_/api/*", "redis-envoy-ratelimit:limit=100,unit=minute,key=path", Translated},
		{"edge.path_/api/login", "redis-envoy-ratelimit:limit=5,unit=minute", Translated},
		// share_threshold: one counter for every matching value.
		{"edge.file_/static/*", "redis-envoy-ratelimit:limit=200,unit=second", Translated},
		// requests_per_unit 0: a ban the service loads.
		{"edge.client_id_scraper", "redis-envoy-ratelimit:limit=0,unit=second", Translated},
		{"edge.client_id_internal", "", Inactive},
		{"edge.generic_key_checkout", "redis-envoy-ratelimit:limit=600,unit=minute,shadow-mode=true", Translated},
		// The parent's shadow_mode does not reach its children.
		{"edge.generic_key_checkout.plan_free", "redis-envoy-ratelimit:limit=60,unit=minute", Translated},
		{"edge.generic_key_checkout.plan_gold", "redis-envoy-ratelimit:limit=6000,unit=minute", Translated},
		// Two entries without a value: a counter per pair.
		{"edge.tenant.user", "", NotSimulated},
	} {
		r := byName(t, rs, c.name)
		if r.Spec != c.spec || r.Outcome != c.outcome {
			t.Errorf("%s: spec %q outcome %q, want %q %q", c.name, r.Spec, r.Outcome, c.spec, c.outcome)
		}
		if !r.Active() && r.Why == "" {
			t.Errorf("%s: %s without a why", c.name, r.Outcome)
		}
	}
	if r := byName(t, rs, "edge.generic_key_checkout.plan_free"); len(r.Unsimulated()) != 1 || !strings.Contains(r.Unsimulated()[0], "replaced by edge.generic_key_checkout.plan_gold") {
		t.Errorf("the replaced limit's notes do not name replaces as not simulated: %q", r.Notes)
	}
	if r := byName(t, rs, "edge.path_/api/*"); !hasNote(r, "/api/login") {
		t.Errorf("the wildcard row does not say that /api/login has its own descriptor: %q", r.Notes)
	}
}

// The files envoyproxy/ratelimit refuses to load (its test/config fixtures'
// shapes) are refused, one line at the file:line where the service's
// check fails.
func TestEnvoyRatelimitRefuses(t *testing.T) {
	const head = "domain: test-domain\ndescriptors:\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"empty domain", "domain: \"\"\ndescriptors:\n  - key: a\n", []string{"c.yaml:1:", "no domain"}},
		{"empty key", head + "  - value: value1\n", []string{"c.yaml:3:", "no key"}},
		{"duplicate key", head + "  - key: key1\n    value: value1\n\n  - key: key1\n    value: value1\n", []string{"c.yaml:6:", "repeats the one at line 3", "duplicate descriptor composite key"}},
		{"misspelled key", head + "  - key: key1\n    value: value1\n    ratelimit:\n      unit: day\n      requests_per_unit: 5\n", []string{"c.yaml:5:", `unknown key "ratelimit"`}},
		{"misspelled key2", head + "  - key: key1\n    rate_limit:\n      unit: day\n      requestsperunit: 5\n", []string{"c.yaml:6:", `unknown key "requestsperunit"`}},
		{"non map list", head + "  - a\n  - b\n", []string{"c.yaml:3:", "not a map"}},
		{"non string key", "0.25: test-domain\ndescriptors:\n  - key: key1\n", []string{"c.yaml:1:", "not a string"}},
		{"bad limit unit", head + "  - key: key1\n    rate_limit:\n      unit: foo\n      requests_per_unit: 5\n", []string{"c.yaml:5:", `"foo" is not one of`}},
		{"unit unknown", head + "  - key: key1\n    rate_limit:\n      unit: unknown\n      requests_per_unit: 5\n", []string{"c.yaml:5:", `"unknown" is not one of`}},
		{"missing unit", head + "  - key: key1\n    rate_limit:\n      requests_per_unit: 5\n", []string{"c.yaml:5:", "unit", "is missing"}},
		{"unlimited with unit", head + "  - key: foo\n    rate_limit:\n      unlimited: true\n      unit: day\n      requests_per_unit: 25\n", []string{"c.yaml:6:", "should not specify rate limit unit when unlimited"}},
		{"replaces empty", head + "  - key: key1\n    value: value1\n    descriptors:\n      - key: subkey1\n        rate_limit:\n          name: self\n          replaces:\n            - name:\n          unit: second\n          requests_per_unit: 5\n", []string{"c.yaml:10:", "empty replaces entry"}},
		{"replaces self", head + "  - key: key1\n    descriptors:\n      - key: subkey1\n        rate_limit:\n          name: self\n          replaces:\n            - name: self\n          unit: second\n          requests_per_unit: 5\n", []string{"c.yaml:9:", "name of same descriptor"}},
		{"share_threshold without wildcard", head + "  - key: files\n    value: exact\n    share_threshold: true\n    rate_limit: {unit: minute, requests_per_unit: 1}\n", []string{"c.yaml:5:", "share_threshold can only be used with wildcard values"}},
		{"negative requests", head + "  - key: a\n    rate_limit: {unit: minute, requests_per_unit: -1}\n", []string{"c.yaml:4:", "uint32"}},
		{"float requests", head + "  - key: a\n    rate_limit: {unit: minute, requests_per_unit: 1.5}\n", []string{"c.yaml:4:", "error checking config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(c.body), "envoy-ratelimit")
			if err == nil {
				t.Fatalf("no error for\n%s", c.body)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// The shapes the service loads load: requests_per_unit absent (the
// uint32's zero, a ban), unit in capitals, metadata with any keys.
func TestEnvoyRatelimitAccepts(t *testing.T) {
	body := "domain: d\ndescriptors:\n  - key: a\n    metadata: {anything: {goes: [1, 2.5]}}\n    rate_limit:\n      unit: MINUTE\n"
	rs, err := Parse("c.yaml", []byte(body), "envoy-ratelimit")
	if err != nil {
		t.Fatal(err)
	}
	if want := "redis-envoy-ratelimit:limit=0,unit=minute,key=a"; rs[0].Spec != want {
		t.Errorf("spec %q, want %q", rs[0].Spec, want)
	}
}

// Kong: each plugin's scope, enabled: false, _plugin_configs, limit_by
// as handler.lua's get_identifier reads it.
func TestKongOutcomes(t *testing.T) {
	rs, err := Load("testdata/real/gw-kong-deck.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, scope, spec string
		outcome           Outcome
	}{
		{"global", "global", "kong:minute=600,hour=10000,policy=local,key=ip", Translated},
		{"service legacy", "service legacy", "kong:second=50,policy=local,key=*", Inactive},
		{"service orders", "service orders", "kong:second=20,policy=local,key=x-api-key", Translated},
		{"route orders-create", "route orders-create", "", NotSimulated},
		// _plugin_configs fills alice's config; bob's own minute wins.
		{"consumer alice", "consumer alice", "kong:minute=10,policy=local,key=*", Translated},
		{"consumer bob", "consumer bob", "kong:minute=5,policy=local,key=*", Translated},
	} {
		r := byName(t, rs, c.name)
		if r.Scope != c.scope || r.Spec != c.spec || r.Outcome != c.outcome {
			t.Errorf("%s: scope %q spec %q outcome %q, want %q %q %q", c.name, r.Scope, r.Spec, r.Outcome, c.scope, c.spec, c.outcome)
		}
	}
	if g := byName(t, rs, "global"); !hasNote(g, "service orders (line 35), route orders-create (line 47), consumer alice (line 57), consumer bob (line 61) go to that plugin instead") {
		t.Errorf("the global plugin's notes do not name the plugins that take precedence: %q", g.Notes)
	}
	if s := byName(t, rs, "service orders"); hasNote(s, "global (line") {
		t.Errorf("the global plugin cannot take a service plugin's requests: %q", s.Notes)
	}
}

func TestKongLimitBy(t *testing.T) {
	plugin := func(where, cfg string) string {
		switch where {
		case "global":
			return "_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config: {minute: 10, " + cfg + "}\n"
		case "service":
			return "_format_version: \"3.0\"\nservices:\n  - name: s\n    plugins:\n      - name: rate-limiting\n        config: {minute: 10, " + cfg + "}\n"
		}
		return "_format_version: \"3.0\"\nconsumers:\n  - username: c\n    plugins:\n      - name: rate-limiting\n        config: {minute: 10, " + cfg + "}\n"
	}
	for _, c := range []struct {
		where, cfg, key string
		outcome         Outcome
	}{
		{"global", "limit_by: ip", "ip", Translated},
		{"global", "limit_by: consumer", "key", Translated},
		{"global", "limit_by: credential", "key", Translated},
		{"consumer", "limit_by: consumer", "*", Translated},
		{"global", "limit_by: service", "service", Translated},
		{"service", "limit_by: service", "*", Translated},
		{"global", "limit_by: header, header_name: X-Tenant", "x-tenant", Translated},
		{"global", "limit_by: path, path: /a", "", NotSimulated},
	} {
		rs, err := Parse("k.yaml", []byte(plugin(c.where, c.cfg)), "kong")
		if err != nil {
			t.Fatalf("%s %s: %v", c.where, c.cfg, err)
		}
		r := rs[0]
		key := ""
		if r.Spec != "" {
			_, key, _ = strings.Cut(r.Spec, ",key=")
		}
		if key != c.key || r.Outcome != c.outcome {
			t.Errorf("%s %s: key %q outcome %q, want %q %q", c.where, c.cfg, key, r.Outcome, c.key, c.outcome)
		}
	}
}

// What Kong (its schema) or decK refuses is refused.
func TestKongRefuses(t *testing.T) {
	const g = "_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"consumer-group", g + "    config: {minute: 1, limit_by: consumer-group}\n", []string{"k.yaml:4:", "limit_by", "one_of"}},
		{"hour below minute", g + "    config:\n      minute: 100\n      hour: 50\n", []string{"k.yaml:6:", "cannot be lower than the limit for minute"}},
		{"sync_rate without redis", g + "    config:\n      minute: 1\n      sync_rate: 10\n", []string{"k.yaml:6:", "sync_rate can only be used with the redis policy"}},
		{"header without name", g + "    config: {minute: 1, limit_by: header}\n", []string{"header_name", "requires"}},
		{"path without path", g + "    config: {minute: 1, limit_by: path}\n", []string{"path", "requires"}},
		{"missing _plugin_config", g + "    _config: gold\n", []string{"k.yaml:4:", `_config "gold"`}},
		{"two on one scope", g + "    config: {minute: 1}\n  - name: rate-limiting\n    config: {minute: 2}\n", []string{"k.yaml:5:", "second rate-limiting plugin on global", "line 3"}},
		{"enabled not a bool", g + "    enabled: maybe\n    config: {minute: 1}\n", []string{"k.yaml:4:", "enabled"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("k.yaml", []byte(c.body), "kong")
			if err == nil {
				t.Fatalf("no error for\n%s", c.body)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// A disabled plugin does not clash with an enabled one on its scope.
	body := g + "    enabled: false\n    config: {minute: 1}\n  - name: rate-limiting\n    config: {minute: 2}\n"
	rs, err := Parse("k.yaml", []byte(body), "kong")
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Outcome != Inactive || !rs[1].Active() {
		t.Errorf("outcomes %q, %q; want inactive, translated", rs[0].Outcome, rs[1].Outcome)
	}
}

// Traefik: average 0 is no limit (Inactive), not a refused file; the redis
// store is named as not simulated.
func TestTraefikOutcomes(t *testing.T) {
	rs, err := Load("testdata/real/gw-traefik.yml", "")
	if err != nil {
		t.Fatal(err)
	}
	if r := byName(t, rs, "unlimited"); r.Outcome != Inactive || !strings.Contains(r.Why, "no rate limit") {
		t.Errorf("average 0: outcome %q why %q", r.Outcome, r.Why)
	}
	if r := byName(t, rs, "shared-limit"); len(r.Unsimulated()) != 1 || !strings.Contains(r.Unsimulated()[0], "redis") {
		t.Errorf("redis store: notes %q", r.Notes)
	}
	if r := byName(t, rs, "api-limit"); !r.Active() || len(r.Unsimulated()) != 0 {
		t.Errorf("api-limit: outcome %q notes %q", r.Outcome, r.Notes)
	}
}

// FuzzGatewayRules: whatever the bytes, the gateway readers never panic,
// and every rule they return either runs (a spec) or says why not.
func FuzzGatewayRules(f *testing.F) {
	files, _ := filepath.Glob("testdata/real/gw-*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, 0)
		}
	}
	f.Add([]byte("domain: d\ndescriptors:\n  - key: a\n    value: b*\n    share_threshold: true\n    rate_limit: {unlimited: true}\n"), 1)
	f.Add([]byte("plugins:\n  - name: rate-limiting\n    _config: x\n_plugin_configs: {x: {second: 1}}\n"), 2)
	formats := []string{"envoy-ratelimit", "kong", "traefik", "envoy-local"}
	f.Fuzz(func(t *testing.T, data []byte, which int) {
		format := formats[uint(which)%uint(len(formats))]
		rs, err := Parse("f.yaml", data, format)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		for _, r := range rs {
			switch {
			case r.Active() && r.Spec == "":
				t.Errorf("active rule %q has no spec", r.Name)
			case !r.Active() && r.Why == "":
				t.Errorf("%s rule %q has no why", r.Outcome, r.Name)
			}
		}
	})
}

// Envoy local_ratelimit: filter_enabled and filter_enforced below 100%
// become the spec's enabled= and enforced= fractions, exactly as the
// denominators write them; 0% (or unset) stays a dry-run row.
func TestEnvoyLocalFractions(t *testing.T) {
	rs, err := Load("testdata/real/gw-envoy-local-istio.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "envoy-local:max-tokens=10,tokens-per-fill=10,fill-interval=60s,enabled=50/100,enforced=2500/10000"; rs[0].Spec != want || rs[0].DryRun {
		t.Errorf("spec %q dry run %v, want %q", rs[0].Spec, rs[0].DryRun, want)
	}
	const head = "stat_prefix: p\ntoken_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 1s}\n"
	for _, c := range []struct {
		name, body, spec string
		dry              bool
		err              string
	}{
		{"million", head + "filter_enabled: {default_value: {numerator: 1, denominator: MILLION}}\nfilter_enforced: {default_value: {numerator: 100}}\n",
			"envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,enabled=1/1000000", false, ""},
		{"above the denominator is always", head + "filter_enabled: {default_value: {numerator: 200}}\nfilter_enforced: {default_value: {numerator: 100}}\n",
			"envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s", false, ""},
		{"not enforced", head + "filter_enabled: {default_value: {numerator: 100}}\nfilter_enforced: {default_value: {numerator: 0}}\n",
			"envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s", true, ""},
		{"unset", head, "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s", true, ""},
		{"bad denominator", head + "filter_enabled: {default_value: {numerator: 1, denominator: THOUSAND}}\n", "", false, "e.yaml:3:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse("e.yaml", []byte(c.body), "envoy-local")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rs[0].Spec != c.spec || rs[0].DryRun != c.dry {
				t.Errorf("spec %q dry run %v, want %q %v", rs[0].Spec, rs[0].DryRun, c.spec, c.dry)
			}
		})
	}
}

// A rate-limiting plugin of a consumer group has no row and says why;
// the fallback of limit_by consumer to the client address is named as not
// simulated, so a run repeats it.
func TestKongConsumerGroupAndFallback(t *testing.T) {
	body := "_format_version: \"3.0\"\nconsumer_groups:\n  - name: gold\n    plugins:\n      - name: rate-limiting\n        config: {minute: 100}\nplugins:\n  - name: rate-limiting\n    config: {minute: 10}\n"
	rs, err := Parse("k.yaml", []byte(body), "kong")
	if err != nil {
		t.Fatal(err)
	}
	g := byName(t, rs, "consumer group gold")
	if g.Outcome != NotSimulated || g.Why == "" || g.Source != "k.yaml:5" {
		t.Errorf("consumer group: %+v", g)
	}
	if r := byName(t, rs, "global"); len(r.Unsimulated()) != 1 || !strings.Contains(r.Unsimulated()[0], "client address") {
		t.Errorf("limit_by consumer's fallback not named: %q", r.Notes)
	}
}

// A key written twice in one map is loaded with its last value, as the
// service's yaml.v2 Unmarshal sets it again (it is not UnmarshalStrict).
func TestEnvoyRatelimitRepeatedKeyLastWins(t *testing.T) {
	body := "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: 5\n      requests_per_unit: 7\n"
	rs, err := Parse("c.yaml", []byte(body), "envoy-ratelimit")
	if err != nil {
		t.Fatal(err)
	}
	if want := "redis-envoy-ratelimit:limit=7,unit=second,key=a"; rs[0].Spec != want {
		t.Errorf("spec %q, want %q", rs[0].Spec, want)
	}
}
