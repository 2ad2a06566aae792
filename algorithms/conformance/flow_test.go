package conformance

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	sentinel "github.com/alibaba/sentinel-golang/api"
	"github.com/alibaba/sentinel-golang/core/flow"
	"github.com/alibaba/sentinel-golang/util"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// flowCase is one sentinel-golang flow rule and the lab's spec for it
// (flavor=go), on the default metric statistic (2 buckets over 1 s, the
// config defaults MetricStatisticSampleCount and MetricStatisticIntervalMs).
type flowCase struct {
	spec string
	rule flow.Rule
}

func flowCases() []flowCase {
	var out []flowCase
	for _, th := range []float64{1, 3, 7.5, 20} {
		out = append(out,
			flowCase{fmt.Sprintf("leap-array:limit=%v,sample-count=2,interval=1s,flavor=go", th),
				flow.Rule{TokenCalculateStrategy: flow.Direct, ControlBehavior: flow.Reject, Threshold: th, StatIntervalInMs: 1000}},
			flowCase{fmt.Sprintf("leaky-bucket:limit=%v,interval=1s,max-queue=300ms,flavor=go", th),
				flow.Rule{TokenCalculateStrategy: flow.Direct, ControlBehavior: flow.Throttling, Threshold: th, StatIntervalInMs: 1000, MaxQueueingTimeMs: 300}},
			flowCase{fmt.Sprintf("warm-up:limit=%v,warm-up=3s,cold-factor=3,sample-count=2,interval=1s,flavor=go", th),
				flow.Rule{TokenCalculateStrategy: flow.WarmUp, ControlBehavior: flow.Reject, Threshold: th, StatIntervalInMs: 1000, WarmUpPeriodSec: 3, WarmUpColdFactor: 3}},
			flowCase{fmt.Sprintf("warm-up-rate-limiter:limit=%v,warm-up=3s,cold-factor=3,max-queue=500ms,sample-count=2,interval=1s,flavor=go", th),
				flow.Rule{TokenCalculateStrategy: flow.WarmUp, ControlBehavior: flow.Throttling, Threshold: th, StatIntervalInMs: 1000, MaxQueueingTimeMs: 500, WarmUpPeriodSec: 3, WarmUpColdFactor: 3}},
		)
	}
	return out
}

// TestFlowCostReference replays random traces whose requests cost 1 to
// threshold+3 through sentinel-golang v1.0.4's slot chain
// (api.Entry(res, api.WithBatchCount(cost)): the flow slot's checkers and
// the stat slot) and the lab's flavor=go controllers, decision by
// decision, one resource per key when the spec is per key. A caller that
// waited arrives again no earlier than it woke (sentinel-golang records
// its pass when it wakes, on the clock the test sets).
func TestFlowCostReference(t *testing.T) {
	clk := &clock{}
	util.SetClock(clk)
	total, waits := 0, 0
	for ci, c := range flowCases() {
		for _, keyed := range []bool{false, true} {
			spec, keys := c.spec, 1
			if keyed {
				spec, keys = spec+",key=k", 4
			}
			t.Run(spec, func(t *testing.T) {
				lim, err := algorithms.New(spec, 0)
				if err != nil {
					t.Fatal(err)
				}
				if ku, ok := lim.(algorithms.KeyColumnUser); ok {
					if err := ku.BindKeyColumns([]int{0}); err != nil {
						t.Fatal(err)
					}
				}
				rl := lim.(algorithms.RequestLimiter)
				// Virtual 0 is a whole second, when every resource's
				// statistic is created (LoadRulesOfResource).
				base0 := time.Unix(1_700_000_000+int64(ci)*1000, 0)
				if keyed {
					base0 = base0.Add(500 * time.Second)
				}
				clk.set(base0)
				res := func(k int32) string { return fmt.Sprintf("flow-%d-%v-%d", ci, keyed, k) }
				for k := int32(0); k < int32(keys); k++ {
					r := c.rule
					r.Resource = res(k)
					if _, err := flow.LoadRulesOfResource(r.Resource, []*flow.Rule{&r}); err != nil {
						t.Fatal(err)
					}
				}
				rng := rand.New(rand.NewPCG(uint64(ci), 33))
				at := time.Duration(0)
				woke := map[int32]time.Duration{}
				for i := 0; i < 3000; i++ {
					switch x := rng.IntN(100); {
					case x < 25:
					case x < 28:
						at += time.Duration(rng.IntN(4000)) * time.Millisecond
					default:
						at += time.Duration(rng.IntN(200_000)) * time.Microsecond
					}
					k := int32(rng.IntN(keys))
					at = max(at, woke[k])
					cost := int32(1 + rng.IntN(int(c.rule.Threshold)+3))
					r := algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{k, algorithms.NoKey, algorithms.NoKey, algorithms.NoKey}, Cost: cost}
					want := rl.DecideRequest(at, &r)

					start := base0.Add(at)
					clk.set(start)
					e, b := sentinel.Entry(res(k), sentinel.WithBatchCount(uint32(cost)))
					got := algorithms.Decision{Pass: b == nil}
					if got.Pass {
						got.Wait = clk.Now().Sub(start)
						e.Exit()
					}
					if got != want {
						t.Fatalf("request %d at %v (key %d, cost %d): sentinel-golang %+v, the lab %+v", i, at, k, cost, got, want)
					}
					if got.Wait > 0 {
						woke[k] = at + got.Wait
						waits++
					}
					total++
				}
			})
		}
	}
	t.Logf("%d decisions identical to sentinel-golang v1.0.4 core/flow with batch counts (%d waited)", total, waits)
	if waits == 0 {
		t.Error("no request waited: the throttling cases prove nothing")
	}
}
