package findings

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// StallingDownstreamFile is the scenario of the HALF_OPEN claim: calls
// that take 2.5 s for 10 s, longer than the 1 s recovery.
const StallingDownstreamFile = "internal/findings/testdata/stalling-downstream.yaml"

// FailingDownstreamFile is the scenario of the breaker claims: Poisson
// arrivals at the limit into a downstream that fails every call.
const FailingDownstreamFile = "internal/findings/testdata/failing-downstream.yaml"

// runWith replays sc (with its downstream) through specs, as `ratelimit-lab
// run` does, and returns the result and, if rows, decisions.csv's rows.
func (g *gen) runWith(sc scenarios.Scenario, specs []string, rows bool) (*simulator.Result, string, error) {
	var buf bytes.Buffer
	var dec io.Writer
	if rows {
		dec = &buf
	}
	r, err := g.replay(sc, specs, simulator.DefaultBin, simulator.DefaultWindow, dec)
	if err != nil {
		return nil, "", err
	}
	return r.Result, buf.String(), nil
}

// interval is a span of the limiters' clock in one breaker state.
type interval struct {
	from, to time.Duration
	state    algorithms.BreakerState
}

// states turns transitions into the spans of each state up to end.
func states(ts []simulator.Transition, end time.Duration) []interval {
	var out []interval
	state, since := algorithms.Closed, time.Duration(-1<<62)
	for _, t := range ts {
		out = append(out, interval{since, t.Clock, state})
		state, since = t.To, t.Clock
	}
	return append(out, interval{since, end, state})
}

// halfOpenCounts counts the passes and the blocks of arrivals while the
// breaker was HALF_OPEN, from decisions.csv rows (t_ns is the clock).
func halfOpenCounts(rows string, spans []interval) (passes, blocks int64) {
	sc := bufio.NewScanner(strings.NewReader(rows))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		f = f[len(f)-8 : len(f)-1] // the seven fields after the spec, before priority
		t, _ := strconv.ParseInt(f[1], 10, 64)
		at := time.Duration(t)
		for _, s := range spans {
			// A probe arrives at the instant the state becomes HALF_OPEN.
			if s.state == algorithms.HalfOpen && at >= s.from && at < s.to {
				if f[2] == "pass" {
					passes++
				} else {
					blocks++
				}
				break
			}
		}
	}
	return passes, blocks
}

// (g) One probe, and how long OPEN lasts.
func (g *gen) breakerProbe() error {
	g.section("One probe, and \"10 s in OPEN\"")
	g.p("Claim (seed 004): after the recovery time (10 s in its example) the OPEN breaker becomes HALF_OPEN and lets exactly one probe through; everything else is blocked until the probe answers. `%s` sends Poisson arrivals at the limit into a downstream whose every call fails (20 ms each), through `circuit-breaker:strategy=error-count,threshold=0,min-requests=1,recovery=10s`; `--limit` sets the traffic.\n\n", FailingDownstreamFile)
	base, err := scenarios.LoadFile(filepath.Join(g.root, FailingDownstreamFile))
	if err != nil {
		return err
	}
	var rows [][]string
	var cmds []string
	onePerCycle, longer := true, true
	var lowOpen float64
	for _, rate := range []float64{100, 10, 1, 0.2} {
		sc, err := scaled(base, rate)
		if err != nil {
			return err
		}
		r, dec, err := g.runWith(sc, sc.Algorithms, true)
		if err != nil {
			return err
		}
		a := r.Algorithms[0]
		c := a.Chain
		var openSum time.Duration
		var cycles int64
		var openedAt time.Duration
		for _, t := range c.Transitions {
			switch t.To {
			case algorithms.Open:
				openedAt = t.Clock
			case algorithms.HalfOpen:
				openSum += t.Clock - openedAt
				cycles++
			}
		}
		hoPass, hoBlock := halfOpenCounts(dec, states(c.Transitions, r.End))
		meanOpen := 0.0
		if cycles > 0 {
			meanOpen = (openSum / time.Duration(cycles)).Seconds()
		}
		if hoPass != c.Probes {
			onePerCycle = false
		}
		if rate == 0.2 {
			lowOpen = meanOpen
		}
		if cycles == 0 || meanOpen < 10 {
			longer = false
		}
		rows = append(rows, []string{num(rate) + "/s", itoa(a.Arrived), itoa(a.Passed), itoa(c.Opens), itoa(c.Probes),
			itoa(hoPass), itoa(hoBlock), strconv.FormatFloat(meanOpen, 'f', 3, 64) + " s"})
		cmds = append(cmds, fmt.Sprintf("ratelimit-lab run %s --limit %s --decisions --chart none", FailingDownstreamFile, num(rate)))
	}
	g.table([]string{"traffic", "arrived", "passed", "opens", "probes", "passes while HALF_OPEN", "blocks while HALF_OPEN", "mean OPEN → HALF_OPEN"}, rows)
	g.cmd(cmds...)
	if onePerCycle && longer {
		g.p("Verdict: one probe is true: every HALF_OPEN lets exactly one request through (passes while HALF_OPEN = probes; the other passes came before the first call failed) and blocks the rest until the probe's failure reopens the breaker. \"10 s in OPEN\" is a minimum: OPEN ends only when a request arrives at or after opening + 10 s, so at 0.2/s it lasts %.1f s on average (10 s plus the wait for the next arrival).\n\n", lowOpen)
	} else {
		g.p("Verdict: not reproduced as stated; see the table.\n\n")
	}
	return nil
}

