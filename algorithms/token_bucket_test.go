package algorithms_test

import (
	"testing"
)

// TestTokenBucketTable replays docs/algorithms.md's token-bucket section
// (x/time/rate's AllowN(t, 1)): a full bucket of burst tokens refilled at
// rate per second; a step back counts as no elapsed time and, on a pass,
// moves the last pass back; a block changes nothing.
func TestTokenBucketTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"doc worked example", "token-bucket:rate=10,burst=2", []arrival{
			pass(0), pass(0), block(0),
			block(dms(50)), // half a token
			pass(dms(100)), block(dms(150)), pass(dms(200)), pass(dms(300)),
		}},
		{"limit=L is rate=L, burst=ceil(L)", "token-bucket:limit=2.5", []arrival{
			pass(0), pass(0), pass(0), block(0),
			pass(dms(400)), // 2.5 tokens a second: one in 400 ms
			block(dms(500)),
		}},
		{"clock back: a block changes nothing", "token-bucket:rate=1,burst=2", []arrival{
			pass(dms(1000)), pass(dms(1000)),
			block(dms(500)),  // no elapsed time, no token
			block(dms(1500)), // half a token since 1000
			pass(dms(2000)),
		}},
		{"clock back: a pass moves the last pass back", "token-bucket:rate=1,burst=2", []arrival{
			pass(dms(1000)),  // one token left
			pass(dms(500)),   // no refill, takes the last token, last = 500
			block(dms(1000)), // half a token since 500
			pass(dms(1500)),  // one token since 500
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestTokenBucketSpecAndErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"token-bucket:rate=10":        "token-bucket:rate=10,burst=10",
		"token-bucket:rate=0.5":       "token-bucket:rate=0.5,burst=1",
		"token-bucket:limit=100":      "token-bucket:rate=100,burst=100",
		"token-bucket:rate=3,burst=7": "token-bucket:rate=3,burst=7",
	} {
		if got := mustNew(t, spec).Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
	}
	checkErrors(t, map[string][]string{
		"token-bucket:limit=1,rate=1": {"give either limit or rate, not both"},
		"token-bucket:rate=0":         {"rate must be a positive number, got 0"},
		"token-bucket:limit=-1":       {"limit must be a positive number, got -1"},
		"token-bucket:rate=1e300":     {"rate 1e+300 is too large for a default burst; give burst=N"},
		"token-bucket:rate=1,burst=x": {`burst "x" is not a whole number`},
	})
}
