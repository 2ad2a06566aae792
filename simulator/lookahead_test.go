package simulator

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// lookaheadTrace is n arrivals about 1,000 a second with bursts and
// prioritized entries, and an outage right after each batch edge (the
// sentinel-cluster row then carries undecided arrivals across it).
func lookaheadTrace(n int) ([]scenarios.Arrival, []algorithms.DownWindow) {
	rng := rand.New(rand.NewPCG(28, 14))
	arr := make([]scenarios.Arrival, n)
	var t time.Duration
	var down []algorithms.DownWindow
	for i := range arr {
		if rng.IntN(30) != 0 {
			t += time.Duration(rng.ExpFloat64() * float64(time.Millisecond))
		}
		arr[i] = scenarios.Arrival{At: t, Clock: t, Priority: rng.IntN(4) == 0}
		if i%batchSize == 2 && i > batchSize {
			down = append(down, algorithms.DownWindow{From: t, To: t + 50*time.Millisecond})
		}
	}
	return arr, down
}

func lookaheadRows(t *testing.T, down []algorithms.DownWindow) []algorithms.Limiter {
	cl, err := algorithms.NewSentinelCluster(algorithms.SentinelClusterConfig{
		Count: 200, Instances: 3, Connected: 3, RTT: 30 * time.Millisecond, Timeout: 20 * time.Millisecond,
		FallbackLocal: true, Exceed: 1, MaxOccupy: 1, MaxQPS: 30000, Down: down,
		SampleCount: 10, Interval: time.Second, LocalSampleCount: 2, LocalInterval: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := algorithms.NewTokenBucket(algorithms.TokenBucketConfig{Rate: 700, Burst: 20})
	if err != nil {
		t.Fatal(err)
	}
	return []algorithms.Limiter{tb, cl}
}

// TestCarryRowLeavesOtherRowsAlone: a run of four batches with a
// sentinel-cluster row (which carries undecided arrivals from batch to
// batch) and a token bucket writes, for each row, the same decisions.csv
// and figures as the row run alone; the carrying row's rows are in
// arrival order and one per arrival.
func TestCarryRowLeavesOtherRowsAlone(t *testing.T) {
	arr, down := lookaheadTrace(4*batchSize + 1000)
	run := func(lims []algorithms.Limiter) ([][]byte, *Result) {
		bufs := make([]bytes.Buffer, len(lims))
		cfg := DefaultConfig()
		cfg.End = arr[len(arr)-1].At + time.Millisecond
		cfg.Decisions = func(i int) io.Writer { return &bufs[i] }
		res, err := Run(context.Background(), &sliceStream{arr: arr}, lims, cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]byte, len(lims))
		for i := range bufs {
			out[i] = bufs[i].Bytes()
		}
		return out, res
	}
	together, res := run(lookaheadRows(t, down))
	for i := range together {
		alone, ares := run(lookaheadRows(t, down)[i : i+1])
		if !bytes.Equal(together[i], alone[0]) {
			t.Fatalf("row %d: decisions.csv differs when run with the other row", i)
		}
		a, b := res.Algorithms[i], ares.Algorithms[0]
		// The run's bins reach the last proceed of any row, and the
		// cluster row's prioritized local checks wait up to 500 ms past
		// their failure: the token bucket's extra bins run together are
		// empty.
		if a.Passed != b.Passed || a.MaxWindowPassed != b.MaxWindowPassed || a.WaitP99 != b.WaitP99 || len(a.Bins) < len(b.Bins) {
			t.Fatalf("row %d: figures differ with the other row: %+v vs %+v", i, a, b)
		}
		for j := range a.Bins {
			var want Bin
			if j < len(b.Bins) {
				want = b.Bins[j]
			}
			if a.Bins[j] != want {
				t.Fatalf("row %d bin %d: %+v vs %+v", i, j, a.Bins[j], want)
			}
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(together[1], []byte("\n")), []byte("\n"))
	if len(lines) != len(arr) {
		t.Fatalf("the cluster row wrote %d decision rows for %d arrivals", len(lines), len(arr))
	}
	// The outages fail arrivals: the carry was exercised.
	if c := res.Algorithms[1].Cluster; c == nil || c.Fallbacks == 0 {
		t.Fatalf("no fallback in the cluster row: %+v", c)
	}
}
