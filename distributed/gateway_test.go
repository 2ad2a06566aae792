package distributed

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cellRef is brandur/redis-cell's RateLimiter.rate_limit (src/cell/mod.rs)
// and CL.THROTTLE's reply (src/lib.rs), ported to test code line by line
// on a MemoryStore: the TAT in Unix ns, time::Duration as int64 ns.
type cellRef struct {
	tat int64
	has bool
}

func (c *cellRef) throttle(maxBurst, count, periodS, quantity, now int64) [5]int64 {
	// Rate::per_period: ((ns as f64) / (n as f64)) as i64
	emission := int64(float64(periodS*1_000_000_000) / float64(count))
	dvt := emission * (maxBurst + 1)
	limit := maxBurst + 1
	increment := emission * quantity
	tat := now
	if c.has {
		tat = c.tat
	}
	var newTat int64
	if now > tat {
		newTat = now + increment
	} else {
		newTat = tat + increment
	}
	allowAt := newTat - dvt
	diff := now - allowAt
	retryAfter := int64(-1_000_000_000)
	var ttl int64
	limited := int64(0)
	if diff < 0 {
		if increment <= dvt {
			retryAfter = -diff
		}
		limited = 1
		ttl = tat - now
	} else {
		ttl = newTat - now
		c.tat, c.has = newTat, true
	}
	remaining := int64(0)
	if next := dvt - ttl; next > -emission {
		remaining = int64(float64(next/1000) / float64(emission/1000))
	}
	// as_seconds_f64() as i64, plus 1 if subsec_milliseconds() > 0
	secs := func(d int64) int64 {
		s := int64(float64(d/1_000_000_000) + float64(d%1_000_000_000)/1e9)
		if (d%1_000_000_000)/1_000_000 > 0 {
			s++
		}
		return s
	}
	return [5]int64{limited, limit, remaining, secs(retryAfter), secs(ttl)}
}

