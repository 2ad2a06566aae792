package algorithms_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// specPerName is one buildable spec for every name and alias the registry
// knows; TestRegistryEveryNameRoundTrips fails when a new kind has no row.
var specPerName = map[string][]string{
	"sentinel-cluster":       {"sentinel-cluster:count=3", "sentinel-cluster:count=3,threshold=global,instances=4,rtt=2ms,down=1s-2s|3s-4s,fallback=pass"},
	"hierarchical":           {"hierarchical:limit=3", "hierarchical:limit=3,window=2s,layers=100ms*20+1s*3"},
	"fixed-window":           {"fixed-window:limit=3", "fixed-window:limit=3,check-to-add=2ms"},
	"leap-array":             {"leap-array:limit=4", "leap-array:limit=4,flavor=go", "leap-array:limit=2,occupy-timeout=0s", "leap-array:limit=4,check-to-add=1ms"},
	"sliding-window":         {"sliding-window:limit=4"},
	"sliding-log":            {"sliding-log:limit=2"},
	"token-bucket":           {"token-bucket:rate=10,burst=2", "token-bucket:limit=2.5", "token-bucket:rate=1,burst=1,key=ip,capacity=2"},
	"leaky-bucket":           {"leaky-bucket:limit=10", "leaky-bucket:limit=10,flavor=go"},
	"throttling":             {"throttling:limit=10"},
	"warm-up":                {"warm-up:limit=100", "warm-up:limit=100,flavor=go"},
	"warm-up-rate-limiter":   {"warm-up-rate-limiter:limit=100", "warm-up-rate-limiter:limit=100,flavor=go,sample-count=10"},
	"guava-bursty":           {"guava-bursty:rate=5", "guava-bursty:rate=5,timeout=inf"},
	"guava-warming-up":       {"guava-warming-up:rate=2,warm-up=4s"},
	"uber":                   {"uber:rate=10", "uber:rate=10,slack=0"},
	"sliding-window-counter": {"sliding-window-counter:limit=10"},
	"seed-ring":              {"seed-ring:limit=3,buckets=10"},
	"decaying-window":        {"decaying-window:limit=10"},
	"circuit-breaker":        {"circuit-breaker:strategy=slow-ratio,max-rt=500ms", "circuit-breaker:strategy=error-count,threshold=3"},
	"envoy-local":            {"envoy-local:max-tokens=10", "envoy-local:max-tokens=3,mode=timer,phase=30ms"},
	"traefik":                {"traefik:average=2,burst=4"},
	"haproxy":                {"haproxy:limit=10"},
	"kong":                   {"kong:second=1,minute=3", "kong:hour=100,policy=redis"},
	"resilience4j":           {"resilience4j", "resilience4j:limit-for-period=2,refresh-period=100ms,timeout=150ms"},
	"bucket4j":               {"bucket4j:capacity=10,refill-tokens=10", "bucket4j:capacity=5,refill-tokens=5,refill=intervally,clock=nanos"},
	"nginx-limit-req":        {"nginx-limit-req:rate=2r/s,burst=1", "nginx-limit-req:rate=1r/m,nodelay=true,zone=32k,key=ip"},
	"sentinel-param":         {"sentinel-param:count=2", "sentinel-param:count=4,behavior=throttle,max-queue=200ms,flavor=go"},
	"concurrency":            {"concurrency:limit=2"},
	"sentinel-system":        {"sentinel-system:qps=10", "sentinel-system:load=2,flavor=go,strategy=bbr"},
	"aegis-bbr":              {"aegis-bbr", "aegis-bbr:version=v0.2.0"},
	"aimd":                   {"aimd", "aimd:windowed=true"},
	"vegas":                  {"vegas:probe=off"},
	"gradient2":              {"gradient2"},
	"envoy-adaptive":         {"envoy-adaptive"},
	"none":                   {"none"},
}

// TestRegistryEveryNameRoundTrips holds New and Spec's contract for every
// kind: Spec names every parameter with its defaults filled, and
// New(Spec()) builds a limiter with the same Spec (a fixed point), without
// the scenario's limit.
func TestRegistryEveryNameRoundTrips(t *testing.T) {
	for _, name := range algorithms.Names() {
		if len(specPerName[name]) == 0 {
			t.Errorf("no spec in specPerName for %q", name)
		}
	}
	var specs []string
	for _, ss := range specPerName {
		specs = append(specs, ss...)
	}
	sort.Strings(specs)
	specs = append(specs, "token-bucket:rate=10+leap-array:limit=5+circuit-breaker:strategy=error-ratio,threshold=0.5")
	for _, spec := range specs {
		l, err := algorithms.New(spec, 0)
		if err != nil {
			t.Errorf("New(%q): %v", spec, err)
			continue
		}
		s := l.Spec()
		r, err := algorithms.New(s, 0)
		if err != nil {
			t.Errorf("New(%q) (the Spec of %q): %v", s, spec, err)
			continue
		}
		if r.Spec() != s {
			t.Errorf("New(%q).Spec() = %q, not a fixed point", s, r.Spec())
		}
	}
}

