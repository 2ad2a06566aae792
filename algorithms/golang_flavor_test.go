package algorithms

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Worked examples, one per difference between Java Sentinel (flavor=java)
// and sentinel-golang (flavor=go): a short trace on which the two decide
// differently, with both answers pinned. docs/algorithms.md shows the same
// traces.

// outcome renders decisions as "P" (pass at once), "P+<wait>" or "B".
func outcome(l Limiter, trace []time.Duration) string {
	var out []string
	for _, at := range trace {
		switch d := l.Decide(at); {
		case !d.Pass:
			out = append(out, "B")
		case d.Wait == 0:
			out = append(out, "P")
		default:
			out = append(out, "P+"+d.Wait.String())
		}
	}
	return strings.Join(out, " ")
}

func times(n int, at time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = at
	}
	return out
}

func TestGoFlavorDifferences(t *testing.T) {
	for _, tc := range []struct {
		name, spec   string
		trace        []time.Duration
		java, golang string
	}{
		{
			// Go compares the count of one stat interval with the
			// threshold; Java compares a per-second QPS (count / 0.5 s).
			name: "threshold per stat interval", spec: "leap-array:limit=10,sample-count=1,interval=500ms",
			trace:  spread(12, 0, 12*ms),
			java:   "P P P P P B B B B B B B",
			golang: "P P P P P P P P P P B B",
		},
		{
			// Java: cost round(1e9/3) = 333333333 ns; Go: ceil = 333333334 ns.
			name: "throttling interval rounded up", spec: "leaky-bucket:limit=3,max-queue=0s",
			trace:  []time.Duration{0, 333333333},
			java:   "P P",
			golang: "P B",
		},
		{
			// Go divides first: ceil(1/3125 · 1e8) = 32001 ns, where
			// 1e8/3125 is exactly 32000 (Java's round gives 32000).
			name: "throttling interval divides first", spec: "leaky-bucket:limit=3125,interval=100ms,max-queue=0s",
			trace:  []time.Duration{0, 32000},
			java:   "P P",
			golang: "P B",
		},
		{
			// Java takes its millisecond path (cost 100 ms on a clock
			// floored to 99 ms); Go stays in ns.
			name: "throttling always in ns", spec: "leaky-bucket:limit=10",
			trace:  []time.Duration{0, 99500 * time.Microsecond},
			java:   "P P+1ms",
			golang: "P P+500µs",
		},
		{
			// Java rounds the threshold to 1 per second; Go blocks a
			// batch of 1 above a threshold of 0.7.
			name: "threshold below 1 blocks", spec: "leaky-bucket:limit=0.7",
			trace:  []time.Duration{0, 2 * time.Second, 4 * time.Second},
			java:   "P P P",
			golang: "B B B",
		},
		{
			// At 1700 ms Java syncs the tokens from the second [0, 1 s)
			// (3 passes: stored 10 → 7, 5.55 allowed); Go from the window
			// ending at 1500 ms, [500, 1500) ms (0 passes: the tokens
			// refill to 10, 3.33 allowed).
			name: "warm-up previous QPS window", spec: "warm-up:limit=10,warm-up=1s,cold-factor=3",
			trace:  concat(times(5, 0), times(7, 1700*ms)),
			java:   "P P P B B P P P P P B B",
			golang: "P P P B B P P P B B B B",
		},
		{
			// The cold rate is 3.33/s: Java's cost is 300 ms on the floored
			// ms clock, Go's 300 ms in ns.
			name: "warm-up throttling in ns", spec: "warm-up-rate-limiter:limit=10,warm-up=1s,cold-factor=3",
			trace:  []time.Duration{0, 299500 * time.Microsecond},
			java:   "P P+1ms",
			golang: "P P+500µs",
		},
		{
			// The cold rate 2/3 is below 1: Go blocks, nothing passes, the
			// tokens never drain, and it blocks for good. Java paces at
			// 1.5 s.
			name: "warm-up throttling below 1 per interval", spec: "warm-up-rate-limiter:limit=2",
			trace:  []time.Duration{0, 2 * time.Second, 4 * time.Second, time.Minute},
			java:   "P P P P",
			golang: "B B B B",
		},
		{
			// Back at 400 ms, Java still counts the bucket [500, 1000) ms
			// "in the future"; Go counts only buckets up to the current one.
			name: "clock back: future buckets", spec: "leap-array:limit=10",
			trace:  concat(times(10, 900*ms), times(10, 400*ms)),
			java:   strings.Repeat("P ", 10) + strings.TrimSpace(strings.Repeat("B ", 10)),
			golang: strings.TrimSpace(strings.Repeat("P ", 20)),
		},
		{
			// Back at 300 ms, Java's two slots hold [500, 1000) (empty) and
			// [1000, 1500) ms (1 pass, "in the future"), and every pass at
			// 300 ms goes to a throw-away bucket; sentinel-golang's ring of
			// 20 still holds the 10 passes of [0, 500) ms.
			name: "clock back: the ring of 10·S buckets remembers", spec: "leap-array:limit=10",
			trace:  concat(times(10, 100*ms), times(1, 1100*ms), times(10, 300*ms)),
			java:   strings.TrimSpace(strings.Repeat("P ", 21)),
			golang: strings.Repeat("P ", 11) + strings.TrimSpace(strings.Repeat("B ", 10)),
		},
		{
			// The block at 10250 ms is counted by sentinel-golang's stat
			// slot in the ring's slot of [0, 500) ms, which it resets to
			// [10000, 10500) ms: back at 250 ms the 10 passes of [0, 500) ms
			// are gone. Java still counts [9500, 10000) ms "in the future".
			name: "clock back: a block resets its slot", spec: "leap-array:limit=10",
			trace:  concat(times(10, 250*ms), times(10, 9750*ms), times(1, 10250*ms), times(10, 250*ms)),
			java:   strings.Repeat("P ", 20) + strings.TrimSpace(strings.Repeat("B ", 11)),
			golang: strings.Repeat("P ", 20) + "B " + strings.TrimSpace(strings.Repeat("P ", 10)),
		},
		{
			// Before the limiter's creation every slot of Go's ring holds a
			// newer bucket: the window reads 0 and each pass is lost.
			name: "clock back: before creation", spec: "leap-array:limit=10",
			trace:  times(20, -5*time.Second),
			java:   strings.Repeat("P ", 10) + strings.TrimSpace(strings.Repeat("B ", 10)),
			golang: strings.TrimSpace(strings.Repeat("P ", 20)),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outcome(mustNew(t, tc.spec, 0), tc.trace); got != tc.java {
				t.Errorf("%s: %s, want %s", tc.spec, got, tc.java)
			}
			spec := tc.spec + ",flavor=go"
			if got := outcome(mustNew(t, spec, 0), tc.trace); got != tc.golang {
				t.Errorf("%s: %s, want %s", spec, got, tc.golang)
			}
		})
	}
}

