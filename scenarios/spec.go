package scenarios

import (
	"fmt"

	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// DefaultAlgorithms is the limiter set of most catalog scenarios: all seven
// limiters, each with its default parameters and the scenario's limit.
var DefaultAlgorithms = []string{
	"fixed-window",
	"leap-array",
	"sliding-log",
	"token-bucket",
	"leaky-bucket",
	"warm-up",
	"warm-up-rate-limiter",
}

// SpecChecker checks one limiter spec of a scenario with the scenario's
// limit as the default for a limit the spec leaves out, and returns the
// problem as one line. registry.Check is the lab's: it knows every family.
type SpecChecker func(spec string, limit float64) error

// checkSpec checks a limiter spec string, NAME[:KEY=VALUE[,KEY=VALUE...]],
// with check (nil: SyntaxCheck), so a bad spec in a scenario file is
// reported when the file is loaded, at its line.
func checkSpec(check SpecChecker, spec string, limit float64) error {
	if check == nil {
		check = SyntaxCheck
	}
	if err := check(spec, limit); err != nil {
		return fmt.Errorf("algorithm %q: %v", spec, err)
	}
	return nil
}

// SyntaxCheck checks only a spec's syntax (package spec): which limiters
// and parameters exist is the business of the families above the traffic,
// and registry.Check, which knows them all, is the checker the lab loads
// scenarios with.
func SyntaxCheck(s string, _ float64) error {
	_, err := spec.Parse(s)
	return err
}
