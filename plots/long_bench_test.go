package plots

import (
	"fmt"
	"io"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// longRun is bangBang(nBins) with rows copies of its limiter; with keyed
// set every row is keyed, with a key hurt every 37th bin and a burst of
// 500 keys hurt in one bin two thirds of the way through (series.csv's
// keys_hurt column, the keys panel).
func longRun(nBins, rows int, keyed bool) *simulator.Result {
	res := bangBang(nBins)
	one := res.Algorithms[0]
	res.Algorithms = res.Algorithms[:0]
	for range rows {
		a := one
		a.Bins = append([]simulator.Bin(nil), one.Bins...)
		if keyed {
			a.Keys = &simulator.KeyResult{}
			for j := range a.Bins {
				if j%37 == 0 {
					a.Bins[j].KeysHurt = 1
				}
			}
			a.Bins[2*nBins/3].KeysHurt += 500
		}
		res.Algorithms = append(res.Algorithms, a)
	}
	return res
}

// BenchmarkChartLong draws chart.png for the shapes of issue 27's runs:
// the 10⁶-line access log (60 000 bins of 50 ms, one keyed row, so a keys
// panel too), the same length through seven rows, and `run poisson`'s
// 1 201 bins × 7 rows. It reports the time, bytes and allocations of one
// chart, its CPU time (getrusage, every thread: the collector's work
// counts) and the PNG's size.
//
//	go test -run '^$' -bench ChartLong -benchmem -benchtime 5x ./plots/
func BenchmarkChartLong(b *testing.B) {
	for _, c := range []struct {
		bins, rows int
		keyed      bool
	}{{60_000, 1, true}, {60_000, 7, false}, {1_201, 7, false}} {
		res := longRun(c.bins, c.rows, c.keyed)
		name := fmt.Sprintf("bins=%d/rows=%d", c.bins, c.rows)
		if c.keyed {
			name += "/keyed"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			cpu0 := cpuTime()
			for b.Loop() {
				var w countWriter
				if err := Chart(&w, res, ChartOptions{}); err != nil {
					b.Fatal(err)
				}
				size = int(w)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(size)/1e3, "kB/png")
		})
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
