package adaptiveconformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-kratos/aegis/ratelimit"
	"github.com/go-kratos/aegis/ratelimit/bbr"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms/adaptive_conformance/aegisconf"
)

// aegisCases are the configurations both aegis tests run: four windows,
// each with the CPU gate open (cpu-threshold=0) and at three thresholds.
func aegisCases() []aegisconf.Case {
	var cs []aegisconf.Case
	for _, w := range []aegisconf.Case{
		{Window: time.Second, Buckets: 10, Gap: 2 * time.Millisecond, MaxRT: 30},
		{Window: 10 * time.Second, Buckets: 100, Gap: time.Millisecond, MaxRT: 60},
		{Window: 2 * time.Second, Buckets: 20, Gap: 500 * time.Microsecond, MaxRT: 15},
		{Window: time.Second, Buckets: 100, Gap: 3 * time.Millisecond, MaxRT: 8},
	} {
		for _, thr := range []int64{0, 300, 800, 950} {
			w.Threshold = thr
			cs = append(cs, w)
		}
	}
	return cs
}

// newV020 is aegis v0.2.0's BBR with its CPU getter replaced.
func newV020(c aegisconf.Case, cpu func() int64) aegisconf.Ref {
	l := bbr.NewLimiter(bbr.WithWindow(c.Window), bbr.WithBucket(c.Buckets), bbr.WithCPUThreshold(c.Threshold))
	aegisconf.InjectCPU(l, cpu)
	return aegisconf.Ref{
		Allow: func() (func(), bool) {
			done, err := l.Allow()
			if err != nil {
				return nil, false
			}
			return func() { done(ratelimit.DoneInfo{}) }, true
		},
		Stat: func() string { return fmt.Sprintf("%+v", l.Stat()) },
	}
}

// TestAegisBBRMatchesV020 compares aegis-bbr version=v0.2.0 with aegis
// v0.2.0's BBR, decision for decision, on scripted arrivals and a
// scripted cpu series (see aegisconf): the CPU gate, the EMA, the 1 s
// cooldown from an episode's first drop and the inflight test.
func TestAegisBBRMatchesV020(t *testing.T) {
	n := aegisconf.Run(t, "v0.2.0", aegisCases(), 3, time.Minute, newV020)
	if n.GateDrops == 0 || n.CooldownDrops == 0 || n.Gated == 0 || n.Crossings == 0 {
		t.Fatalf("the scripts do not exercise the CPU path: %v", n)
	}
	t.Log(n)
}
