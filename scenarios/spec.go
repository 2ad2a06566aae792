package scenarios

import (
	"fmt"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
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

// checkSpec checks a limiter spec string, NAME[:KEY=VALUE[,KEY=VALUE...]],
// by building it with the scenario's limit, so a bad spec in a scenario
// file is reported when the file is loaded.
func checkSpec(spec string, limit float64) error {
	if distributed.IsRedis(spec) {
		if _, err := distributed.Parse(spec, limit); err != nil {
			return fmt.Errorf("algorithm %q: %v", spec, err)
		}
		return nil
	}
	if _, err := algorithms.New(spec, limit); err != nil {
		return fmt.Errorf("algorithm %q: %v", spec, err)
	}
	return nil
}
