package htmlreport

import (
	"fmt"
	"testing"
)

// BenchmarkRunPage makes report.html from a run's result as `run` does
// (FromResult, then Write) for the shapes of issue 27's runs: 60 000 bins
// (the 10⁶-line access log) through one and seven rows, and 1 201 bins
// through seven (`run poisson`). It reports the CPU time of one page
// (getrusage: every thread, the collector's too) and the page's size.
//
//	go test -run '^$' -bench RunPage -benchmem -benchtime 5x ./internal/htmlreport/
func BenchmarkRunPage(b *testing.B) {
	for _, c := range []struct{ bins, rows int }{{60_000, 1}, {60_000, 7}, {1_201, 7}} {
		res := longResult(c.bins)
		one := res.Algorithms[0]
		res.Algorithms = res.Algorithms[:0]
		for i := range c.rows {
			a := one // the same bins, a spec of its own
			a.Spec = fmt.Sprintf("fixed-window:limit=%d,window=50ms", 2000+i)
			res.Algorithms = append(res.Algorithms, a)
		}
		b.Run(fmt.Sprintf("bins=%d/rows=%d", c.bins, c.rows), func(b *testing.B) {
			b.ReportAllocs()
			var size int
			cpu0 := cpuTime()
			for b.Loop() {
				p := NewPage("long")
				if err := p.FromResult("long", res, nil); err != nil {
					b.Fatal(err)
				}
				var w countWriter
				if err := p.Write(&w); err != nil {
					b.Fatal(err)
				}
				size = int(w)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(size)/1e3, "kB/page")
		})
	}
}