// Go's lastPassedTime starts at 0 and Java's at −1: on clocks at about
// 1.6·10¹⁸ ns both let the first request through at once, even 3 hours
// before virtual 0.
func TestGoThrottlingFirstRequestPasses(t *testing.T) {
	for _, spec := range []string{"leaky-bucket:limit=1,interval=60s", "leaky-bucket:limit=1,interval=60s,flavor=go"} {
		if got := outcome(mustNew(t, spec, 0), []time.Duration{-3 * time.Hour, -3 * time.Hour}); got != "P B" {
			t.Errorf("%s: %s, want P B", spec, got)
		}
	}
}

// TestGoStatMatchesScan drives goStat with adds and reads at random times,
// also far behind its cached window, and compares every read with the
// ported SlidingWindowMetric's scan of the ring.
func TestGoStatMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 300; trial++ {
		s := []int{1, 2, 3, 5, 10}[rng.IntN(5)]
		w := int64([]int{1, 7, 100, 500}[rng.IntN(4)])
		e := epochMs(w)
		g := newGoStat(s, w, e)
		ring := newSgBucketLeapArray(uint32(10*s), uint32(10*int64(s)*w), uint64(e))
		m := &sgSlidingWindowMetric{bucketLengthInMs: uint32(w), sampleCount: uint32(s), intervalInMs: uint32(int64(s) * w), real: ring}
		tt := e
		for i := 0; i < 2000; i++ {
			switch rng.IntN(6) {
			case 0:
				tt -= rng.Int64N(12 * int64(s) * w)
			case 1:
				tt += rng.Int64N(12 * int64(s) * w)
			default:
				tt += rng.Int64N(w + 1)
			}
			if rng.IntN(2) == 0 {
				at := tt - rng.Int64N(3*int64(s)*w) // a pass recorded late
				g.add(at)
				ring.addCountWithTime(uint64(at), 1)
				continue
			}
			if got, want := g.window(tt), m.getSumWithTime(uint64(tt)); got != want {
				t.Fatalf("s=%d w=%d step %d: window %d, scan %d", s, w, i, got, want)
			}
			if got, want := g.previous(tt), m.getSumWithTime(uint64(tt-w)); got != want {
				t.Fatalf("s=%d w=%d step %d: previous %d, scan %d", s, w, i, got, want)
			}
		}
	}
}