// (h) Any completion during HALF_OPEN decides.
func (g *gen) breakerHalfOpen() error {
	g.section("\"Back to CLOSED when the probe succeeds\"")
	g.p("Claim (seed 004): in HALF_OPEN the probe decides: CLOSED if it succeeds fast, OPEN again if it fails or is slow. In Sentinel 1.8 the next completion of *any* admitted request decides, whether it is the probe or a call admitted before the breaker opened and still in flight. `%s`: 50 calls/s into a downstream whose calls take 2.5 s from 10 s to 20 s (20 ms otherwise), longer than the breaker's 1 s recovery:\n\n", StallingDownstreamFile)
	sc, err := scenarios.LoadFile(filepath.Join(g.root, StallingDownstreamFile))
	if err != nil {
		return err
	}
	r, _, err := g.runWith(sc, sc.Algorithms, false)
	if err != nil {
		return err
	}
	var rows [][]string
	var older int64
	for _, a := range r.Algorithms {
		c := a.Chain
		var byProbe, byOlder, olderClosed, olderOpened int64
		var probe int64 = -1
		for _, t := range c.Transitions {
			switch {
			case t.To == algorithms.HalfOpen:
				probe = t.Seq
			case t.From == algorithms.HalfOpen && t.Seq == probe:
				byProbe++
			case t.From == algorithms.HalfOpen:
				byOlder++
				if t.To == algorithms.Closed {
					olderClosed++
				} else {
					olderOpened++
				}
			}
		}
		if older == 0 {
			older = byOlder // the first row's count, for the verdict
		}
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(c.Probes), itoa(byProbe), itoa(byOlder), itoa(olderClosed), itoa(olderOpened)})
	}
	g.table([]string{"chain", "probes", "HALF_OPEN decided by the probe", "decided by another call", "of which closed", "of which reopened"}, rows)
	g.cmd("ratelimit-lab run " + StallingDownstreamFile)
	if older > 0 {
		g.p("Verdict: only half true. In the first row %d HALF_OPENs were decided not by their probe but by an older call still in flight (admitted before the breaker opened, or an earlier probe): a slow old call reopens the breaker whatever the probe would have said, and the probe's own answer then lands in OPEN or CLOSED and decides nothing. With calls shorter than the recovery (as in `slow-downstream`, whose 1 s timeout caps them) the probe always decides.\n\n", older)
	} else {
		g.p("Verdict: on this run every HALF_OPEN was decided by its probe; no older call was still in flight.\n\n")
	}
	return nil
}

