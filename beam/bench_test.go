package beamlab

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// cpuNow is the process's user+system CPU time.
func cpuNow(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPrismPerRow is Prism's cost per row of a trace: the pipeline
// on a 100,000-row trace of 1,000 keys with a token bucket per key, split
// into 16 shards; "run" is the lab's plain loop on the same trace, for the
// ratio. ns/row is wall time, cpu-ns/row user+system time.
//
//	cd beam && go test -run '^$' -bench PrismPerRow -benchtime 3x .
func BenchmarkPrismPerRow(b *testing.B) {
	const rows = 100_000
	trace := keyedTraceN(b, b.TempDir(), 9, rows, 1000)
	c := DefaultConfig()
	c.Trace, c.Specs, c.Limit, c.LimitSet = trace, []string{"token-bucket:rate=2,burst=3,key=client"}, 10, true
	report := func(b *testing.B, start time.Time, cpu0 time.Duration) {
		n := float64(b.N) * rows
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/n, "ns/row")
		b.ReportMetric(float64((cpuNow(b)-cpu0).Nanoseconds())/n, "cpu-ns/row")
	}
	b.Run("prism", func(b *testing.B) {
		start, cpu0 := time.Now(), cpuNow(b)
		for i := 0; i < b.N; i++ {
			c.Out = filepath.Join(b.TempDir(), "out")
			p, s := beam.NewPipelineWithRoot()
			Build(s, c)
			if err := ptest.Run(p); err != nil {
				b.Fatal(err)
			}
		}
		report(b, start, cpu0)
	})
	b.Run("run", func(b *testing.B) {
		start, cpu0 := time.Now(), cpuNow(b)
		for i := 0; i < b.N; i++ {
			o := c.options(trace)
			o.Out = filepath.Join(b.TempDir(), "out")
			p, err := lab.NewPlan(context.Background(), o)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Execute(context.Background(), lab.Hooks{}); err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
		report(b, start, cpu0)
	})
}
