package concurrent

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchPeak runs one bench of n goroutines on the atomic fixed window
// and returns the heap and stacks in use, over what was in use before,
// per goroutine, sampled once every goroutine has decided at least once
// (all of them alive, their workers and histograms allocated).
func benchPeak(tb testing.TB, n int) float64 {
	runtime.GC()
	var before, at runtime.MemStats
	runtime.ReadMemStats(&before)
	wall := WallClock()
	var calls atomic.Int64
	var once sync.Once
	clock := func() int64 {
		if calls.Add(1) == int64(2*n) { // each goroutine's t0, then after its first decision
			once.Do(func() { runtime.ReadMemStats(&at) })
		}
		return wall()
	}
	im := Impls[2] // atomic-fixed-window: the smallest limiter
	bc := BenchConfig{Config: Config{Limit: 100, Window: 100 * time.Millisecond, SampleCount: 2, Clock: clock}, Goroutines: n, Duration: 50 * time.Millisecond}
	if _, err := Bench(context.Background(), im, bc); err != nil {
		tb.Fatal(err)
	}
	if at.HeapInuse == 0 {
		tb.Fatal("the memory was never sampled")
	}
	used := float64(at.HeapInuse+at.StackInuse) - float64(before.HeapInuse+before.StackInuse)
	return used / float64(n)
}

// BenchmarkBenchMemory reports the memory one hammering goroutine takes
// while a bench runs (bytes/goroutine: heap and stack in use over the
// bench's start); BytesPerGoroutine, which --help's peak comes from, is
// about it.
func BenchmarkBenchMemory(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		b.Run(itoa(n), func(b *testing.B) {
			var per float64
			for i := 0; i < b.N; i++ {
				per = benchPeak(b, n)
			}
			b.ReportMetric(per, "bytes/goroutine")
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n >= 10; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return string(rune('0'+n)) + s
}

// Memory is bounded per goroutine whatever the count: the latency
// histograms (15 KB each) are shared, at most histShards of them, so a
// goroutine holds about BytesPerGoroutine (it held 15 KB of histogram
// more, 1.8 GB at 100000 goroutines).
func TestBenchMemoryPerGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20000 goroutines")
	}
	if raceOn {
		t.Skip("the race detector's shadow memory is not the bench's; .ci/run runs this test without -race")
	}
	per := benchPeak(t, 20_000)
	if per > 1.25*BytesPerGoroutine {
		t.Errorf("%.0f bytes per goroutine, want at most about %d", per, BytesPerGoroutine)
	}
	t.Logf("%.0f bytes per goroutine", per)
}
