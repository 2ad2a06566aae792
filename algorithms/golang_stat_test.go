package algorithms_test

import (
	"testing"
)

// TestGoStatRingTable replays the clock-back rows of docs/algorithms.md's
// "Where the two Sentinels differ" for sentinel-golang's statistic (the
// ring of 10·S buckets, created at t = 0, read through the window of the
// buckets up to t's own), through leap-array:flavor=go.
func TestGoStatRingTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"buckets in the future do not count", "leap-array:limit=10,flavor=go", script(
			repeat(10, pass(dms(900))), repeat(10, pass(dms(400))),
		)},
		{"the ring of 10·S buckets still holds older buckets", "leap-array:limit=10,flavor=go", script(
			repeat(10, pass(dms(100))), one(pass(dms(1100))),
			// [0, 500) is still in the ring and counts; the passes at
			// 300 ms would land in it but their slot is newer: lost.
			repeat(10, block(dms(300))),
		)},
		{"a blocked request has reset its slot", "leap-array:limit=10,flavor=go", script(
			repeat(10, pass(dms(250))), repeat(10, pass(dms(9750))),
			one(block(dms(10250))), // [9500, 10000) + [10000, 10500)'s none: 10
			repeat(10, pass(dms(250))),
		)},
		{"before creation the whole ring is in the future", "leap-array:limit=10,flavor=go",
			repeat(20, pass(dms(-5000)))},
		{"the window slides bucket by bucket", "leap-array:limit=3,sample-count=4,interval=1s,flavor=go", []arrival{
			pass(dms(0)), pass(dms(260)), pass(dms(510)), block(dms(999)),
			pass(dms(1000)), // [0, 250) has left: [250, 1250)
			block(dms(1249)), pass(dms(1250)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

// TestGoStatParams: the ring's 10·interval must fit sentinel-golang's
// uint32 of ms.
func TestGoStatParams(t *testing.T) {
	if _, err := algorithmsNew("leap-array:limit=1,interval=429496729ms,sample-count=1,flavor=go", 0); err != nil {
		t.Errorf("interval 429496729ms: %v", err)
	}
	checkErrors(t, map[string][]string{
		"leap-array:limit=1,interval=429496730ms,sample-count=1,flavor=go": {"interval must be whole milliseconds from 1ms to 429496729ms", "sentinel-golang holds 10·interval in uint32 ms"},
		"leap-array:limit=1,interval=1000100us,flavor=go":                  {"interval must be whole milliseconds"},
	})
}
