package simulator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// shardArrivals is a random trace over two key columns (key, ip): skewed
// keys, empty keys in both, costs, priorities, clock ties.
func shardArrivals(seed uint64, n, keys int) []scenarios.Arrival {
	rng := rand.New(rand.NewPCG(seed, 29))
	out := make([]scenarios.Arrival, n)
	var t time.Duration
	for i := range out {
		t += time.Duration(rng.IntN(3)) * time.Millisecond / 2
		k := int32(rng.IntN(rng.IntN(keys) + 1))
		if rng.IntN(12) == 0 {
			k = scenarios.NoKey
		}
		ip := int32(keys + rng.IntN(keys/4+1))
		if rng.IntN(20) == 0 {
			ip = scenarios.NoKey
		}
		out[i] = scenarios.Arrival{At: t, Clock: t,
			Keys: [scenarios.MaxKeyColumns]int32{k, ip, scenarios.NoKey, scenarios.NoKey},
			User: int32(rng.IntN(10)), Cost: int32(1 + rng.IntN(3)/2), Priority: rng.IntN(9) == 0}
	}
	return out
}

// shardSpecs are the rows of the identity test; split tells whether each
// must be split over the workers (the others must say why not).
var shardSpecs = []struct {
	spec  string
	split bool
}{
	{"token-bucket:rate=10,burst=3,key=key", true},
	{"leap-array:limit=5,sample-count=2,key=key", true}, // one instance per key
	{"fixed-window:limit=4,key=key,empty-key=shared", true},
	{"sliding-log:limit=3,key=key,empty-key=reject", true},
	{"leaky-bucket:limit=5,max-queue=300ms,key=key", true},
	{"guava-bursty:rate=5,key=key", true},
	{"kong:second=3,key=key,fallback=ip", true},
	{"bucket4j:capacity=4,refill-tokens=2,key=key", true}, // empty key shared
	{"haproxy:limit=4,key=ip", true},
	{"resilience4j:limit-for-period=3,refresh-period=1s,timeout=0s,key=key", true},
	{"nginx-limit-req:rate=20r/s,burst=2,zone=0", true},
	{"nginx-limit-req:rate=5r/s,burst=3,delay=1,zone=0,key=ip", true},
	{"sentinel-param:count=3,capacity=unbounded", true},
	{"sentinel-param:count=4,behavior=throttle,max-queue=500ms,capacity=unbounded,flavor=go", true},
	// Not split: bounded tables, a shared limiter, a chain, items=.
	{"token-bucket:rate=10,burst=3,key=key,capacity=8", false},
	{"nginx-limit-req:rate=20r/s,burst=2,zone=32k", false},
	{"sentinel-param:count=3,capacity=20", false},
	{"sentinel-param:count=3,capacity=unbounded,items=1:5", false},
	{"traefik:average=5,burst=2,key=key", false},
	{"leap-array:limit=200", false},
	{"token-bucket:rate=10,burst=3,key=key+leap-array:limit=200", false},
}

// shardRun runs every spec of shardSpecs over arr on workers goroutines
// and returns its files.
func shardRun(t testing.TB, arr []scenarios.Arrival, workers int) (map[string]string, *Result) {
	t.Helper()
	lims := make([]algorithms.Limiter, len(shardSpecs))
	for i, s := range shardSpecs {
		l, err := algorithms.New(s.spec, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ku, ok := l.(algorithms.KeyColumnUser); ok {
			var idx []int
			for _, c := range ku.KeyColumns() {
				idx = append(idx, map[string]int{"key": 0, "ip": 1}[c])
			}
			if err := ku.BindKeyColumns(idx); err != nil {
				t.Fatal(err)
			}
		}
		if kn, ok := l.(algorithms.KeyNameUser); ok {
			kn.BindKeyNames(func(id int32) string { return strconv.Itoa(int(id)) })
		}
		if kr := algorithms.KeyReporterOf(l); kr != nil {
			kr.TrackShadow()
		}
		lims[i] = l
	}
	dec := make([]bytes.Buffer, len(lims))
	cfg := DefaultConfig()
	cfg.End = arr[len(arr)-1].At + time.Millisecond
	cfg.Workers = workers
	cfg.Decisions = func(i int) io.Writer { return &dec[i] }
	res, err := Run(context.Background(), &sliceStream{arr: arr}, lims, cfg)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var b bytes.Buffer
	for name, write := range map[string]func(io.Writer, *Result) error{
		"series.csv": WriteSeriesCSV, "summary.json": WriteSummaryJSON,
		"keys.csv": func(w io.Writer, r *Result) error {
			return WriteKeysCSV(w, r, func(id int32) string { return strconv.Itoa(int(id)) })
		},
	} {
		b.Reset()
		if err := write(&b, res); err != nil {
			t.Fatal(err)
		}
		files[name] = b.String()
	}
	for i := range dec {
		files[fmt.Sprintf("decisions %d", i)] = dec[i].String()
	}
	for i, a := range res.Algorithms {
		files[fmt.Sprintf("figures %d", i)] = fmt.Sprint(a.StateBytes)
		if a.Keys != nil {
			files[fmt.Sprintf("figures %d", i)] += fmt.Sprintf(" %+v", a.Keys.Figures)
		}
	}
	return files, res
}

// --workers 1..8 write the same files, bit for bit, on random keyed
// traces; the rows that must split do, the others say why not.
func TestWorkersByteIdentical(t *testing.T) {
	n, seeds := 40_000, []uint64{1, 2} // two batches each
	if testing.Short() || raceOn {
		n, seeds = 6_000, seeds[:1]
	}
	if raceOn {
		n = 1_500 // still split over every shard, under the race detector
	}
	for _, seed := range seeds {
		arr := shardArrivals(seed, n, 300)
		want, _ := shardRun(t, arr, 1)
		for w := 2; w <= 8; w++ {
			got, res := shardRun(t, arr, w)
			for name, s := range want {
				if got[name] != s {
					t.Errorf("seed %d, workers %d: %s differs from workers 1", seed, w, name)
				}
			}
			for i, s := range shardSpecs {
				rw := res.Workers[i]
				if s.split && rw.Shards != w {
					t.Errorf("workers %d: %s decided on %d shards (%s), want %d", w, s.spec, rw.Shards, rw.Why, w)
				}
				if !s.split && (rw.Shards != 1 || rw.Why == "") {
					t.Errorf("workers %d: %s: %+v, want one worker and a reason", w, s.spec, rw)
				}
			}
		}
	}
}
