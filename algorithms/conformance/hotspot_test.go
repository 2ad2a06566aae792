package conformance

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/alibaba/sentinel-golang/core/base"
	"github.com/alibaba/sentinel-golang/core/hotspot"
	"github.com/alibaba/sentinel-golang/util"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// clock is sentinel-golang's util.Clock on a time the test sets; Sleep
// moves it on, as the sleeping caller sees it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Sleep(d time.Duration) {
	if d > 0 {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.mu.Unlock()
	}
}
func (c *clock) CurrentTimeMillis() uint64 { return uint64(c.Now().UnixNano()) / 1e6 }
func (c *clock) CurrentTimeNano() uint64   { return uint64(c.Now().UnixNano()) }
func (c *clock) set(t time.Time)           { c.mu.Lock(); c.now = t; c.mu.Unlock() }

type hotspotCase struct {
	spec  string
	rules []*hotspot.Rule
	keys  int
	gapUs int // the largest gap between arrivals, in µs (default 300 ms)
}

func rule(b hotspot.ControlBehavior, threshold, dur, burst, maxQueue, capacity int64, items map[interface{}]int64) *hotspot.Rule {
	return &hotspot.Rule{MetricType: hotspot.QPS, ControlBehavior: b, ParamIndex: 0, Threshold: threshold,
		DurationInSec: dur, BurstCount: burst, MaxQueueingTimeMs: maxQueue, ParamsMaxCapacity: capacity, SpecificItems: items}
}

var hotspotCases = []hotspotCase{
	{"sentinel-param:count=5,flavor=go", []*hotspot.Rule{rule(hotspot.Reject, 5, 1, 0, 0, 0, nil)}, 8, 0},
	{"sentinel-param:count=3,duration=2s,burst=2,flavor=go", []*hotspot.Rule{rule(hotspot.Reject, 3, 2, 2, 0, 0, nil)}, 8, 0},
	{"sentinel-param:count=1,capacity=20,flavor=go", []*hotspot.Rule{rule(hotspot.Reject, 1, 1, 0, 0, 20, nil)}, 30, 20_000},
	{"sentinel-param:count=7,duration=3s,items=v1:0|v2:30|v3:1,capacity=15,flavor=go",
		[]*hotspot.Rule{rule(hotspot.Reject, 7, 3, 0, 0, 15, map[interface{}]int64{"v1": 0, "v2": 30, "v3": 1})}, 40, 0},
	{"sentinel-param:count=3,behavior=throttle,flavor=go", []*hotspot.Rule{rule(hotspot.Throttling, 3, 1, 0, 0, 0, nil)}, 6, 0},
	{"sentinel-param:count=7,behavior=throttle,max-queue=400ms,capacity=12,flavor=go", []*hotspot.Rule{rule(hotspot.Throttling, 7, 1, 0, 400, 12, nil)}, 30, 0},
	{"sentinel-param:count=2,duration=2s,behavior=throttle,max-queue=1s,items=v0:9,flavor=go",
		[]*hotspot.Rule{rule(hotspot.Throttling, 2, 2, 0, 1000, 0, map[interface{}]int64{"v0": 9})}, 6, 0},
	// Two rules on one resource, in order, no refund.
	{"sentinel-param:count=6,flavor=go+sentinel-param:count=2,duration=2s,capacity=10,flavor=go",
		[]*hotspot.Rule{rule(hotspot.Reject, 6, 1, 0, 0, 0, nil), rule(hotspot.Reject, 2, 2, 0, 0, 10, nil)}, 25, 0},
}

// TestHotspotReference replays random keyed traces (equal times, idle
// gaps, steps back, costs, evictions) through sentinel-golang v1.0.4's
// hotspot slot and the lab's sentinel-param flavor=go, decision by
// decision.
func TestHotspotReference(t *testing.T) {
	clk := &clock{}
	util.SetClock(clk)
	base0 := time.Unix(1_700_000_000, 0)
	total := 0
	for ci, c := range hotspotCases {
		t.Run(c.spec, func(t *testing.T) {
			res := fmt.Sprintf("res-%d", ci)
			for _, r := range c.rules {
				r.Resource = res
			}
			if _, err := hotspot.LoadRulesOfResource(res, c.rules); err != nil {
				t.Fatal(err)
			}
			lim, err := algorithms.New(c.spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			lim.(algorithms.KeyNameUser).BindKeyNames(func(id int32) string { return fmt.Sprintf("v%d", id) })
			rl := lim.(algorithms.RequestLimiter)
			rng := rand.New(rand.NewPCG(uint64(ci), 4))
			at := 10 * time.Second
			throttle := c.rules[0].ControlBehavior == hotspot.Throttling
			for i := 0; i < 4000; i++ {
				switch x := rng.IntN(100); {
				case x < 25:
				case x < 27:
					at += time.Duration(rng.IntN(10_000)) * time.Millisecond
				case x < 29:
					at -= time.Duration(rng.IntN(3000)) * time.Millisecond
				default:
					gap := c.gapUs
					if gap == 0 {
						gap = 300_000
					}
					at += time.Duration(rng.IntN(gap)) * time.Microsecond
				}
				id := int32(rng.IntN(c.keys))
				if rng.IntN(2) == 0 {
					id = int32(rng.IntN(3))
				}
				cost := int32(1)
				if rng.IntN(10) == 0 {
					cost = int32(1 + rng.IntN(4))
				}
				r := algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{id, algorithms.NoKey, algorithms.NoKey, algorithms.NoKey}, Cost: cost}
				var arg interface{} = fmt.Sprintf("v%d", id)
				if rng.IntN(50) == 0 {
					r.Keys[0], arg = algorithms.NoKey, nil
				}
				want := rl.DecideRequest(at, &r)

				start := base0.Add(at)
				clk.set(start)
				ctx := base.NewEmptyEntryContext()
				ctx.Resource = base.NewResourceWrapper(res, base.ResTypeCommon, base.Inbound)
				ctx.Input = &base.SentinelInput{BatchCount: uint32(cost), Args: []interface{}{arg}}
				ctx.RuleCheckResult = base.NewTokenResultPass()
				tr := hotspot.DefaultSlot.Check(ctx)
				got := algorithms.Decision{Pass: tr == nil || !tr.IsBlocked(), Wait: clk.Now().Sub(start)}
				if !got.Pass {
					got.Wait = 0
				}
				if got != want {
					t.Fatalf("request %d at %v (value %v, cost %d): sentinel-golang %+v, the lab %+v", i, at, arg, cost, got, want)
				}
				if throttle && got.Pass && got.Wait > 0 {
					// The caller slept; the next one arrives no earlier.
					at = max(at, at+got.Wait-time.Duration(rng.IntN(int(got.Wait)+1)))
				}
			}
			total += 4000
		})
	}
	t.Logf("%d decisions identical to sentinel-golang v1.0.4 core/hotspot", total)
}
