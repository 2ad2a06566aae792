package simulator

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// BenchmarkKeyStats is a keyed row's per-key statistics alone (keyStats:
// the counters, the over-nominal windows, the first rejects' bins) over
// 10 requests a key, Poisson at 50,000/s, keys drawn uniformly from
// RATELIMIT_BENCH_KEYS (default 1,000,000; 100,000 under -short), every
// seventh request rejected and every eleventh delayed: the shape of issue
// 27's 10⁷ × 10⁶ run. It reports cpu-ns/line (getrusage, so the garbage
// collector counts) and B/key, the heap the statistics keep per key.
//
//	go test ./simulator -run '^$' -bench KeyStats -benchtime 3x
func BenchmarkKeyStats(b *testing.B) {
	keys := 1_000_000
	if testing.Short() {
		keys = 100_000
	}
	if v, err := strconv.Atoi(os.Getenv("RATELIMIT_BENCH_KEYS")); err == nil && v > 0 {
		keys = v
	}
	r := rand.New(rand.NewPCG(27, 9))
	arr := make([]scenarios.Arrival, 10*keys)
	ds := make([]algorithms.Decision, len(arr))
	t := 0.0
	for i := range arr {
		t += r.ExpFloat64() * 20e3 // ns: 50,000/s
		arr[i] = scenarios.Arrival{At: time.Duration(t), Clock: time.Duration(t), User: scenarios.NoKey,
			Keys: [scenarios.MaxKeyColumns]int32{int32(r.IntN(keys)), scenarios.NoKey, scenarios.NoKey, scenarios.NoKey}}
		switch {
		case i%7 == 0:
		case i%11 == 0:
			ds[i] = algorithms.Decision{Pass: true, Wait: time.Millisecond}
		default:
			ds[i] = algorithms.Decision{Pass: true}
		}
	}
	var cpu time.Duration
	var heap uint64
	var seen int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		acc := newAccumulator(&Config{Bin: 50 * time.Millisecond, Window: time.Second})
		k := &keyStats{over: newOverTracker(10, time.Second), userOver: newOverTracker(10, time.Second)}
		c0 := cpuTime()
		const batch = 32768
		for i := 0; i < len(arr); i += batch {
			j := min(i+batch, len(arr))
			k.addBatch(acc, arr[i:j], ds[i:j])
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		heap = m1.HeapAlloc - m0.HeapAlloc
		seen = k.stats.Len()
		runtime.KeepAlive(k)
		runtime.KeepAlive(acc)
		b.StartTimer()
	}
	lines := float64(b.N) * float64(len(arr))
	b.ReportMetric(float64(cpu)/lines, "cpu-ns/line")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/lines, "ns/line")
	b.ReportMetric(float64(heap)/float64(seen), "B/key")
}
