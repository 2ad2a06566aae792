package htmlreport

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// longResult is a run of n bins of 50 ms: Poisson-like arrivals around
// 150 per bin with a burst now and then, one limiter passing at most 100
// per bin, another 120.
func longResult(n int) *simulator.Result {
	res := &simulator.Result{Scenario: "long", Limit: 2000, Bin: 50 * time.Millisecond, Window: time.Second,
		End: time.Duration(n) * 50 * time.Millisecond}
	for _, cap := range []int64{100, 120} {
		a := simulator.AlgoResult{Spec: fmt.Sprintf("fixed-window:limit=%d,window=50ms", cap*20), Name: "fixed-window", Rate: float64(cap * 20)}
		rng := rand.New(rand.NewPCG(1, 2)) // the same arrivals for both
		a.Bins = make([]simulator.Bin, n)
		for i := range a.Bins {
			arr := int64(150 + rng.NormFloat64()*12)
			if i%20000 < 40 {
				arr *= 3
			}
			p := min(arr, cap)
			a.Bins[i] = simulator.Bin{Arrived: arr, Passed: p, Blocked: arr - p}
			a.Arrived += arr
			a.Passed += p
		}
		res.Algorithms = append(res.Algorithms, a)
	}
	return res
}

// BenchmarkPage makes the report.html of a run of 10⁶ bins and two
// limiters from its result (through series.csv, as `run` does) and reports
// the page's size.
func BenchmarkPage(b *testing.B) {
	res := longResult(1_000_000)
	var size int
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
	b.ReportMetric(float64(size)/1e6, "MB/page")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6/2, "ms/10⁶bins/limiter")
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
