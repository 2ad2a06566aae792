package registry

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

const redisScenario = `name: r
limit: 10
duration: 2s
phases:
  - type: burst
    count: 5
algorithms:
  - fixed-window
  - "redis-sliding-log:limit=2.5"
`

// A scenario loaded with registry.Check reports a bad redis-* spec at load
// time, at its line, as the scenario loader always has; scenarios' own
// check, below every family, checks the syntax only.
func TestScenarioLoaderChecksEveryFamily(t *testing.T) {
	_, err := scenarios.Loader{Check: Check}.Parse([]byte(redisScenario), "r.yaml")
	want := `r.yaml:9: algorithm "redis-sliding-log:limit=2.5": redis-sliding-log: limit must be a positive whole number, got 2.5: Redis counts whole requests (for example limit=100)`
	if err == nil || err.Error() != want {
		t.Errorf("Loader{Check}.Parse = %v\nwant %s", err, want)
	}
	if _, err := scenarios.Parse([]byte(redisScenario), "r.yaml"); err != nil {
		t.Errorf("scenarios.Parse (SyntaxCheck) = %v, want the spec's meaning left to the caller", err)
	}

	sc, err := scenarios.Lookup("redis-race")
	if err != nil {
		t.Fatal(err)
	}
	err = scenarios.Loader{Check: Check}.Validate(sc.WithLimit(2.5))
	want = `scenario "redis-race": algorithm "redis-sliding-log:instances=4,rtt=4ms": redis-sliding-log: limit must be a positive whole number, got 2.5 (the scenario's limit): Redis counts whole requests (for example limit=100)`
	if err == nil || err.Error() != want {
		t.Errorf("Validate with --limit 2.5 = %v\nwant %s", err, want)
	}
	// A misspelt in-memory spec is the registry's to find; a spec whose
	// syntax is broken fails under either checker.
	bad := sc.WithLimit(10)
	bad.Algorithms = []string{"leap-aray"}
	if err := bad.Validate(); err != nil {
		t.Errorf("SyntaxCheck refused a well-formed spec: %v", err)
	}
	want = `scenario "redis-race": algorithm "leap-aray": unknown algorithm "leap-aray" (did you mean "leap-array"?)`
	if err := (scenarios.Loader{Check: Check}).Validate(bad); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a misspelt in-memory spec: %v\nwant %s", err, want)
	}
}

// Every catalog scenario's specs pass registry.Check, redis-* ones
// included (scenarios' own tests check their syntax only).
func TestCatalogSpecsCheck(t *testing.T) {
	for _, sc := range scenarios.Catalog() {
		if err := (scenarios.Loader{Check: Check}).Validate(sc); err != nil {
			t.Errorf("%s: %v", sc.Name, err)
		}
	}
}
