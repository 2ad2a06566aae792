package algorithms_test

import (
	"strings"
	"testing"
)

// TestRegistryGatewaysTable holds the gateway family's table: its kinds,
// the defaults its references set, the scenario's limit filling the one
// required parameter, and the parameter errors.
func TestRegistryGatewaysTable(t *testing.T) {
	for _, name := range []string{"envoy-local", "traefik", "haproxy", "kong", "resilience4j", "bucket4j"} {
		if f := familyOf(t, name); f != "gateways" {
			t.Errorf("%s: family %q, want gateways", name, f)
		}
	}
	// With the scenario's limit 100 (--limit): every gateway takes it as
	// 100 per second; a count left out beside a period given is 100 per
	// second over that period.
	for spec, want := range map[string]string{
		"envoy-local":                       "envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s,mode=atomic,phase=0s,max-descriptors=20",
		"envoy-local:fill-interval=50ms":    "envoy-local:max-tokens=100,tokens-per-fill=5,fill-interval=50ms,mode=atomic,phase=0s,max-descriptors=20",
		"traefik":                           "traefik:average=100,period=1s,burst=1",
		"haproxy":                           "haproxy:limit=100,period=1s,expire=0s",
		"haproxy:period=10s":                "haproxy:limit=1000,period=10s,expire=0s",
		"haproxy:limit=7":                   "haproxy:limit=7,period=10s,expire=0s",
		"kong":                              "kong:second=100,policy=local",
		"bucket4j":                          "bucket4j:capacity=100,refill-tokens=100,refill-period=1s,refill=greedy,clock=millis",
		"resilience4j":                      "resilience4j:limit-for-period=100,refresh-period=1s,timeout=5s",
		"resilience4j:refresh-period=250ms": "resilience4j:limit-for-period=25,refresh-period=250ms,timeout=5s",
		"resilience4j:limit-for-period=3":   "resilience4j:limit-for-period=3,refresh-period=500ns,timeout=5s",
	} {
		got, err := algorithmsNew(spec, 100)
		if err != nil || got != want {
			t.Errorf("New(%q, 100) = %q, %v; want %q", spec, got, err, want)
		}
		if got != "" {
			if again, err := algorithmsNew(got, 0); err != nil || again != got {
				t.Errorf("New(%q) = %q, %v: not a fixed point", got, again, err)
			}
		}
	}
	// Without a scenario limit resilience4j keeps its own 50 per 500ns.
	if got, err := algorithmsNew("resilience4j", 0); err != nil || got != "resilience4j:limit-for-period=50,refresh-period=500ns,timeout=5s" {
		t.Errorf("New(resilience4j, 0) = %q, %v; want RateLimiterConfig's defaults", got, err)
	}
	// A count that the scenario's limit cannot fill whole is refused.
	if _, err := algorithmsNew("resilience4j:refresh-period=1ms", 100); err == nil || !strings.Contains(err.Error(), "100 × 1ms = 0.1, not a whole number") || !strings.Contains(err.Error(), "give limit-for-period=N") {
		t.Errorf("resilience4j:refresh-period=1ms at 100/s: %v", err)
	}
	checkErrors(t, map[string][]string{
		"envoy-local": {"envoy-local needs a max-tokens", "or pass --limit"},
		"envoy-local:max-tokens=1,tokens-per-fill=0": {"tokens-per-fill must be at least 1, got 0"},
		"traefik:average=0":                          {"average must be a whole number from 1 to"},
		"haproxy:limit=10,period=0s":                 {"period must be whole milliseconds from 1ms to 1073741824ms"},
		"kong":                                       {"kong needs a limit: add second=N, minute=N, hour=N, day=N, month=N or year=N"},
		"kong:second=0":                              {"kong: second must be a positive number, got 0"},
		"resilience4j:limit-for-period=0":            {"limit-for-period must be at least 1, got 0"},
		"bucket4j:capacity=10,refill-tokens=10,refill=sometimes": {`refill "sometimes" is not known; allowed: greedy, intervally`},
		"bucket4j:capacity=10,refill-tokens=10,clock=micros":     {`clock "micros" is not known; allowed: millis, nanos`},
	})
}
