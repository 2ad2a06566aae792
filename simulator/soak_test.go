package simulator

import "os"

// EnvSoak names the environment variable that runs the long variants of
// the reference tests (.ci/run sets it). Without it they run a subset of
// their seeds, so that go test ./... stays within a minute on two cores.
const EnvSoak = "RATELIMIT_LAB_SOAK"

// long returns full when EnvSoak is set, else quick.
func long(full, quick int) int {
	if os.Getenv(EnvSoak) == "1" {
		return full
	}
	return quick
}
