package algorithms_test

import (
	"testing"
)

// TestRegistryKeyedTable holds the per-key family's table: nginx's
// directive syntax (rate Nr/s or Nr/m, zone sizes, nodelay as a boolean),
// sentinel-param's items and capacity, and their errors.
func TestRegistryKeyedTable(t *testing.T) {
	for _, name := range []string{"nginx-limit-req", "sentinel-param"} {
		if f := familyOf(t, name); f != "per-key" {
			t.Errorf("%s: family %q, want per-key", name, f)
		}
	}
	for spec, want := range map[string]string{
		"nginx-limit-req:rate=2r/s":                      "nginx-limit-req:rate=2r/s,burst=0,delay=0,zone=10m,key=key",
		"nginx-limit-req:rate=1r/m,zone=0,key=ip":        "nginx-limit-req:rate=1r/m,burst=0,delay=0,zone=0,key=ip",
		"nginx-limit-req:rate=5r/s,burst=3,nodelay=on":   "nginx-limit-req:rate=5r/s,burst=3,nodelay=true,zone=10m,key=key",
		"sentinel-param:count=2":                         "sentinel-param:count=2,duration=1s,burst=0,behavior=reject,capacity=4000,key=key,flavor=java",
		"sentinel-param:count=2,duration=100s":           "sentinel-param:count=2,duration=100s,burst=0,behavior=reject,capacity=200000,key=key,flavor=java",
		"sentinel-param:count=2,duration=100s,flavor=go": "sentinel-param:count=2,duration=100s,burst=0,behavior=reject,capacity=20000,key=key,flavor=go",
		"sentinel-param:count=2,items=a:1|b:5":           "sentinel-param:count=2,duration=1s,burst=0,behavior=reject,items=a:1|b:5,capacity=4000,key=key,flavor=java",
	} {
		l := mustNew(t, spec)
		if got := l.Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
		if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
			t.Errorf("New(%q).Spec() = %q: not a fixed point", l.Spec(), got)
		}
	}
	checkErrors(t, map[string][]string{
		"nginx-limit-req":                                {"nginx-limit-req needs a rate: add rate=Nr/s or rate=Nr/m"},
		"nginx-limit-req:rate=2r/h":                      {`rate "2r/h" is not Nr/s or Nr/m with a whole N > 0`},
		"nginx-limit-req:rate=0r/s":                      {`rate "0r/s" is not Nr/s or Nr/m`},
		"nginx-limit-req:rate=2r/s,zone=31k":             {"zone 31k is too small: nginx needs at least 8 pages, zone=32k"},
		"nginx-limit-req:rate=2r/s,burst=-1":             {`burst "-1" is not a whole number ≥ 0`},
		"nginx-limit-req:rate=2r/s,nodelay=maybe":        {`nodelay "maybe" is not true or false`},
		"nginx-limit-req:rate=2r/s,delay=1,nodelay=true": {"give delay=N or nodelay=true, not both"},
		"sentinel-param:count=2,capacity=0":              {`capacity "0" is not a whole number ≥ 1 or 'unbounded'`},
		"sentinel-param:count=2,items=a":                 {`item "a" is not VALUE:COUNT with a whole count ≥ 0`},
		"sentinel-param:count=2,behavior=queue":          {`behavior "queue" is not known; allowed: reject, throttle`},
	})
}
