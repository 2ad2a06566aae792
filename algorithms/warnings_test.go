package algorithms

import (
	"strings"
	"testing"
)

func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string // substrings, one per warning
	}{
		{"leaky-bucket:limit=100,max-queue=0s", []string{"max-queue=0s"}},
		{"leaky-bucket:limit=100,max-queue=1ms", nil},
		{"warm-up-rate-limiter:limit=100,max-queue=0ms", []string{"max-queue=0s"}},
		{"warm-up-rate-limiter:limit=2000", nil}, // Math.round(0.5) = 1 ms
		{"warm-up-rate-limiter:limit=2000.5", []string{"limits nothing"}},
		{"warm-up-rate-limiter:limit=100000,max-queue=0s", []string{"max-queue=0s", "at 100000/s limits nothing"}},
		{"fixed-window:limit=100000", nil},
		{"token-bucket:rate=1e6", nil},
		{"warm-up:limit=100000", nil},
	} {
		l, err := New(tc.spec, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := Warnings(l)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d warnings %q, want %d", tc.spec, len(got), got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: warning %q lacks %q", tc.spec, got[i], w)
			}
		}
	}
}

// The 2000/s boundary is where the reference's cost really becomes 0 ms.
func TestWarmUpRateLimiterCostBoundary(t *testing.T) {
	if javaRound(1.0*1/2000.0*1000) != 1 || javaRound(1.0*1/2000.5*1000) != 0 {
		t.Errorf("Math.round(1000/rate) is not 0 exactly above %d/s", maxWarmUpRateLimiterRate)
	}
}
