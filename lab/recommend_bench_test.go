//go:build unix

package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func recommendCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRecommendGrid runs a grid of 16 token-bucket configurations
// on a 20,000-arrival trace, on 1 worker and on every CPU: points per
// second of wall time, and CPU per point (user + sys), which the machine's
// load disturbs less.
func BenchmarkRecommendGrid(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("t_ms\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "%d\n", i*3)
	}
	trace := filepath.Join(b.TempDir(), "trace.csv")
	if err := os.WriteFile(trace, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 0} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			o := recommendOpts(trace, "token-bucket:rate=200", []string{"rate=100..400/100", "burst=1..1000~4"}, "max_window_passed<=300", "max passed")
			o.Workers = w
			plan, err := NewRecommendPlan(context.Background(), o, nil, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer plan.Close()
			cpu0 := recommendCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := plan.Search(context.Background(), RecommendHooks{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			points := float64(16 * b.N)
			b.ReportMetric(points/b.Elapsed().Seconds(), "points/s")
			b.ReportMetric(float64(recommendCPU()-cpu0)/points/1e6, "cpu-ms/point")
		})
	}
}
