package algorithms_test

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// familyOf is the Family List gives name.
func familyOf(t *testing.T, name string) string {
	t.Helper()
	for _, in := range algorithms.List() {
		if in.Name == name {
			return in.Family
		}
	}
	t.Fatalf("%s is not listed", name)
	return ""
}

// TestRegistryAdaptiveTable holds the adaptive family's table: its kinds,
// their defaults as the references set them, and their parameter errors.
func TestRegistryAdaptiveTable(t *testing.T) {
	for _, name := range []string{"concurrency", "sentinel-system", "aegis-bbr", "aimd", "vegas", "gradient2", "envoy-adaptive", "none"} {
		if f := familyOf(t, name); f != "adaptive" {
			t.Errorf("%s: family %q, want adaptive", name, f)
		}
		if _, ok := mustNew(t, specPerName[name][0]).(algorithms.Completer); !ok {
			t.Errorf("%s is not a Completer", name)
		}
	}
	for spec, want := range map[string]string{
		"aimd":                               "aimd:initial=20,min=20,max=200,backoff=0.9,timeout=5s,windowed=false",
		"aimd:windowed=true":                 "aimd:initial=20,min=20,max=200,backoff=0.9,timeout=5s,windowed=true,window-min=1s,window-max=1s,window-size=10,min-rtt=100us",
		"envoy-adaptive":                     "envoy-adaptive:interval=60s,update-interval=100ms,request-count=50,percentile=50,buffer=25%,min=3,max=1000,jitter=15%",
		"envoy-adaptive:buffer=10,jitter=0%": "envoy-adaptive:interval=60s,update-interval=100ms,request-count=50,percentile=50,buffer=10%,min=3,max=1000,jitter=0%",
		"concurrency:limit=4,flavor=go":      "concurrency:limit=4,flavor=go",
	} {
		if got := mustNew(t, spec).Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
	}
	checkErrors(t, map[string][]string{
		"concurrency":                                {"concurrency needs a limit", "or pass --limit"},
		"sentinel-system":                            {"sentinel-system needs at least one rule: add qps=, max-thread=, avg-rt=, load= or cpu="},
		"sentinel-system:cpu=-0.5":                   {"cpu must not be negative, got -0.5"},
		"sentinel-system:qps=1,strategy=bbr":         {"strategy applies to flavor=go only"},
		"sentinel-system:qps=1,flavor=go,strategy=x": {`strategy "x" is not known; allowed: bbr, none`},
		"aegis-bbr:version=1":                        {`version "1" is not known; allowed: head, v0.2.0`},
		"aimd:window-size=10":                        {"window-size applies only with windowed=true; drop it or add windowed=true"},
		"aimd:backoff=1":                             {"backoff must be in [0.5, 1.0), got 1"},
		"gradient2:tolerance=0.5":                    {"tolerance must be at least 1.0, got 0.5"},
		"vegas:probe=maybe":                          {`probe "maybe"`},
		"envoy-adaptive:buffer=x":                    {`buffer "x" is not a percentage (for example buffer=25%)`},
		"envoy-adaptive:jitter=101%":                 {"jitter must be 0% to 100%, got 101%"},
	})
}
