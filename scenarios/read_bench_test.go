package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/internal/floor"
)

// BenchmarkReadTwoPasses measures what a run reads of a trace before its
// limiters decide anything: ScanLog's validating pass, then the replay's
// stream drained through a token bucket per key id (as the floor
// benchmarks do). read-twice is the replay reading the file again (LogOptions
// without Keep, as before issue 27's kept arrivals); kept is the pass
// keeping its arrivals and the replay taking them (what a run does for a
// trace of up to keepLines lines); floor is the floor program on the same
// file, one pass. Each reports cpu-ns/line (getrusage, every thread) and
// B/key, the heap kept per key at the end. RATELIMIT_BENCH_FLOOR_LINES sets
// the lines (default 1,000,000):
//
//	go test ./scenarios -run '^$' -bench ReadTwoPasses -benchtime 3x -count 3
func BenchmarkReadTwoPasses(b *testing.B) {
	n := floorLines(b)
	dir := b.TempDir()
	var logBuf bytes.Buffer
	if err := floor.WriteCombined(&logBuf, n); err != nil {
		b.Fatal(err)
	}
	logPath := filepath.Join(dir, "access.log")
	_, keyed := floorTraces(n)
	csvPath := filepath.Join(dir, "tk.csv")
	for p, data := range map[string][]byte{logPath: logBuf.Bytes(), csvPath: keyed} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	const rate, burst = 10.0, 20.0
	b.Run("log/floor", func(b *testing.B) {
		m := startMeter()
		var res floor.Result
		var heap uint64
		for b.Loop() {
			f, err := os.Open(logPath)
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
	for _, c := range []struct {
		name, path string
		o          LogOptions
	}{
		{"log", logPath, LogOptions{Keys: []string{"ip"}}},
		{"csv-keyed", csvPath, LogOptions{}},
	} {
		for _, keep := range []bool{false, true} {
			sub := c.name + "/read-twice"
			if keep {
				sub = c.name + "/kept"
			}
			b.Run(sub, func(b *testing.B) {
				m := startMeter()
				var keys int
				var heap uint64
				for b.Loop() {
					h0 := heapNow(b, m)
					o := c.o
					o.Keep = keep
					info, err := ScanLog(c.path, c.name, o)
					if err != nil {
						b.Fatal(err)
					}
					if (info.Kept != nil) != keep {
						b.Fatalf("keep %v, kept %v", keep, info.Kept != nil)
					}
					o.Keep, o.Kept, o.Origin = false, info.Kept, info.Origin
					st, err := OpenLog(c.path, c.name, o)
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
					runtime.KeepAlive(st)
					st.Close()
				}
				report(b, m, int64(n), keys, heap)
			})
		}
	}
}
