package algorithms

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// This file holds the conformance of every limiter that charges a
// request's cost against its reference asked with the same count: random
// traces (with steps back, idle gaps and bursts at one instant) whose
// costs run from 1 to burst+3, one key or several, decision for decision.

// costArrival is one request of a cost trace: its time, its key (0 when
// the trace has one key) and its cost.
type costArrival struct {
	at   time.Duration
	key  int32
	cost int32
}

// costTrace is jumpyTrace with a key out of keys and a cost in
// [1, maxCost] per arrival.
func costTrace(rng *rand.Rand, n int, wholeMs bool, keys int, maxCost int) []costArrival {
	times := jumpyTrace(rng, n, wholeMs)
	out := make([]costArrival, len(times))
	for i, at := range times {
		out[i] = costArrival{at: at, key: int32(rng.IntN(keys)), cost: int32(1 + rng.IntN(maxCost))}
	}
	return out
}

// decideCost is l's decision for a: DecideRequest with a's cost, and its
// key in column 0 when l is per-key.
func decideCost(l Limiter, a costArrival) Decision {
	r := Request{Keys: noKeys, Cost: a.cost}
	if _, keyed := l.(KeyColumnUser); keyed {
		r.Keys[0] = a.key
	}
	return l.(RequestLimiter).DecideRequest(a.at, &r)
}

