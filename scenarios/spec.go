package scenarios

import (
	"errors"
	"fmt"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
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
// with check (nil: EngineCheck), so a bad spec in a scenario file is
// reported when the file is loaded.
func checkSpec(check SpecChecker, spec string, limit float64) error {
	if check == nil {
		check = EngineCheck
	}
	if err := check(spec, limit); err != nil {
		return fmt.Errorf("algorithm %q: %v", spec, err)
	}
	return nil
}

// EngineCheck checks the specs of the in-memory families by building
// them. A spec whose first stage belongs to another family (redis-*) is
// not checked here, since the engine does not link that family: a caller
// that runs such specs checks them with its own SpecChecker.
func EngineCheck(s string, limit float64) error {
	_, err := algorithms.New(s, limit)
	var other *algorithms.OtherFamilyError
	if errors.As(err, &other) && other.Name == spec.Split(s).Stages[0].Name {
		return nil
	}
	return err
}