func TestGoFlavorRegistry(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"leap-array:flavor=go", "leap-array:limit=100,sample-count=2,interval=1s,flavor=go"},
		{"leap-array:flavor=java", "leap-array:limit=100,sample-count=2,interval=1s"},
		{"throttling:flavor=go", "leaky-bucket:limit=100,interval=1s,max-queue=500ms,flavor=go"},
		{"warm-up:flavor=go,interval=2s,sample-count=4", "warm-up:limit=100,warm-up=10s,cold-factor=3,sample-count=4,interval=2s,flavor=go"},
		{"warm-up-rate-limiter:flavor=go", "warm-up-rate-limiter:limit=100,warm-up=10s,cold-factor=3,max-queue=500ms,sample-count=2,interval=1s,flavor=go"},
		{"warm-up-rate-limiter", "warm-up-rate-limiter:limit=100,warm-up=10s,cold-factor=3,max-queue=500ms"},
	} {
		l := mustNew(t, tc.in, 100)
		if got := l.Spec(); got != tc.want {
			t.Errorf("%s: spec %s, want %s", tc.in, got, tc.want)
		}
		if again := mustNew(t, l.Spec(), 7); again.Spec() != l.Spec() {
			t.Errorf("%s does not round-trip: %s", l.Spec(), again.Spec())
		}
	}
	for _, tc := range []struct{ spec, want string }{
		{"leap-array:flavor=python", `leap-array: flavor "python" is not known; allowed: java (Alibaba Sentinel 1.8, the default), go (sentinel-golang)`},
		{"leaky-bucket:flavor=python", `leaky-bucket: flavor "python" is not known`},
		{"warm-up:flavor=", `parameter "flavor=" is not key=value`},
		{"warm-up-rate-limiter:sample-count=4", "sample-count and interval apply only with flavor=go"},
		{"warm-up-rate-limiter:flavor=go,sample-count=3", "sample-count 3 does not divide interval 1s"},
		{"leap-array:flavor=go,interval=429496730ms", "interval must be whole milliseconds from 1ms to 429496729ms"},
		{"warm-up:flavor=go,cold-factor=1", "cold-factor must be larger than 1"},
		{"warm-up:flavor=go,warm-up=1500ms", "warm-up must be whole seconds from 1s to 4294967295s"},
		{"leaky-bucket:flavor=go,max-queue=1.5ms", "max-queue must be whole milliseconds"},
		{"leaky-bucket:flavor=go,limit=0", "limit must be a positive number"},
		{"leap-array:flavor=go,sample-count=1000000,interval=1000s", "sample-count must be from 1 to 100000 with flavor=go"},
	} {
		_, err := New(tc.spec, 100)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("New(%q) = %v, want one line containing %q", tc.spec, err, tc.want)
		}
	}
}
