package simulator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// For one caller (each request arrives after the previous one was
// admitted) the event-driven chain makes the decisions of Chain.Decide,
// which runs every step of a request at once.
func TestChainExecutorMatchesOneCaller(t *testing.T) {
	for _, spec := range []string{
		"leaky-bucket:limit=20,max-queue=300ms+leap-array:limit=15",
		"token-bucket:rate=30,burst=3+leap-array:limit=10,sample-count=10",
		"leap-array:limit=8+leaky-bucket:limit=10,max-queue=200ms",
		"warm-up-rate-limiter:limit=50,max-queue=100ms+fixed-window:limit=20+sliding-log:limit=18",
		"token-bucket:rate=20,burst=2+circuit-breaker:strategy=error-count,threshold=1",
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			rng := rand.New(rand.NewPCG(seed, 1))
			ref, err := algorithms.New(spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			var arr []scenarios.Arrival
			var want []algorithms.Decision
			now := time.Duration(0)
			for i := 0; i < 2000; i++ {
				now += time.Duration(rng.ExpFloat64() * float64(30*time.Millisecond))
				d := ref.Decide(now)
				arr = append(arr, scenarios.Arrival{At: now, Clock: now})
				want = append(want, d)
				now += d.Wait
			}
			lim, _ := algorithms.New(spec, 0)
			var rows bytes.Buffer
			cfg := cfgFor(time.Minute)
			cfg.Decisions = func(int) io.Writer { return &rows }
			if _, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg); err != nil {
				t.Fatal(err)
			}
			got := parseRows(t, rows.String())
			passes := 0
			for i, w := range want {
				g := got[i]
				if (g.verdict == "pass") != w.Pass || (w.Pass && g.wait != w.Wait) {
					t.Fatalf("%s seed %d arrival %d: got %+v, one caller's Decide %+v", spec, seed, i, g, w)
				}
				if w.Pass {
					passes++
				}
			}
			if passes == 0 || passes == len(want) {
				t.Fatalf("%s seed %d: %d passes of %d, the trace tests nothing", spec, seed, passes, len(want))
			}
		}
	}
}

// An evented row counts its arrivals at their true time, while the chain
// runs on the clock; its outcomes come out in arrival order even when a
// later arrival is decided first.
func TestEventedRowTrueTimeAndOrder(t *testing.T) {
	// The clock runs 10 s ahead of true time.
	var arr []scenarios.Arrival
	for i := 0; i < 10; i++ {
		at := time.Duration(i) * 10 * time.Millisecond
		arr = append(arr, scenarios.Arrival{At: at, Clock: at + 10*time.Second, HasResponse: true, RT: time.Duration(10-i) * 100 * time.Millisecond})
	}
	lim, _ := algorithms.New("leaky-bucket:limit=50,max-queue=1s+circuit-breaker:strategy=slow-ratio,max-rt=500ms,min-requests=100", 0)
	var rows bytes.Buffer
	cfg := cfgFor(time.Second)
	cfg.Decisions = func(int) io.Writer { return &rows }
	res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Algorithms[0]
	if a.Bins[0].Arrived != 5 || a.Bins[1].Arrived != 5 || a.Passed != 10 {
		t.Fatalf("bins %+v %+v, passed %d", a.Bins[0], a.Bins[1], a.Passed)
	}
	got := parseRows(t, rows.String())
	for i, g := range got {
		// Pacing 20 ms: arrival i is admitted at 20i ms, waiting 10i ms.
		if g.verdict != "pass" || g.wait != time.Duration(i)*10*time.Millisecond || g.rt != time.Duration(10-i)*100*time.Millisecond {
			t.Fatalf("row %d: %+v", i, g)
		}
	}
	if fmt.Sprint(a.Chain.Completed, a.Chain.RTMax) != "10 1s" {
		t.Fatalf("chain %+v", a.Chain)
	}
}
