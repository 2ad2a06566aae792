package algorithms

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shardSpec is the spec of kind name made per-key on column k with a
// table that never evicts.
func shardSpec(name string) string {
	base, sep := capsBase(name)
	switch name {
	case "nginx-limit-req":
		return base + sep + "zone=0,key=k"
	case "sentinel-param":
		return base + sep + "capacity=unbounded,key=k"
	}
	return base + sep + "key=k"
}

// A kind declares CapShard exactly when its per-key limiter with an
// unbounded table splits; one that does not gives a reason.
func TestCapShardMatchesSharder(t *testing.T) {
	for _, in := range List() {
		if !in.Caps.Has(CapKeyColumn) {
			if in.Caps.Has(CapShard) {
				t.Errorf("%s declares shard without key", in.Name)
			}
			continue
		}
		l, err := New(shardSpec(in.Name), 10)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		var set Shards
		why := "not a Sharder"
		if sp, ok := l.(Sharder); ok {
			set, why = sp.Shard(3)
		}
		if got := set != nil; got != in.Caps.Has(CapShard) {
			t.Errorf("%s: splits %v (%s), Caps %s", in.Name, got, why, in.Caps)
		}
		if set == nil && why == "" {
			t.Errorf("%s: refused without a reason", in.Name)
		}
	}
}

// What would not be exact is refused, with the reason the run's note
// gives.
func TestShardRefusals(t *testing.T) {
	for _, c := range []struct{ spec, why string }{
		{"token-bucket:rate=5,key=k,capacity=100", "bounded (100 keys)"},
		{"envoy-local:max-tokens=5,key=k", "shares state across keys"},
		{"traefik:average=5,key=k", "shares state across keys"},
		{"kong:second=5,policy=redis,sync-rate=1,key=k", "shares state across keys"},
		{"nginx-limit-req:rate=5r/s,key=k", "zone=10m"},
		{"nginx-limit-req:rate=5r/s,zone=0,key=k+nginx-limit-req:rate=9r/s,zone=0,key=ip", "several limit_req zones"},
		{"sentinel-param:count=5,key=k", "bounded (capacity=4000)"},
		{"sentinel-param:count=5,capacity=unbounded,items=a:1,key=k", "items="},
	} {
		l, err := New(c.spec, 10)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		sp, ok := l.(Sharder)
		if !ok {
			t.Fatalf("%s: %T is not a Sharder", c.spec, l)
		}
		set, why := sp.Shard(4)
		if set != nil || !strings.Contains(why, c.why) {
			t.Errorf("%s: Shard(4) = %v, %q; want a refusal saying %q", c.spec, set, why, c.why)
		}
	}
}

// A split limiter decides (sequentially, through its shards) as the one
// table does, request by request, and reports the same state bytes and
// figures after every request: mergedBytes rebuilds the one table's
// index exactly.
func TestShardedEqualsOneTable(t *testing.T) {
	for _, spec := range []string{
		"token-bucket:rate=3,burst=2,key=k",
		"token-bucket:rate=3,burst=2,key=k,empty-key=shared",
		"kong:second=2,key=k,fallback=ip",
		"leap-array:limit=3,sample-count=2,key=k",
		"leaky-bucket:limit=4,max-queue=200ms,key=k",
		"nginx-limit-req:rate=4r/s,burst=2,zone=0,key=k",
		"sentinel-param:count=3,capacity=unbounded,key=k",
		"sentinel-param:count=3,behavior=throttle,max-queue=400ms,capacity=unbounded,key=k",
	} {
		for _, n := range []int{2, 3, 7} {
			one, _ := New(spec, 10)
			split, _ := New(spec, 10)
			for _, l := range []Limiter{one, split} {
				idx := []int{0}
				if len(l.(KeyColumnUser).KeyColumns()) == 2 {
					idx = []int{0, 1}
				}
				if err := l.(KeyColumnUser).BindKeyColumns(idx); err != nil {
					t.Fatal(err)
				}
				if kn, ok := l.(KeyNameUser); ok {
					kn.BindKeyNames(func(id int32) string { return strconv.Itoa(int(id)) })
				}
			}
			if set, why := split.(Sharder).Shard(n); set == nil {
				t.Fatalf("%s: %s", spec, why)
			}
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			var now time.Duration
			for i := range 4000 {
				now += time.Duration(rng.IntN(40)) * time.Millisecond
				r := Request{Keys: noKeys, Cost: int32(1 + rng.IntN(2))}
				if rng.IntN(10) > 0 {
					r.Keys[0] = int32(rng.IntN(1 + rng.IntN(200)))
				}
				if rng.IntN(3) > 0 {
					r.Keys[1] = int32(rng.IntN(50))
				}
				a := one.(RequestLimiter).DecideRequest(now, &r)
				b := split.(RequestLimiter).DecideRequest(now, &r)
				if a != b {
					t.Fatalf("%s, %d shards, request %d: %+v, one table %+v", spec, n, i, b, a)
				}
				fa, fb := KeyReporterOf(one).KeyFigures(), KeyReporterOf(split).KeyFigures()
				if one.StateBytes() != split.StateBytes() || fa != fb {
					t.Fatalf("%s, %d shards, request %d: %d bytes %+v, one table %d bytes %+v", spec, n, i,
						split.StateBytes(), fb, one.StateBytes(), fa)
				}
			}
		}
	}
}
