package distributed

import (
	"testing"
	"time"
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
