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
