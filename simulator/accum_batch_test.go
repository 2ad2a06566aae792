package simulator

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// TestAddBatchMatchesPlainBins checks the accumulator's batched path (two
// cached bins, growth at both ends, widening) against the definition: each
// arrival counted in the bin floor((at−start)/bin) of the final bin width,
// each pass in the bin of its admission at+wait, and the same totals, wait
// histogram and window maximum as one add per decision.
func TestAddBatchMatchesPlainBins(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range long(300, 100) {
		cfg := DefaultConfig()
		cfg.Bin = time.Duration(1+rng.IntN(50)) * time.Millisecond
		cfg.Window = time.Duration(1+rng.IntN(500)) * time.Millisecond
		cfg.Reorder = cfg.Window
		cfg.Start = time.Duration(rng.IntN(1000)) * time.Millisecond
		cfg.MaxBins = 4 + rng.IntN(200)
		n := 1 + rng.IntN(3000)
		arr := make([]scenarios.Arrival, n)
		ds := make([]algorithms.Decision, n)
		at := time.Duration(rng.IntN(3000)) * time.Millisecond
		for i := range arr {
			at += time.Duration(rng.IntN(3_000_000))
			if rng.IntN(50) == 0 {
				at -= time.Duration(rng.IntN(2000)) * time.Millisecond // out of order, before start too
			}
			arr[i] = scenarios.Arrival{At: at, Clock: at, Priority: rng.IntN(3) == 0}
			if rng.IntN(3) > 0 {
				ds[i].Pass = true
				if rng.IntN(2) == 0 {
					ds[i].Wait = time.Duration(rng.IntN(800_000_000))
				}
			}
		}
		batched, single := newAccumulator(&cfg), newAccumulator(&cfg)
		batched.prio.borrows, single.prio.borrows = true, true
		for i := 0; i < n; {
			k := min(n-i, 1+rng.IntN(700))
			batched.addBatch(arr[i:i+k], ds[i:i+k])
			i += k
		}
		for i := range arr {
			single.add(arr[i].At, ds[i], arr[i].Priority)
		}
		if batched.bin != single.bin || batched.arrived != single.arrived || batched.passed != single.passed ||
			batched.blocked != single.blocked || batched.waits.n != single.waits.n || batched.waits.zero != single.waits.zero {
			t.Fatalf("iter %d: batched and single totals differ", iter)
		}
		if batched.prio.arrived != single.prio.arrived || batched.prio.passed != single.prio.passed || batched.prio.borrowed != single.prio.borrowed {
			t.Fatalf("iter %d: batched and single prioritized counts differ: %+v, %+v", iter, batched.prio, single.prio)
		}
		bin := batched.bin
		want := map[int64]Bin{}
		for i, a := range arr {
			j := floorDiv(int64(a.At-cfg.Start), bin)
			b := want[j]
			b.Arrived++
			if !ds[i].Pass {
				b.Blocked++
				want[j] = b
				continue
			}
			want[j] = b
			w := ds[i].Wait
			j = floorDiv(int64(a.At+w-cfg.Start), bin)
			b = want[j]
			b.Passed++
			b.WaitSum += w
			b.WaitMax = max(b.WaitMax, w)
			if a.Priority && w > 0 {
				b.Borrowed++
			}
			want[j] = b
		}
		for _, acc := range []*accumulator{batched, single} {
			got := map[int64]Bin{}
			for i, b := range acc.bins {
				if b != (Bin{}) {
					got[acc.origin+int64(i)] = b
				}
			}
			if len(got) != len(want) {
				t.Fatalf("iter %d: %d non-empty bins, want %d", iter, len(got), len(want))
			}
			for j, b := range want {
				if got[j] != b {
					t.Fatalf("iter %d: bin %d is %+v, want %+v", iter, j, got[j], b)
				}
			}
		}
		bm, bl := batched.window.result()
		sm, sl := single.window.result()
		ba, _ := batched.window.busiest()
		sa, _ := single.window.busiest()
		if bm != sm || bl != sl || ba != sa {
			t.Fatalf("iter %d: window max %d/%d/%d batched, %d/%d/%d single", iter, bm, bl, ba, sm, sl, sa)
		}
	}
}
