package algorithms

import (
	"bufio"
	"container/heap"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prioCase is one trace for the prioritized leap-array: arrivals in ms
// from virtual 0 (in order, equal times allowed, maybe stepping back),
// each with a priority flag and the response time its pass gets.
type prioCase struct {
	limit      float64
	n          int
	intervalMs int64
	timeoutMs  int64
	// responses: exits at admission + rt are reported to the limiter
	// (ReportExits/Exit); otherwise rt is 0 and the limiter runs the exits
	// of its waited requests itself.
	responses bool
	arr       []prioArrival
}

type prioArrival struct {
	t, sub int64 // ms, and a sub-millisecond offset in ns (the product floors it)
	prio   bool
	rt     int64
	cost   int32 // acquireCount; 0 is 1
}

// Outcomes: -1 block, 0 immediate pass, w > 0 a pass after waiting w ms.
const prioBlock = -1

func (c *prioCase) spec() string {
	return fmt.Sprintf("leap-array:limit=%s,sample-count=%d,interval=%dms,occupy-timeout=%dms",
		formatFloat(c.limit), c.n, c.intervalMs, c.timeoutMs)
}

// exitHeap orders exits by (time, arrival seq), as the harness does.
type exitHeap [][3]int64 // time, seq, rt

func (h exitHeap) Len() int { return len(h) }
func (h exitHeap) Less(i, j int) bool {
	if h[i][0] != h[j][0] {
		return h[i][0] < h[j][0]
	}
	return h[i][1] < h[j][1]
}
func (h exitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *exitHeap) Push(x any)   { *h = append(*h, x.([3]int64)) }
func (h *exitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// runPort drives the port of Sentinel's classes: every pass exits at its
// admission plus rt; the exits at or before an arrival's ms run first, in
// (time, seq) order (StatisticSlot.exit reads the window).
func runPort(c *prioCase) []int64 {
	epoch := epochMs(c.intervalMs / int64(c.n)) // the product's virtual 0
	nd := &sNode{data: newSLeapArray(c.n, c.intervalMs, true), n: c.n, intervalMs: c.intervalMs, timeout: c.timeoutMs}
	var exits exitHeap
	out := make([]int64, len(c.arr))
	for i, a := range c.arr {
		t := epoch + a.t
		for exits.Len() > 0 && exits[0][0] <= t {
			e := heap.Pop(&exits).([3]int64)
			nd.touch(e[0])
		}
		ok, wait := nd.canPassN(t, max(a.cost, 1), c.limit, a.prio)
		switch {
		case !ok:
			out[i] = prioBlock
		case wait >= 0:
			out[i] = wait
			heap.Push(&exits, [3]int64{t + wait + a.rt, int64(i), a.rt})
		default:
			heap.Push(&exits, [3]int64{t + a.rt, int64(i), a.rt})
		}
	}
	return out
}

// runProduct drives the registry's leap-array the way the simulator does:
// DecideRequest per arrival; with responses, ReportExits first and Exit
// at every pass's admission + rt, run before the first arrival at or after
// its ms.
func runProduct(tb testing.TB, c *prioCase) []int64 {
	l := mustNew(tb, c.spec(), 0).(*LeapArray)
	ms := int64(time.Millisecond)
	if c.responses {
		l.ReportExits()
	}
	var exits exitHeap
	out := make([]int64, len(c.arr))
	for i, a := range c.arr {
		now := time.Duration(a.t*ms + a.sub)
		if c.responses {
			for exits.Len() > 0 && exits[0][0] <= a.t {
				e := heap.Pop(&exits).([3]int64)
				l.Exit(time.Duration(e[0]*ms + e[2]))
			}
		}
		d := l.DecideRequest(now, &Request{Cost: max(a.cost, 1), Priority: a.prio})
		switch {
		case !d.Pass:
			out[i] = prioBlock
		case d.Wait > 0:
			if d.Wait%time.Millisecond != 0 || !a.prio {
				tb.Fatalf("arrival %d: wait %v (prio %v), want whole ms for prioritized requests only", i, d.Wait, a.prio)
			}
			out[i] = int64(d.Wait / time.Millisecond)
			// e[2] carries the sub-ms part: the exit is at the true
			// admission + rt, whose ms is the port's.
			heap.Push(&exits, [3]int64{a.t + out[i] + a.rt, int64(i), a.sub})
		default:
			heap.Push(&exits, [3]int64{a.t + a.rt, int64(i), a.sub})
		}
	}
	return out
}

// genPrioCase draws a trace meant to hit the corners: bursts at bucket
// edges, equal timestamps, arrivals whose next bucket is exactly the
// timeout away, long gaps that skip a borrowed bucket, and (when steps is
// set) a clock that steps back.
func genPrioCase(r *rand.Rand, steps bool) *prioCase {
	intervals := []int64{1000, 1000, 500, 200, 100, 60, 7}
	c := &prioCase{intervalMs: intervals[r.IntN(len(intervals))]}
	var divs []int
	for d := 1; d <= 20; d++ {
		if c.intervalMs%int64(d) == 0 {
			divs = append(divs, d)
		}
	}
	c.n = divs[r.IntN(len(divs))]
	w := c.intervalMs / int64(c.n)
	limits := []float64{1, 2, 3, 5, 10, 20, 2.5, 0.5, 7.3, 100}
	c.limit = limits[r.IntN(len(limits))]
	switch r.IntN(5) {
	case 0:
		c.timeoutMs = 500
	case 1:
		c.timeoutMs = w * int64(1+r.IntN(c.n)) // a multiple of the bucket
	case 2:
		c.timeoutMs = int64(r.IntN(int(c.intervalMs) + 1))
	case 3:
		c.timeoutMs = max(w-int64(r.IntN(3)), 0)
	default:
		c.timeoutMs = c.intervalMs
	}
	c.responses = r.IntN(2) == 0
	share := []float64{0.1, 0.3, 0.5, 0.9, 1}[r.IntN(5)]
	rt := func() int64 {
		if !c.responses {
			return 0
		}
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return int64(r.IntN(int(w) + 1))
		case 2:
			return w
		}
		return int64(r.IntN(int(2*c.intervalMs) + 1))
	}
	// Mean gap: about 1.5 to 4 times the limit's rate.
	rate := c.limit * (1.5 + 2.5*r.Float64()) / float64(c.intervalMs) // per ms
	var t int64
	count := 50 + r.IntN(400)
	for len(c.arr) < count {
		switch k := r.IntN(20); {
		case k < 10:
			t += int64(r.ExpFloat64() / rate)
		case k < 13: // to a bucket edge, or just before/after it
			t = (t/w+1)*w + int64(r.IntN(3)) - 1
		case k < 15: // the next bucket exactly timeout away, or ±1
			if c.timeoutMs > 0 && c.timeoutMs <= w {
				t = (t/w+1)*w - c.timeoutMs + int64(r.IntN(3)) - 1
			}
		case k < 16: // a gap past the next bucket or the interval
			t += w + int64(r.IntN(int(2*c.intervalMs)))
		case k < 17 && steps:
			t -= int64(r.IntN(int(2*c.intervalMs) + 1))
		}
		if t < 0 {
			t = 0
		}
		burst := 1
		if r.IntN(6) == 0 {
			burst = 2 + r.IntN(int(c.limit)+4)
		}
		for range burst {
			c.arr = append(c.arr, prioArrival{t: t, sub: int64(r.IntN(1_000_000)), prio: r.Float64() < share, rt: rt()})
		}
	}
	return c
}

// TestPriorityMatchesPort compares the product with the port of
// Sentinel's classes decision for decision (verdict and wait) on random
// traces, with and without reported exits, and with clock steps.
func TestPriorityMatchesPort(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	var decisions, waits, atTimeout, blockedPrio int
	for i := range 3000 {
		c := genPrioCase(r, i%4 == 3)
		want := runPort(c)
		got := runProduct(t, c)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d %s (responses %v), arrival %d at %dms prio %v: got %d, port %d\n%s",
					i, c.spec(), c.responses, j, c.arr[j].t, c.arr[j].prio, got[j], want[j], dumpCase(c, j))
			}
			decisions++
			a := c.arr[j]
			w := c.intervalMs / int64(c.n)
			switch {
			case want[j] > 0:
				waits++
			case want[j] == prioBlock && a.prio:
				blockedPrio++
				if c.timeoutMs > 0 && w-a.t%w == c.timeoutMs {
					atTimeout++
				}
			}
		}
	}
	t.Logf("%d decisions, %d waits, %d prioritized blocks (%d whose next bucket was exactly the timeout away)", decisions, waits, blockedPrio, atTimeout)
	if waits < 1000 || blockedPrio < 1000 || atTimeout < 50 {
		t.Errorf("the traces missed the corners: %d waits, %d prioritized blocks, %d at the timeout", waits, blockedPrio, atTimeout)
	}
}

