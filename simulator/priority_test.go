package simulator

import (
	"bytes"
	"container/heap"
	"context"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// priorityArrivals draws Poisson arrivals at rate with bursts (of up to
// maxBurst), 30% of them prioritized; with responses each gets an RT.
func priorityArrivals(r *rand.Rand, n int, rate float64, maxBurst int, responses bool) []scenarios.Arrival {
	arr := make([]scenarios.Arrival, 0, n)
	var t time.Duration
	for len(arr) < n {
		t += time.Duration(r.ExpFloat64() / rate * float64(time.Second))
		k := 1
		if r.IntN(10) == 0 {
			k = 2 + r.IntN(maxBurst)
		}
		for range k {
			a := scenarios.Arrival{At: t, Clock: t, Priority: r.IntN(10) < 3}
			if responses {
				a.HasResponse = true
				a.RT = time.Duration(r.IntN(600)) * time.Millisecond
			}
			arr = append(arr, a)
		}
	}
	return arr
}

type exitQ [][2]int64 // time ns, seq

func (h exitQ) Len() int { return len(h) }
func (h exitQ) Less(i, j int) bool {
	return h[i][0] < h[j][0] || h[i][0] == h[j][0] && h[i][1] < h[j][1]
}
func (h exitQ) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *exitQ) Push(x any)   { *h = append(*h, x.([2]int64)) }
func (h *exitQ) Pop() any {
	o := *h
	x := o[len(o)-1]
	*h = o[:len(o)-1]
	return x
}

// directDrive decides arr with a fresh limiter: DecideRequest in order,
// and, when exits is set, ReportExits and Exit at every pass's admission
// + RT before the first arrival at or after it (the engine's contract:
// completions before arrivals at equal times).
func directDrive(t *testing.T, spec string, arr []scenarios.Arrival, exits bool) []algorithms.Decision {
	l, err := algorithms.New(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	la := l.(*algorithms.LeapArray)
	if exits {
		la.ReportExits()
	}
	var q exitQ
	out := make([]algorithms.Decision, len(arr))
	for i, a := range arr {
		for exits && q.Len() > 0 && q[0][0] <= int64(a.Clock) {
			la.Exit(time.Duration(heap.Pop(&q).([2]int64)[0]))
		}
		out[i] = la.DecideRequest(a.Clock, &algorithms.Request{Cost: 1, Priority: a.Priority})
		if out[i].Pass {
			heap.Push(&q, [2]int64{int64(a.Clock + out[i].Wait + a.RT), int64(i)})
		}
	}
	return out
}

// The engine's rows, plain (no responses: waited requests exit at their
// admission, inside the limiter) and evented (responses: every exit
// reported), decide as the limiter driven directly; the prioritized
// counts, waited_for_next_window and the borrowed bins agree with the
// decisions.
func TestPriorityRowsMatchDirectDrive(t *testing.T) {
	const spec = "leap-array:limit=20,sample-count=4,interval=1s"
	for _, responses := range []bool{false, true} {
		differs := false
		for seed := range uint64(long(20, 8)) { // 8: both parities
			// Dense traffic, and sparse bursts that leave buckets
			// without arrivals (only an exit then moves a borrow in).
			rate, burst := 45.0, 8
			if seed%2 == 1 {
				rate, burst = 4, 40
			}
			arr := priorityArrivals(rand.New(rand.NewPCG(seed, 18)), 3000, rate, burst, responses)
			l, err := algorithms.New(spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			cfg := DefaultConfig()
			cfg.End = arr[len(arr)-1].At
			cfg.Decisions = func(int) io.Writer { return &buf }
			res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{l}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := directDrive(t, spec, arr, responses)
			if responses && !differs {
				for i, d := range directDrive(t, spec, arr, false) {
					differs = differs || d != want[i]
				}
			}
			rows := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if len(rows) != len(arr) {
				t.Fatalf("%d rows for %d arrivals", len(rows), len(arr))
			}
			var prio, prioPassed, waited int64
			for i, row := range rows {
				f := strings.Split(row, ",")
				f = f[len(f)-9:] // seq … priority
				wait, _ := strconv.ParseInt(f[4], 10, 64)
				got := algorithms.Decision{Pass: f[3] == "pass", Wait: time.Duration(wait)}
				if got != want[i] {
					t.Fatalf("responses %v seed %d arrival %d (prio %v at %v): row %q, direct %+v", responses, seed, i, arr[i].Priority, arr[i].At, row, want[i])
				}
				if (f[8] == "1") != arr[i].Priority {
					t.Fatalf("arrival %d: priority column %q, prioritized %v", i, f[8], arr[i].Priority)
				}
				if arr[i].Priority {
					prio++
					if got.Pass {
						prioPassed++
					}
					if got.Wait > 0 {
						waited++
					}
				}
			}
			p := res.Algorithms[0].Priority
			if p == nil || p.Arrived != prio || p.Passed != prioPassed || p.WaitedForNextWindow != waited || p.OrdinaryArrived != int64(len(arr))-prio {
				t.Fatalf("priority %+v, want %d arrived, %d passed, %d waited", p, prio, prioPassed, waited)
			}
			var borrowed int64
			for _, b := range res.Algorithms[0].Bins {
				borrowed += b.Borrowed
			}
			if borrowed != waited || waited == 0 {
				t.Fatalf("bins hold %d borrowed passes, %d waited", borrowed, waited)
			}
		}
		if responses && !differs {
			t.Error("reporting exits never changed a decision: the traces do not test the exits")
		}
	}
}

// A limiter that ignores priority counts the prioritized arrivals but
// borrows nothing, and a run without prioritized arrivals adds no
// priority figures.
func TestPriorityIgnoredAndAbsent(t *testing.T) {
	arr := priorityArrivals(rand.New(rand.NewPCG(1, 2)), 2000, 45, 8, false)
	l, _ := algorithms.New("leaky-bucket:limit=20", 0)
	la, _ := algorithms.New("leap-array:limit=20,occupy-timeout=0s", 0)
	cfg := DefaultConfig()
	cfg.End = arr[len(arr)-1].At
	res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{l, la}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Algorithms {
		if a.Priority == nil || a.Priority.Arrived == 0 || a.Priority.WaitedForNextWindow != 0 {
			t.Errorf("%s: %+v", a.Spec, a.Priority)
		}
	}
	var b bytes.Buffer
	if err := WriteSeriesCSV(&b, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "borrowed") {
		t.Error("series.csv has a borrowed column though nothing borrowed")
	}
	for i := range arr {
		arr[i].Priority = false
	}
	l2, _ := algorithms.New("leap-array:limit=20", 0)
	res, err = Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{l2}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Algorithms[0].Priority != nil {
		t.Errorf("no prioritized arrival, priority %+v", res.Algorithms[0].Priority)
	}
	b.Reset()
	if err := WriteSummaryJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "priority") || strings.Contains(b.String(), "waited_for_next_window") {
		t.Error("summary.json has priority fields without prioritized arrivals")
	}
}
