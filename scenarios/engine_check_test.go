package scenarios

import "github.com/ratelimit-lab/ratelimit-lab/algorithms"

// engineLoader checks specs by building them with the in-memory families,
// as the lab's registry.Check does for them, so the tests of this package
// see the spec errors a scenario file gets from the command. Only the
// tests import algorithms: the traffic package itself sits below every
// family.
var engineLoader = Loader{Check: func(s string, limit float64) error {
	_, err := algorithms.New(s, limit)
	return err
}}
