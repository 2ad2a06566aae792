package simulator

import (
	"context"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// BenchmarkChain runs 1 million Poisson arrivals at 1.5× the limit through
// evented rows (chains with a breaker, behind a downstream that slows down
// and fails) and reports the cost per arrival and row, and the allocations.
//
//	go test -run '^$' -bench Chain -benchtime 1x ./simulator/
func BenchmarkChain(b *testing.B) {
	const n = 1_000_000
	specs := []string{
		"leap-array:limit=10000+circuit-breaker:strategy=slow-ratio,max-rt=50ms,threshold=0.5,recovery=1s",
		"leaky-bucket:limit=10000+circuit-breaker:strategy=error-ratio,threshold=0.2,recovery=1s",
	}
	ds := &scenarios.Downstream{Servers: 400, Service: 20 * time.Millisecond, Timeout: time.Second, Seed: 1,
		Phases: []scenarios.DownstreamPhase{{From: 20 * time.Second, To: 40 * time.Second, Service: 60 * time.Millisecond, Errors: 0.3}}}
	b.ReportAllocs()
	for range b.N {
		lims := make([]algorithms.Limiter, len(specs))
		for i, s := range specs {
			lims[i], _ = algorithms.New(s, 0)
		}
		cfg := DefaultConfig()
		cfg.End, cfg.Downstream = 70*time.Second, ds
		res, err := Run(context.Background(), newPoissonStream(15000, n, 1), lims, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if res.Algorithms[0].Chain.Opens == 0 {
			b.Fatal("the breaker never opened")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*len(specs)), "ns/arrival-row")
}
