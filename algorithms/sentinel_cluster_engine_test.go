package algorithms_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// The simulator decides a trace in batches of 32,768 arrivals. A
// sentinel-cluster decision made by a local check at T + timeout (or
// T + rtt) must count the passes of the arrivals of the next batch that
// come before it, exactly as Sentinel does over the whole trace; these
// tests run traces of several batches through simulator.Run and hold
// every decision (verdict and wait, from decisions.csv) to the Go port
// of Sentinel 1.8.9 run over the whole trace at once.

// clusterSlice is a scenarios.Stream over fixed arrivals.
type clusterSlice struct {
	arr []scenarios.Arrival
	i   int
}

func (s *clusterSlice) Next() (scenarios.Arrival, bool) {
	if s.i >= len(s.arr) {
		return scenarios.Arrival{}, false
	}
	s.i++
	return s.arr[s.i-1], true
}
func (s *clusterSlice) Err() error   { return nil }
func (s *clusterSlice) Close() error { return nil }

// engineBatch is simulator's batchSize: the edges the tests put outages
// and bursts at.
const engineBatch = 1 << 15

// clusterEngineCase builds a trace of n arrivals in batches of the
// engine's size. Each batch is background traffic (about perSec arrivals a
// second, bursts at one instant, prioPct percent prioritized, costs 1–2),
// then, at the start of a new second (+100 ms, beyond any skew), a burst
// of instances·perClient arrivals 1/instances ms apart, the batch's last:
// each client's node meets its count (perClient = count) just as the
// batch ends. Right after each batch edge an outage of downLen starts, so
// the next batch's first arrivals fail at once, before the local checks
// (at T + timeout, or T + rtt) of the burst's last arrivals: Sentinel
// counts their passes first.
func clusterEngineCase(rng *rand.Rand, c algorithms.SentinelClusterConfig, n int, perSec float64, prioPct, perClient int, downLen time.Duration) (algorithms.SentinelClusterConfig, []algorithms.PortClusterArrival) {
	trace := make([]algorithms.PortClusterArrival, 0, n)
	var t time.Duration
	mean := float64(time.Second) / perSec
	add := func(at time.Duration, cost int64) {
		trace = append(trace, algorithms.PortClusterArrival{At: at, Prio: rng.IntN(100) < prioPct, Cost: cost})
	}
	burst := c.Instances * perClient
	for len(trace) < n {
		if len(trace) > 0 {
			t += 500 * time.Microsecond
			c.Down = append(c.Down, algorithms.DownWindow{From: t, To: t + downLen})
		}
		end := min(n, len(trace)+engineBatch)
		for len(trace) < end-burst || (end == n && len(trace) < n) {
			if rng.IntN(50) != 0 { // else a burst: the same instant
				t += time.Duration(rng.ExpFloat64() * mean)
			}
			add(t, int64(1+rng.IntN(8)/7))
		}
		if len(trace) == n {
			break
		}
		t = t.Truncate(time.Second) + time.Second + 100*time.Millisecond
		for k := 0; k < burst; k++ {
			add(t, 1)
			t += time.Millisecond / time.Duration(c.Instances)
		}
	}
	return c, trace
}

// runClusterEngine runs the trace through simulator.Run and returns each
// arrival's decision from decisions.csv, and the run's result.
func runClusterEngine(t *testing.T, c algorithms.SentinelClusterConfig, trace []algorithms.PortClusterArrival) ([]algorithms.Decision, *simulator.AlgoResult, *algorithms.SentinelCluster) {
	t.Helper()
	l, err := algorithms.NewSentinelCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	arr := make([]scenarios.Arrival, len(trace))
	for i, a := range trace {
		arr[i] = scenarios.Arrival{At: a.At, Clock: a.At, Priority: a.Prio, Cost: int32(a.Cost)}
	}
	var rows bytes.Buffer
	cfg := simulator.DefaultConfig()
	cfg.End = trace[len(trace)-1].At + time.Millisecond
	cfg.Decisions = func(int) io.Writer { return &rows }
	res, err := simulator.Run(context.Background(), &clusterSlice{arr: arr}, []algorithms.Limiter{l}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&rows).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(trace) {
		t.Fatalf("decisions.csv has %d rows for %d arrivals", len(recs), len(trace))
	}
	got := make([]algorithms.Decision, len(trace))
	for i, r := range recs {
		seq, _ := strconv.Atoi(r[1])
		if seq != i {
			t.Fatalf("decisions.csv row %d is arrival %d: rows out of arrival order", i, seq)
		}
		wait, _ := strconv.ParseInt(r[4], 10, 64)
		got[i] = algorithms.Decision{Pass: r[3] == "pass", Wait: time.Duration(wait)}
	}
	return got, &res.Algorithms[0], l
}

