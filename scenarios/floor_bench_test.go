package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/floor"
)

// The floor benchmarks of issue 27 run a floor program (internal/floor)
// and the lab's reader side by side on the same arrivals, in one process,
// so the machine's load weighs on both alike. Each reports lines/s,
// ns/line and, for the per-key programs, B/key (the heap the run keeps,
// divided by its keys). The number of lines is RATELIMIT_BENCH_FLOOR_LINES
// (default 1,000,000); docs/performance.md has the commands and figures.

func floorLines(b *testing.B) int {
	if s := os.Getenv("RATELIMIT_BENCH_FLOOR_LINES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("RATELIMIT_BENCH_FLOOR_LINES=%q; set a whole number of lines, 1 or more", s)
		}
		return n
	}
	return 1_000_000
}

// floorTraces returns n Poisson arrivals as two CSV traces, t_ms alone and
// t_ms,key over 100,000 keys (floor.WriteTraces, as floorcmd gen writes).
func floorTraces(n int) (times, keyed []byte) {
	var a, k bytes.Buffer
	if err := floor.WriteTraces(&a, &k, n, 100_000); err != nil {
		panic(err)
	}
	return a.Bytes(), k.Bytes()
}

// cpuTime is the process's CPU time so far (user and system, every
// thread: the garbage collector's work counts). On a shared machine the
// wall clock measures the wait for a core as well; the CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// meter counts a sub-benchmark's CPU time without its heap measurements.
type meter struct {
	start, skipped time.Duration
}

func startMeter() *meter { return &meter{start: cpuTime()} }

// report sets the metrics for lines read per iteration: ns/line
// and lines/s of the wall clock, cpu-ns/line of the CPU time, and the heap
// kept per key (keys 0: no B/key).
func report(b *testing.B, m *meter, lines int64, keys int, heap uint64) {
	total := float64(int64(b.N) * lines)
	ns := float64(b.Elapsed().Nanoseconds()) / total
	b.ReportMetric(ns, "ns/line")
	b.ReportMetric(1e9/ns, "lines/s")
	b.ReportMetric(float64(cpuTime()-m.start-m.skipped)/total, "cpu-ns/line")
	if keys > 0 {
		b.ReportMetric(float64(heap)/float64(keys), "B/key")
	}
}

// heapNow is the live heap after a collection, measured with the timer
// stopped and its CPU time left out of m.
func heapNow(b *testing.B, m *meter) uint64 {
	b.StopTimer()
	c := cpuTime()
	defer func() {
		m.skipped += cpuTime() - c
		b.StartTimer()
	}()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkTraceFloor: floor-keyed is the floor program on the keyed
// trace; lab-times is the lab's trace reader on the same arrivals without
// keys, each through one token bucket (the goal: no more than the floor);
// lab-keyed is the lab's reader on the keyed trace, each key interned, with
// a bucket per key id.
func BenchmarkTraceFloor(b *testing.B) {
	n := floorLines(b)
	times, keyed := floorTraces(n)
	const rate, burst = 20_000.0, 100.0
	b.Run("floor-keyed", func(b *testing.B) {
		m := startMeter()
		var res floor.Result
		var heap uint64
		for b.Loop() {
			h0 := heapNow(b, m)
			var err error
			if res, err = floor.CSVPerKey(bytes.NewReader(keyed), rate, burst); err != nil || res.Lines != int64(n) {
				b.Fatalf("%+v, %v", res, err)
			}
			heap = heapNow(b, m) - h0
			runtime.KeepAlive(res.State)
		}
		report(b, m, int64(n), res.Keys, heap)
	})
	b.Run("lab-times", func(b *testing.B) {
		m := startMeter()
		for b.Loop() {
			st := NewTraceReader(bytes.NewReader(times), "t.csv")
			var bk floor.Bucket
			k := 0
			for {
				a, ok := st.Next()
				if !ok {
					break
				}
				bk.Allow(int64(a.Clock), rate, burst)
				k++
			}
			if st.Err() != nil || k != n {
				b.Fatal(k, st.Err())
			}
		}
		report(b, m, int64(n), 0, 0)
	})
	b.Run("lab-keyed", func(b *testing.B) {
		m := startMeter()
		var keys int
		var heap uint64
		for b.Loop() {
			h0 := heapNow(b, m)
			st := NewTraceReader(bytes.NewReader(keyed), "tk.csv")
			var bks []floor.Bucket
			k := 0
			for {
				a, ok := st.Next()
				if !ok {
					break
				}
				id := int(a.Keys[0])
				for id >= len(bks) {
					bks = append(bks, floor.Bucket{})
				}
				bks[id].Allow(int64(a.Clock), rate, burst)
				k++
			}
			if st.Err() != nil || k != n {
				b.Fatal(k, st.Err())
			}
			keys = len(bks)
			heap = heapNow(b, m) - h0
			runtime.KeepAlive(st)
			runtime.KeepAlive(bks)
		}
		report(b, m, int64(n), keys, heap)
	})
}

// BenchmarkAccessLogFloor: floor is the per-address program (split, parse
// $time_local with time.Parse's fixed layout, intern the address, a bucket
// per address); lab is scenarios.OpenLog --key ip on the same file, with a
// bucket per key id (the goal: at most 2x the floor).
func BenchmarkAccessLogFloor(b *testing.B) {
	n := floorLines(b)
	var buf bytes.Buffer
	if err := floor.WriteCombined(&buf, n); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "access.log")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	const rate, burst = 10.0, 20.0
	b.Run("floor", func(b *testing.B) {
		m := startMeter()
		var res floor.Result
		var heap uint64
		for b.Loop() {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			h0 := heapNow(b, m)
			if res, err = floor.LogPerAddress(f, rate, burst); err != nil || res.Lines != int64(n) {
				b.Fatalf("%+v, %v", res, err)
			}
			heap = heapNow(b, m) - h0
			runtime.KeepAlive(res.State)
			f.Close()
		}
		report(b, m, int64(n), res.Keys, heap)
	})
	b.Run("lab", func(b *testing.B) {
		m := startMeter()
		var keys int
		var heap uint64
		for b.Loop() {
			h0 := heapNow(b, m)
			st, err := OpenLog(p, "access.log", LogOptions{Keys: []string{"ip"}})
			if err != nil {
				b.Fatal(err)
			}
			var bks []floor.Bucket
			k := 0
			for {
				a, ok := st.Next()
				if !ok {
					break
				}
				id := int(a.Keys[0])
				for id >= len(bks) {
					bks = append(bks, floor.Bucket{})
				}
				bks[id].Allow(int64(a.Clock), rate, burst)
				k++
			}
			if st.Err() != nil || k != n {
				b.Fatal(k, st.Err())
			}
			keys = len(bks)
			heap = heapNow(b, m) - h0
			runtime.KeepAlive(bks)
			st.Close()
		}
		report(b, m, int64(n), keys, heap)
	})
}
