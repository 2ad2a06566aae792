package conformance

import (
	"context"
	"fmt"
	mathrand "math/rand"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/coocood/freecache"
	pb_struct "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/envoyproxy/ratelimit/src/config"
	"github.com/envoyproxy/ratelimit/src/limiter"
	"github.com/envoyproxy/ratelimit/src/redis"
	"github.com/envoyproxy/ratelimit/src/settings"
	"github.com/envoyproxy/ratelimit/src/stats"
	gostats "github.com/lyft/gostats"
	"github.com/sirupsen/logrus"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
)

// fakeClock is the ratelimit service's time source and its local cache's
// timer: the lab's epoch plus the virtual time, in whole seconds.
type fakeClock struct{ now int64 }

func (c *fakeClock) UnixNow() int64 { return c.now }
func (c *fakeClock) Now() uint32    { return uint32(c.now) }

var units = map[string]pb.RateLimitResponse_RateLimit_Unit{
	"second": pb.RateLimitResponse_RateLimit_SECOND, "minute": pb.RateLimitResponse_RateLimit_MINUTE,
	"hour": pb.RateLimitResponse_RateLimit_HOUR, "day": pb.RateLimitResponse_RateLimit_DAY,
	"week": pb.RateLimitResponse_RateLimit_WEEK, "month": pb.RateLimitResponse_RateLimit_MONTH,
	"year": pb.RateLimitResponse_RateLimit_YEAR,
}

// reference runs trace through envoyproxy/ratelimit's own Redis cache
// (NewFixedRateLimitCacheImpl, DoLimit with one descriptor) on a fresh
// miniredis: one service per instance, each with its own local cache,
// sharing the server; arrival i goes to service i mod instances. It
// returns whether each request was answered OK, and the commands Redis
// received.
func reference(t *testing.T, s *distributed.Spec, trace []time.Duration) ([]bool, int64) {
	t.Helper()
	g := s.Gateway
	mr := miniredis.RunT(t)
	store := gostats.NewStore(gostats.NewNullSink(), false)
	mgr := stats.NewStatManager(store, settings.NewSettings())
	client := redis.NewClientImpl(store.Scope("redis"), false, "", "tcp", "single", mr.Addr(), 1, 0, 0, nil, false, nil, 10*time.Second, "", "")
	defer client.Close()
	clock := &fakeClock{}
	caches := make([]limiter.RateLimitCache, s.Instances)
	for k := range caches {
		var local *freecache.Cache
		if g.LocalCache {
			local = freecache.NewCacheCustomTimer(1<<20, clock)
		}
		caches[k] = redis.NewFixedRateLimitCacheImpl(client, nil, clock, mathrand.New(mathrand.NewSource(1)), 0, local, 0.8, "", mgr, g.StopIncrement)
	}
	limit := config.NewRateLimit(uint32(g.Limit), units[g.Unit], mgr.NewStats("lab_key_value"), false, g.Shadow, false, "", nil, false)
	req := &pb.RateLimitRequest{Domain: "lab", HitsAddend: 1,
		Descriptors: []*pb_struct.RateLimitDescriptor{{Entries: []*pb_struct.RateLimitDescriptor_Entry{{Key: "key", Value: "value"}}}}}
	epoch := s.EpochMs()
	before := mr.CommandCount()
	out := make([]bool, len(trace))
	for i, at := range trace {
		clock.now = (epoch + int64(at/time.Millisecond)) / 1000
		st := caches[i%s.Instances].DoLimit(context.Background(), req, []*config.RateLimit{limit})
		out[i] = st[0].Code == pb.RateLimitResponse_OK
	}
	return out, int64(mr.CommandCount() - before)
}

// redis-envoy-ratelimit decides as envoyproxy/ratelimit's fixed window
// cache itself, with its over-limit local cache, shadow mode and
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, driven by a fake time source,
// on the lab's native backend and on its embedded Lua backend. The model
// has no round trip here (rtt=0): each reply is back before the next
// request, as when the service handles them one at a time.
func TestEnvoyRatelimitEqualsReference(t *testing.T) {
	logrus.SetLevel(logrus.ErrorLevel)
	native, err := distributed.OpenEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	lua, err := distributed.OpenEmbeddedLua()
	if err != nil {
		t.Fatal(err)
	}
	defer lua.Close()
	r := rand.New(rand.NewPCG(11, 17))
	decisions := 0
	for round := range 60 {
		unit := []string{"second", "second", "minute", "hour", "day", "week", "month", "year"}[r.IntN(8)]
		spec := fmt.Sprintf("redis-envoy-ratelimit:limit=%d,unit=%s,stop-increment-over-limit=%t,local-cache=%t,shadow-mode=%t,instances=%d",
			1+r.IntN(20), unit, r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(6) == 0, 1+r.IntN(3))
		s, err := distributed.Parse(spec, 0)
		if err != nil {
			t.Fatal(err)
		}
		day := 24 * time.Hour
		span := map[string]time.Duration{"second": 4 * time.Second, "minute": 3 * time.Minute, "hour": 3 * time.Hour, "day": 50 * time.Hour,
			"week": 20 * day, "month": 80 * day, "year": 900 * day}[unit]
		trace := make([]time.Duration, 300+r.IntN(300))
		at := time.Duration(0)
		for i := range trace {
			if r.IntN(3) > 0 {
				at += time.Duration(r.Int64N(int64(3 * span / time.Duration(len(trace)))))
			}
			trace[i] = at.Truncate(time.Millisecond)
		}
		want, commands := reference(t, s, trace)
		for _, b := range []*distributed.Backend{native, lua} {
			l, err := distributed.New(s, b, distributed.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]algorithms.Decision, len(trace))
			l.DecideBatch(trace, got)
			if err := l.Finish(); err != nil {
				t.Fatal(err)
			}
			for i := range trace {
				if got[i].Pass != want[i] {
					t.Fatalf("round %d, %s on %s: arrival %d at %v: pass=%v, envoyproxy/ratelimit says %v", round, spec, b.Name(), i, trace[i], got[i].Pass, want[i])
				}
			}
			// The local cache decides nothing a fixed window would not (a
			// key over the limit stays over until its window ends), but it
			// saves the commands.
			if f := l.Figures(); f.Commands != commands {
				t.Fatalf("round %d, %s on %s: %d Redis commands, envoyproxy/ratelimit sends %d", round, spec, b.Name(), f.Commands, commands)
			}
			decisions += len(trace)
		}
	}
	t.Logf("%d decisions agree", decisions)
}