// TestRegistryParsing holds the spec grammar NAME[:key=value,...]: names
// and keys are case-insensitive and trimmed, a missing limit takes the
// scenario's, and every mistake is one line naming what is allowed.
func TestRegistryParsing(t *testing.T) {
	for spec, want := range map[string]string{
		" Leap-Array : Limit = 3 , Sample-Count = 4 ": "leap-array:limit=3,sample-count=4,interval=1s",
		"LEAP-ARRAY:LIMIT=3":                          "leap-array:limit=3,sample-count=2,interval=1s",
		"fixed-window:":                               "fixed-window:limit=100,window=1s",
		"token-bucket":                                "token-bucket:rate=100,burst=100",
	} {
		got, err := algorithmsNew(spec, 100)
		if err != nil || got != want {
			t.Errorf("New(%q, 100) = %q, %v; want %q", spec, got, err, want)
		}
	}
	checkErrors(t, map[string][]string{
		"":                                       {`empty algorithm spec "": write NAME[:key=value,...]`},
		"  ":                                     {"empty algorithm spec"},
		"lepa-array":                             {`unknown algorithm "lepa-array" (did you mean "leap-array"?); known algorithms: aegis-bbr, aimd,`},
		"redis-gcra:rate=1":                      {`"redis-gcra" is a Redis limiter: it runs on its own`},
		"leap-array:limit":                       {`leap-array: parameter "limit" is not key=value (for example leap-array:limit=...)`},
		"leap-array:=3":                          {`parameter "=3" is not key=value`},
		"leap-array:limit=1,limit=2":             {`leap-array: parameter "limit" is given twice`},
		"leap-array:limt=1":                      {`leap-array: unknown parameter "limt" (did you mean "limit"?); allowed: limit, sample-count, interval, occupy-timeout, flavor, check-to-add`},
		"fixed-window:limit=1,check-to-add=-1ms": {"check-to-add must not be negative, got -1ms"},
		"leaky-bucket:limit=1,check-to-add=1ms":  {`unknown parameter "check-to-add"`},
	})
}

// TestRegistryList: every kind is listed once with its family, summary
// and reference, its parameters named once each; Names is sorted and
// holds the aliases; check-to-add is the last parameter of exactly the
// five kinds docs/algorithms.md names.
func TestRegistryList(t *testing.T) {
	families := []string{"windows", "buckets", "Sentinel", "breakers", "gateways", "per-key", "adaptive"}
	seen := map[string]bool{}
	var withCheckToAdd []string
	for _, in := range algorithms.List() {
		if seen[in.Name] {
			t.Errorf("%s is listed twice", in.Name)
		}
		seen[in.Name] = true
		if !slices.Contains(families, in.Family) || in.Summary == "" || in.Reference == "" {
			t.Errorf("%s: family %q, summary %q, reference %q", in.Name, in.Family, in.Summary, in.Reference)
		}
		keys := map[string]bool{}
		for i, p := range in.Params {
			if keys[p.Key] || p.Help == "" {
				t.Errorf("%s: parameter %q twice or without help", in.Name, p.Key)
			}
			keys[p.Key] = true
			if p.Key == "check-to-add" {
				if i != len(in.Params)-1 || p.Default != "0s" {
					t.Errorf("%s: check-to-add is not last with default 0s", in.Name)
				}
				withCheckToAdd = append(withCheckToAdd, in.Name)
			}
		}
	}
	if want := []string{"fixed-window", "leap-array", "sliding-log", "warm-up", "sliding-window-counter"}; !slices.Equal(withCheckToAdd, want) {
		t.Errorf("check-to-add on %q, want %q", withCheckToAdd, want)
	}
	names := algorithms.Names()
	if !sort.StringsAreSorted(names) {
		t.Errorf("Names() is not sorted: %q", names)
	}
	for _, alias := range []string{"sliding-window", "throttling"} {
		if !slices.Contains(names, alias) || seen[alias] {
			t.Errorf("%s: an alias in Names() and not a listed kind", alias)
		}
	}
	if len(names) != len(seen)+2 {
		t.Errorf("Names() has %d entries, List() %d kinds and 2 aliases", len(names), len(seen))
	}
	if first := algorithms.List()[0].Name; first != "fixed-window" {
		t.Errorf("List() starts with %s, want fixed-window (the order of `list`)", first)
	}
	if !strings.HasPrefix(algorithms.List()[0].Params[0].Key, "limit") || algorithms.List()[0].Params[0].Default != "" {
		t.Errorf("fixed-window's limit defaults to the scenario's limit (Default \"\")")
	}
}
