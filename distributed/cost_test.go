package distributed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// decideCosts decides trace with costs (and keys, nil for one key) through
// DecideRequest one by one and through DecideBatchCosts on a twin, and
// checks the two agree (the simulator batches).
func decideCosts(t *testing.T, spec string, b *Backend, trace []time.Duration, keys, costs []int32) []algorithms.Decision {
	t.Helper()
	bind := func(l *Limiter) {
		if keys != nil {
			if err := l.BindKeyColumns([]int{0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	one, batch := mustNew(t, spec, b), mustNew(t, spec, b)
	bind(one)
	bind(batch)
	out := make([]algorithms.Decision, len(trace))
	for i, at := range trace {
		r := algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{-1, -1, -1, -1}, Cost: costs[i]}
		if keys != nil {
			r.Keys[0] = keys[i]
		}
		out[i] = one.DecideRequest(at, &r)
	}
	both := make([]algorithms.Decision, len(trace))
	batch.DecideBatchCosts(trace, keys, costs, both)
	for _, l := range []*Limiter{one, batch} {
		if err := l.Err(); err != nil {
			t.Fatal(err)
		}
		if err := l.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range out {
		if out[i] != both[i] {
			t.Fatalf("%s: arrival %d: DecideRequest %+v, DecideBatchCosts %+v", spec, i, out[i], both[i])
		}
	}
	return out
}

// randomCosts is n costs in [1, maxCost] and, for keys > 1, n key ids.
func randomCosts(r *rand.Rand, n, maxCost, keys int) (ks, cs []int32) {
	cs = make([]int32, n)
	if keys > 1 {
		ks = make([]int32, n)
	}
	for i := range cs {
		cs[i] = int32(1 + r.IntN(maxCost))
		if ks != nil {
			ks[i] = int32(r.IntN(keys))
		}
	}
	return ks, cs
}

// redis-gcra with costs decides as go-redis/redis_rate v10's own
// AllowN(ctx, key, limit, n), per key or not, costs 1 to burst+3 (a cost
// above the burst is refused and stores nothing: the script's remaining <
// 0 branch returns before SET), on an embedded server whose clock is set
// to each arrival's instant.
func TestGCRACostEqualsRedisRate(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true})
	defer rdb.Close()
	ref := redis_rate.NewLimiter(rdb)
	ctx := context.Background()
	compared := 0
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(33, 9))
		for round := range long(16, 4) {
			rate := 1 + r.IntN(20)
			burst := 1 + r.IntN(2*rate)
			period := []time.Duration{time.Second, 100 * time.Millisecond, time.Minute, 1500 * time.Millisecond}[round%4]
			clock := "redis"
			trace := nsTrace(r, 400, 3*period)
			if round%2 == 1 {
				clock = "instance"
				trace = wholeMsTrace(r, 400, 3*period)
			}
			nkeys := 1
			spec := fmt.Sprintf("redis-gcra:rate=%d,burst=%d,period=%s,clock=%s", rate, burst, algorithms.FormatDuration(period), clock)
			if round%4 >= 2 {
				nkeys = 4
				spec += ",key=k"
			}
			keys, costs := randomCosts(r, len(trace), burst+3, nkeys)
			got := decideCosts(t, spec, b, trace, keys, costs)
			l := mustNew(t, spec, b)
			epoch := time.UnixMilli(l.Figures().EpochMs)
			limit := redis_rate.Limit{Rate: rate, Burst: burst, Period: period}
			for i, at := range trace {
				m.SetTime(epoch.Add(at))
				key := fmt.Sprintf("cost-%s-%d", t.Name(), round)
				if keys != nil {
					key += fmt.Sprintf("-%d", keys[i])
				}
				res, err := ref.AllowN(ctx, key, limit, int(costs[i]))
				if err != nil {
					t.Fatal(err)
				}
				if want := res.Allowed > 0; got[i].Pass != want {
					t.Fatalf("%s: arrival %d at %v (key %v, cost %d): pass=%v, redis_rate AllowN says %v", spec, i, at, keys, costs[i], got[i].Pass, want)
				}
				compared++
			}
		}
	})
	t.Logf("%d decisions compared with redis_rate's AllowN", compared)
}

