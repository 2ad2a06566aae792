package simulator

import (
	"context"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// BenchmarkRetryStorm runs the catalog's retry-storm, stretched to
// arrivals base arrivals (320/s), through none (where every request makes
// four attempts after the slowdown) and concurrency:limit=16, each row on
// its own goroutine and event queue, as `ratelimit-lab run` does. It
// reports the wall and CPU time of the whole run, ns (wall) per base
// arrival and the attempts both rows made.
// docs/performance.md: go test ./simulator -run '^$' -bench RetryStorm/10M -benchtime 1x
func BenchmarkRetryStorm(b *testing.B) {
	for _, n := range []struct {
		name     string
		arrivals int64
	}{{"1M", 1_000_000}, {"10M", 10_000_000}} {
		b.Run(n.name, func(b *testing.B) {
			sc, err := scenarios.Lookup("retry-storm")
			if err != nil {
				b.Fatal(err)
			}
			sc.Duration = time.Duration(float64(n.arrivals) / 320 * float64(time.Second))
			var attempts int64
			start, cpu0 := time.Now(), cpuTime()
			for i := 0; i < b.N; i++ {
				src, err := sc.Stream()
				if err != nil {
					b.Fatal(err)
				}
				none, _ := algorithms.New("none", 0)
				conc, _ := algorithms.New("concurrency:limit=16", 0)
				cfg := DefaultConfig()
				cfg.End, cfg.Downstream = sc.Duration, sc.Downstream
				res, err := Run(context.Background(), src, []algorithms.Limiter{none, conc}, cfg)
				if err != nil {
					b.Fatal(err)
				}
				attempts = res.Algorithms[0].Arrived + res.Algorithms[1].Arrived
			}
			el := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(el.Seconds(), "s/run")
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/run")
			b.ReportMetric(float64(el.Nanoseconds())/float64(n.arrivals), "ns/arrival")
			b.ReportMetric(float64(attempts), "attempts")
		})
	}
}
