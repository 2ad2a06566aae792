package algorithms_test

import (
	"testing"
)

// TestRegistryRefsParsers holds the parsers of registry_refs.go: Guava's
// timeout (0 without a unit, a duration ≥ 0, or inf for acquire()) and the
// whole rate uber's New takes, from the spec or from the scenario's limit.
func TestRegistryRefsParsers(t *testing.T) {
	for spec, want := range map[string]string{
		"guava-bursty:rate=1,timeout=0":     "guava-bursty:rate=1,max-burst=1s,timeout=0s",
		"guava-bursty:rate=1,timeout=200ms": "guava-bursty:rate=1,max-burst=1s,timeout=200ms",
		"guava-bursty:rate=1,timeout=inf":   "guava-bursty:rate=1,max-burst=1s,timeout=inf",
		"uber:rate=7":                       "uber:rate=7,slack=10",
	} {
		if got, err := algorithmsNew(spec, 0); err != nil || got != want {
			t.Errorf("New(%q) = %q, %v; want %q", spec, got, err, want)
		}
	}
	if got, err := algorithmsNew("uber", 100); err != nil || got != "uber:rate=100,slack=10" {
		t.Errorf("New(uber, 100) = %q, %v", got, err)
	}
	if msg := newErr("uber", 2.5); msg == "" {
		t.Errorf("uber takes the scenario's limit 2.5, which is not whole")
	}
	checkErrors(t, map[string][]string{
		"guava-bursty:rate=1,timeout=-1s": {`timeout "-1s" is not a duration ≥ 0 or inf`},
		"guava-bursty:rate=1,timeout=5":   {`timeout "5" is not a duration ≥ 0 or inf (for example timeout=0, timeout=200ms or timeout=inf for acquire())`},
		"uber":                            {"uber needs a rate: add rate=N", "or pass --limit"},
		"uber:rate=2.5":                   {"uber: rate must be a whole number ≥ 1, got 2.5 (go.uber.org/ratelimit.New takes an int"},
		"uber:rate=0":                     {"rate must be a whole number ≥ 1, got 0"},
		"uber:rate=1,slack=-1":            {"slack must be ≥ 0, got -1"},
	})
}
