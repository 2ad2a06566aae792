package simulator

import (
	"context"
	"runtime"
	"runtime/metrics"
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
// arrival, the attempts both rows made, the bytes allocated per base
// arrival and the peak of the live heap (sampled every 10 ms), so that a
// structure that grows with the run shows.
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
			runtime.GC()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			stop, peak := samplePeakHeap()
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
			cpu := cpuTime() - cpu0
			stop()
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(el.Seconds(), "s/run")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
			b.ReportMetric(float64(el.Nanoseconds())/float64(n.arrivals), "ns/arrival")
			b.ReportMetric(float64(attempts), "attempts")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/float64(n.arrivals), "B/arrival")
			b.ReportMetric(float64(*peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// samplePeakHeap samples the heap's live and unswept objects every 10 ms
// until stop is called; *peak is the largest sample.
func samplePeakHeap() (stop func(), peak *uint64) {
	peak = new(uint64)
	done, finished := make(chan struct{}), make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }, peak
}
