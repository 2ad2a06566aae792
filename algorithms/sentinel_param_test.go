package algorithms_test

import (
	"testing"
)

// TestSentinelParamTable replays docs/algorithms.md's sentinel-param
// section (Sentinel's ParamFlowChecker, sentinel-golang's hotspot): tokens
// refilled only after strictly more than a whole duration, a throttle
// whose wait must be strictly shorter than max-queue, an LRU of values.
func TestSentinelParamTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []keyArrival
	}{
		{"doc worked example: count=2", "sentinel-param:count=2", []keyArrival{
			kp(0, 0),         // first sighting: (0, 2 − 1)
			kp(dms(10), 0),   // rest 1 − 1 = 0
			kb(dms(20), 0),   // 0 − 1 < 0
			kb(dms(1000), 0), // 1000 is not > 1000: no refill
			kp(dms(1001), 0), // toAdd = 1001·2/1000 = 2: 0 + 2 − 1 = 1
			kp(dms(1002), 0),
			kb(dms(1003), 0),
		}},
		{"the same with flavor=go", "sentinel-param:count=2,flavor=go", []keyArrival{
			kp(0, 0), kp(dms(10), 0), kb(dms(20), 0), kb(dms(1000), 0), kp(dms(1001), 0), kp(dms(1002), 0),
		}},
		{"burst: max = count + burst", "sentinel-param:count=2,burst=1", []keyArrival{
			kp(0, 0), kp(0, 0), kp(0, 0), kb(0, 0),
		}},
		{"a cost above max rejects at once", "sentinel-param:count=2,burst=1", []keyArrival{
			{at: 0, key: 0, cost: 4}, {at: 0, key: 0, cost: 3, pass: true}, kb(0, 0),
		}},
		{"a fractional count is truncated", "sentinel-param:count=2.9", []keyArrival{
			kp(0, 0), kp(0, 0), kb(0, 0),
		}},
		{"values are independent", "sentinel-param:count=1", []keyArrival{
			kp(0, 0), kb(0, 0), kp(0, 1), kb(0, 1),
		}},
		// cost = round(1000·1·1/4) = 250 ms.
		{"doc worked example: throttle", "sentinel-param:count=4,behavior=throttle,max-queue=200ms", []keyArrival{
			kp(0, 0),
			kp(dms(250), 0),            // expected 250 ≤ 250
			kb(dms(260), 0),            // 240 ≥ 200
			kb(dms(300), 0),            // 200 is not < 200
			kpw(dms(301), 0, dms(199)), // last = 500
		}},
		{"throttle, Java rounds the cost: round(1000/3) = 333 ms", "sentinel-param:count=3,behavior=throttle", []keyArrival{
			kp(0, 0), kb(dms(332), 0), kp(dms(333), 0),
		}},
		{"throttle, Go floors the cost: 1000/3 = 333 ms", "sentinel-param:count=3,behavior=throttle,flavor=go", []keyArrival{
			kp(0, 0), kb(dms(332), 0), kp(dms(333), 0),
		}},
		{"throttle, a 2/3 ms cost: Java round(666.67) = 667, Go 666", "sentinel-param:count=3,duration=2s,behavior=throttle", []keyArrival{
			kp(0, 0), kb(dms(666), 0), kp(dms(667), 0),
		}},
		{"throttle, Go: 666", "sentinel-param:count=3,duration=2s,behavior=throttle,flavor=go", []keyArrival{
			kp(0, 0), kb(dms(665), 0), kp(dms(666), 0),
		}},
		{"capacity=2: an evicted value comes back with a full bucket", "sentinel-param:count=1,capacity=2", []keyArrival{
			kp(0, 0), kp(0, 1), kb(0, 0), kp(0, 2), // 1 is the least recently accessed: evicted
			kp(0, 1), // back, full
			kb(0, 2),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replayKeys(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestSentinelParamSpecAndErrors(t *testing.T) {
	for _, spec := range []string{"sentinel-param:count=2", "sentinel-param:count=4,behavior=throttle,max-queue=200ms,flavor=go", "sentinel-param:count=2,capacity=unbounded"} {
		l := mustNew(t, spec)
		if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
			t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
		}
	}
	checkErrors(t, map[string][]string{
		"sentinel-param:count=2,behavior=queue":  {`behavior "queue" is not known; allowed: reject, throttle`},
		"sentinel-param:count=2,duration=1500ms": {"duration"},
	})
}
