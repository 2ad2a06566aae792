package algorithms_test

import (
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestEnvoyAdaptiveTable replays docs/algorithms.md's envoy-adaptive
// section (Envoy's GradientController): a minRTT window at creation holds
// the limit at min; after request-count samples minRTT is the percentile
// of the approximate histogram and the old limit returns; every
// update-interval after, limit = trunc(L·g + √(L·g)) with g =
// clamp(minRTT·(1+buffer)/sampleRTT, 0.5, 2).
func TestEnvoyAdaptiveTable(t *testing.T) {
	ms := dms(1)
	spec := "envoy-adaptive:interval=30s,update-interval=100ms,request-count=5,percentile=50,buffer=25%,min=3,max=1000"

	t.Run("min concurrency in the window", func(t *testing.T) {
		replayAdaptive(t, completer(t, spec, nil), []adaptiveEvent{
			in(0), in(0), in(0), refused(0), done(ms, 0, algorithms.Success), in(ms),
		})
	})

	t.Run("Envoy's CancelLatencySample, then one update", func(t *testing.T) {
		l := completer(t, spec, nil).(*algorithms.EnvoyAdaptive)
		if got := l.CurrentLimit(0); got != 3 {
			t.Fatalf("limit at 0 = %v, want min 3", got)
		}
		// Samples of 1, 2, 3, 4 and 5 ms: the median falls in the bin
		// [3000, 3100) µs with one sample: 3000 + 1/2·100 = 3050 µs.
		for i := 1; i <= 5; i++ {
			at := time.Duration(i) * 10 * ms
			if !l.Check(at).Pass {
				t.Fatalf("call %d refused", i)
			}
			tk := l.Begin(at, at)
			l.Complete(at+time.Duration(i)*ms, tk, algorithms.Success)
		}
		if got := l.MinRTT(); got != 3050*time.Microsecond {
			t.Fatalf("MinRTT() = %v, want 3.05ms", got)
		}
		// The window ended at 55 ms: the old limit (3) returns and the
		// update timer fires at 155 ms. One sample of 1 ms: sampleRTT
		// 1000 + 1/2·10 = 1005 µs, g = clamp(3050·1.25/1005, 0.5, 2) = 2,
		// limit = trunc(6 + √6) = 8.
		tk := l.Begin(60*ms, 60*ms)
		l.Complete(61*ms, tk, algorithms.Success)
		if got := l.CurrentLimit(154 * ms); got != 3 {
			t.Errorf("limit at 154 ms = %v, want 3", got)
		}
		if got := l.CurrentLimit(155 * ms); got != 8 {
			t.Errorf("limit at 155 ms = %v, want 8", got)
		}
	})
}

func TestEnvoyAdaptiveSpecAndErrors(t *testing.T) {
	l := mustNew(t, "envoy-adaptive:update=50ms")
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
	if a, b := l.Spec(), mustNew(t, "envoy-adaptive:update-interval=50ms").Spec(); a != b {
		t.Errorf("update= is another name for update-interval: %q vs %q", a, b)
	}
	checkErrors(t, map[string][]string{
		"envoy-adaptive:interval=0s":                  {"interval must be at least 1ms"},
		"envoy-adaptive:request-count=0":              {"request-count must be at least 1, got 0"},
		"envoy-adaptive:percentile=101":               {"percentile must be 0 to 100, got 101"},
		"envoy-adaptive:min=5,max=4":                  {"need 1 ≤ min ≤ max, got min=5 max=4"},
		"envoy-adaptive:update=1s,update-interval=1s": {"is given twice", "update-interval and update"},
	})
}