// redis-cell with costs decides as the port of redis-cell's
// RateLimiter.rate_limit with quantity = the cost (cellRef), on every
// backend, per key or not.
func TestCellCostEqualsPort(t *testing.T) {
	compared := 0
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(33, 10))
		for round := range long(30, 10) {
			count := 1 + r.IntN(50)
			maxBurst := r.IntN(20)
			spec := fmt.Sprintf("redis-cell:max-burst=%d,count=%d,period=%ds,clock=redis", maxBurst, count, []int{1, 2, 60}[r.IntN(3)])
			nkeys := 1
			if round%2 == 1 {
				nkeys = 3
				spec += ",key=k"
			}
			s := mustParse(t, spec)
			trace := nsTrace(r, 300, time.Duration(1+round%5)*time.Second)
			keys, costs := randomCosts(r, len(trace), maxBurst+4, nkeys)
			got := decideCosts(t, spec, b, trace, keys, costs)
			refs := map[int32]*cellRef{}
			for i, at := range trace {
				k := int32(0)
				if keys != nil {
					k = keys[i]
				}
				if refs[k] == nil {
					refs[k] = &cellRef{}
				}
				now := s.EpochMs()*1_000_000 + int64(at+s.RTT/2)
				want := refs[k].throttle(s.Gateway.MaxBurst, s.Gateway.Count, int64(s.Gateway.Period/time.Second), int64(costs[i]), now)[0] == 0
				if got[i].Pass != want {
					t.Fatalf("%s: arrival %d at %v (cost %d): pass=%v, redis-cell says %v", spec, i, at, costs[i], got[i].Pass, want)
				}
				compared++
			}
		}
	})
	t.Logf("%d decisions compared with the port of redis-cell", compared)
}

// redis-envoy-ratelimit with costs: envoyproxy/ratelimit's DoLimit
// (src/redis/fixed_cache_impl.go) sends INCRBY key hitsAddend (the cost)
// and GetResponseDescriptorStatus (src/limiter/base_limiter.go) answers
// OVER_LIMIT iff the count after the increase exceeds requests_per_unit;
// an over-limit request still adds its hits. Per key or not, every
// backend, against that model written out.
func TestEnvoyRatelimitCostEqualsModel(t *testing.T) {
	compared := 0
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(33, 11))
		for round := range long(20, 8) {
			limit := 1 + r.IntN(20)
			unit := []string{"second", "minute"}[round%2]
			spec := fmt.Sprintf("redis-envoy-ratelimit:limit=%d,unit=%s", limit, unit)
			nkeys := 1
			if round%4 >= 2 {
				nkeys = 3
				spec += ",key=k"
			}
			s := mustParse(t, spec)
			trace := wholeMsTrace(r, 300, 3*time.Duration(s.Gateway.Divider)*time.Second)
			keys, costs := randomCosts(r, len(trace), limit+3, nkeys)
			got := decideCosts(t, spec, b, trace, keys, costs)
			counts := map[[2]int64]int64{}
			for i, at := range trace {
				k := int64(0)
				if keys != nil {
					k = int64(keys[i])
				}
				ms := s.EpochMs() + int64(at/time.Millisecond)
				w := [2]int64{k, ms / 1000 / s.Gateway.Divider}
				counts[w] += int64(costs[i])
				if want := counts[w] <= int64(limit); got[i].Pass != want {
					t.Fatalf("%s: arrival %d at %v (cost %d, count %d): pass=%v, envoyproxy/ratelimit says %v", spec, i, at, costs[i], counts[w], got[i].Pass, want)
				}
				compared++
			}
		}
	})
	t.Logf("%d decisions compared with envoyproxy/ratelimit's fixed window with hits_addend", compared)
}