func dumpCase(c *prioCase, upTo int) string {
	s := ""
	for j := max(0, upTo-30); j <= upTo; j++ {
		a := c.arr[j]
		s += fmt.Sprintf("  %d: t=%d prio=%v rt=%d\n", j, a.t, a.prio, a.rt)
	}
	return s
}

// TestPriorityPortDump writes random traces and the port's decisions for
// the check against Sentinel's real classes outside the repository (see
// docs/algorithms.md): PRIORITY_DUMP=DIR go test -run TestPriorityPortDump
// writes DIR/cases.txt (the harness's input: C limit sample-count interval-ms
// timeout-ms epoch-ms per trace, A t-ms priority rt-ms per arrival) and
// DIR/port.txt (P, B or W wait-ms per arrival).
func TestPriorityPortDump(t *testing.T) {
	dir := os.Getenv("PRIORITY_DUMP")
	if dir == "" {
		t.Skip("set PRIORITY_DUMP=DIR to write the traces for the Java harness")
	}
	in, err := os.Create(filepath.Join(dir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	exp, err := os.Create(filepath.Join(dir, "port.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	wi, we := bufio.NewWriter(in), bufio.NewWriter(exp)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 18))
	n := 0
	for i := range 2000 {
		c := genPrioCase(r, i%4 == 3) // every fourth with the clock stepping back
		fmt.Fprintf(wi, "C %s %d %d %d %d\n", formatFloat(c.limit), c.n, c.intervalMs, c.timeoutMs, epochMs(c.intervalMs/int64(c.n)))
		fmt.Fprintln(we, "C")
		got := runProduct(t, c)
		for j, o := range runPort(c) {
			if got[j] != o {
				t.Fatalf("product and port differ; run TestPriorityMatchesPort")
			}
			a := c.arr[j]
			p := 0
			if a.prio {
				p = 1
			}
			fmt.Fprintf(wi, "A %d %d %d\n", a.t, p, a.rt)
			switch {
			case o == prioBlock:
				fmt.Fprintln(we, "B")
			case o > 0:
				fmt.Fprintf(we, "W %d\n", o)
			default:
				fmt.Fprintln(we, "P")
			}
			n++
		}
	}
	if err := wi.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := we.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d decisions written", n)
}

// BenchmarkDecidePriority is leap-array's DecideRequest on the Decide
// benchmark's trace (Poisson at 3x the limit) with none, 30% and all of
// the requests prioritized: with none it is the fast path, with some the
// exact path runs from the first borrow on.
func BenchmarkDecidePriority(b *testing.B) {
	for _, share := range []int{0, 30, 100} {
		for _, n := range []int{2, 10} {
			b.Run(fmt.Sprintf("sample-count=%d/prioritized=%d%%", n, share), func(b *testing.B) {
				l := mustNew(b, fmt.Sprintf("leap-array:sample-count=%d", n), benchLimit).(*LeapArray)
				reqs := make([]Request, 100)
				for i := range reqs {
					reqs[i] = Request{Cost: 1, Priority: i < share}
				}
				r := rand.New(rand.NewPCG(1, 2))
				r.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					l.DecideRequest(benchAt(i), &reqs[i%len(reqs)])
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
			})
		}
	}
}

// Every RequestLimiter of the shared constructors decides an ordinary
// request as Decide, and a prioritized leap-array survives the shared
// traces (every other request prioritized): a twin and a limiter built
// from its Spec agree, blocks do not wait, and a wait is below the occupy
// timeout and ends on a bucket edge (whole ms of the epoch).
func TestPriorityConformance(t *testing.T) {
	for _, spec := range constructors {
		if _, ok := mustNew(t, spec, 0).(RequestLimiter); !ok {
			continue
		}
		for name, trace := range traces() {
			a, b := mustNew(t, spec, 0), mustNew(t, spec, 0).(RequestLimiter)
			for i, at := range trace {
				if d, d2 := a.Decide(at), b.DecideRequest(at, &Request{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, Cost: 1}); d != d2 {
					t.Fatalf("%s/%s arrival %d: Decide %+v, DecideRequest %+v", spec, name, i, d, d2)
				}
			}
		}
	}
	for _, spec := range []string{"leap-array:limit=10", "leap-array:limit=3,sample-count=4,interval=1s,occupy-timeout=250ms", "leap-array:limit=0.5,sample-count=3,interval=3s"} {
		for name, trace := range traces() {
			a := mustNew(t, spec, 0).(*LeapArray)
			b := mustNew(t, spec, 0).(*LeapArray)
			c := mustNew(t, a.Spec(), 0).(*LeapArray)
			w := a.cfg.Interval / time.Duration(a.cfg.SampleCount)
			waits := 0
			for i, at := range trace {
				r := &Request{Cost: 1, Priority: i%2 == 0}
				d := a.DecideRequest(at, r)
				if d2, d3 := b.DecideRequest(at, r), c.DecideRequest(at, r); d2 != d || d3 != d {
					t.Fatalf("%s/%s arrival %d: %+v, twin %+v, from Spec %+v", spec, name, i, d, d2, d3)
				}
				switch {
				case !d.Pass && d.Wait != 0:
					t.Fatalf("%s/%s arrival %d: a block with wait %v", spec, name, i, d.Wait)
				case d.Wait > 0:
					waits++
					end := time.Duration(floorMs(at))*time.Millisecond + d.Wait
					if !r.Priority || d.Wait >= a.cfg.OccupyTimeout || d.Wait%time.Millisecond != 0 || (end%w+w)%w != 0 {
						t.Fatalf("%s/%s arrival %d at %v: wait %v (prioritized %v, bucket %v)", spec, name, i, at, d.Wait, r.Priority, w)
					}
				}
			}
			if name == "poisson 3x" && waits == 0 {
				t.Errorf("%s/%s: no prioritized request waited", spec, name)
			}
		}
	}
}

// Bad occupy timeouts are one-line errors naming the fix; the default is
// left out of the canonical spec, like flavor.
func TestOccupyTimeoutSpec(t *testing.T) {
	for spec, want := range map[string]string{
		"leap-array:occupy-timeout=-1ms":              "whole milliseconds, 0 or more",
		"leap-array:occupy-timeout=1500us":            "whole milliseconds, 0 or more",
		"leap-array:occupy-timeout=2s":                "longer than the interval 1s",
		"leap-array:occupy-timeout=1s,interval=500ms": "longer than the interval 500ms",
		"leap-array:occupy-timeout=100ms,flavor=go":   "sentinel-golang has no prioritized entries",
		"leap-array:occupy-timeout=soon":              "is not a duration",
		"warm-up:occupy-timeout=-5ms":                 "whole milliseconds",
		"leaky-bucket:occupy-timeout=1.5ms":           "whole milliseconds",
	} {
		_, err := New(spec, 10)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", spec, err, want)
		}
	}
	for spec, canon := range map[string]string{
		"leap-array":                          "leap-array:limit=10,sample-count=2,interval=1s",
		"leap-array:occupy-timeout=500ms":     "leap-array:limit=10,sample-count=2,interval=1s",
		"leap-array:occupy-timeout=0s":        "leap-array:limit=10,sample-count=2,interval=1s,occupy-timeout=0s",
		"leap-array:occupy-timeout=1s":        "leap-array:limit=10,sample-count=2,interval=1s,occupy-timeout=1s",
		"leap-array:interval=200ms":           "leap-array:limit=10,sample-count=2,interval=200ms",
		"warm-up:occupy-timeout=0s":           "warm-up:limit=10,warm-up=10s,cold-factor=3,sample-count=2,interval=1s",
		"leap-array:flavor=go,sample-count=4": "leap-array:limit=10,sample-count=4,interval=1s,flavor=go",
	} {
		l, err := New(spec, 10)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if l.Spec() != canon {
			t.Errorf("%s: spec %q, want %q", spec, l.Spec(), canon)
		}
	}
	// The default 500 ms with an interval shorter than it is Sentinel's
	// own default: kept (the loop stops at the interval anyway).
	if l := mustNew(t, "leap-array:interval=200ms", 10).(*LeapArray); l.OccupyTimeout() != 500*time.Millisecond || !l.Borrows() {
		t.Errorf("interval 200ms: occupy timeout %v", l.OccupyTimeout())
	}
}