// checkClusterEngine holds the engine's decisions to the port's, and, when
// mustReachEdges, fails a case in which deciding batch by batch would give
// the same decisions (the case would test nothing). It returns how many
// decisions batch by batch gets wrong.
func checkClusterEngine(t *testing.T, name string, c algorithms.SentinelClusterConfig, trace []algorithms.PortClusterArrival, mustReachEdges bool) int {
	t.Helper()
	got, res, l := runClusterEngine(t, c, trace)
	want := algorithms.PortSentinelCluster(c, l.EpochMs(), trace)
	var diff int
	first := -1
	for i := range trace {
		if got[i] != want[i] {
			diff++
			if first < 0 {
				first = i
			}
		}
	}
	if diff > 0 {
		i := first
		t.Fatalf("%s (%s): %d of %d decisions differ from the port over the whole trace; first: arrival %d (batch %d, %d after its start) at %v prio=%v: engine %+v, port %+v",
			name, l.Spec(), diff, len(trace), i, i/engineBatch, i%engineBatch, trace[i].At, trace[i].Prio, got[i], want[i])
	}
	var passed, waits, fb int64
	for _, d := range want {
		if d.Pass {
			passed++
			if d.Wait > c.RTT {
				waits++
			}
		}
	}
	for _, b := range res.Bins {
		fb += b.Fallbacks
	}
	if res.Passed != passed || res.Arrived != int64(len(trace)) {
		t.Fatalf("%s: summary passed %d of %d, the port passes %d of %d", name, res.Passed, res.Arrived, passed, len(trace))
	}
	if res.Cluster == nil || fb != res.Cluster.Fallbacks {
		t.Fatalf("%s: the bins count %d fallbacks, the figures %+v", name, fb, res.Cluster)
	}
	// The case must reach the batch edges: deciding each batch alone, as
	// the engine did before it carried undecided arrivals (DecideRequests
	// runs the checks still waiting at its end), differs from the port.
	chunked, err := algorithms.NewSentinelCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	nows := make([]time.Duration, len(trace))
	reqs := make([]algorithms.Request, len(trace))
	for i, a := range trace {
		nows[i] = a.At
		reqs[i] = algorithms.Request{Cost: int32(a.Cost), Priority: a.Prio}
	}
	alone := make([]algorithms.Decision, len(trace))
	for s := 0; s < len(trace); s += engineBatch {
		e := min(len(trace), s+engineBatch)
		chunked.DecideRequests(nows[s:e], reqs[s:e], alone[s:e])
	}
	var edge int
	for i := range trace {
		if alone[i] != want[i] {
			edge++
		}
	}
	t.Logf("%s: %d decisions equal the port (%d passed, %d fallbacks, %d waited beyond rtt); batch by batch, %d would differ", name, len(trace), passed, fb, waits, edge)
	if edge == 0 && mustReachEdges {
		t.Fatalf("%s: deciding batch by batch gives the port's decisions too: the case does not reach the batch edges", name)
	}
	return edge
}

func baseClusterConfig() algorithms.SentinelClusterConfig {
	return algorithms.SentinelClusterConfig{
		Count: 300, Instances: 4, Connected: 4, RTT: 2 * time.Millisecond, Timeout: 20 * time.Millisecond,
		FallbackLocal: true, Exceed: 1, MaxOccupy: 1, MaxQPS: 30000,
		SampleCount: 10, Interval: time.Second, LocalSampleCount: 2, LocalInterval: time.Second,
	}
}

