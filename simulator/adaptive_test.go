package simulator

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// The engine feeds completions from a trace's rt_ms,error to every
// adaptive limiter, and its decisions are those of the reference loop.
func TestAdaptiveTraceReplayMatchesReference(t *testing.T) {
	specs := []string{
		"concurrency:limit=5", "concurrency:limit=5,flavor=go",
		"sentinel-system:max-thread=4,avg-rt=30", "sentinel-system:qps=40,max-thread=6,flavor=go",
		"sentinel-system:load=1", "sentinel-system:load=1,cpu=0.9,flavor=go,strategy=bbr",
		"aegis-bbr:window=1s,buckets=10,cpu-threshold=500", "aegis-bbr:version=v0.2.0,cpu-threshold=300",
		"aimd", "aimd:windowed=true", "vegas", "vegas:initial=2,probe=off", "gradient2", "gradient2:windowed=true",
		"envoy-adaptive:interval=2s,update-interval=100ms,request-count=20", "none",
	}
	for _, spec := range specs {
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			var arr []scenarios.Arrival
			now := time.Duration(0)
			cpu, load := float32(0.2), float32(0.5)
			for i := 0; i < 4000; i++ {
				now += time.Duration(rng.ExpFloat64() * float64(2*time.Millisecond))
				if rng.IntN(200) == 0 {
					cpu, load = rng.Float32(), 2*rng.Float32()
				}
				rt := time.Duration(1+rng.IntN(60)) * time.Millisecond
				if rng.IntN(50) == 0 {
					rt = 0
				}
				arr = append(arr, scenarios.Arrival{At: now, Clock: now, HasResponse: true, RT: rt, Failed: rng.IntN(10) == 0, CPU: cpu, Load1: load})
			}
			cfg := cfgFor(time.Minute)
			cfg.Signals = algorithms.SignalCPU | algorithms.SignalLoad1
			cfg.Seed = seed
			ref2, _ := algorithms.New(spec, 0)
			_ = prepareAdaptive([]algorithms.Limiter{ref2}, &cfg)
			tr2 := &signalTrack{}
			if r, ok := ref2.(algorithms.SignalReader); ok {
				r.BindSignals(tr2)
			}
			want := refWithSignals(ref2.(algorithms.Completer), arr, tr2)

			lim, _ := algorithms.New(spec, 0)
			var rows bytes.Buffer
			cfg.Decisions = func(int) io.Writer { return &rows }
			if _, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg); err != nil {
				t.Fatal(err)
			}
			got := parseRows(t, rows.String())
			passes := 0
			for i, w := range want {
				if (got[i].verdict == "pass") != w {
					t.Fatalf("%s seed %d arrival %d: engine %s, reference pass=%v", spec, seed, i, got[i].verdict, w)
				}
				if w {
					passes++
				}
			}
			if spec != "none" && passes == len(arr) && !strings.HasPrefix(spec, "sentinel-system:load=1,cpu") && !strings.HasPrefix(spec, "aegis") {
				t.Logf("%s seed %d: every arrival passed", spec, seed)
			}
		}
	}
}

// refWithSignals replays a trace with responses through one Completer the
// way the chain executor must: events in clock order, at equal times the
// completions first (by exit, then arrival number), then the arrival; a
// pass completes at admission + its recorded RT; each arrival's signals
// hold from its time on.
func refWithSignals(c algorithms.Completer, arr []scenarios.Arrival, tr *signalTrack) []bool {
	out := make([]bool, len(arr))
	type done struct {
		exit time.Duration
		seq  int
		tk   algorithms.Ticket
		oc   algorithms.Outcome
	}
	var open []done
	for i, a := range arr {
		sort.Slice(open, func(x, y int) bool {
			if open[x].exit != open[y].exit {
				return open[x].exit < open[y].exit
			}
			return open[x].seq < open[y].seq
		})
		k := 0
		for k < len(open) && open[k].exit <= a.Clock {
			c.Complete(open[k].exit, open[k].tk, open[k].oc)
			k++
		}
		open = open[k:]
		tr.see(a.Clock, a.CPU, a.Load1)
		if c.Check(a.Clock).Pass {
			out[i] = true
			tk := c.Begin(a.Clock, a.Clock)
			oc := algorithms.Success
			if a.Failed {
				oc = algorithms.Failure
			}
			open = append(open, done{a.Clock + a.RT, i, tk, oc})
		}
	}
	return out
}

