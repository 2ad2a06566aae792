package findings

import (
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// ReferenceSpecs are the single limiters compared side by side in
// references: every reference at its defaults (guava-warming-up needs a
// warm-up; it gets Sentinel's default of 10 s).
var ReferenceSpecs = []string{
	"fixed-window", "sliding-log", "sliding-window-counter", "seed-ring", "decaying-window",
	"leap-array", "leap-array:flavor=go",
	"token-bucket", "guava-bursty", "uber",
	"leaky-bucket", "leaky-bucket:flavor=go",
	"warm-up", "warm-up:flavor=go", "guava-warming-up:warm-up=10s",
	"warm-up-rate-limiter", "warm-up-rate-limiter:flavor=go",
}

// references runs every reference on the same three scenarios.
func (g *gen) references() error {
	g.section("Every reference on the same traffic")
	g.p("Question: on the same arrivals, how far apart are the limiters people actually run? Each row is one limiter at its defaults with the scenario's limit (100/s): passes, the busiest 1 s window against the limit, and the 99th percentile of the wait of a pass (limiters that queue). Java and Go Sentinel stand side by side.\n\n")
	var rows [][]string
	var cmds []string
	worst := make([]float64, len(ReferenceSpecs)) // largest overshoot per limiter
	for _, name := range []string{"poisson", "spikes", "cold-start"} {
		sc, err := lookup(name)
		if err != nil {
			return err
		}
		r, err := g.run(sc, ReferenceSpecs, simulator.DefaultBin)
		if err != nil {
			return err
		}
		for i, a := range r.Algorithms {
			worst[i] = max(worst[i], a.Overshoot)
			rows = append(rows, []string{"`" + name + "`", "`" + ReferenceSpecs[i] + "`",
				itoa(a.Arrived), itoa(a.Passed), itoa(a.MaxWindowPassed), x(a.Overshoot), durationText(a.WaitP99.Round(time.Millisecond))})
		}
		cmds = append(cmds, "ratelimit-lab run "+name+" --wide --algo "+strings.Join(ReferenceSpecs, " --algo "))
	}
	g.table([]string{"scenario", "limiter", "arrived", "passed", "max 1 s", "overshoot", "wait p99"}, rows)
	g.cmd(cmds...)
	var held, over []string
	for i, w := range worst {
		switch {
		case w <= 1:
			held = append(held, "`"+ReferenceSpecs[i]+"`")
		case w >= 1.5:
			over = append(over, "`"+ReferenceSpecs[i]+"` ("+x(w)+")")
		}
	}
	g.p("Never above the limit in any 1 s window on these three scenarios: %s. At 1.5× the limit or more somewhere: %s. ", strings.Join(held, ", "), strings.Join(over, ", "))
	g.p("`uber` never refuses: every request waits its turn, so its passes are the arrivals and its waits grow with the backlog. With `tryAcquire` and no timeout, Guava's SmoothWarmingUp warms up far more slowly than Sentinel's WarmUpController on the same overload (the `guava-warming-up` rows): each pass spends one stored permit, but a request that arrives some time after the next free ticket first turns that idle time back into stored permits (`resync`), so the permits drain slowly and the limiter stays in its cold, slow part for most of the run.\n\n")
	return nil
}
