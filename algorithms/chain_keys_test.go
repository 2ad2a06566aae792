package algorithms_test

import (
	"slices"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestChainNginxZones replays docs/algorithms.md's "Several limit_req in
// one location": consecutive nginx-limit-req stages run as one handler;
// every zone but the last only checks, a reject anywhere charges nothing,
// and the delay is the largest of the zones'.
func TestChainNginxZones(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []keyArrival
	}{
		// At 1500 ms the second zone rejects (500 > 0), so the first is not
		// charged: at 2000 ms it still reads excess 0 and delays nothing
		// (charged at 1500 it would read 1000 and delay 1 s).
		{"a reject in a later zone charges no earlier zone", "nginx-limit-req:rate=1r/s,burst=1+nginx-limit-req:rate=1r/s", []keyArrival{
			kp(dms(1000), 0), kb(dms(1500), 0), kp(dms(2000), 0),
		}},
		// Zone 1: 1000 → 1000·1000/1000 = 1000 ms; zone 2: 1000 →
		// 1000·1000/2000 = 500 ms.
		{"the delay is the largest of the zones'", "nginx-limit-req:rate=1r/s,burst=5+nginx-limit-req:rate=2r/s,burst=5", []keyArrival{
			kp(dms(1000), 0), kpw(dms(1000), 0, dms(1000)),
		}},
		{"a zone whose key is empty is skipped", "nginx-limit-req:rate=1r/s+nginx-limit-req:rate=1r/s", []keyArrival{
			kp(0, algorithms.NoKey), kp(0, algorithms.NoKey),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replayKeys(t, mustNew(t, c.spec), c.steps) })
	}
}

// TestChainKeyColumns: a chain names every keyed stage's column, binds
// them in that order, and reports its per-key figures.
func TestChainKeyColumns(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/s+nginx-limit-req:rate=1r/s,key=ip")
	k, ok := l.(algorithms.KeyColumnUser)
	if !ok {
		t.Fatalf("a chain of keyed stages is not a KeyColumnUser")
	}
	if got := k.KeyColumns(); !slices.Equal(got, []string{"key", "ip"}) {
		t.Errorf("KeyColumns() = %q, want [key ip]", got)
	}
	if err := k.BindKeyColumns([]int{1, 0}); err != nil {
		t.Fatalf("BindKeyColumns: %v", err)
	}
	rl := l.(algorithms.RequestLimiter)
	// Column 0 is ip, column 1 is key: same ip, new keys.
	r := func(ip, key int32) *algorithms.Request {
		return &algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{ip, key, algorithms.NoKey, algorithms.NoKey}, Cost: 1}
	}
	got := ""
	for _, req := range []*algorithms.Request{r(0, 0), r(0, 1), r(1, 1), r(1, 2)} {
		if rl.DecideRequest(0, req).Pass {
			got += "+"
		} else {
			got += "."
		}
	}
	// The second is refused by ip 0, which charges nothing to key 1, so
	// the third passes (key 1 was only checked); the fourth is refused by
	// ip 1.
	if got != "+.+." {
		t.Errorf("decisions %s, want +.+.", got)
	}
	if algorithms.KeyReporterOf(l) == nil {
		t.Errorf("KeyReporterOf(chain) = nil")
	}
	if algorithms.KeyReporterOf(mustNew(t, "leap-array:limit=1+token-bucket:rate=1")) != nil {
		t.Errorf("a chain without keyed stages reports per-key figures")
	}
}
