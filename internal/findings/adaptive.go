package findings

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// adaptive measures the adaptive scenarios (issue 16): for each, every
// algorithm's goodput, timeouts, latency, retry amplification and the
// recovery after the downstream's phase; then the retry storm under each
// backoff jitter, with nothing in front and with a concurrency limit.
func (g *gen) adaptive() error {
	g.section("Adaptive protection on a closed loop: goodput, latency and recovery")
	g.p("Each adaptive scenario runs every algorithm in front of its own copy of the modelled downstream " +
		"(FIFO servers; the caller gives up at the timeout but the server keeps serving) and, for retry-storm, " +
		"of the clients' retries. Goodput counts responses without error or timeout; recovery is the time from " +
		"the end of the downstream's phase until goodput over one second is back within ±10%% of its mean before " +
		"the phase, an overshoot above 110%% not yet counting as back (the exact rule: [outputs.md](outputs.md)) (\"never\" if it does not come back within the run; \"-\" when there is nothing to recover from: no phase, " +
		"or a phase that lasts to the end of the run, as latency-step's step does).\n")
	for _, name := range scenarios.AdaptiveScenarioNames {
		sc, err := lookup(name)
		if err != nil {
			return err
		}
		r, _, err := g.runWith(sc, sc.Algorithms, false)
		if err != nil {
			return err
		}
		g.p("\n### %s\n\n%s.\n", name, sc.Description)
		g.cmd("ratelimit-lab run " + name)
		g.adaptiveTable(r)
		g.adaptiveReading(name, r)
	}
	g.p("\n### retry-storm by backoff\n\nThe retry storm's clients with each jitter of the AWS backoff simulator " +
		"(base 100 ms, cap 2 s): nothing in front against a concurrency limit of 16.\n\n")
	sc, err := lookup("retry-storm")
	if err != nil {
		return err
	}
	var rows [][]string
	for _, j := range []scenarios.Jitter{scenarios.JitterNone, scenarios.JitterFull, scenarios.JitterEqual, scenarios.JitterDecorrelated} {
		s := sc
		ds := *sc.Downstream
		cl := *ds.Clients
		cl.Backoff.Jitter = j
		ds.Clients = &cl
		s.Downstream = &ds
		r, _, err := g.runWith(s, []string{"none", "concurrency:limit=16"}, false)
		if err != nil {
			return err
		}
		for _, a := range r.Algorithms {
			c := a.Chain
			rows = append(rows, []string{j.String(), a.Spec, itoa(c.Goodput), attempts(c), recovery(c)})
		}
	}
	g.table([]string{"jitter", "algorithm", "goodput", "attempts/request", "recovery"}, rows)
	g.p("\nWith nothing in front, every jitter leaves the service saturated after the slowdown: the callers' " +
		"timeouts and retries keep more work queued than the servers clear (abandoned work keeps running). " +
		"A concurrency limit sheds the excess at once, so the queue never outlives the slowdown.\n")
	return nil
}

func attempts(c *simulator.ChainResult) string {
	if c.Requests == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(c.Requests+c.Retries)/float64(c.Requests))
}

func recovery(c *simulator.ChainResult) string {
	switch {
	case !c.Trigger, !c.TriggerEnds:
		return "-" // no phase, or one that never ends: nothing to recover from
	case !c.HasRecovery:
		return "never"
	}
	return msOf(c.Recovery.Round(time.Millisecond)) + " ms"
}

func (g *gen) adaptiveTable(r *simulator.Result) {
	var rows [][]string
	for _, a := range r.Algorithms {
		c := a.Chain
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Passed), itoa(c.Goodput), itoa(c.Timeouts),
			msOf(c.RTP50.Round(time.Microsecond)), msOf(c.RTP99.Round(time.Microsecond)), attempts(c), recovery(c)})
	}
	g.table([]string{"algorithm", "passed", "goodput", "timeouts", "rt p50 ms", "rt p99 ms", "attempts/request", "recovery"}, rows)
}

// passRate is the share of arrivals passed in [from, to) (true time).
func passRate(r *simulator.Result, a *simulator.AlgoResult, from, to time.Duration) float64 {
	var arr, pass int64
	for i, b := range a.Bins {
		t := r.Start + time.Duration(i)*r.Bin
		if t >= from && t < to {
			arr += b.Arrived
			pass += b.Passed
		}
	}
	if arr == 0 {
		return 0
	}
	return float64(pass) / float64(arr)
}

// goodIn is the goodput per second over [from, to).
func goodIn(r *simulator.Result, a *simulator.AlgoResult, from, to time.Duration) float64 {
	var g int64
	for i, b := range a.Bins {
		t := r.Start + time.Duration(i)*r.Bin
		if t >= from && t < to {
			g += b.Completed - b.Errors
		}
	}
	return float64(g) / (to - from).Seconds()
}

