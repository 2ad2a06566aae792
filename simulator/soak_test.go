package simulator

import (
	"os"
	"runtime"
	"testing"
)

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

// TestMain runs the quick suite on one P unless GOMAXPROCS or EnvSoak is
// set: Run feeds batches of arrivals through channels to one goroutine
// per limiter, and on a busy machine waking another thread for each batch
// cost as much CPU as the runs themselves (measured: 6 s of CPU with two
// Ps, 3.3 s with one, for the same wall time). The soak run, which .ci/run
// also runs with -race, keeps every P.
func TestMain(m *testing.M) {
	if os.Getenv("GOMAXPROCS") == "" && os.Getenv(EnvSoak) != "1" {
		runtime.GOMAXPROCS(1)
	}
	os.Exit(m.Run())
}