func TestAdaptiveNeedsSignalAndCompletions(t *testing.T) {
	lim, _ := algorithms.New("sentinel-system:load=4", 0)
	_, err := Run(context.Background(), &sliceStream{arr: at(0)}, []algorithms.Limiter{lim}, cfgFor(time.Second))
	if err == nil || !strings.Contains(err.Error(), "no load1 signal") {
		t.Errorf("a load rule without load1: %v", err)
	}
	lim, _ = algorithms.New("concurrency:limit=3", 0)
	_, err = Run(context.Background(), &sliceStream{arr: at(0, time.Millisecond)}, []algorithms.Limiter{lim}, cfgFor(time.Second))
	if err == nil || !strings.Contains(err.Error(), "rt_ms") {
		t.Errorf("a concurrency limit without responses: %v", err)
	}
}

// A downstream feeds completions too: with one server of 10 ms and
// arrivals every 2 ms, concurrency:limit=2 keeps at most 2 in flight.
func TestAdaptiveWithDownstream(t *testing.T) {
	var ts []time.Duration
	for i := 0; i < 100; i++ {
		ts = append(ts, time.Duration(i)*2*time.Millisecond)
	}
	lim, _ := algorithms.New("concurrency:limit=2", 0)
	cfg := cfgFor(time.Second)
	cfg.Downstream = &scenarios.Downstream{Servers: 1, Service: 10 * time.Millisecond}
	var rows bytes.Buffer
	cfg.Decisions = func(int) io.Writer { return &rows }
	if _, err := Run(context.Background(), &sliceStream{arr: at(ts...)}, []algorithms.Limiter{lim}, cfg); err != nil {
		t.Fatal(err)
	}
	got := parseRows(t, rows.String())
	// Passes at 0 and 2 ms; the first leaves at 10, the second at 20 (FIFO
	// behind it): so 10 ms passes again (completion first), 12..18 block.
	want := map[int]bool{0: true, 1: true, 2: false, 4: false, 5: true, 6: false}
	for i, w := range want {
		if (got[i].verdict == "pass") != w {
			t.Errorf("arrival %d at %v: %s, want pass=%v", i, ts[i], got[i].verdict, w)
		}
	}
}

