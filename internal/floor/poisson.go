package floor

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// PoissonSevenFixed is the floor of issue 27's end-to-end run (`run poisson
// --limit L --duration D`): it generates the catalog scenario poisson's
// arrivals (1.5·L a second from the same PCG generator, seeded as
// scenarios seeds the scenario's first phase with seed 1, times rounded to
// the nanosecond, so the same arrivals in the same order), decides each by
// seven fixed windows of L a second, counts every arrival into 50 ms bins
// (arrived, passed and blocked per window) and writes the bins as CSV to w.
// It returns the arrivals and the first window's passes.
//
// Nothing else: no batches, goroutines, sliding-window maximum, wait
// histogram, summary, chart or report.
func PoissonSevenFixed(w io.Writer, limit float64, duration time.Duration) (Result, error) {
	const k = 7
	const bin = 50 * time.Millisecond
	seed := poissonPhaseSeed(1, 0)
	rng := rand.New(rand.NewPCG(seed, splitmix64(seed^0x5eed)))
	meanNs := 1e9 / (1.5 * limit)
	end := float64(duration)
	nb := int(duration/bin) + 1
	type counts struct{ arrived, passed, blocked int64 }
	bins := make([][k]counts, nb)
	var win [k]int64   // each window's start (ns)
	var count [k]int64 // each window's passes so far
	var res Result
	t := 0.0
	for {
		t += rng.ExpFloat64() * meanNs
		if t >= end {
			break
		}
		at := int64(math.Round(t))
		res.Lines++
		b := &bins[min(int(at/int64(bin)), nb-1)]
		for i := 0; i < k; i++ {
			if ws := at - at%int64(time.Second); ws != win[i] {
				win[i], count[i] = ws, 0
			}
			b[i].arrived++
			if float64(count[i])+1 <= limit {
				count[i]++
				b[i].passed++
				if i == 0 {
					res.Passed++
				}
			} else {
				b[i].blocked++
			}
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("t_ms,limiter,arrived,passed,blocked\n")
	var buf []byte
	for j := range bins {
		for i := 0; i < k; i++ {
			c := bins[j][i]
			buf = strconv.AppendInt(buf[:0], int64(j)*int64(bin/time.Millisecond), 10)
			buf = append(buf, ",fw"...)
			buf = strconv.AppendInt(buf, int64(i), 10)
			for _, v := range [3]int64{c.arrived, c.passed, c.blocked} {
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, v, 10)
			}
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	return res, bw.Flush()
}

// splitmix64 and poissonPhaseSeed are scenarios' seed derivation
// (scenarios/generators.go), copied so that this package stays on the
// standard library.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func poissonPhaseSeed(seed uint64, i int) uint64 {
	return splitmix64(seed ^ splitmix64(uint64(i)+1))
}
