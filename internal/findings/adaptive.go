package findings

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
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
		"the end of the downstream's phase until goodput over one second is back within 10%% of its mean before " +
		"the phase (\"never\" if it does not come back within the run).\n")
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
	case !c.Trigger:
		return "-"
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
