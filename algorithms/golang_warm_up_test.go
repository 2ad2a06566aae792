package algorithms_test

import (
	"testing"
	"time"
)

// TestGoWarmUpTable replays sentinel-golang's WarmUp calculator of
// docs/algorithms.md (warm-up:flavor=go with Reject, warm-up-rate-limiter:
// flavor=go with Throttling). For limit=10, warm-up 1 s, cold factor 3:
// warningToken = uint64(10/2) = 5, maxToken = 5 + uint64(20/4) = 10, slope
// = 2/10/5 = 0.04; the first request fills the tokens to 10, so the
// threshold is nextafter(1/(5·0.04 + 0.1)) = 3.33.
func TestGoWarmUpTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		// At 1700 ms the previous QPS is the window [500, 1500), which
		// holds no pass: the tokens stay at 10 and 3.33 are allowed
		// (Java reads the second [0, 1 s) and allows 5.55).
		{"the previous QPS is the window ending at the current bucket", "warm-up:limit=10,warm-up=1s,cold-factor=3,flavor=go", script(
			repeat(3, pass(0)), repeat(2, block(0)),
			repeat(3, pass(dms(1700))), repeat(4, block(dms(1700))),
		)},
		{"warm-up + throttling: interval 300 ms in ns", "warm-up-rate-limiter:limit=10,warm-up=1s,cold-factor=3,flavor=go", []arrival{
			pass(0), passAfter(dms(299.5), 500*time.Microsecond),
		}},
		{"queued at the warming rate up to max-queue", "warm-up-rate-limiter:limit=10,warm-up=1s,cold-factor=3,max-queue=700ms,flavor=go", []arrival{
			pass(0), passAfter(0, dms(300)), passAfter(0, dms(600)), block(0),
		}},
		// The cold rate 2/3 is below 1: nothing passes, the previous QPS
		// stays 0, which is not below uint32(2)/3 = 0, so the tokens never
		// drain.
		{"a cold rate below 1 blocks, and for good", "warm-up-rate-limiter:limit=2,flavor=go", []arrival{
			block(0), block(dms(2000)), block(dms(4000)), block(dms(60000)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestGoWarmUpSpecAndErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"warm-up:limit=10,flavor=go":                              "warm-up:limit=10,warm-up=10s,cold-factor=3,sample-count=2,interval=1s,flavor=go",
		"warm-up-rate-limiter:limit=10,flavor=go,sample-count=10": "warm-up-rate-limiter:limit=10,warm-up=10s,cold-factor=3,max-queue=500ms,sample-count=10,interval=1s,flavor=go",
	} {
		l := mustNew(t, spec)
		if got := l.Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
		if got := mustNew(t, l.Spec()).Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q", want, got)
		}
	}
	checkErrors(t, map[string][]string{
		"warm-up:limit=10,cold-factor=1,flavor=go":              {"cold-factor must be larger than 1"},
		"warm-up-rate-limiter:limit=10,cold-factor=0,flavor=go": {"cold-factor must be larger than 1"},
		"warm-up:limit=10,warm-up=2s500ms,flavor=go":            {"warm-up must be whole seconds"},
	})
}
