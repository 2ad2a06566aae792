package algorithms

import (
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchKeyedArrivals is the number of requests of BenchmarkKeyed: 10
// million, or RATELIMIT_BENCH_KEYED_ARRIVALS (the target run is
// 100000000 over 1000000 keys, RATELIMIT_BENCH_KEYS).
var benchKeyedArrivals, benchKeys = 10_000_000, 1_000_000

func init() {
	if v, err := strconv.Atoi(os.Getenv("RATELIMIT_BENCH_KEYED_ARRIVALS")); err == nil && v > 0 {
		benchKeyedArrivals = v
	}
	if v, err := strconv.Atoi(os.Getenv("RATELIMIT_BENCH_KEYS")); err == nil && v > 0 {
		benchKeys = v
	}
}

var keyedBenchSpecs = []string{
	"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=160m",
	"sentinel-param:count=10,capacity=2000000",
	"token-bucket:rate=10,burst=20,key=key",
}

// zipfBlock is a block of key ids that the benchmark cycles through (so
// drawing keys is not what is timed): Zipf(s = 1.1) over benchKeys keys,
// except every 16th, which sweeps the keys in order so that every key gets
// a state (Zipf draws alone leave most of a million keys unseen).
func zipfBlock(n int) []int32 {
	rng := rand.New(rand.NewSource(15))
	z := rand.NewZipf(rng, 1.1, 1, uint64(benchKeys-1))
	out := make([]int32, n)
	for i := range out {
		if i%16 == 0 {
			out[i] = int32(i / 16 % benchKeys)
		} else {
			out[i] = int32(z.Uint64())
		}
	}
	return out
}

// BenchmarkKeyed runs each per-key limiter over benchKeyedArrivals
// requests, 1 M per second of virtual time, with Zipf keys, and the same
// limiter with every request on one key; it reports decisions per second,
// the state per distinct key, and the process's peak RSS.
func BenchmarkKeyed(b *testing.B) {
	block := zipfBlock(1 << 24)
	for _, spec := range keyedBenchSpecs {
		name, _, _ := strings.Cut(spec, ":")
		for _, mode := range []string{"zipf", "one-key"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				n := benchKeyedArrivals
				for range b.N {
					l, err := New(spec, 0)
					if err != nil {
						b.Fatal(err)
					}
					if kn, ok := l.(KeyNameUser); ok {
						kn.BindKeyNames(func(int32) string { return "203.0.113.7" })
					}
					rl := l.(RequestLimiter)
					r := Request{Keys: [MaxKeyColumns]int32{0, NoKey, NoKey, NoKey}, Cost: 1}
					passed := 0
					runtime.LockOSThread()
					start, cpu0 := time.Now(), threadCPU()
					for i := 0; i < n; i++ {
						if mode == "zipf" {
							r.Keys[0] = block[i&(len(block)-1)]
						}
						if rl.DecideRequest(time.Duration(i)*time.Microsecond, &r).Pass {
							passed++
						}
					}
					el, cpu := time.Since(start), threadCPU()-cpu0
					runtime.UnlockOSThread()
					if cpu <= 0 {
						cpu = el
					}
					b.ReportMetric(float64(n)/cpu.Seconds(), "decisions/cpu-s")
					b.ReportMetric(float64(n)/el.Seconds(), "decisions/s")
					if f := KeyReporterOf(l).KeyFigures(); mode == "zipf" && f.PeakKeys > 0 {
						b.ReportMetric(float64(l.StateBytes())/float64(f.PeakKeys), "state-B/key")
						b.ReportMetric(float64(f.PeakKeys), "keys")
					}
					if passed == 0 {
						b.Fatal("nothing passed")
					}
				}
				b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
			})
		}
	}
	// The single-key limiter itself, for the ratio.
	b.Run("token-bucket/plain", func(b *testing.B) {
		for range b.N {
			l := mustNewB(b, "token-bucket:rate=10,burst=20")
			runtime.LockOSThread()
			start, cpu0 := time.Now(), threadCPU()
			for i := 0; i < benchKeyedArrivals; i++ {
				l.Decide(time.Duration(i) * time.Microsecond)
			}
			el, cpu := time.Since(start), threadCPU()-cpu0
			runtime.UnlockOSThread()
			if cpu <= 0 {
				cpu = el
			}
			b.ReportMetric(float64(benchKeyedArrivals)/cpu.Seconds(), "decisions/cpu-s")
			b.ReportMetric(float64(benchKeyedArrivals)/el.Seconds(), "decisions/s")
		}
	})
}

func mustNewB(b *testing.B, spec string) Limiter {
	l, err := New(spec, 0)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// peakRSS is the process's peak resident set (VmHWM), in bytes, or the
// Go runtime's Sys where /proc is missing.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys)
}

// BenchmarkKeyedShadow runs the issue-27 per-key rows as a run does,
// tables full and with their unbounded shadow twins
// (extra_passes_from_eviction): nginx-limit-req and sentinel-param at
// their defaults (a 10m zone, 4,000 values) over benchKeyedArrivals
// requests, 50,000 a second, keys uniform over benchKeys (like `floorcmd
// gen`'s tk.csv); and, like the combined-log run, a 100m nodelay zone over
// a tenth as many requests, 333 a second, over a quarter of the keys
// (states expire and are replaced all the time). It reports CPU per
// decision, the live heap the limiter keeps per key seen, and the
// process's peak RSS.
func BenchmarkKeyedShadow(b *testing.B) {
	type row struct {
		name, spec string
		n, keys    int
		gap        time.Duration
	}
	for _, c := range []row{
		{"nginx-10m", "nginx-limit-req:rate=10r/s,burst=20,key=key", benchKeyedArrivals, benchKeys, 20 * time.Microsecond},
		{"sentinel-4000", "sentinel-param:count=10,key=key", benchKeyedArrivals, benchKeys, 20 * time.Microsecond},
		{"nginx-100m-log", "nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=100m,key=key", benchKeyedArrivals / 10, max(1, benchKeys/4), 3 * time.Millisecond},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				heap0 := ms.HeapAlloc
				l := mustNewB(b, c.spec)
				l.(KeyNameUser).BindKeyNames(func(int32) string { return "203.0.113.7" })
				KeyReporterOf(l).TrackShadow()
				rl := l.(RequestLimiter)
				r := Request{Keys: [MaxKeyColumns]int32{0, NoKey, NoKey, NoKey}, Cost: 1}
				x := uint64(88172645463325252)
				passed := 0
				runtime.LockOSThread()
				start, cpu0 := time.Now(), threadCPU()
				for i := 0; i < c.n; i++ {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
					r.Keys[0] = int32(x % uint64(c.keys))
					if rl.DecideRequest(time.Duration(i)*c.gap, &r).Pass {
						passed++
					}
				}
				el, cpu := time.Since(start), threadCPU()-cpu0
				runtime.UnlockOSThread()
				if cpu <= 0 {
					cpu = el
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				f := KeyReporterOf(l).KeyFigures()
				if passed == 0 || !f.HasShadow || f.Evictions == 0 {
					b.Fatalf("passed %d, figures %+v: not the shadowed, evicting run", passed, f)
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(c.n), "cpu-ns/decision")
				b.ReportMetric(float64(int64(ms.HeapAlloc)-int64(heap0))/float64(c.keys), "heap-B/key")
				runtime.KeepAlive(l)
			}
			b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
		})
	}
}
