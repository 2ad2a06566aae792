package algorithms_test

import (
	"testing"
)

// TestGuavaWarmingUpTable replays docs/algorithms.md's guava-warming-up
// section (Guava 33's SmoothWarmingUp). For rate 2 and warm-up 4 s: s =
// 500 ms, c = 1.5 s, thresholdPermits = 0.5·4/0.5 = 4, maxPermits = 4 +
// 2·4/(0.5+1.5) = 8, slope 250 ms a permit; the limiter starts with 8
// stored, and the permit from 8 to 7 costs the area (1.5 + 1.25)/2 =
// 1.375 s, the next 1.125 s, then 0.875 and 0.625 s, then s below the
// threshold.
func TestGuavaWarmingUpTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"Guava's documentation, each call as the previous returns", "guava-warming-up:rate=2,warm-up=4000ms,timeout=inf", []arrival{
			pass(0), passAfter(0, dms(1375)), passAfter(dms(1375), dms(1125)), passAfter(dms(2500), dms(875)),
			passAfter(dms(3375), dms(625)), passAfter(dms(4000), dms(500)), passAfter(dms(4500), dms(500)), passAfter(dms(5000), dms(500)),
		}},
		{"tryAcquire with timeout=0 on the cold limiter", "guava-warming-up:rate=2,warm-up=4s", []arrival{
			pass(0), block(0), block(dms(1374.999)), pass(dms(1375)), block(dms(2499)), pass(dms(2500)),
		}},
		{"a timeout covers the cold cost", "guava-warming-up:rate=2,warm-up=4s,timeout=1375ms", []arrival{
			pass(0), passAfter(0, dms(1375)), block(0),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestGuavaWarmingUpSpecAndErrors(t *testing.T) {
	l := mustNew(t, "guava-warming-up:rate=2,warm-up=4s")
	if got, want := l.Spec(), "guava-warming-up:rate=2,warm-up=4s,cold-factor=3,timeout=0s"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
	if _, err := algorithmsNew("guava-warming-up:rate=2,warm-up=0s", 0); err != nil {
		t.Errorf("warm-up=0s is accepted, as Guava accepts it: %v", err)
	}
	checkErrors(t, map[string][]string{
		"guava-warming-up:rate=1":                          {"guava-warming-up needs a warm-up: add warm-up=D"},
		"guava-warming-up:rate=0,warm-up=1s":               {"rate"},
		"guava-warming-up:rate=1,warm-up=1s,cold-factor=1": {"cold-factor"},
		"guava-warming-up:rate=1,warm-up=-1s":              {"warm-up"},
	})
}