// cell.lua answers CL.THROTTLE's whole reply, and stores the TAT as the
// module does, on the embedded Lua and on a real server; the native
// backend passes exactly the requests the port does not throttle.
func TestCellScriptEqualsPort(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	for name, b := range backends(t) {
		for round := range 15 {
			maxBurst := int64(r.IntN(30))
			count := 1 + int64(r.IntN(200))
			periodS := []int64{1, 1, 2, 60, 3600}[r.IntN(5)]
			quantity := 1 + int64(r.IntN(3))
			now := int64(1_600_000_000_000_000_000) + r.Int64N(1e18)
			ref := &cellRef{}
			key := fmt.Sprintf("%scell-port-%d", b.prefix, round)
			c := b.conn()
			for i := range long(300, 100) {
				if r.IntN(4) > 0 { // else the same instant as the call before
					now += r.Int64N(3 * periodS * 1_000_000_000 / count)
				}
				want := ref.throttle(maxBurst, count, periodS, quantity, now)
				if name == "native" {
					continue // no Lua on the native backend: see below
				}
				res, err := c.do([][]string{{"EVAL", CellScript, "1", key,
					strconv.FormatInt(maxBurst, 10), strconv.FormatInt(count, 10), strconv.FormatInt(periodS, 10),
					strconv.FormatInt(quantity, 10), strconv.FormatInt(now/1e9, 10), strconv.FormatInt(now%1e9, 10)},
					{"GET", key}})
				if err != nil {
					t.Fatal(err)
				}
				arr := res[0].([]any)
				var got [5]int64
				for k := range got {
					got[k] = arr[k].(int64)
				}
				if got != want {
					t.Fatalf("%s: max_burst=%d count=%d period=%d quantity=%d, call %d at %d: cell.lua %v, redis-cell %v",
						name, maxBurst, count, periodS, quantity, i, now, got, want)
				}
				if stored := fmt.Sprint(res[1]); ref.has && stored != strconv.FormatInt(ref.tat, 10) {
					t.Fatalf("%s: call %d: stored TAT %s, redis-cell stores %d", name, i, stored, ref.tat)
				}
			}
			if _, err := c.do([][]string{{"DEL", key}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Native: the spec's decisions against the port, clock=redis, one
	// instance, on nanosecond traces.
	b := backends(t)["native"]
	for round := range long(40, 15) {
		count := 1 + r.IntN(100)
		spec := fmt.Sprintf("redis-cell:max-burst=%d,count=%d,period=%ds,clock=redis,rtt=%s", r.IntN(20), count, []int{1, 2, 60}[r.IntN(3)],
			[]string{"0s", "1ms", "3ms"}[r.IntN(3)])
		s := mustParse(t, spec)
		trace := nsTrace(r, 400, time.Duration(1+round%5)*time.Second)
		got := decideAll(t, mustNew(t, spec, b), trace)
		ref := &cellRef{}
		for i, at := range trace {
			now := s.EpochMs()*1_000_000 + int64(at+s.RTT/2)
			want := ref.throttle(s.Gateway.MaxBurst, s.Gateway.Count, int64(s.Gateway.Period/time.Second), 1, now)[0] == 0
			if got[i].Pass != want {
				t.Fatalf("%s: arrival %d at %v: pass=%v, redis-cell says %v", spec, i, at, got[i].Pass, want)
			}
		}
	}
}

// Spring's whole-second refill, its TTL of 0 and a burst below the rate,
// decision for decision on every backend (docs/redis.md's worked example).
func TestSpringGatewayWorkedExample(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		// rate 2/s, burst 4: four pass at once; TIME is whole seconds, so
		// nothing comes back before the next second, and then 2 tokens.
		ms := []int{0, 0, 0, 0, 0, 999, 1000, 1000, 1000, 1999, 2000, 5000, 5000, 5000, 5000, 5000}
		want := "PPPPBBPPBBPPPPPB"
		checkPattern(t, b, "redis-spring-gateway:replenish-rate=2,burst-capacity=4", ms, want)
		// requested-tokens=3 of a burst of 4: one passes, then the bucket
		// (1 + 2 per s) needs a second and a half; whole seconds make it 2.
		checkPattern(t, b, "redis-spring-gateway:replenish-rate=2,burst-capacity=4,requested-tokens=3",
			[]int{0, 0, 1000, 1999, 2000, 2000}, "PBPBBB")
		// burst 4 at rate 10: TTL ⌊0.8⌋ = 0, nothing is stored, all pass.
		checkPattern(t, b, "redis-spring-gateway:replenish-rate=10,burst-capacity=4", []int{0, 0, 0, 0, 0, 0, 0, 1}, "PPPPPPPP")
		// burst 1 below rate 2 (refused by Spring's Java config): the
		// script runs, a TTL of ⌊1⌋ = 1 s, one per second.
		checkPattern(t, b, "redis-spring-gateway:replenish-rate=2,burst-capacity=1", []int{0, 10, 999, 1000, 1001}, "PBBPB")
	})
	s := mustParse(t, "redis-spring-gateway:replenish-rate=2,burst-capacity=1")
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "burst-capacity 1 is below replenish-rate 2") {
		t.Errorf("warnings %q", w)
	}
	if w := mustParse(t, "redis-spring-gateway:replenish-rate=10,burst-capacity=4").Warnings(); len(w) != 2 || !strings.Contains(w[1], "stores nothing") {
		t.Errorf("warnings %q", w)
	}
}

func checkPattern(t *testing.T, b *Backend, spec string, ms []int, want string) {
	t.Helper()
	trace := make([]time.Duration, len(ms))
	for i, m := range ms {
		trace[i] = time.Duration(m) * time.Millisecond
	}
	got := ""
	for _, d := range decideAll(t, mustNew(t, spec, b), trace) {
		got += map[bool]string{true: "P", false: "B"}[d.Pass]
	}
	if got != want {
		t.Errorf("%s on %s: %s, want %s", spec, b.Name(), got, want)
	}
}

// envoyproxy/ratelimit: windows aligned to the Unix epoch pass twice the
// limit across a boundary; the local cache answers without Redis once a
// key is over; shadow mode passes everything while counting.
func TestEnvoyRatelimitWorkedExample(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		ms := []int{900, 950, 990, 999, 1000, 1001, 1002, 1003}
		checkPattern(t, b, "redis-envoy-ratelimit:limit=3", ms, "PPPBPPPB")
		checkPattern(t, b, "redis-envoy-ratelimit:limit=3,shadow-mode=true", ms, "PPPPPPPP")
		// A minute unit: one window from 0 to 60 s.
		checkPattern(t, b, "redis-envoy-ratelimit:limit=2,unit=minute", []int{0, 30000, 59999, 60000}, "PPBP")
		// The local cache answers a key once an over-limit reply for it is
		// back, until its window ends, with no command and no wait.
		l := mustNew(t, "redis-envoy-ratelimit:limit=1,local-cache=true,rtt=2ms", b)
		trace := []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond}
		got := decideAll(t, l, trace)
		// 0 passes; 1 ms is over (INCRBY 2) and its reply is back at 3 ms;
		// 2 ms still asks Redis; 3 ms and 4 ms are answered from the cache.
		if !got[0].Pass || got[1].Pass || got[2].Pass || got[3].Pass || got[4].Pass {
			t.Errorf("local cache: %+v", got)
		}
		if f := l.Figures(); f.Commands != 6 {
			t.Errorf("local cache: %d commands, want 3 INCRBY+EXPIRE pairs", f.Commands)
		}
		stop := mustNew(t, "redis-envoy-ratelimit:limit=1,stop-increment-over-limit=true,rtt=2ms", b)
		got = decideAll(t, stop, trace[:2])
		if got[0].Wait != 4*time.Millisecond || got[1].Pass || stop.Figures().Commands != 6 {
			t.Errorf("stop-increment-over-limit: %+v, %d commands (want a pass after two round trips and GET+INCRBY+EXPIRE each)", got, stop.Figures().Commands)
		}
	})
}

