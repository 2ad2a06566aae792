package simulator

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// keyedArrivals is a random keyed run: 40 keys, skewed, a few empty, a
// user per request.
func keyedArrivals(n int) []scenarios.Arrival {
	rng := rand.New(rand.NewPCG(3, 15))
	out := make([]scenarios.Arrival, n)
	var t time.Duration
	for i := range out {
		t += time.Duration(rng.IntN(20)) * time.Millisecond
		k := int32(rng.IntN(rng.IntN(40) + 1))
		if rng.IntN(30) == 0 {
			k = scenarios.NoKey
		}
		out[i] = scenarios.Arrival{At: t, Clock: t, Keys: [scenarios.MaxKeyColumns]int32{k, scenarios.NoKey, scenarios.NoKey, scenarios.NoKey},
			User: int32(rng.IntN(10)), Cost: 1}
	}
	return out
}

// The fast path and the chain executor give a per-key limiter the
// request: their decisions equal the limiter's own, one request at a time,
// and the per-key results add up.
func TestKeyedRowsFastAndEvented(t *testing.T) {
	arr := keyedArrivals(5000)
	for _, spec := range []string{
		"sentinel-param:count=3",                                               // fast path
		"sentinel-param:count=3+sentinel-param:count=5,duration=2s",            // chain executor
		"nginx-limit-req:rate=20r/s,burst=2,nodelay=true+leap-array:limit=200", // chain with a single-key stage
		"token-bucket:rate=10,burst=3,key=key,capacity=8",                      // the wrapper, bounded
		"token-bucket:rate=10,burst=3,key=key,capacity=8+leap-array:limit=200", // a key= stage of a chain
	} {
		t.Run(spec, func(t *testing.T) {
			lim, err := algorithms.New(spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := algorithms.New(spec, 0)
			algorithms.KeyReporterOf(lim).TrackShadow()
			cfg := DefaultConfig()
			cfg.End = arr[len(arr)-1].At + time.Millisecond
			res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			a := res.Algorithms[0]
			var passed int64
			for i := range arr {
				var r algorithms.Request
				requestOf(&arr[i], &r)
				if ref.(algorithms.RequestLimiter).DecideRequest(arr[i].Clock, &r).Pass {
					passed++
				}
			}
			if a.Passed != passed {
				t.Fatalf("the run passed %d, the limiter alone %d", a.Passed, passed)
			}
			k := a.Keys
			if k == nil {
				t.Fatal("no per-key results")
			}
			var req, pass, rej, hurt, binsHurt int64
			for _, s := range statSlice(&k.Stats) {
				req += int64(s.Requests)
				pass += int64(s.Passed)
				rej += int64(s.Rejected)
				if s.Rejected > 0 {
					hurt++
				}
			}
			for _, b := range a.Bins {
				binsHurt += b.KeysHurt
			}
			var empty int64
			for i := range arr {
				if arr[i].Keys[0] < 0 {
					empty++
				}
			}
			if req != a.Arrived-empty || rej != a.Blocked || pass+empty != a.Passed || hurt != k.KeysHurt || binsHurt != hurt || !k.HasUsers {
				t.Fatalf("per key: %d requests, %d passed, %d rejected, %d hurt (bins %d); row: %d arrived (%d empty), %d passed, %d blocked; result %+v",
					req, pass, rej, hurt, binsHurt, a.Arrived, empty, a.Passed, a.Blocked, k.KeysHurt)
			}
			if k.EmptyKeys != empty {
				t.Fatalf("EmptyKeys %d, want %d", k.EmptyKeys, empty)
			}
			if k.KeysHurt == 0 || k.DistinctKeys < 30 {
				t.Fatalf("the run does not exercise the limiter: %+v", k)
			}
		})
	}
}

// A request without a key that Kong's fallback charges to its ip is
// accounted to that key in the per-key results, and counted in
// EmptyKeys.
func TestKeyedFallbackAccounting(t *testing.T) {
	arr := []scenarios.Arrival{
		{At: 0, Keys: [scenarios.MaxKeyColumns]int32{scenarios.NoKey, 7, scenarios.NoKey, scenarios.NoKey}},
		{At: 0, Keys: [scenarios.MaxKeyColumns]int32{7, 8, scenarios.NoKey, scenarios.NoKey}},
		{At: 0, Keys: [scenarios.MaxKeyColumns]int32{scenarios.NoKey, 8, scenarios.NoKey, scenarios.NoKey}},
	}
	for i := range arr {
		arr[i].User, arr[i].Cost = scenarios.NoKey, 1
	}
	lim, err := algorithms.New("kong:second=1,key=user,fallback=ip", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lim.(algorithms.KeyColumnUser).BindKeyColumns([]int{0, 1}); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.End = time.Second
	res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	k := res.Algorithms[0].Keys
	if k.EmptyKeys != 2 || k.Stats.Len() < 9 {
		t.Fatalf("EmptyKeys %d, stats %d; want 2 and keys up to 8", k.EmptyKeys, k.Stats.Len())
	}
	if s := *k.Stats.At(7); s.Requests != 2 || s.Passed != 1 || s.Rejected != 1 {
		t.Errorf("key 7 (the fallback of request 0, the user of request 1): %+v, want 2 requests, 1 passed, 1 rejected", s)
	}
	if s := *k.Stats.At(8); s.Requests != 1 || s.Passed != 1 {
		t.Errorf("key 8 (the fallback of request 2): %+v, want 1 request passed", s)
	}
}