// (i) minRequestAmount at low traffic.
func (g *gen) breakerMinRequests() error {
	g.section("What minRequestAmount does at low traffic")
	g.p("Claim (seed 004): the breaker opens when the slow (or error) ratio in the statistics window exceeds the threshold and the window holds at least the minimum number of requests. The window is one bucket of `stat-interval` aligned on the clock, so at low traffic it rarely holds `min-requests` calls. Every call fails here (`%s`), breaker `error-ratio` 0.5 with the defaults (min-requests 5, stat-interval 1 s) and with stat-interval 10 s:\n\n", FailingDownstreamFile)
	base, err := scenarios.LoadFile(filepath.Join(g.root, FailingDownstreamFile))
	if err != nil {
		return err
	}
	specs := []string{
		"circuit-breaker:strategy=error-ratio,threshold=0.5",
		"circuit-breaker:strategy=error-ratio,threshold=0.5,stat-interval=10s",
	}
	var rows [][]string
	var cmds []string
	var lowOpens, lowErrs int64 = -1, 0
	for _, rate := range []float64{1, 2, 4, 8} {
		sc, err := scaled(base, rate)
		if err != nil {
			return err
		}
		r, _, err := g.runWith(sc, specs, false)
		if err != nil {
			return err
		}
		row := []string{num(rate) + "/s", itoa(r.Algorithms[0].Arrived)}
		for i, a := range r.Algorithms {
			row = append(row, itoa(a.Chain.Opens), itoa(a.Chain.Errors))
			if rate == 1 && i == 0 {
				lowOpens, lowErrs = a.Chain.Opens, a.Chain.Errors
			}
		}
		rows = append(rows, row)
		cmds = append(cmds, fmt.Sprintf("ratelimit-lab run %s --limit %s --algo %s --algo %s --chart none", FailingDownstreamFile, num(rate), specs[0], specs[1]))
	}
	g.table([]string{"traffic", "arrived", "opens (1 s)", "errors let through (1 s)", "opens (10 s)", "errors let through (10 s)"}, rows)
	g.cmd(cmds...)
	g.p("Verdict: the gate is per bucket, not per sliding window: with a 1 s interval and 1 call/s on average the bucket almost never holds 5 completions, so a downstream that fails every call opened the breaker %d times and %d failed calls went through in 300 s. A longer stat-interval gathers enough calls at low traffic; at higher traffic the defaults open at once.\n\n", lowOpens, lowErrs)
	return nil
}

// (j) A queueing limiter's wait is part of the breaker's RT.
func (g *gen) breakerQueueWait() error {
	g.section("A queueing limiter in front of a slow-ratio breaker")
	g.p("Not a claim of the seeds, but a consequence of the slot chain they describe: Sentinel measures RT from the entry's creation, before FlowSlot, so the time a request waits in a queueing flow rule (throttling) counts as response time for DegradeSlot. `poisson` (150/s against a limit of 100/s), with no downstream at all (every pass returns at once):\n\n")
	sc, err := lookup("poisson")
	if err != nil {
		return err
	}
	const cb = "circuit-breaker:strategy=slow-ratio,max-rt=200ms,threshold=0.5,recovery=1s"
	specs := []string{"leap-array+" + cb, "leaky-bucket+" + cb, "leaky-bucket:max-queue=200ms+" + cb}
	r, _, err := g.runWith(sc, specs, false)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, a := range r.Algorithms {
		c := a.Chain
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Passed), itoa(c.Opens),
			strconv.FormatFloat(100*float64(c.OpenTime)/float64(r.End-r.Start), 'f', 1, 64) + "%", msOf(a.WaitP99)})
	}
	g.table([]string{"chain", "passed", "breaker opens", "time OPEN", "wait p99"}, rows)
	g.cmd("ratelimit-lab run poisson --algo " + specs[0] + " --algo " + specs[1] + " --algo " + specs[2])
	lb, lbq := r.Algorithms[1], r.Algorithms[2]
	g.p("Verdict: with the default 500 ms queue the leaky bucket's own waits exceed max-rt, so the breaker opens %d times and stays OPEN %.0f%% of the run although nothing downstream is slow; a queue no longer than max-rt (%d opens) or a rejecting limiter (%d) leaves it closed. Keep max-queue at most max-rt, or expect the breaker to trip on the limiter's queue.\n\n",
		lb.Chain.Opens, 100*float64(lb.Chain.OpenTime)/float64(r.End-r.Start), lbq.Chain.Opens, r.Algorithms[0].Chain.Opens)
	return nil
}

// scaled is the scenario as `run --limit rate` replays it: the traffic
// and the downstream's servers scaled together (lab's --limit), so that
// the commands the page prints give its numbers.
func scaled(base scenarios.Scenario, rate float64) (scenarios.Scenario, error) {
	sc, err := base.WithCapacity(rate / base.Limit)
	if err != nil {
		return sc, err
	}
	return sc.WithLimit(rate), nil
}