// redis-cell admits max-burst + 1 at once, redis-gcra burst at once: on
// one instance, redis-cell with max-burst = b − 1 decides as redis-gcra
// with burst = b until a request lands within a microsecond of the
// boundary (redis-cell's diff = now − allow_at in integer ns): there
// redis_rate's doubles (seconds since 2017, about 60 ns apart) and
// redis-cell's emission interval truncated to whole ns may part.
func TestCellAgainstGCRA(t *testing.T) {
	// docs/redis.md's worked example.
	forEachBackend(t, func(t *testing.T, b *Backend) {
		ms := []int{0, 0, 0, 0, 500, 1000, 1000, 2500}
		checkPattern(t, b, "redis-cell:max-burst=2,count=1", ms, "PPPBBPBP")
		checkPattern(t, b, "redis-gcra:rate=1,burst=3", ms, "PPPBBPBP")
	})
	b := backends(t)["native"]
	r := rand.New(rand.NewPCG(4, 4))
	differ := 0
	for range 30 {
		rate := []int{1, 2, 4, 5, 8, 10, 20, 25, 50, 100, 3, 7}[r.IntN(12)]
		burst := 1 + r.IntN(10)
		trace := wholeMsTrace(r, 500, 5*time.Second)
		if r.IntN(2) == 0 {
			trace = nsTrace(r, 500, 5*time.Second)
		}
		spec := fmt.Sprintf("redis-cell:max-burst=%d,count=%d,clock=redis", burst-1, rate)
		cell := decideAll(t, mustNew(t, spec, b), trace)
		gcra := decideAll(t, mustNew(t, fmt.Sprintf("redis-gcra:rate=%d,burst=%d,clock=redis", rate, burst), b), trace)
		ref, epoch := &cellRef{}, mustParse(t, spec).EpochMs()*1_000_000
		for i, at := range trace {
			now := epoch + int64(at)
			before := *ref
			ref.throttle(int64(burst-1), int64(rate), 1, 1, now)
			if cell[i] == gcra[i] {
				continue
			}
			emission := int64(1e9 / float64(rate))
			tat := now
			if before.has {
				tat = max(before.tat, now)
			}
			if diff := now - (tat + emission - emission*int64(burst)); diff < -1000 || diff > 1000 {
				t.Fatalf("rate %d burst %d: arrival %d at %v: redis-cell %v, redis-gcra %v, %d ns from the boundary", rate, burst, i, at, cell[i].Pass, gcra[i].Pass, diff)
			}
			differ++
			break
		}
	}
	t.Logf("%d of 30 traces part at a request within 1 µs of the boundary", differ)
}
