package algorithms

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// This file checks that a chain charges a request's cost in every stage
// whose reference takes a count, as Sentinel's slot chain passes count to
// each slot (stage_cost.go): the chain decides as the composition of the
// references asked in slot order with that count, costs above the limit
// included.

// chainRequest is a's request for a chain whose key stages read column 0.
func chainRequest(a costArrival) Request {
	r := Request{Keys: noKeys, Cost: a.cost}
	r.Keys[0] = a.key
	return r
}

// TestSentinelChainCostMatchesSlotChain: a Sentinel resource as --rules
// builds it, sentinel-param + leap-array + circuit-breaker (ParamFlowSlot,
// FlowSlot, DegradeSlot), decides as the Java ports composed: the param
// checker takes acquireCount tokens while checking (even when the flow
// rule then blocks), DefaultController.canPass(node, acquireCount) reads
// the window without adding, the breaker (closed, no completions) takes
// no count, and StatisticSlot adds acquireCount only when every slot
// passed.
func TestSentinelChainCostMatchesSlotChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 13))
	compared, paramBlocks, flowBlocks := 0, 0, 0
	for trial := 0; trial < 60; trial++ {
		count := []float64{50, 200, 1000}[rng.IntN(3)]
		n := []int{1, 2, 5, 10}[rng.IntN(4)]
		ims := int64(n) * int64(1+rng.IntN(200))
		limit := []float64{3, 5, 10.5, 20, 40}[rng.IntN(5)]
		spec := fmt.Sprintf("sentinel-param:count=%v+leap-array:limit=%v,sample-count=%d,interval=%dms+circuit-breaker:strategy=error-ratio,threshold=0.5",
			count, limit, n, ims)
		c := mustNew(t, spec, 0).(*Chain)
		bindFirst(t, c)
		c.BindKeyNames(func(id int32) string { return "v" + strconv.Itoa(int(id)) })
		param := newJavaParamChecker(count, 1, 0, false, 0, nil)
		flow := &refDefault{count: limit, sec: newRefLeap(n, ims/int64(n)), ims: ims, epoch: epochMs(ims / int64(n))}
		keys := 1 + rng.IntN(6)
		for i, a := range costTrace(rng, 2000, true, keys, int(limit)+3) {
			r := chainRequest(a)
			got := c.DecideRequest(a.at, &r)
			want, _ := param.check(sentinelEpochMs+int64(a.at/time.Millisecond), int64(a.cost), "v"+strconv.Itoa(int(a.key)))
			if !want {
				paramBlocks++
			} else {
				tm := flow.epoch + floorMs(a.at)
				passQps := float64(flow.sec.pass(tm)) / (float64(flow.ims) / 1000.0)
				if want = float64(int32(passQps)+a.cost) <= flow.count; want {
					flow.sec.addPassN(tm, int64(a.cost))
				} else {
					flowBlocks++
				}
			}
			if got.Pass != want || got.Wait != 0 {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, slot chain pass=%v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	if paramBlocks == 0 || flowBlocks == 0 {
		t.Fatalf("the traces never exercised both slots: %d param blocks, %d flow blocks", paramBlocks, flowBlocks)
	}
	t.Logf("%d decisions compared with the Java ports' slot chain (%d param blocks, %d flow blocks)", compared, paramBlocks, flowBlocks)
}

// TestThrottlingChainCostMatchesSlotChain: sentinel-param + leaky-bucket,
// ParamFlowSlot then FlowSlot with ThrottlingController.canPass(node,
// acquireCount), which spaces the request by its own costTime.
func TestThrottlingChainCostMatchesSlotChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 14))
	compared, paramBlocks, flowBlocks := 0, 0, 0
	for trial := 0; trial < 60; trial++ {
		count := []float64{50, 200, 1000}[rng.IntN(3)]
		limit := []float64{3, 7, 10, 100}[rng.IntN(4)]
		ims := int64([]int{1000, 500, 2000}[rng.IntN(3)])
		q := int64(rng.IntN(2000))
		spec := fmt.Sprintf("sentinel-param:count=%v+leaky-bucket:limit=%v,interval=%dms,max-queue=%dms", count, limit, ims, q)
		c := mustNew(t, spec, 0).(*Chain)
		bindFirst(t, c)
		c.BindKeyNames(func(id int32) string { return "v" + strconv.Itoa(int(id)) })
		param := newJavaParamChecker(count, 1, 0, false, 0, nil)
		flow := newRefThrottling(limit, ims, q)
		keys := 1 + rng.IntN(4)
		for i, a := range costTrace(rng, 2000, true, keys, int(min(limit, 30))+3) {
			r := chainRequest(a)
			got := c.DecideRequest(a.at, &r)
			want := Decision{}
			if ok, _ := param.check(sentinelEpochMs+int64(a.at/time.Millisecond), int64(a.cost), "v"+strconv.Itoa(int(a.key))); !ok {
				paramBlocks++
			} else if ok, wait := flow.canPass(a.at, a.cost); ok {
				want = Decision{Pass: true, Wait: time.Duration(wait)}
			} else {
				flowBlocks++
			}
			if got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, slot chain %+v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	if paramBlocks == 0 || flowBlocks == 0 {
		t.Fatalf("the traces never exercised both slots: %d param blocks, %d flow blocks", paramBlocks, flowBlocks)
	}
	t.Logf("%d decisions compared with the Java ports' slot chain (%d param blocks, %d flow blocks)", compared, paramBlocks, flowBlocks)
}

// TestKeyedTokenBucketChainCostMatchesReferences: token-bucket per key
// (x/time/rate's own AllowN(t, cost) on one rate.Limiter per key) before
// a flow=go leap array (sentinel-golang's reject checker with BatchCount,
// the stat slot adding it): AllowN spends its tokens even when the second
// stage then refuses, and a cost above the burst is refused taking none.
func TestKeyedTokenBucketChainCostMatchesReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 15))
	compared, above := 0, 0
	for trial := 0; trial < 60; trial++ {
		r, b := []float64{1, 2.5, 10, 100}[rng.IntN(4)], 1+rng.IntN(6)
		limit := []float64{2, 5, 10, 30}[rng.IntN(4)]
		spec := fmt.Sprintf("token-bucket:rate=%v,burst=%d,key=user+leap-array:limit=%v,sample-count=2,interval=1s,flavor=go", r, b, limit)
		c := mustNew(t, spec, 0).(*Chain)
		bindFirst(t, c)
		refs := perKeyRefs[*rate.Limiter]{ref: func() *rate.Limiter { return rate.NewLimiter(rate.Limit(r), b) }}
		p := sgRuleParams{threshold: limit, statIntervalMs: 1000, sampleCount: 2}
		flow := newSgRule(p, epochMs(500))
		base := time.Unix(1_700_000_000, 0)
		for i, a := range costTrace(rng, 2000, true, 1+rng.IntN(5), b+3) {
			req := chainRequest(a)
			got := c.DecideRequest(a.at, &req)
			if int(a.cost) > b {
				above++
			}
			want := Decision{}
			if refs.of(a.key).AllowN(base.Add(a.at), int(a.cost)) {
				want = flow.entryN(a.at, uint32(a.cost))
			}
			if got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, references %+v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	if above == 0 {
		t.Fatal("no cost above the burst")
	}
	t.Logf("%d decisions compared with x/time/rate and sentinel-golang's port", compared)
}

// TestStageChargesCost: every stage kind whose family charges a cost
// (CapCost) reads the request in a chain, and the kinds whose references
// take no count do not claim to.
func TestStageChargesCost(t *testing.T) {
	c := mustNew(t, "sentinel-param:count=5+leap-array:limit=3+leaky-bucket:limit=2+kong:minute=5+leap-array:limit=9,check-to-add=2ms+circuit-breaker:strategy=error-count,threshold=2", 0).(*Chain)
	var got []bool
	for _, s := range c.Stages() {
		caps := CapCost
		if n := registryNameOf(s.Spec()); n == "kong" || n == "circuit-breaker" {
			caps = 0
		}
		got = append(got, StageChargesCost(s, caps))
	}
	if fmt.Sprint(got) != "[true true true false false false]" {
		t.Errorf("StageChargesCost %v, want [true true true false false false] (kong and the breaker take no count; check-to-add queues passes, not costs)", got)
	}
	if w := ChainCostNotCharged("a+b+c", []string{"kong", "circuit-breaker"}, false); w != "a+b+c: the trace's cost column is charged by every stage but kong and circuit-breaker, where every request counts 1 (docs/algorithms.md, Costs, says why)" {
		t.Errorf("warning %q", w)
	}
	if w := ChainCostNotCharged("a+b", []string{"kong", "uber"}, true); w != "a+b: the trace's cost column is not charged; every stage counts every request as 1 (docs/algorithms.md, Costs, says why)" {
		t.Errorf("warning %q", w)
	}
}

// TestCountStagesInChainDecideAsAlone: every stage kind whose reference
// takes a count, alone and per key, decides in a chain before a breaker
// that never opens (DegradeSlot: no count) exactly as it decides alone
// with DecideRequest, which algorithms/cost_test.go pins to each
// reference with costs up to the limit + 3; so the chain asks each with
// the count (CheckRequest) and records it (RecordRequest) as the single
// limiter does. Costs here run up to 13, above every burst of 10.
func TestCountStagesInChainDecideAsAlone(t *testing.T) {
	const breaker = "+circuit-breaker:strategy=error-count,threshold=1000"
	kinds := []string{
		"leap-array", "leaky-bucket", "warm-up", "warm-up-rate-limiter",
		"leap-array:flavor=go", "leaky-bucket:flavor=go", "warm-up:flavor=go", "warm-up-rate-limiter:flavor=go",
		"token-bucket", "guava-bursty", "guava-bursty:timeout=300ms", "guava-warming-up:warm-up=4s",
		"bucket4j", "envoy-local", "resilience4j", "resilience4j:timeout=0s", "sentinel-param", "sentinel-param:flavor=go",
	}
	rng := rand.New(rand.NewPCG(33, 16))
	compared := 0
	for trial, kind := range append(kinds, kinds...) {
		alone := mustNew(t, kind, 10)
		spec := alone.Spec()
		if trial >= len(kinds) && registryNameOf(spec) != "sentinel-param" {
			spec += ",key=user"
			alone = mustNew(t, spec, 0)
		}
		bindFirst(t, alone)
		c := mustNew(t, spec+breaker, 0).(*Chain)
		bindFirst(t, c)
		keys := 1 + rng.IntN(4)
		for i, a := range costTrace(rng, 3000, trial%2 == 0, keys, 13) {
			want := decideCost(alone, a)
			r := chainRequest(a)
			if got := c.DecideRequest(a.at, &r); got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: in the chain %+v, alone %+v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	t.Logf("%d decisions compared", compared)
}
