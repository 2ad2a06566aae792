package algorithms

import (
	"strings"
	"testing"
	"time"
)

func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string // substrings, one per warning
	}{
		{"leaky-bucket:limit=100,max-queue=0s", []string{"max-queue=0s"}},
		{"leaky-bucket:limit=100,max-queue=1ms", nil},
		{"warm-up-rate-limiter:limit=100,max-queue=0ms", []string{"max-queue=0s"}},
		{"warm-up-rate-limiter:limit=1999", nil},
		// Math.round(0.5) = 1 ms once warm, but at the warning line the
		// rate is nextUp(2000) and its cost rounds to 0 (issue 34).
		{"warm-up-rate-limiter:limit=2000", []string{"at 2000/s limits nothing while its tokens sit at the warning line"}},
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

// The warning's thresholds are where the limiter really stops limiting:
// poisson at twice the limit for 30 s through the limiter, the largest
// count in one second above the limit comes with a warning, and a
// warning comes only with such a count, at 1999, 2000 and 2001/s. (Far
// above 2000/s, at 4000/s, the coldest cost of 1 ms holds the passes at
// 1000/s, under the count/coldFactor that would warm it, so it never gets
// warm with this traffic: the warning is about once warm.)
func TestWarmUpRateLimiterWarnsExactlyWhereItLetsMoreThrough(t *testing.T) {
	for _, limit := range []float64{1000, 1999, 1999.5, 2000, 2001} {
		l, err := NewWarmUpRateLimiter(WarmUpRateLimiterConfig{Limit: limit, WarmUp: 10 * time.Second, ColdFactor: 3, MaxQueue: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		// Evenly spaced arrivals at twice the limit, every 1/(2·limit) s.
		gap := time.Duration(float64(time.Second) / (2 * limit))
		perSecond := map[int64]int{}
		for now := time.Duration(0); now < 30*time.Second; now += gap {
			if d := l.Decide(now); d.Pass {
				perSecond[int64((now+d.Wait)/time.Second)]++
			}
		}
		most := 0
		for _, n := range perSecond {
			most = max(most, n)
		}
		warned := len(Warnings(l)) > 0
		if over := float64(most) > limit; over != warned {
			t.Errorf("limit %v/s: most passes in a second %d, warned %v", limit, most, warned)
		}
	}
}
