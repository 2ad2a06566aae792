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

// With one instance, no round trip and no skew, on whole-millisecond
// traces, each Redis limiter decides exactly as its in-memory counterpart.
func TestIdentities(t *testing.T) {
	cases := []struct{ redis, mem string }{
		{"redis-fixed-window:limit=%d,window=%s", "fixed-window:limit=%d,window=%s"},
		{"redis-sliding-log:limit=%d,window=%s", "sliding-log:limit=%d,window=%s"},
		{"redis-script:file=testdata/seed.lua,limit=%d,window=%s", "sliding-log:limit=%d,window=%s"},
	}
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(8, 1))
		for round := range long(12, 4) { // 4: each window once
			limit := 1 + r.IntN(20)
			window := []string{"1s", "100ms", "250ms", "2s"}[round%4]
			trace := wholeMsTrace(r, long(300+r.IntN(300), 150+r.IntN(150)), 4*time.Second)
			for _, c := range cases {
				rs, ms := fmt.Sprintf(c.redis, limit, window), fmt.Sprintf(c.mem, limit, window)
				compare(t, rs, ms, b, trace)
			}
			n := []int{1, 2, 4, 5, 10, 20, 50}[r.IntN(7)]
			compare(t, fmt.Sprintf("redis-bucketed:limit=%d,window=1s,buckets=%d", limit, n),
				fmt.Sprintf("leap-array:limit=%d,sample-count=%d,interval=1s", limit, n), b, trace)
		}
	})
}

func compare(t *testing.T, redisSpec, memSpec string, b *Backend, trace []time.Duration) {
	t.Helper()
	mem, err := algorithms.New(memSpec, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := decideAll(t, mustNew(t, redisSpec, b), trace)
	want := decideAll(t, mem, trace)
	for i := range trace {
		if got[i] != want[i] {
			t.Fatalf("%s vs %s: arrival %d at %v: got %+v, want %+v", redisSpec, memSpec, i, trace[i], got[i], want[i])
		}
	}
}

// redis-gcra decides as go-redis/redis_rate v10 itself, run against an
// embedded server whose clock is set to each arrival's instant.
func TestGCRAEqualsRedisRate(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true})
	defer rdb.Close()
	ref := redis_rate.NewLimiter(rdb)
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(9, 2))
		for round := range long(16, 4) { // 4: each period, both clocks
			rate := 1 + r.IntN(50)
			burst := 1 + r.IntN(2*rate)
			period := []time.Duration{time.Second, 100 * time.Millisecond, time.Minute, 1500 * time.Millisecond}[round%4]
			clock := "redis"
			trace := nsTrace(r, 400, 3*period)
			if round%2 == 1 {
				clock = "instance"
				trace = wholeMsTrace(r, 400, 3*period)
			}
			spec := fmt.Sprintf("redis-gcra:rate=%d,burst=%d,period=%s,clock=%s", rate, burst, algorithms.FormatDuration(period), clock)
			l := mustNew(t, spec, b)
			got := decideAll(t, l, trace)
			key := fmt.Sprintf("ref-%s-%d", t.Name(), round)
			epoch := time.UnixMilli(l.Figures().EpochMs)
			limit := redis_rate.Limit{Rate: rate, Burst: burst, Period: period}
			for i, at := range trace {
				m.SetTime(epoch.Add(at))
				res, err := ref.Allow(ctx, key, limit)
				if err != nil {
					t.Fatal(err)
				}
				want := res.Allowed > 0
				if got[i].Pass != want {
					t.Fatalf("%s: arrival %d at %v: pass=%v, redis_rate says %v", spec, i, at, got[i].Pass, want)
				}
			}
		}
	})
}
