package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/registry"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// completions runs cobra's hidden __complete command and returns the
// candidates it prints (the last line is the directive).
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	out, _, err := execute(t, append([]string{"__complete"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1]
}

// TestAlgoCompletionIsTheRegistry: --algo completes with every spec name
// of the registry, in its order, the Redis family's included, and after a
// '+' with the next stage of a chain.
func TestAlgoCompletionIsTheRegistry(t *testing.T) {
	var want []string
	for _, in := range registry.List() {
		want = append(want, in.Name)
	}
	if got := completions(t, "run", "--algo", ""); !slices.Equal(got, want) {
		t.Errorf("run --algo completes with\n%v\nwant the registry's\n%v", got, want)
	}
	got := completions(t, "run", "--algo", "leap-array+circuit")
	if !slices.Equal(got, []string{"leap-array+circuit-breaker"}) {
		t.Errorf("a chain's next stage completes with %v, want leap-array+circuit-breaker", got)
	}
	got = completions(t, "run", "--algo", "redis-g")
	if !slices.Equal(got, []string{"redis-gcra"}) {
		t.Errorf("redis-g completes with %v, want redis-gcra", got)
	}
}

// TestScenarioCompletion: run's and tune's argument completes with the
// catalog's scenario names.
func TestScenarioCompletion(t *testing.T) {
	for _, cmd := range []string{"run", "tune"} {
		if got := completions(t, cmd, ""); !slices.Equal(got, scenarios.Names()) {
			t.Errorf("%s completes with %v, want the catalog's %v", cmd, got, scenarios.Names())
		}
	}
	if got := completions(t, "run", "boundary-b"); !slices.Equal(got, []string{"boundary-burst", "boundary-burst-small"}) {
		t.Errorf("run boundary-b completes with %v", got)
	}
}
