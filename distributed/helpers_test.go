package distributed

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// EnvRedisURL names the environment variable that points the Redis tests
// at a real server as well (.ci/run starts one); without it they run on
// the embedded server only.
const EnvRedisURL = "RATELIMIT_LAB_REDIS_URL"

// EnvSoak names the environment variable that runs the long variants of
// the conformance tests (.ci/run sets it): every round and full-length
// traces. Without it each test runs a subset that still covers each of
// its parameter cycles (windows, clocks, trace shapes, spec kinds), so
// that go test ./... stays within a minute on two cores.
const EnvSoak = "RATELIMIT_LAB_SOAK"

// soaking reports whether EnvSoak is set.
func soaking() bool { return os.Getenv(EnvSoak) == "1" }

// long returns full when soaking, else quick.
func long(full, quick int) int {
	if soaking() {
		return full
	}
	return quick
}

// backends returns the servers every Redis test runs against: always the
// embedded default (native) and the embedded Lua one, and the real one
// when EnvRedisURL is set. In CI (CI=true) a missing EnvRedisURL fails
// the test instead of leaving the real server out: .ci/run starts one.
func backends(t testing.TB) map[string]*Backend {
	t.Helper()
	out := map[string]*Backend{}
	e, err := OpenEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	out["native"] = e
	lua, err := OpenEmbeddedLua()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lua.Close() })
	out["lua"] = lua
	url := os.Getenv(EnvRedisURL)
	if url == "" && os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s is not set: run the tests through .ci/run, which starts redis-server", EnvRedisURL)
	}
	if url != "" {
		r, err := OpenURL(context.Background(), url, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		out["real"] = r
	}
	return out
}

// forEachBackend runs f as a subtest per backend.
func forEachBackend(t *testing.T, f func(t *testing.T, b *Backend)) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) { f(t, b) })
	}
}

func mustParse(t testing.TB, spec string) *Spec {
	t.Helper()
	s, err := Parse(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustNew(t testing.TB, spec string, b *Backend) *Limiter {
	t.Helper()
	l, err := New(mustParse(t, spec), b, Options{Bin: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// decideAll runs a trace through l and finishes it.
func decideAll(t testing.TB, l algorithms.Limiter, trace []time.Duration) []algorithms.Decision {
	t.Helper()
	out := make([]algorithms.Decision, len(trace))
	for i, at := range trace {
		out[i] = l.Decide(at)
	}
	if f, ok := l.(*Limiter); ok {
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
		if err := f.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// wholeMsTrace is n arrivals at whole milliseconds, non-decreasing, with
// bursts (several at one ms) and gaps, over about span.
func wholeMsTrace(r *rand.Rand, n int, span time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	t := time.Duration(0)
	step := int64(2 * span / time.Duration(n) / time.Millisecond)
	for i := range out {
		switch r.IntN(4) {
		case 0: // same ms
		case 1:
			t += time.Duration(r.Int64N(step+1)) * time.Millisecond
		case 2:
			t += time.Duration(r.Int64N(3*step+1)) * time.Millisecond
		default:
			t += time.Millisecond
		}
		out[i] = t
	}
	return out
}

// nsTrace is like wholeMsTrace with nanosecond times.
func nsTrace(r *rand.Rand, n int, span time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	t := time.Duration(0)
	step := int64(2 * span / time.Duration(n))
	for i := range out {
		if r.IntN(5) > 0 {
			t += time.Duration(r.Int64N(step + 1))
		}
		out[i] = t
	}
	return out
}
