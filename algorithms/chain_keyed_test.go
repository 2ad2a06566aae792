package algorithms

import (
	"testing"
	"time"
)

// TestKeyedStage: a key= limiter of any kind that is a stage is a stage
// per key: each key gets its own instance, checked and recorded as the
// kind is in a chain of its own, and an empty key meets its family's
// rule.
func TestKeyedStage(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name, spec string
		steps      []emptyStep
	}{
		// token-bucket per key (burst 1) before a leap-array of 3 for all:
		// key 0's second request is refused by its own bucket; key 1's
		// first passes; the leap-array then refuses the 4th pass.
		{"token-bucket per key, then a shared leap-array", "token-bucket:rate=1,burst=1,key=user+leap-array:limit=3", []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, 1, ek, true}, {0, 2, ek, true}, {0, 3, ek, false}, {1000 * ms, 0, ek, true}}},
		// The empty key follows the stage's family: token-bucket passes it
		// unaccounted; traefik shares one bucket.
		{"token-bucket stage passes an empty key", "token-bucket:rate=1,burst=1,key=user+leap-array:limit=100", []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, true}, {0, ek, ek, true}}},
		{"traefik stage shares one bucket for the empty key", "traefik:average=1,burst=1,key=user+leap-array:limit=100", []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, false}, {0, 0, ek, true}}},
		// A Kong stage counts with its own limit (second=1), whatever the
		// other stage's, and falls back to the ip column.
		{"kong stage with its own rate and fallback", "leap-array:limit=100+kong:second=1,key=user,fallback=ip", []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, 0, false}, {0, ek, 1, true}, {1000 * ms, 0, ek, true}}},
		// A refused request is not recorded in the earlier stage: the
		// second stage's reject leaves key 0's fixed window at 1.
		{"a later reject records nothing per key", "fixed-window:limit=2,key=user+fixed-window:limit=1", []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {1000 * ms, 0, ek, true}, {1000 * ms, 1, ek, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runEmptySteps(t, c.spec, c.steps)
		})
	}
}

// TestKeyedStageReports: a chain with a key= stage has per-key results
// accounted by that stage's column, with its evictions and its own
// nominal limit; capacity= gives the chain an unbounded twin.
func TestKeyedStageReports(t *testing.T) {
	l, err := New("token-bucket:rate=2,burst=1,key=user,capacity=1+leap-array:limit=100", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := l.(*Chain)
	if err := c.BindKeyColumns([]int{1}); err != nil {
		t.Fatal(err)
	}
	rep := KeyReporterOf(c)
	if rep == nil {
		t.Fatal("a chain with a key= stage has no per-key view")
	}
	rep.TrackShadow()
	if rep.KeyIndex() != 1 {
		t.Errorf("KeyIndex %d, want 1", rep.KeyIndex())
	}
	if lim, w := rep.KeyNominal(); lim != 2 || w != time.Second {
		t.Errorf("KeyNominal %v per %v, want 2 per 1s", lim, w)
	}
	// capacity=1: key 0, key 1 (evicts 0), key 0 again (fresh: passes,
	// where the unbounded twin refuses it).
	pass := 0
	for _, id := range []int32{0, 1, 0} {
		r := Request{Keys: [MaxKeyColumns]int32{NoKey, id, NoKey, NoKey}, Cost: 1}
		if c.DecideRequest(0, &r).Pass {
			pass++
		}
	}
	f := rep.KeyFigures()
	if pass != 3 || f.Evictions != 2 || !f.HasShadow || f.ShadowPasses != 2 {
		t.Errorf("passes %d, figures %+v; want 3 passes, 2 evictions, a twin that passed 2", pass, f)
	}
	if rep.KeyEvictions(0) != 1 || rep.KeyEvictions(1) != 1 {
		t.Errorf("evictions of keys 0 and 1: %d, %d; want 1, 1", rep.KeyEvictions(0), rep.KeyEvictions(1))
	}
}

// TestChainWindowLimit: a chain's limit in a window is the tightest of
// its stages' own: Kong's minute=100 allows 100 in a second, not
// 100/60.
func TestChainWindowLimit(t *testing.T) {
	l, err := New("kong:minute=100+leap-array:limit=1000", 0)
	if err != nil {
		t.Fatal(err)
	}
	wl := l.(WindowLimiter)
	if got := wl.WindowLimit(time.Second); got != 100 {
		t.Errorf("WindowLimit(1s) = %v, want Kong's 100", got)
	}
	if got := wl.WindowLimit(time.Minute); got != 100 {
		t.Errorf("WindowLimit(1m) = %v, want 100", got)
	}
	l, _ = New("token-bucket:rate=10+leap-array:limit=20", 0)
	if got := l.(WindowLimiter).WindowLimit(2 * time.Second); got != 20 {
		t.Errorf("WindowLimit(2s) of rate 10 and 20 = %v, want 20", got)
	}
}