// TestSentinelClusterEngineBatchEdges: 100,000+ arrivals (four batches)
// through simulator.Run, decision for decision equal to the port.
func TestSentinelClusterEngineBatchEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 12))
	n := 3*engineBatch + 5000

	// rtt above the timeout: every request is checked locally at
	// T + 20 ms, and an outage right after each batch edge fails the next
	// batch's arrivals at once, before the checks of the last batch.
	c := baseClusterConfig()
	c.RTT, c.Skew, c.LocalSampleCount = 30*time.Millisecond, 3*time.Millisecond, 1
	c, trace := clusterEngineCase(rng, c, n, 600, 20, 300, 300*time.Millisecond)
	checkClusterEngine(t, "rtt above timeout", c, trace, true)

	// rtt within the timeout, a GlobalRequestLimiter the bursts exceed
	// (TOO_MANY_REQUEST → local check at T + rtt), SHOULD_WAIT for the
	// prioritized entries, skewed clocks, an outage after each edge.
	c = baseClusterConfig()
	c.RTT, c.Skew, c.MaxQPS, c.Global, c.LocalSampleCount = 8*time.Millisecond, 50*time.Millisecond, 400, true, 1
	c, trace = clusterEngineCase(rng, c, n, 300, 40, 330, 200*time.Millisecond)
	checkClusterEngine(t, "too many requests, should wait, skew", c, trace, true)
}

// TestSentinelClusterEngineDenseBatches: more than two batches of
// arrivals within one timeout, so the first arrivals' local checks wait
// for arrivals two batches later: the row carries them until then.
func TestSentinelClusterEngineDenseBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 13))
	c := baseClusterConfig()
	c.RTT, c.Count = 30*time.Millisecond, 12000
	n := 2*engineBatch + 30000
	trace := make([]algorithms.PortClusterArrival, n)
	for i := range trace {
		// 70,000 arrivals in about 10 ms, then a second of slower traffic.
		at := time.Duration(i) * 150 * time.Nanosecond
		if i > 70000 {
			at = 70000*150*time.Nanosecond + time.Duration(i-70000)*30*time.Microsecond
		}
		trace[i] = algorithms.PortClusterArrival{At: at, Prio: rng.IntN(2) == 0, Cost: 1}
	}
	from := trace[engineBatch+3].At
	c.Down = []algorithms.DownWindow{{From: from, To: from + 5*time.Millisecond}}
	checkClusterEngine(t, "dense", c, trace, true)
}

// TestSentinelClusterEngineSoak runs more seeds and shapes with
// RATELIMIT_LAB_SOAK=1.
func TestSentinelClusterEngineSoak(t *testing.T) {
	if os.Getenv("RATELIMIT_LAB_SOAK") != "1" {
		t.Skip("set RATELIMIT_LAB_SOAK=1 for the long variants")
	}
	edges := 0
	for seed := uint64(0); seed < 12; seed++ {
		rng := rand.New(rand.NewPCG(28, 100+seed))
		c := baseClusterConfig()
		c.Instances = 1 + rng.IntN(8)
		c.Connected = c.Instances
		c.RTT = time.Duration([]int{1, 5, 19, 21, 40}[rng.IntN(5)]) * time.Millisecond
		c.Skew = time.Duration([]int{0, 3, 50}[rng.IntN(3)]) * time.Millisecond
		c.MaxQPS = []float64{30000, 1000, 2000}[rng.IntN(3)]
		c.Count = float64(100 + rng.IntN(800))
		c.Global = rng.IntN(2) == 0
		c.FallbackLocal = rng.IntN(4) != 0
		n := 4*engineBatch + rng.IntN(engineBatch)
		c, trace := clusterEngineCase(rng, c, n, float64(200+rng.IntN(600)), rng.IntN(60), int(c.Count)+rng.IntN(40)-10, time.Duration(1+rng.IntN(400))*time.Millisecond)
		edges += checkClusterEngine(t, "soak "+strconv.FormatUint(seed, 10), c, trace, false)
	}
	if edges == 0 {
		t.Fatal("no soak case reaches the batch edges")
	}
}
