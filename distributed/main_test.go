package distributed

import (
	"os"
	"runtime"
	"testing"
)

// TestMain runs the quick suite on one P unless GOMAXPROCS is set or
// EnvSoak asks for the long variants. The Redis tests are a dialogue: the
// test goroutine sends a command and waits while the embedded server's
// goroutines answer it. With more than one P each exchange wakes another
// thread, and on a busy machine the scheduler's spinning doubled the
// package's CPU time (measured: about 12 s of CPU with two Ps, 5 to 6 s
// with one, for the same wall time). The soak run, which .ci/run also
// runs with -race, keeps every P.
func TestMain(m *testing.M) {
	if os.Getenv("GOMAXPROCS") == "" && !soaking() {
		runtime.GOMAXPROCS(1)
	}
	os.Exit(m.Run())
}
