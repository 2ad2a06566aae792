package simulator

import (
	"testing"
	"time"
)

// goodputBins builds an accumulator of 100 ms bins from 0 whose bins
// complete the given goodput each (no errors).
func goodputBins(per ...int64) *accumulator {
	a := &accumulator{start: 0, bin: int64(100 * time.Millisecond)}
	for _, g := range per {
		a.bins = append(a.bins, Bin{Completed: g})
	}
	return a
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// recovery_ms is documented (README, docs/outputs.md, docs/findings.md) as
// the time until goodput over one second is back *within* 10% of its mean
// before the phase: an overshoot of more than 10% is not recovered yet,
// exactly 10% either side is, and a phase that starts with the run takes
// the level goodput settles at over the run's last 10 s as its baseline.
func TestRecoveryWithinTenPercent(t *testing.T) {
	ms, s := time.Millisecond, time.Second
	cat := func(parts ...[]int64) []int64 {
		var out []int64
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, c := range []struct {
		name          string
		bins          []int64
		from, to, end time.Duration
		want          time.Duration
		ok            bool
	}{
		// 100/s for 10 s, nothing for 2 s, then 120/s (20% over) for 1 s:
		// ">= 90%" said 0 ms; the window [12.5 s, 13.5 s) holds 60 + 50 =
		// 110, the first within 10%.
		{"overshoot is not recovered", cat(repeat(10, 100), repeat(0, 20), repeat(12, 10), repeat(10, 100)), 10 * s, 12 * s, 23 * s, 500 * ms, true},
		// 110/s: exactly 10% over counts as back.
		{"exactly 10% over", cat(repeat(10, 100), repeat(0, 20), repeat(11, 30)), 10 * s, 12 * s, 15 * s, 0, true},
		// 111/s never is within (11.1% over).
		{"11.1% over never", cat(repeat(100, 100), repeat(0, 20), repeat(111, 30)), 10 * s, 12 * s, 15 * s, 0, false},
		// exactly 10% under.
		{"exactly 10% under", cat(repeat(10, 100), repeat(0, 20), repeat(9, 30)), 10 * s, 12 * s, 15 * s, 0, true},
		// A phase from 0 to 2 s, then 50/s for 1 s, then 100/s to 20 s:
		// the baseline is the last 10 s (100/s); the window [2.8 s, 3.8 s)
		// holds 10 + 80 = 90, the first within 10%.
		{"phase starts with the run", cat(repeat(0, 20), repeat(5, 10), repeat(10, 170)), 0, 2 * s, 20 * s, 800 * ms, true},
		// Nothing before the phase and nothing after it: no baseline.
		{"no goodput at all", repeat(0, 50), 0, 2 * s, 5 * s, 0, false},
		// A window must end within the run: goodput that comes back only
		// in the last half second is not a recovery.
		{"back only after the run", cat(repeat(10, 100), repeat(0, 45), repeat(10, 20)), 10 * s, 12 * s, 15 * s, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := recovery(goodputBins(c.bins...), c.from, c.to, c.end)
			if got != c.want || ok != c.ok {
				t.Errorf("recovery = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