// A blocked request retries after the backoff: base 5 ms, no jitter, so
// retry n waits 5·2ⁿ ms. concurrency:limit=1 in front of one 10 ms server:
// request 0 passes at 0 (exit 10 ms); request 1 at 1 ms is blocked, retries
// at 6 ms (blocked again: request 0 is in flight) and at 16 ms (passes).
func TestRetriesAfterBackoff(t *testing.T) {
	lim, _ := algorithms.New("concurrency:limit=1", 0)
	cfg := cfgFor(time.Second)
	c := &scenarios.Clients{Retries: 2, RetryOnReject: true, Backoff: scenarios.Backoff{Base: 5 * time.Millisecond, Cap: time.Second}}
	cfg.Downstream = &scenarios.Downstream{Servers: 1, Service: 10 * time.Millisecond, Clients: c}
	res, err := Run(context.Background(), &sliceStream{arr: at(0, time.Millisecond)}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Algorithms[0]
	ch := a.Chain
	if a.Arrived != 4 || a.Passed != 2 || ch.Retries != 2 || ch.Goodput != 2 || ch.Requests != 2 {
		t.Errorf("arrived %d passed %d retries %d goodput %d requests %d, want 4 2 2 2 2", a.Arrived, a.Passed, ch.Retries, ch.Goodput, ch.Requests)
	}
	// The retry that passed at 16 ms leaves at 26 ms: RT 10 ms.
	if ch.RTMax != 10*time.Millisecond {
		t.Errorf("RT max %v, want 10ms", ch.RTMax)
	}
	// With one retry only, the second attempt is the last: 3 arrivals.
	lim, _ = algorithms.New("concurrency:limit=1", 0)
	c.Retries = 1
	res, err = Run(context.Background(), &sliceStream{arr: at(0, time.Millisecond)}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Algorithms[0]; a.Arrived != 3 || a.Passed != 1 {
		t.Errorf("one retry: arrived %d passed %d, want 3 1", a.Arrived, a.Passed)
	}
}

// The metastable retry storm of the catalog, shortened: with nothing in
// front, goodput stays near zero after the slowdown ends; a concurrency
// limit recovers within a second.
func TestRetryStormPersistsWithoutProtection(t *testing.T) {
	s := scenarios.Scenario{
		Name: "storm", Limit: 400, Duration: 30 * time.Second, Seed: 1,
		Phases: []scenarios.Phase{{Type: scenarios.PhasePoisson, Rate: 320}},
		Downstream: &scenarios.Downstream{Servers: 8, Service: 20 * time.Millisecond, Timeout: time.Second, Seed: 1,
			Phases:  []scenarios.DownstreamPhase{{From: 5 * time.Second, To: 15 * time.Second, Service: 60 * time.Millisecond}},
			Clients: &scenarios.Clients{Retries: 3, RetryOnReject: true, RetryOnError: true, RetryOnTimeout: true, Backoff: scenarios.Backoff{Base: 100 * time.Millisecond, Cap: 2 * time.Second, Jitter: scenarios.JitterFull}}},
	}
	src, err := s.Stream()
	if err != nil {
		t.Fatal(err)
	}
	none, _ := algorithms.New("none", 0)
	conc, _ := algorithms.New("concurrency:limit=16", 0)
	cfg := cfgFor(30 * time.Second)
	cfg.Downstream = s.Downstream
	res, err := Run(context.Background(), src, []algorithms.Limiter{none, conc}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, c := res.Algorithms[0].Chain, res.Algorithms[1].Chain
	if n.HasRecovery || !c.HasRecovery || c.Recovery > time.Second {
		t.Errorf("recovery: none %v/%v, concurrency %v/%v; want none never, concurrency within 1s", n.Recovery, n.HasRecovery, c.Recovery, c.HasRecovery)
	}
	// Goodput over the last 10 s: none serves almost nothing.
	late := func(a *AlgoResult) (g int64) {
		for i, b := range a.Bins {
			if res.Start+time.Duration(i)*res.Bin >= 20*time.Second {
				g += b.Completed - b.Errors
			}
		}
		return g
	}
	if g := late(&res.Algorithms[0]); g > 100 {
		t.Errorf("none: %d good responses in the last 10 s, want the storm to persist", g)
	}
	if g := late(&res.Algorithms[1]); g < 2800 {
		t.Errorf("concurrency: %d good responses in the last 10 s, want about 3200", g)
	}
}

// Processor sharing: one core, service 10 ms. Two requests at 0 share it
// and both leave at 20 ms; with kappa 0.5 each progresses at
// (1/2)/(1 + 0.5) = 1/3 and both leave at 30 ms. A third request at 40 ms,
// alone, takes 10 ms. With a 25 ms timeout and kappa 0.5 the pair times
// out at 25 ms.
func TestProcessorSharing(t *testing.T) {
	for _, tc := range []struct {
		kappa   float64
		timeout time.Duration
		want    []time.Duration
		tos     int64
	}{
		{0, 0, []time.Duration{20, 20, 10}, 0},
		{0.5, 0, []time.Duration{30, 30, 10}, 0},
		{0.5, 25 * time.Millisecond, []time.Duration{25, 25, 10}, 2},
	} {
		lim, _ := algorithms.New("none", 0)
		cfg := cfgFor(time.Second)
		cfg.Downstream = &scenarios.Downstream{Servers: 1, PS: true, Cores: 1, Kappa: tc.kappa, Service: 10 * time.Millisecond, Timeout: tc.timeout}
		var rows bytes.Buffer
		cfg.Decisions = func(int) io.Writer { return &rows }
		res, err := Run(context.Background(), &sliceStream{arr: at(0, 0, 40*time.Millisecond)}, []algorithms.Limiter{lim}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := parseRows(t, rows.String())
		for i, w := range tc.want {
			if got[i].rt != w*time.Millisecond {
				t.Errorf("kappa %v timeout %v: request %d RT %v, want %v", tc.kappa, tc.timeout, i, got[i].rt, w*time.Millisecond)
			}
		}
		if c := res.Algorithms[0].Chain; c.Timeouts != tc.tos {
			t.Errorf("kappa %v: %d timeouts, want %d", tc.kappa, c.Timeouts, tc.tos)
		}
	}
}

// Cores from a phase: two cores halve to one from 5 ms: two requests at 0
// of 10 ms run at full speed until 5 ms (5 ms done each), then share one
// core (rate 1/2): they leave at 15 ms.
func TestProcessorSharingCoresPhase(t *testing.T) {
	lim, _ := algorithms.New("none", 0)
	cfg := cfgFor(time.Second)
	cfg.Downstream = &scenarios.Downstream{Servers: 2, PS: true, Cores: 2, Service: 10 * time.Millisecond,
		Phases: []scenarios.DownstreamPhase{{From: 5 * time.Millisecond, To: time.Second, Service: 10 * time.Millisecond, Cores: 1}}}
	var rows bytes.Buffer
	cfg.Decisions = func(int) io.Writer { return &rows }
	if _, err := Run(context.Background(), &sliceStream{arr: at(0, 0)}, []algorithms.Limiter{lim}, cfg); err != nil {
		t.Fatal(err)
	}
	got := parseRows(t, rows.String())
	for i := 0; i < 2; i++ {
		if got[i].rt != 15*time.Millisecond {
			t.Errorf("request %d RT %v, want 15ms", i, got[i].rt)
		}
	}
}

// A closed population: users wait for each answer, think, and send the
// next. With one user, no think to speak of and a 10 ms server, the user
// sends one request about every 10 ms; in flight never exceeds the users.
func TestClosedPopulation(t *testing.T) {
	for _, users := range []int{1, 5} {
		lim, _ := algorithms.New("concurrency:limit=100", 0)
		cfg := cfgFor(time.Second)
		cfg.Downstream = &scenarios.Downstream{Servers: 1, Service: 10 * time.Millisecond, Seed: 3,
			Clients: &scenarios.Clients{Users: users, Think: time.Microsecond}}
		res, err := Run(context.Background(), &sliceStream{}, []algorithms.Limiter{lim}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		a := res.Algorithms[0]
		// One server of 10 ms serves about 100 requests in the second
		// whatever the users (the queue holds the others).
		if a.Arrived < 95 || a.Arrived > 105 || a.Chain.Goodput < 95 || a.Chain.Retries != 0 {
			t.Errorf("%d users: arrived %d goodput %d retries %d, want about 100 and no retries", users, a.Arrived, a.Chain.Goodput, a.Chain.Retries)
		}
		for _, b := range a.Bins {
			if b.Sampled && b.InFlight > int64(users) {
				t.Fatalf("%d users: %d in flight", users, b.InFlight)
			}
		}
	}
}

// series.csv's per-bin RT p99 is the nearest rank of the bin's exits: in
// TestAdaptiveWithDownstream's loop each bin of 50 ms holds exits of 10 ms
// (alone) and 18 ms (queued behind one); the p99 of a bin is its largest.
func TestBinRTP99(t *testing.T) {
	var ts []time.Duration
	for i := 0; i < 100; i++ {
		ts = append(ts, time.Duration(i)*2*time.Millisecond)
	}
	lim, _ := algorithms.New("concurrency:limit=2", 0)
	cfg := cfgFor(time.Second)
	cfg.Downstream = &scenarios.Downstream{Servers: 1, Service: 10 * time.Millisecond}
	res, err := Run(context.Background(), &sliceStream{arr: at(ts...)}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Algorithms[0]
	for i, b := range a.Bins {
		if b.Completed == 0 {
			continue
		}
		if b.RTP99 != b.RTMax {
			t.Errorf("bin %d: p99 %v, max %v (under 100 exits the p99 is the largest)", i, b.RTP99, b.RTMax)
		}
		if !b.HasCPU && b.Arrived > 0 {
			t.Errorf("bin %d has no CPU", i)
		}
	}
}

// A phase that takes servers away: 2 servers of 10 ms, 1 from 10 ms to
// 30 ms. Three requests at 10 ms: the first starts at once on server 0,
// the second waits for server 0 (20 ms; server 1 may not start anything),
// the third starts at 30 ms when server 1 is back: RTs 10, 20, 30 ms.
func TestServersPhase(t *testing.T) {
	lim, _ := algorithms.New("none", 0)
	cfg := cfgFor(time.Second)
	cfg.Downstream = &scenarios.Downstream{Servers: 2, Service: 10 * time.Millisecond,
		Phases: []scenarios.DownstreamPhase{{From: 10 * time.Millisecond, To: 30 * time.Millisecond, Service: 10 * time.Millisecond, Servers: 1}}}
	var rows bytes.Buffer
	cfg.Decisions = func(int) io.Writer { return &rows }
	ms := time.Millisecond
	if _, err := Run(context.Background(), &sliceStream{arr: at(10*ms, 10*ms, 10*ms, 40*ms, 40*ms)}, []algorithms.Limiter{lim}, cfg); err != nil {
		t.Fatal(err)
	}
	got := parseRows(t, rows.String())
	// After the phase both servers serve again: two at 40 ms take 10 ms.
	for i, w := range []time.Duration{10, 20, 30, 10, 10} {
		if got[i].rt != w*ms {
			t.Errorf("request %d: RT %v, want %v", i, got[i].rt, w*ms)
		}
	}
}

// An adaptive limiter made per-key (key=COLUMN) gets each completion on
// its own key's instance: the engine's decisions are those of one
// reference instance per key, fed the key's own calls and completions
// (unbounded table, so the keys are independent).
func TestKeyedAdaptiveCompletesPerKey(t *testing.T) {
	specs := []string{
		"concurrency:limit=2", "sentinel-system:max-thread=1", "sentinel-system:max-thread=2,avg-rt=30,flavor=go",
		"aimd:initial=2,min=1", "vegas:initial=2,probe=off", "gradient2:initial=4,min=1", "none",
	}
	rng := rand.New(rand.NewPCG(9, 4))
	var arr []scenarios.Arrival
	now := time.Duration(0)
	for i := 0; i < 3000; i++ {
		now += time.Duration(rng.ExpFloat64() * float64(time.Millisecond))
		k := int32(rng.IntN(4))
		if rng.IntN(40) == 0 {
			k = scenarios.NoKey
		}
		arr = append(arr, scenarios.Arrival{At: now, Clock: now, HasResponse: true, RT: time.Duration(1+rng.IntN(15)) * time.Millisecond,
			Failed: rng.IntN(10) == 0, Cost: 1, Keys: [scenarios.MaxKeyColumns]int32{k, scenarios.NoKey, scenarios.NoKey, scenarios.NoKey}})
	}
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			// The reference: an instance per key, events in clock order as
			// refWithSignals orders them.
			refs := map[int32]algorithms.Completer{}
			type done struct {
				exit time.Duration
				seq  int
				key  int32
				tk   algorithms.Ticket
				oc   algorithms.Outcome
			}
			var open []done
			want := make([]bool, len(arr))
			for i, a := range arr {
				sort.Slice(open, func(x, y int) bool {
					if open[x].exit != open[y].exit {
						return open[x].exit < open[y].exit
					}
					return open[x].seq < open[y].seq
				})
				j := 0
				for j < len(open) && open[j].exit <= a.Clock {
					refs[open[j].key].Complete(open[j].exit, open[j].tk, open[j].oc)
					j++
				}
				open = open[j:]
				key := a.Keys[0]
				if key < 0 {
					want[i] = true
					continue
				}
				c := refs[key]
				if c == nil {
					l, _ := algorithms.New(spec, 0)
					c = l.(algorithms.Completer)
					refs[key] = c
				}
				if c.Check(a.Clock).Pass {
					want[i] = true
					oc := algorithms.Success
					if a.Failed {
						oc = algorithms.Failure
					}
					open = append(open, done{a.Clock + a.RT, i, key, c.Begin(a.Clock, a.Clock), oc})
				}
			}
			lim, err := algorithms.New(spec+",key=key", 0)
			if err != nil {
				lim, err = algorithms.New(spec+":key=key", 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := lim.(algorithms.KeyColumnUser).BindKeyColumns([]int{0}); err != nil {
				t.Fatal(err)
			}
			var rows bytes.Buffer
			cfg := cfgFor(time.Minute)
			cfg.Decisions = func(int) io.Writer { return &rows }
			if _, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{lim}, cfg); err != nil {
				t.Fatal(err)
			}
			got := parseRows(t, rows.String())
			blocked := 0
			for i, w := range want {
				if (got[i].verdict == "pass") != w {
					t.Fatalf("arrival %d (key %d): engine %s, per-key reference pass=%v", i, arr[i].Keys[0], got[i].verdict, w)
				}
				if !w {
					blocked++
				}
			}
			if blocked == 0 && spec != "none" {
				t.Logf("%s: nothing blocked", spec)
			}
		})
	}
}

// The trigger is the downstream's first phase: one that ends within the
// run has an end and a recovery time; one that lasts to the end of the run
// (latency-step's step) has neither, even though the last responses fall
// in bins past the run's end; summary.json says so with trigger_end_ms
// null. A phase that starts after the run is no trigger.
func TestTriggerThatNeverEnds(t *testing.T) {
	ms, s := time.Millisecond, time.Second
	for _, c := range []struct {
		name     string
		from, to time.Duration
		trigger  bool
		ends     bool
		recovers bool
		json     string
	}{
		{"ends within the run", 1 * s, 2 * s, true, true, true, `"trigger": true,
      "trigger_end_ms": 2000`},
		{"lasts to the end", 1 * s, 4 * s, true, false, false, `"trigger": true,
      "trigger_end_ms": null`},
		{"lasts past the end", 1 * s, time.Hour, true, false, false, `"trigger_end_ms": null`},
		{"starts with the run", 0, 2 * s, true, true, true, `"trigger": true,
      "trigger_end_ms": 2000`},
		{"starts after the run", 5 * s, 6 * s, false, false, false, `"trigger": false,
      "trigger_end_ms": null`},
		{"processor sharing, ends within the run", 1 * s, 2 * s, true, true, true, `"trigger_end_ms": 2000`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ts []time.Duration
			for at := time.Duration(0); at < 4*s; at += 5 * ms {
				ts = append(ts, at)
			}
			lim, _ := algorithms.New("none", 0)
			cfg := cfgFor(4 * s)
			cfg.Downstream = &scenarios.Downstream{Servers: 16, Service: 10 * ms,
				Phases: []scenarios.DownstreamPhase{{From: c.from, To: c.to, Service: 40 * ms}}}
			if strings.HasPrefix(c.name, "processor sharing") {
				// A PS downstream's phase (fewer cores) is a trigger too.
				cfg.Downstream = &scenarios.Downstream{Servers: 16, PS: true, Cores: 16, Service: 10 * ms,
					Phases: []scenarios.DownstreamPhase{{From: c.from, To: c.to, Cores: 2}}}
			}
			res, err := Run(context.Background(), &sliceStream{arr: at(ts...)}, []algorithms.Limiter{lim}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Algorithms[0].Chain
			if ch.Trigger != c.trigger || ch.TriggerEnds != c.ends || ch.HasRecovery != c.recovers {
				t.Errorf("trigger %v, ends %v (at %v), recovers %v; want %v %v %v", ch.Trigger, ch.TriggerEnds, ch.TriggerEnd, ch.HasRecovery, c.trigger, c.ends, c.recovers)
			}
			if c.ends && ch.TriggerEnd != c.to {
				t.Errorf("trigger ends at %v, want %v", ch.TriggerEnd, c.to)
			}
			var b bytes.Buffer
			if err := WriteSummaryJSON(&b, res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), c.json) {
				t.Errorf("summary.json lacks %s:\n%s", c.json, b.String())
			}
		})
	}
}

// The run is the span of the traffic: a retry whose backoff ends at or
// after the run's end is not sent, and is counted as dropped; the totals
// then depend on the backoff. concurrency:limit=1 in front of one 10 ms
// server, a run of 50 ms: request 0 passes at 0, request 1 at 1 ms is
// blocked and retries after the backoff (base, then 2·base).
func TestRetriesNotSentAfterTheEnd(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		base                              time.Duration
		arrived, passed, retries, dropped int64
	}{
		{base: 5 * ms, arrived: 4, passed: 2, retries: 2},              // 6 ms blocked, 16 ms passes
		{base: 30 * ms, arrived: 3, passed: 2, retries: 1},             // 31 ms passes
		{base: 49 * ms, arrived: 2, passed: 1, retries: 0, dropped: 1}, // 50 ms: the end
		{base: time.Hour, arrived: 2, passed: 1, retries: 0, dropped: 1},
	} {
		lim, _ := algorithms.New("concurrency:limit=1", 0)
		cfg := cfgFor(50 * ms)
		cl := &scenarios.Clients{Retries: 100, RetryOnReject: true, RetryOnError: true, Backoff: scenarios.Backoff{Base: c.base, Cap: 1000 * time.Hour}}
		cfg.Downstream = &scenarios.Downstream{Servers: 1, Service: 10 * ms, Clients: cl}
		res, err := Run(context.Background(), &sliceStream{arr: at(0, ms)}, []algorithms.Limiter{lim}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		a := res.Algorithms[0]
		ch := a.Chain
		if a.Arrived != c.arrived || a.Passed != c.passed || ch.Retries != c.retries || ch.RetriesDroppedAtEnd != c.dropped {
			t.Errorf("base %v: arrived %d passed %d retries %d dropped %d, want %d %d %d %d", c.base,
				a.Arrived, a.Passed, ch.Retries, ch.RetriesDroppedAtEnd, c.arrived, c.passed, c.retries, c.dropped)
		}
		if res.End != cfg.End {
			t.Errorf("base %v: the run ends at %v, want %v", c.base, res.End, cfg.End)
		}
		for i, b := range a.Bins {
			if from := res.Start + time.Duration(i)*res.Bin; from >= cfg.End && b.Arrived > 0 {
				t.Errorf("base %v: %d arrivals in the bin at %v, after the end", c.base, b.Arrived, from)
			}
		}
	}
}

// A closed user whose retry would come after the end sends nothing more:
// one user, a server that fails everything, retries after an hour. The
// user's first request fails, its retry is dropped, and no next request
// follows within the run.
func TestClosedUserWaitsForItsDroppedRetry(t *testing.T) {
	lim, _ := algorithms.New("none", 0)
	cfg := cfgFor(time.Second)
	cfg.Downstream = &scenarios.Downstream{Servers: 1, Service: 10 * time.Millisecond, Seed: 3,
		Phases: []scenarios.DownstreamPhase{{From: 0, To: time.Hour, Service: 10 * time.Millisecond, Errors: 1}},
		Clients: &scenarios.Clients{Users: 1, Think: time.Microsecond, Retries: 3, RetryOnError: true,
			Backoff: scenarios.Backoff{Base: time.Hour, Cap: time.Hour}}}
	res, err := Run(context.Background(), &sliceStream{}, []algorithms.Limiter{lim}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Algorithms[0]
	if a.Arrived != 1 || a.Chain.Retries != 0 || a.Chain.RetriesDroppedAtEnd != 1 {
		t.Errorf("arrived %d retries %d dropped %d, want 1 0 1", a.Arrived, a.Chain.Retries, a.Chain.RetriesDroppedAtEnd)
	}
}
