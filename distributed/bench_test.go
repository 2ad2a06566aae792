package distributed

import (
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// BenchmarkDecide measures decisions per second of each redis-* limiter on
// the embedded server and, when RATELIMIT_LAB_REDIS_URL is set, on a real
// one: evenly spaced arrivals at twice the limit.
func BenchmarkDecide(b *testing.B) {
	specs := []string{
		"redis-fixed-window:limit=1000",
		"redis-sliding-log:limit=1000",
		"redis-sliding-log:limit=1000,atomic=false,instances=4,rtt=2ms",
		"redis-bucketed:limit=1000,buckets=10",
		"redis-gcra:rate=1000",
	}
	for name, be := range backends(b) {
		for _, spec := range specs {
			b.Run(name+"/"+spec, func(b *testing.B) {
				l := mustNew(b, spec, be)
				b.ResetTimer()
				for i := range b.N {
					l.Decide(time.Duration(i) * 500 * time.Microsecond)
				}
				if err := l.Finish(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}

// BenchmarkDecideBatch is BenchmarkDecide through DecideBatch (what the
// simulator calls, 4096 arrivals at a time): on a real server every batch
// whose command does not wait for a reply goes out in one pipeline.
func BenchmarkDecideBatch(b *testing.B) {
	specs := []string{
		"redis-fixed-window:limit=1000",
		"redis-sliding-log:limit=1000",
		"redis-sliding-log:limit=1000,atomic=false,instances=4,rtt=2ms",
		"redis-bucketed:limit=1000,buckets=10",
		"redis-gcra:rate=1000",
	}
	for name, be := range backends(b) {
		for _, spec := range specs {
			b.Run(name+"/"+spec, func(b *testing.B) {
				l := mustNew(b, spec, be)
				const chunk = 4096
				nows := make([]time.Duration, chunk)
				out := make([]algorithms.Decision, chunk)
				b.ResetTimer()
				for done := 0; done < b.N; done += chunk {
					n := min(chunk, b.N-done)
					for j := range n {
						nows[j] = time.Duration(done+j) * 500 * time.Microsecond
					}
					l.DecideBatch(nows[:n], out[:n])
				}
				if err := l.Finish(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}
