package simulator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// keyedStream yields n arrivals, 1 µs apart on average, each keyed by one
// of keys ids drawn uniformly: the trace of BenchmarkWorkers, generated
// as it is read so that 10⁷ arrivals take no memory.
type keyedStream struct {
	rng     *rand.Rand
	n, keys int
	i       int
	t       time.Duration
}

func newKeyedStream(n, keys int) *keyedStream {
	return &keyedStream{rng: rand.New(rand.NewPCG(29, 1)), n: n, keys: keys}
}

func (s *keyedStream) Next() (scenarios.Arrival, bool) {
	if s.i >= s.n {
		return scenarios.Arrival{}, false
	}
	s.i++
	s.t += time.Duration(s.rng.IntN(2001)) // 1 µs apart on average: 10⁶/s
	k := int32(s.rng.IntN(s.keys))
	return scenarios.Arrival{At: s.t, Clock: s.t, Cost: 1, User: scenarios.NoKey,
		Keys: [scenarios.MaxKeyColumns]int32{k, scenarios.NoKey, scenarios.NoKey, scenarios.NoKey}}, true
}
func (s *keyedStream) Err() error   { return nil }
func (s *keyedStream) Close() error { return nil }

// BenchmarkWorkers is the speed-up of --workers on one per-key row: a
// trace of RATELIMIT_BENCH_WORKERS_ARRIVALS arrivals (default 10⁷; 10⁵
// with -short) over RATELIMIT_BENCH_WORKERS_KEYS keys (default 10⁶; 10⁴
// with -short), nginx-limit-req with an unbounded zone and sentinel-param
// with an unbounded cache, on 1, 2 and 4 workers. It reports the wall
// and CPU seconds of a run and decisions per wall second; the speed-up
// is the ratio of s/run at workers=1 and at N (docs/performance.md).
//
//	go test ./simulator -run '^$' -bench BenchmarkWorkers -benchtime 1x
//
// It runs on every CPU: the package's TestMain puts the quick suite on one
// P (soak_test.go), which would serialize the shards; GOMAXPROCS in the
// environment still wins.
func BenchmarkWorkers(b *testing.B) {
	if os.Getenv("GOMAXPROCS") == "" {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU()))
	}
	n, keys := 10_000_000, 1_000_000
	if testing.Short() {
		n, keys = 100_000, 10_000
	}
	if v, err := strconv.Atoi(os.Getenv("RATELIMIT_BENCH_WORKERS_ARRIVALS")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("RATELIMIT_BENCH_WORKERS_KEYS")); err == nil && v > 0 {
		keys = v
	}
	for _, spec := range []string{
		"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=0,key=key",
		"sentinel-param:count=10,duration=1s,capacity=unbounded,key=key",
	} {
		name, _, _ := cutName(spec)
		for _, w := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, w), func(b *testing.B) {
				runtime.GC()
				cpu0 := cpuTime()
				for b.Loop() {
					lim, err := algorithms.New(spec, 0)
					if err != nil {
						b.Fatal(err)
					}
					cfg := DefaultConfig()
					cfg.End = time.Duration(n) * time.Microsecond
					cfg.Workers = w
					res, err := Run(context.Background(), newKeyedStream(n, keys), []algorithms.Limiter{lim}, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if w > 1 && res.Workers[0].Shards != w {
						b.Fatalf("not split: %s", res.Workers[0].Why)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
				b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/run")
			})
		}
	}
}

func cutName(spec string) (string, string, bool) {
	for i := range spec {
		if spec[i] == ':' {
			return spec[:i], spec[i+1:], true
		}
	}
	return spec, "", false
}
