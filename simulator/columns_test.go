package simulator

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestTrailingWindowMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	bins := make([]Bin, 200)
	for i := range bins {
		bins[i].Passed = rng.Int64N(50)
	}
	for _, c := range []struct {
		bin, window, span time.Duration
	}{
		{50 * time.Millisecond, time.Second, time.Second},
		{50 * time.Millisecond, 1020 * time.Millisecond, time.Second}, // rounds to 20 bins
		{50 * time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond},
		{time.Second, time.Second, time.Second},
	} {
		got, span := TrailingWindow(bins, c.bin, c.window)
		if span != c.span {
			t.Errorf("bin %v window %v: span %v, want %v", c.bin, c.window, span, c.span)
		}
		k := int(span / c.bin)
		for i := range bins {
			var want int64
			for j := max(0, i-k+1); j <= i; j++ {
				want += bins[j].Passed
			}
			if got[i] != want {
				t.Fatalf("bin %v window %v: bin %d holds %d, want %d", c.bin, c.window, i, got[i], want)
			}
		}
	}
}

// TestColumnsMatchBruteForce checks the reduction to pixel columns against
// a plain computation: every bin overlapping the span lands in exactly one
// column (the one holding its start), and each column's min, mean and max
// are those of its bins.
func TestColumnsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for iter := range 200 {
		nb := 1 + rng.IntN(3000)
		r := &Result{Bin: 50 * time.Millisecond, Window: time.Second, Start: -time.Second}
		a := AlgoResult{Bins: make([]Bin, nb)}
		for i := range a.Bins {
			p := rng.Int64N(100)
			a.Bins[i] = Bin{Arrived: p + rng.Int64N(100), Passed: p, WaitSum: time.Duration(p) * time.Millisecond}
		}
		r.End = r.Start + time.Duration(nb)*r.Bin
		from := r.Start + time.Duration(rng.Int64N(int64(nb)*int64(r.Bin)/2))
		to := from + 1 + time.Duration(rng.Int64N(int64(r.End-from)))
		n := 1 + rng.IntN(700)
		cols := Columns(r, &a, from, to, n)
		if len(cols) > n {
			t.Fatalf("iter %d: %d columns for %d pixels", iter, len(cols), n)
		}
		win, span := TrailingWindow(a.Bins, r.Bin, r.Window)
		// Bins overlapping [from, to).
		var idx []int
		for j := range a.Bins {
			s := r.Start + time.Duration(j)*r.Bin
			if s < to && s+r.Bin > from {
				idx = append(idx, j)
			}
		}
		total := 0
		k := 0
		for ci, c := range cols {
			if c.Bins < 1 {
				t.Fatalf("iter %d column %d: empty", iter, ci)
			}
			var ar, pa, wi []float64
			var ws time.Duration
			var passed int64
			for range c.Bins {
				b := a.Bins[idx[k]]
				s := max(r.Start+time.Duration(idx[k])*r.Bin, from)
				if len(idx) > n && (s < c.From || s >= c.To) {
					t.Fatalf("iter %d column %d [%v, %v): holds bin %d starting %v", iter, ci, c.From, c.To, idx[k], s)
				}
				ar = append(ar, float64(b.Arrived)/r.Bin.Seconds())
				pa = append(pa, float64(b.Passed)/r.Bin.Seconds())
				wi = append(wi, float64(win[idx[k]])/span.Seconds())
				ws += b.WaitSum
				passed += b.Passed
				k++
			}
			total += c.Bins
			for _, e := range []struct {
				name string
				got  Envelope
				vals []float64
			}{{"arrival", c.Arrival, ar}, {"pass", c.Pass, pa}, {"window", c.Window, wi}} {
				lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
				for _, v := range e.vals {
					lo, hi, sum = min(lo, v), max(hi, v), sum+v
				}
				mean := sum / float64(len(e.vals))
				if e.got.Min != lo || e.got.Max != hi || math.Abs(e.got.Mean-mean) > 1e-9*max(1, mean) {
					t.Fatalf("iter %d column %d %s: %+v, want min %v mean %v max %v", iter, ci, e.name, e.got, lo, mean, hi)
				}
			}
			want := 0.0
			if passed > 0 {
				want = ms(ws) / float64(passed)
			}
			if math.Abs(c.WaitMs-want) > 1e-9 {
				t.Fatalf("iter %d column %d: wait %v ms, want %v", iter, ci, c.WaitMs, want)
			}
		}
		if total != len(idx) {
			t.Fatalf("iter %d: columns hold %d bins, %d overlap the span", iter, total, len(idx))
		}
	}
}