func find(r *simulator.Result, prefix string) *simulator.AlgoResult {
	for i := range r.Algorithms {
		if len(r.Algorithms[i].Spec) >= len(prefix) && r.Algorithms[i].Spec[:len(prefix)] == prefix {
			return &r.Algorithms[i]
		}
	}
	return nil
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// adaptiveReading states what the table shows, from the run's own numbers.
func (g *gen) adaptiveReading(name string, r *simulator.Result) {
	s := time.Second
	switch name {
	case "latency-step":
		var parts []string
		seen := map[string]int{}
		for _, a := range r.Algorithms {
			seen[a.Name]++
		}
		for _, a := range r.Algorithms {
			label := a.Name
			if seen[a.Name] > 1 { // two rows of one kind: their specs tell them apart
				label = a.Spec
			}
			parts = append(parts, fmt.Sprintf("`%s` %s → %s", label, pct(passRate(r, &a, 0, 10*s)), pct(passRate(r, &a, 20*s, 40*s))))
		}
		g.p("\nShare of arrivals passed before the step (0–10 s) and after it settles (20–40 s): %s. "+
			"The service has capacity to spare throughout, so every block is a limiter misreading a longer RT as overload. "+
			"The step does not end (it lasts to the end of the run), so there is no recovery to time: the recovery column reads \"-\".\n", join(parts))
		for i := range r.Algorithms {
			if r.Algorithms[i].Name == "gradient2" {
				g.gradient2Step(r, &r.Algorithms[i], 10*s)
			}
		}
	case "overload-ramp":
		var parts []string
		for _, a := range r.Algorithms {
			parts = append(parts, fmt.Sprintf("`%s` %.0f/s", a.Name, goodIn(r, &a, 30*s, 40*s)))
		}
		g.p("\nGoodput over the last 10 s (offered 650–800/s, past the knee of the contention curve): %s.\n", join(parts))
	case "cpu-slowdown", "io-slowdown":
		var parts []string
		for _, a := range r.Algorithms {
			parts = append(parts, fmt.Sprintf("`%s` %s", a.Spec, itoa(a.Blocked)))
		}
		g.p("\nBlocked requests: %s.\n", join(parts))
	case "retry-storm":
		n, c := find(r, "none"), find(r, "concurrency")
		if n != nil && c != nil {
			g.p("\nGoodput over the last 30 s (30–60 s, long after the slowdown ended at 20 s): `none` %.0f/s at %s attempts per request, "+
				"`concurrency:limit=16` %.0f/s: the unprotected service stays in the storm it entered, the protected one is back at the offered 320/s.\n",
				goodIn(r, n, 30*s, 60*s), attempts(n.Chain), goodIn(r, c, 30*s, 60*s))
		}
	case "envoy-min-rtt":
		var parts []string
		for _, a := range r.Algorithms {
			parts = append(parts, fmt.Sprintf("`%s` %s", a.Spec, itoa(a.Blocked)))
		}
		g.p("\nBlocked requests (each minRTT window holds the limit at min-concurrency until request-count samples are in): %s.\n", join(parts))
	}
}

// gradient2Step says what Gradient2's limit does at the latency step at
// step, from the run's series: its limit before the step, its lowest and
// highest after it, and the calls in flight that decide whether
// Gradient2Limit updates at all (it leaves the limit alone while in flight
// < limit/2: app-limited).
func (g *gen) gradient2Step(r *simulator.Result, a *simulator.AlgoResult, step time.Duration) {
	s := time.Second
	var before, last float64
	var loAt time.Duration
	lo, hi := math.Inf(1), math.Inf(-1)
	var inB, inA, nB, nA float64
	for i, b := range a.Bins {
		t := r.Start + time.Duration(i)*r.Bin
		if math.IsNaN(b.Limit) || (b.Limit == 0 && b.InFlight == 0) {
			continue
		}
		switch {
		case t < step:
			before = b.Limit
			if t >= step-5*s {
				inB += float64(b.InFlight)
				nB++
			}
		default:
			if b.Limit < lo {
				lo, loAt = b.Limit, t
			}
			hi, last = math.Max(hi, b.Limit), b.Limit
			if t >= step+5*s {
				inA += float64(b.InFlight)
				nA++
			}
		}
	}
	if nB == 0 || nA == 0 {
		return
	}
	inB, inA = inB/nB, inA/nA
	floorV := math.NaN()
	if l, err := lab.NewLimiter(a.Spec, 0); err == nil {
		if p := specParam(l.Spec(), "min"); p != "" {
			floorV, _ = strconv.ParseFloat(p, 64)
		}
	}
	what := "a rise, not a dip"
	switch {
	case lo < before && hi > before:
		what = "a dip, then a rise"
	case lo < before:
		what = "a dip"
	case hi == before:
		what = "no change"
	}
	g.p("\n`%s`: its limit (series.csv's limit column) is %s before the step; after it, its lowest is %s (in the bin at %s s), its highest %s and its last %s: %s.",
		a.Spec, num(before), num(lo), num(loAt.Seconds()), num(hi), num(last), what)
	if before == floorV {
		g.p(" It starts at its floor (initial = min = %s), so it cannot dip below it.", num(floorV))
	}
	g.p(" The calls in flight (at each bin's last arrival) average %.1f over 5–10 s and %.1f over 15–40 s", inB, inA)
	if inB < before/2 {
		g.p("; before the step that is under half its limit, and Gradient2Limit leaves the limit alone while in flight < limit/2 (app-limited)")
	}
	if lo < before {
		g.p("; right after the step its gradient (tolerance · long RTT / RTT) is below 1 until the long RTT catches up, " +
			"so its updates lower the limit where limit · gradient + queue-size is below the limit")
	}
	g.p(". Once it updates, its gradient is 1 as soon as its long RTT (an average over long-window samples) passes the new RTT divided by " +
		"the tolerance, and each such update adds queue-size: the limit grows while bursts keep in flight at half of it or more.\n")
}

// specParam is the value of key in a canonical spec, or "".
func specParam(s, key string) string {
	v, _ := spec.Split(s).Stages[0].Get(key)
	return v
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += "; "
		}
		out += p
	}
	return out
}
