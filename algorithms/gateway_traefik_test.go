package algorithms_test

import (
	"testing"
)

// TestTraefikTable replays docs/algorithms.md's traefik section: an
// x/time/rate bucket per source, Reserve() with a wait up to maxDelay =
// 1s/(2·⌊r⌋) (500 ms below r = 1), and a ttlmap entry that expires
// ttl whole seconds after its last use (2 for r ≥ 1, 1 + ⌊1/r⌋ below).
func TestTraefikTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		// maxDelay = 1s/4 = 250 ms. At 0.9 s: 1.8 tokens; the second
		// waits for 0.2 token, the third would wait 600 ms. The entry set
		// at 0.9 s expires at second 0 + 2: a new, full bucket. The doc's
		// "100 ms" is x/time/rate's 0.8 − 1 = −0.19999999999999996 token,
		// 0.09999999999999998 s, truncated to 99999999 ns.
		{"doc worked example: ++++.++.++++", "traefik:average=2,burst=4", script(
			repeat(4, pass(0)), one(block(0)),
			one(pass(dms(900))), one(passAfter(dms(900), dms(99.999999))), one(block(dms(900))),
			repeat(4, pass(dms(2000))),
		)},
		{"a refused request's token comes back", "traefik:average=2,burst=1", []arrival{
			pass(0), block(0), block(dms(100)), passAfter(dms(250), dms(250)),
		}},
		// r = 0.5 < 1: maxDelay 500 ms, ttl = 1 + 2 = 3 s.
		{"below 1/s: maxDelay 500 ms and a longer ttl", "traefik:average=1,period=2s,burst=1", []arrival{
			pass(0), block(dms(1400)), passAfter(dms(1500), dms(500)),
			block(dms(2100)),
			pass(dms(6000)), // expired at ⌊2⌋ + 3 = 5 s: a new bucket
		}},
		// At 1000 ms the reservation moves last back to 1000 before it is
		// cancelled (it would wait 1 s > 500 ms); from there 1600 ms has
		// 0.6 token and waits 400 ms.
		{"clock back: no refill, last moves back", "traefik:average=1,burst=1", []arrival{
			pass(dms(1500)), block(dms(1000)), passAfter(dms(1600), dms(400)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

// TestTraefikHeapEviction is the per-key bound's worked example: with
// capacity=3, A's Remove swaps C to the heap's root, so D pushes out C,
// not B, the least recently used: +++.+.+.
func TestTraefikHeapEviction(t *testing.T) {
	const A, B, C, D = 0, 1, 2, 3
	ats := at(100, 200, 300, 400, 500, 600, 650)
	keys := []int32{A, B, C, A, D, B, C}
	for spec, want := range map[string]string{
		"traefik:average=1,burst=1,key=key,capacity=3": "+++.+.+",
		"traefik:average=1,burst=1,key=key":            "+++.+..",
	} {
		if got := keyPattern(t, mustNew(t, spec), ats, keys); got != want {
			t.Errorf("%s: %s, want %s", spec, got, want)
		}
	}
}