// bindFirst binds a per-key limiter's key column to column 0.
func bindFirst(t *testing.T, l Limiter) {
	t.Helper()
	if ku, ok := l.(KeyColumnUser); ok {
		if err := ku.BindKeyColumns([]int{0}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTokenBucketCostMatchesXTimeRate: token-bucket, alone and per key,
// decides as x/time/rate's AllowN(t, cost) on one rate.Limiter per key,
// costs above the burst included (refused, nothing taken: rate.go reserveN
// ok = n <= lim.burst && waitDuration <= maxFutureReserve).
func TestTokenBucketCostMatchesXTimeRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	epoch := time.Unix(1_600_000_000, 0)
	compared := 0
	for trial := 0; trial < 200; trial++ {
		r := []float64{0.3, 1, 3, 7, 10, 33.3, 100, 1e3, 12345.678}[rng.IntN(9)] * (0.5 + rng.Float64())
		burst := 1 + rng.IntN(12)
		keys := 1
		spec := fmt.Sprintf("token-bucket:rate=%v,burst=%d", r, burst)
		if trial%2 == 1 {
			keys = 1 + rng.IntN(6)
			spec += ",key=k"
		}
		l := mustNew(t, spec, 0)
		bindFirst(t, l)
		refs := map[int32]*rate.Limiter{}
		for i, a := range costTrace(rng, 2000, trial%3 == 0, keys, burst+3) {
			ref := refs[a.key]
			if ref == nil {
				ref = rate.NewLimiter(rate.Limit(r), burst)
				refs[a.key] = ref
			}
			got, want := decideCost(l, a).Pass, ref.AllowN(epoch.Add(a.at), int(a.cost))
			if got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: pass=%v, x/time/rate %v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with x/time/rate", compared)
}

// TestTokenBucketCostAboveBurst pins the worked example: a full bucket of
// 3 refuses a cost of 4 and keeps its 3 tokens for the next requests.
func TestTokenBucketCostAboveBurst(t *testing.T) {
	l := mustNew(t, "token-bucket:rate=1,burst=3", 0).(*TokenBucket)
	want := []struct {
		cost int32
		pass bool
	}{{4, false}, {2, true}, {2, false}, {1, true}, {1, false}}
	for i, w := range want {
		if got := l.DecideRequest(0, &Request{Keys: noKeys, Cost: w.cost}).Pass; got != w.pass {
			t.Fatalf("request %d (cost %d) at t=0: pass=%v, want %v", i, w.cost, got, w.pass)
		}
	}
}

// perKeyRefs runs one reference per key: ref builds a fresh one.
type perKeyRefs[R any] struct {
	refs map[int32]R
	ref  func() R
}

func (p *perKeyRefs[R]) of(key int32) R {
	if p.refs == nil {
		p.refs = map[int32]R{}
	}
	r, ok := p.refs[key]
	if !ok {
		r = p.ref()
		p.refs[key] = r
	}
	return r
}

// keyedSpec adds key=k to spec on odd trials and returns how many keys the
// trace has.
func keyedSpec(rng *rand.Rand, spec string, trial int) (string, int) {
	if trial%2 == 1 {
		return spec + ",key=k", 1 + rng.IntN(5)
	}
	return spec, 1
}

// TestLeapArrayCostMatchesSentinelReference: DefaultController with
// acquireCount (Sentinel 1.8 DefaultController.canPass: curCount +
// acquireCount > count blocks; addPassRequest(acquireCount)), per key or
// not, costs up to the limit + 3.
func TestLeapArrayCostMatchesSentinelReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 2))
	compared := 0
	for trial := 0; trial < 200; trial++ {
		n := []int{1, 2, 3, 4, 5, 10, 20}[rng.IntN(7)]
		ims := int64(n) * int64(1+rng.IntN(300))
		limit := []float64{1, 2, 5, 10.5, 50}[rng.IntN(5)]
		spec, keys := keyedSpec(rng, fmt.Sprintf("leap-array:limit=%v,sample-count=%d,interval=%dms", limit, n, ims), trial)
		l := mustNew(t, spec, 0)
		bindFirst(t, l)
		refs := perKeyRefs[*refDefault]{ref: func() *refDefault {
			return &refDefault{count: limit, sec: newRefLeap(n, ims/int64(n)), ims: ims, epoch: epochMs(ims / int64(n))}
		}}
		for i, a := range costTrace(rng, 2000, trial%3 == 0, keys, int(limit)+3) {
			if got, want := decideCost(l, a).Pass, refs.of(a.key).decideN(a.at, a.cost); got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: pass=%v, reference %v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with the port of DefaultController", compared)
}

// TestPriorityCostMatchesPort: prioritized entries with acquireCount
// borrow acquireCount from a future bucket (StatisticNode.tryOccupyNext:
// currentPass + currentBorrow + acquireCount − windowPass ≤ maxCount;
// addWaitingRequest(futureTime, acquireCount)).
func TestPriorityCostMatchesPort(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 3))
	compared, waits := 0, 0
	for i := range 1500 {
		c := genPrioCase(r, i%4 == 3)
		for j := range c.arr {
			c.arr[j].cost = int32(1 + r.IntN(int(c.limit)+3))
		}
		want, got := runPort(c), runProduct(t, c)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %s, arrival %d at %dms prio %v cost %d: got %d, port %d\n%s",
					i, c.spec(), j, c.arr[j].t, c.arr[j].prio, c.arr[j].cost, got[j], want[j], dumpCase(c, j))
			}
			if want[j] > 0 {
				waits++
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with the port of the occupiable leap array (%d borrowed waits)", compared, waits)
	if waits < 100 {
		t.Errorf("only %d prioritized requests with a cost waited: the traces miss the borrow", waits)
	}
}

// TestWarmUpCostMatchesSentinelReference: WarmUpController (passQps +
// acquireCount ≤ the allowed QPS) and WarmUpRateLimiterController (costTime
// = Math.round(1.0 · acquireCount / qps · 1000)) with costs, per key or not.
func TestWarmUpCostMatchesSentinelReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 4))
	compared := 0
	for trial := 0; trial < 120; trial++ {
		n := []int{1, 2, 4, 10}[rng.IntN(4)]
		limit := []float64{3, 10, 20.5, 100}[rng.IntN(4)]
		warm := 1 + rng.IntN(10)
		cold := 2 + rng.IntN(3)
		queue := (trial/2)%2 == 1
		timeout := int64(rng.IntN(1000))
		newRef := func() *refWarm {
			ref := newRefWarm(limit, warm, cold, n, 1000)
			if queue {
				ref.sec = newRefLeap(1, 1000)
				ref.queue, ref.timeout = true, timeout
			}
			return ref
		}
		spec := fmt.Sprintf("warm-up:limit=%v,warm-up=%ds,cold-factor=%d,sample-count=%d", limit, warm, cold, n)
		if queue {
			spec = fmt.Sprintf("warm-up-rate-limiter:limit=%v,warm-up=%ds,cold-factor=%d,max-queue=%dms", limit, warm, cold, timeout)
		}
		spec, keys := keyedSpec(rng, spec, trial)
		l := mustNew(t, spec, 0)
		bindFirst(t, l)
		refs := perKeyRefs[*refWarm]{ref: newRef}
		for i, a := range costTrace(rng, 3000, trial%3 == 0, keys, int(limit)+3) {
			d := decideCost(l, a)
			ok, wait := refs.of(a.key).decideN(a.at, int64(a.cost))
			if d.Pass != ok || d.Wait != time.Duration(wait)*time.Millisecond {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, reference %v after %dms", spec, i, a.at, a.key, a.cost, d, ok, wait)
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with the port of WarmUpController and WarmUpRateLimiterController", compared)
}

// refThrottling is Sentinel 1.8's ThrottlingController.canPass(node,
// acquireCount), both paths (checkPassUsingCachedMs,
// checkPassUsingNanoSeconds), on a clock the test sets.
type refThrottling struct {
	count          float64
	statDurationMs int64
	maxQueueMs     int64
	useNanos       bool
	latest         int64
}

func newRefThrottling(count float64, statDurationMs, maxQueueMs int64) *refThrottling {
	return &refThrottling{count: count, statDurationMs: statDurationMs, maxQueueMs: maxQueueMs, latest: -1,
		useNanos: statDurationMs%javaRound(count) != 0 || count/float64(statDurationMs) > 1}
}

// canPass returns the verdict and the wait in ns.
func (r *refThrottling) canPass(now time.Duration, acquireCount int32) (bool, int64) {
	var cur, costTime, maxQueue, unit int64
	if r.useNanos {
		cur = epochMs(1)*1_000_000 + int64(now)
		costTime = javaRound(1.0 * 1_000_000 * float64(r.statDurationMs) * float64(acquireCount) / r.count)
		maxQueue, unit = r.maxQueueMs*1_000_000, 1
	} else {
		cur = epochMs(1) + floorMs(now)
		costTime = javaRound(1.0 * float64(r.statDurationMs) * float64(acquireCount) / r.count)
		maxQueue, unit = r.maxQueueMs, 1_000_000
	}
	if expected := costTime + r.latest; expected <= cur {
		r.latest = cur
		return true, 0
	}
	if waitTime := costTime + r.latest - cur; waitTime > maxQueue {
		return false, 0
	}
	r.latest += costTime
	waitTime := r.latest - cur
	if waitTime > maxQueue {
		r.latest -= costTime
		return false, 0
	}
	return true, max(waitTime, 0) * unit
}

// TestThrottlingCostMatchesSentinelReference: leaky-bucket with costs, per
// key or not, against ThrottlingController.canPass(node, acquireCount).
func TestThrottlingCostMatchesSentinelReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 5))
	compared := 0
	for trial := 0; trial < 200; trial++ {
		limit := []float64{0.5, 1, 3, 7, 10, 33.3, 100, 999, 1000, 5000}[rng.IntN(10)]
		ims := int64([]int{1000, 500, 2000, 100}[rng.IntN(4)])
		q := int64(rng.IntN(2000))
		spec, keys := keyedSpec(rng, fmt.Sprintf("leaky-bucket:limit=%v,interval=%dms,max-queue=%dms", limit, ims, q), trial)
		l := mustNew(t, spec, 0)
		bindFirst(t, l)
		refs := perKeyRefs[*refThrottling]{ref: func() *refThrottling { return newRefThrottling(limit, ims, q) }}
		maxCost := min(int(limit), 50) + 3
		for i, a := range costTrace(rng, 2000, trial%2 == 0, keys, maxCost) {
			d := decideCost(l, a)
			ok, wait := refs.of(a.key).canPass(a.at, a.cost)
			if d.Pass != ok || d.Wait != time.Duration(wait) {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, ThrottlingController %v after %dns", spec, i, a.at, a.key, a.cost, d, ok, wait)
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with the port of ThrottlingController", compared)
}

// TestGoFlavorCostMatchesSentinelGolangPort: the flavor=go controllers with
// api.WithBatchCount(cost) against the port of sentinel-golang v1.0.4's
// core/flow checkers and stat slot.
func TestGoFlavorCostMatchesSentinelGolangPort(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 6))
	compared := 0
	for trial := 0; trial < 160; trial++ {
		kind := trial % 4
		s := []int{1, 2, 4, 5, 10}[rng.IntN(5)]
		ims := int64(s) * int64([]int{1, 2, 5, 50, 100, 200}[rng.IntN(6)])
		if kind == 1 || rng.IntN(3) == 0 {
			ims = 1000
		}
		limit := []float64{0.5, 1, 2, 3, 7, 10, 20.5, 33.3, 100}[rng.IntN(9)]
		warm, cold := 1+rng.IntN(10), 2+rng.IntN(4)
		q := int64([]int{0, 1, 20, 500, 2000}[rng.IntN(5)])
		p := sgRuleParams{threshold: limit, statIntervalMs: uint32(ims), sampleCount: uint32(s),
			maxQueueingMs: uint32(q), warmUpSec: uint32(warm), coldFactorGo: uint32(cold)}
		spec := goFlowSpec(kind, &p)
		spec, keys := keyedSpec(rng, spec, trial/4)
		l := mustNew(t, spec, 0)
		bindFirst(t, l)
		refs := perKeyRefs[*sgRule]{ref: func() *sgRule { return newSgRule(p, epochMs(ims/int64(s))) }}
		for i, a := range costTrace(rng, 2000, trial%3 == 0, keys, int(limit)+3) {
			got, want := decideCost(l, a), refs.of(a.key).entryN(a.at, uint32(a.cost))
			if got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, sentinel-golang %+v", spec, i, a.at, a.key, a.cost, got, want)
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with the port of sentinel-golang's flow checkers", compared)
}

// TestGuavaCostMatchesReference: tryAcquire(permits, timeout) and
// acquire(permits) on SmoothBursty and SmoothWarmingUp, per key or not.
// Guava never refuses a request for its size: canAcquire reads only the
// next free ticket, and the permits above the stored ones push it later.
func TestGuavaCostMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 7))
	compared, bigPasses := 0, 0
	for trial := 0; trial < 240; trial++ {
		rate := []float64{0.7, 3, 10, 100, 333.3}[rng.IntN(5)]
		to := []struct {
			s  string
			us int64
		}{{"0", 0}, {"50ms", 50000}, {"1500us", 1500}, {"inf", -1}}[rng.IntN(4)]
		var spec string
		var newRef func() *refGuava
		maxCost := int(rate) + 3
		if trial%2 == 0 {
			spec = "guava-bursty:rate=" + formatFloat(rate) + ",max-burst=2s,timeout=" + to.s
			newRef = func() *refGuava { return newRefBursty(rate, 2) }
			maxCost = int(2*rate) + 3
		} else {
			spec = "guava-warming-up:rate=" + formatFloat(rate) + ",warm-up=3s,cold-factor=3,timeout=" + to.s
			newRef = func() *refGuava { return newRefWarmingUp(rate, 3*time.Second, 3) }
		}
		spec, keys := keyedSpec(rng, spec, trial/2)
		l := mustNew(t, spec, 0)
		bindFirst(t, l)
		refs := perKeyRefs[*refGuava]{ref: newRef}
		for i, a := range costTrace(rng, 1500, trial%3 == 0, keys, maxCost) {
			got := decideCost(l, a)
			ref := refs.of(a.key)
			ref.nowNanos = int64(a.at)
			var want Decision
			if to.us < 0 {
				want = Decision{Pass: true, Wait: time.Duration(ref.reserveAndGetWaitLength(int(a.cost), ref.readMicros())) * time.Microsecond}
			} else {
				ok, w := ref.tryAcquireN(int(a.cost), to.us)
				want = Decision{Pass: ok, Wait: time.Duration(w) * time.Microsecond}
			}
			if got != want {
				t.Fatalf("%s arrival %d at %v key %d cost %d: %+v, Guava's code %+v", spec, i, a.at, a.key, a.cost, got, want)
			}
			if got.Pass && float64(a.cost) > rate {
				bigPasses++
			}
			compared++
		}
	}
	t.Logf("%d decisions compared with the port of Guava's RateLimiter (%d passes of more permits than the rate)", compared, bigPasses)
	if bigPasses == 0 {
		t.Error("no request above the rate passed: the traces miss Guava's borrowing from the future")
	}
}
