package algorithms_test

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestNginxLimitReqTable replays docs/algorithms.md's nginx-limit-req
// section: excess in milli-requests on a whole-millisecond clock, excess =
// max(0, excess − rate·ms/1000 + 1000), rejected above burst without
// writing, delayed (excess − delay)·1000/rate ms.
func TestNginxLimitReqTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []keyArrival
	}{
		{"doc worked example: rate=2r/s, burst=1", "nginx-limit-req:rate=2r/s,burst=1", []keyArrival{
			kp(0, 0),                    // new key
			kpw(dms(100), 0, dms(400)),  // 0 − 200 + 1000 = 800
			kb(dms(200), 0),             // 800 − 200 + 1000 = 1600 > 1000
			kpw(dms(600), 0, dms(400)),  // from last = 100: 800 − 1000 + 1000
			kb(dms(600), 0),             // ms = 0: 1800
			kp(dms(1600), 0),            // < 0: 0
			kpw(dms(1600), 0, dms(500)), // 1000
		}},
		{"burst=0 at 3r/s: 333 ms is 1 milli-request short", "nginx-limit-req:rate=3r/s", []keyArrival{
			kp(0, 0), kb(dms(333), 0), kp(dms(334), 0),
		}},
		{"1r/m is 16 milli-requests a second: one per 62.5 s", "nginx-limit-req:rate=1r/m", []keyArrival{
			kp(0, 0), kb(dms(62499), 0), kp(dms(62500), 0),
		}},
		{"nodelay passes the burst at once", "nginx-limit-req:rate=2r/s,burst=1,nodelay=true", []keyArrival{
			kp(0, 0), kp(dms(100), 0), kb(dms(200), 0),
		}},
		{"delay=1: the first request of the burst is not delayed", "nginx-limit-req:rate=2r/s,burst=2,delay=1", []keyArrival{
			kp(0, 0), kp(dms(100), 0), kpw(dms(200), 0, dms(300)), // (1600 − 1000)·1000/2000
		}},
		{"the clock is truncated to the ms", "nginx-limit-req:rate=2r/s", []keyArrival{
			kp(dms(0.9), 0), kb(dms(499.9), 0), kp(dms(500.2), 0),
		}},
		{"keys are independent; an empty key passes unaccounted", "nginx-limit-req:rate=1r/s", []keyArrival{
			kp(0, 0), kp(0, 1), kb(0, 0), kp(0, algorithms.NoKey), kp(0, algorithms.NoKey),
		}},
		{"clock back: −60000 ≤ ms < 0 counts as 0", "nginx-limit-req:rate=1r/s,burst=5", []keyArrival{
			kp(dms(100000), 0), kpw(dms(50000), 0, dms(1000)), // 0 + 1000
		}},
		{"clock back: ms < −60000 counts as 1", "nginx-limit-req:rate=1000r/s,burst=5", []keyArrival{
			kp(dms(100000), 0), kpw(dms(100000), 0, dms(1)), // 1000: 1 ms
			kpw(dms(30000), 0, dms(1)), // 1000 − 1000000·1/1000 + 1000 = 1000
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replayKeys(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestNginxLimitReqSpecAndErrors(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=2r/s,burst=1")
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
	if k, ok := l.(algorithms.KeyColumnUser); !ok || len(k.KeyColumns()) != 1 || k.KeyColumns()[0] != "key" {
		t.Errorf("the default key column is key")
	}
	checkErrors(t, map[string][]string{
		"nginx-limit-req": {"nginx-limit-req needs a rate: add rate=Nr/s or rate=Nr/m"},
		"nginx-limit-req:rate=2r/s,delay=1,nodelay=true": {"give delay=N or nodelay=true, not both"},
		"nginx-limit-req:rate=2r/s,zone=1k":              {"zone"},
		"nginx-limit-req:rate=2r/s,nodelay=maybe":        {`nodelay "maybe" is not true or false`},
	})
}
