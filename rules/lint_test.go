package rules

import (
	"strings"
	"testing"
)

// TestLintRules: each trap is found in a file of the shape its product
// reads, with its numbers, and a file without it says nothing.
func TestLintRules(t *testing.T) {
	tests := []struct {
		file string
		want []string // ID: Says prefix, in order
	}{
		{"../examples/rules/ingress.yaml", []string{
			"ingress-burst: limit_req rate=10r/s burst=30 nodelay: 31 requests from one address pass at the same instant, where the rate alone admits one per 100ms",
			"ingress-burst: limit_req rate=300r/m burst=900 nodelay: 901 requests",
			"ingress-burst: limit_req rate=2r/s burst=10 nodelay: 11 requests from one address pass at the same instant, where the rate alone admits one per 500ms",
			"ingress-burst: limit_req rate=600r/m burst=3000 nodelay: 3001 requests",
		}},
		{"../examples/rules/traefik-dynamic.yml", []string{
			"traefik-burst-1: average=6 period=1m0s with burst 1 admits one request per 10s: a second request 1s after the first gets 429, although the period allows 6",
		}},
		{"testdata/lint/spring-burst-zero.yml", []string{
			"spring-burst-zero: replenishRate=5 burstCapacity=0: the bucket never holds a token, so every request gets 429",
		}},
		{"testdata/lint/spring-requested-above-burst.yml", []string{
			"spring-requested-above-burst: requestedTokens=3 above burstCapacity=2: the bucket never holds 3 tokens, so every request gets 429",
		}},
		{"testdata/lint/sentinel-warm-up-qps.json", []string{
			"sentinel-ms-rounding: count=3000: the spacing Math.round(1000/3000) is 0 ms, so once warm the rule limits nothing",
		}},
		{"testdata/lint/sentinel-slow-ratio-default.json", []string{
			"slow-ratio-1: slowRatioThreshold=1: one call under max-rt 200ms in a statistic interval keeps the breaker closed however slow the rest are",
		}},
		{"../examples/rules/spring-application.yml", nil},
		{"../examples/rules/sentinel-flow-rules.json", nil},
		{"../examples/rules/envoy-local.yaml", nil},
	}
	for _, tt := range tests {
		rs, err := Load(tt.file, "auto")
		if err != nil {
			t.Fatal(err)
		}
		ls := LintRules(rs)
		if len(ls) != len(tt.want) {
			t.Errorf("%s: %d traps, want %d: %+v", tt.file, len(ls), len(tt.want), ls)
			continue
		}
		for i, l := range ls {
			got := l.ID + ": " + l.Says
			if !strings.HasPrefix(got, tt.want[i]) {
				t.Errorf("%s: trap %d\n got %s\nwant %s…", tt.file, i, got, tt.want[i])
			}
			if l.Product == "" || l.Fix == "" || l.Command == "" || !strings.HasPrefix(l.Trace, "t_ms") || !strings.HasPrefix(l.Source, tt.file+":") {
				t.Errorf("%s: trap %d lacks a field: %+v", tt.file, i, l)
			}
		}
	}
}

// TestLintWarmUpRounding: between 1000 and 2000 QPS the spacing rounds
// to 1 ms, a cap of 1000 QPS; at 1000 QPS and below nothing is said.
func TestLintWarmUpRounding(t *testing.T) {
	for _, c := range []struct {
		limit, want string
	}{
		{"1500", "count=1500: the spacing Math.round(1000/1500) is 1 ms, so once warm the rule passes at most 1000 requests per second, not 1500"},
		{"2500", "count=2500: the spacing Math.round(1000/2500) is 0 ms, so once warm the rule limits nothing"},
		{"1000", ""},
	} {
		ls := LintRules([]Rule{{Name: "r", Spec: "warm-up-rate-limiter:limit=" + c.limit + ",warm-up=10s,max-queue=500ms"}})
		got := ""
		if len(ls) == 1 {
			got = ls[0].Says
		}
		if got != c.want || len(ls) > 1 {
			t.Errorf("limit %s: %q, want %q", c.limit, got, c.want)
		}
	}
}

// FuzzLintRules: any spec a rule may carry is linted without a panic,
// and every trap found has all its fields.
func FuzzLintRules(f *testing.F) {
	for _, s := range []string{
		"nginx-limit-req:rate=10r/s,burst=50,nodelay=true,key=ip",
		"traefik:average=6,period=60s,burst=1,key=ip",
		"redis-spring-gateway:replenish-rate=5,burst-capacity=0,key=key",
		"warm-up-rate-limiter:limit=3000,warm-up=10s",
		"leap-array:limit=1+circuit-breaker:strategy=slow-ratio,max-rt=1ms,threshold=1",
		"nginx-limit-req:rate=x,burst=9999999999999999999",
		"traefik:average=0,period=-1s,burst=1",
		"",
	} {
		f.Add(s, "ingress-nginx")
	}
	f.Fuzz(func(t *testing.T, spec, format string) {
		for _, l := range LintRules([]Rule{{Name: "r", Source: "f:1", Format: format, Spec: spec}}) {
			if l.ID == "" || l.Product == "" || l.Says == "" || l.Fix == "" || l.Command == "" || l.Trace == "" {
				t.Fatalf("%q: a trap lacks a field: %+v", spec, l)
			}
		}
	})
}
