package simulator

import (
	"math/rand/v2"
	"testing"
	"time"
)

// admissionTimes returns n non-decreasing admission times at about rate
// per second (exponential gaps, one time in eight equal to the previous
// one), as a limiter's passes.
func admissionTimes(n int, rate float64, seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ts := make([]int64, n)
	var t float64
	for i := range ts {
		if rng.IntN(8) != 0 {
			t += rng.ExpFloat64() * 1e9 / rate
		}
		ts[i] = int64(t)
	}
	return ts
}

// BenchmarkWindowMax feeds in-order admissions at 100 000/s (the rate of
// BenchmarkEndToEnd's limiters) to the exact 1 s window maximum: one at a
// time (add), in batches of 4096 as Run does (addMany), and through the
// sorted-slice structure alone (the in-order mode's reference, and the
// tracker's only structure before it had that mode). It reports the CPU
// time per admission, which a shared machine disturbs less than wall time.
//
//	go test -run '^$' -bench WindowMax -count 5 ./simulator/
func BenchmarkWindowMax(b *testing.B) {
	ts := admissionTimes(1<<21, 100_000, 1)
	span := ts[len(ts)-1] + int64(time.Second)
	run := func(b *testing.B, m *windowMax, batch int) {
		buf := make([]int64, batch)
		var off int64
		b.ResetTimer()
		cpu0 := cpuTime()
		for i := 0; i < b.N; i += batch {
			buf = buf[:min(batch, b.N-i)]
			for k := range buf {
				j := (i + k) & (len(ts) - 1)
				if j == 0 && i+k > 0 {
					off += span
				}
				buf[k] = ts[j] + off
			}
			if batch == 1 {
				m.add(buf[0])
			} else {
				m.addMany(buf)
			}
		}
		if got, late := m.result(); got == 0 || late != 0 {
			b.Fatalf("max %d, late %d", got, late)
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/add")
	}
	b.Run("add", func(b *testing.B) { run(b, newWindowMax(time.Second, time.Second), 1) })
	b.Run("addMany", func(b *testing.B) { run(b, newWindowMax(time.Second, time.Second), 4096) })
	b.Run("sorted-slice", func(b *testing.B) {
		run(b, sortedTracker(int64(time.Second), int64(time.Second), -1), 1)
	})
}
