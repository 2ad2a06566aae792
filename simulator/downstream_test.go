package simulator

import (
	"bytes"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Little's law on a long run, through the engine: the time-average number
// of requests in the downstream, read from the series (admissions minus
// completions so far, bin by bin), equals the throughput times the mean
// RT, read from the responses' RT sums. The two sides come from different
// bookkeeping: bins by admission and by exit, and RT sums.
func TestDownstreamLittlesLaw(t *testing.T) {
	ds := &scenarios.Downstream{Servers: 4, Service: 20 * time.Millisecond,
		Phases: []scenarios.DownstreamPhase{{From: 100 * time.Second, To: 200 * time.Second, Service: 22 * time.Millisecond}}}
	rng := rand.New(rand.NewPCG(3, 4))
	var arr []scenarios.Arrival
	for now := time.Duration(0); now < 300*time.Second; {
		now += time.Duration(rng.ExpFloat64() * float64(6*time.Millisecond)) // ~167/s; capacity 200/s, then 182/s
		arr = append(arr, scenarios.Arrival{At: now, Clock: now})
	}
	lim, _ := algorithms.New("token-bucket:limit=1000", 0)
	cfg := cfgFor(300 * time.Second)
	cfg.Bin = time.Millisecond
	cfg.Downstream = ds
	res, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Algorithms[0]
	var in, area float64
	var rtSum time.Duration
	var completed int64
	for _, b := range a.Bins {
		in += float64(b.Passed - b.Completed)
		area += in * res.Bin.Seconds()
		rtSum += b.RTSum
		completed += b.Completed
	}
	span := (res.End - res.Start).Seconds()
	l := area / span
	lambda := float64(completed) / span
	w := rtSum.Seconds() / float64(completed)
	if completed != a.Passed || a.Chain.Timeouts != 0 {
		t.Fatalf("completed %d of %d passes, %d timeouts", completed, a.Passed, a.Chain.Timeouts)
	}
	if math.Abs(l-lambda*w) > 0.02*l {
		t.Fatalf("L = %.4f, λ·W = %.2f·%.4f = %.4f", l, lambda, w, lambda*w)
	}
	if w < 0.020 || l < 3 {
		t.Fatalf("implausible queue: W %v s, L %v", w, l)
	}
	t.Logf("L = %.4f, λ·W = %.4f (W = %.1f ms)", l, lambda*w, 1000*w)
}

// With no limiter and load above servers/service, RT grows without bound
// until the timeout caps it and every later request times out.
func TestDownstreamOverloadGrowsUntilTimeouts(t *testing.T) {
	for _, timeout := range []time.Duration{0, 2 * time.Second} {
		d := newDownstream(&scenarios.Downstream{Servers: 2, Service: 10 * time.Millisecond, Timeout: timeout})
		// 400/s against a capacity of 200/s.
		var last time.Duration
		timeouts := 0
		for i := 0; i < 4000; i++ {
			adm := time.Duration(i) * 2500 * time.Microsecond
			exit, failed, to := d.serve(int64(i), adm)
			rt := exit - adm
			if timeout == 0 {
				if rt < last {
					t.Fatalf("RT fell from %v to %v at request %d", last, rt, i)
				}
				last = rt
			} else {
				if rt > timeout || to != failed {
					t.Fatalf("request %d: rt %v failed %v timeout %v", i, rt, failed, to)
				}
				if to {
					timeouts++
				}
			}
		}
		if timeout == 0 && last < 4*time.Second {
			t.Errorf("RT after 10 s of double load is %v, want about 5 s", last)
		}
		if timeout > 0 && timeouts < 2000 {
			t.Errorf("only %d timeouts of 4000", timeouts)
		}
	}
}

func TestDownstreamErrorsAreSeededPerArrival(t *testing.T) {
	cfg := &scenarios.Downstream{Servers: 1000, Service: time.Millisecond, Seed: 7,
		Phases: []scenarios.DownstreamPhase{{From: 0, To: time.Hour, Service: time.Millisecond, Errors: 0.3}}}
	a, b := newDownstream(cfg), newDownstream(cfg)
	fails := 0
	for i := 0; i < 10000; i++ {
		_, fa, _ := a.serve(int64(i), time.Duration(i)*time.Millisecond)
		if i%2 == 0 { // b sees every other arrival: the same ones fail
			if _, fb, _ := b.serve(int64(i), time.Duration(i)*time.Millisecond); fb != fa {
				t.Fatalf("arrival %d fails in one row and not the other", i)
			}
		}
		if fa {
			fails++
		}
	}
	if fails < 2800 || fails > 3200 {
		t.Errorf("%d failures of 10000 at errors 0.3", fails)
	}
}

// A plain limiter behind a downstream makes exactly the decisions it makes
// on the fast path; every row has its own downstream.
func TestDownstreamKeepsPlainDecisions(t *testing.T) {
	arr := randomArrivals(11, 3000, 10*time.Second)
	specs := []string{"leap-array:limit=100", "leaky-bucket:limit=100", "token-bucket:limit=100", "warm-up-rate-limiter:limit=100"}
	run := func(ds *scenarios.Downstream) (string, *Result) {
		var lims []algorithms.Limiter
		for _, s := range specs {
			l, _ := algorithms.New(s, 0)
			lims = append(lims, l)
		}
		var buf [4]bytes.Buffer
		cfg := cfgFor(10 * time.Second)
		cfg.Downstream = ds
		cfg.Decisions = func(i int) io.Writer { return &buf[i] }
		res, err := Run(context.Background(), &sliceStream{arr: arr}, lims, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for _, b := range buf {
			for _, line := range strings.Split(b.String(), "\n") {
				f := strings.Split(line, ",")
				if len(f) > 7 {
					cols = append(cols, strings.Join(f[len(f)-7:len(f)-3], ","))
				}
			}
		}
		return strings.Join(cols, "\n"), res
	}
	plain, pr := run(nil)
	withDs, dr := run(&scenarios.Downstream{Servers: 2, Service: 30 * time.Millisecond, Timeout: 200 * time.Millisecond})
	if plain != withDs {
		t.Fatal("decisions differ with a downstream behind the limiters")
	}
	for i := range pr.Algorithms {
		if pr.Algorithms[i].Chain != nil || dr.Algorithms[i].Chain == nil || dr.Algorithms[i].Chain.Completed != dr.Algorithms[i].Passed {
			t.Fatalf("row %d: chain results %+v / %+v", i, pr.Algorithms[i].Chain, dr.Algorithms[i].Chain)
		}
		pb, db := pr.Algorithms[i], dr.Algorithms[i]
		if pb.Passed != db.Passed || pb.MaxWindowPassed != db.MaxWindowPassed || pb.WaitP99 != db.WaitP99 {
			t.Fatalf("row %d: results differ", i)
		}
	}
}
