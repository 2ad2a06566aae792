package findings

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// priority measures Sentinel's prioritized entries (occupy-timeout, issue
// 18) on priority-mix: what a prioritized request gains, what the ordinary
// ones lose, and how far the busiest windows go over the limit, against
// the same traffic with priority ignored (occupy-timeout=0s).
func (g *gen) priority() error {
	g.section("Prioritized requests borrow from the next window")
	g.p("Claim (seeds 001 §6.2 and 003): a prioritized entry (`SphU.entryWithPriority`) that the window would block waits for a future bucket, within the occupy timeout (500 ms), and is counted there in advance, so priority costs the next window's ordinary traffic. `priority-mix` sends evenly spaced traffic at 1.5 times the limit (100/s), 30%% of it prioritized (seeded), through leap-array with occupy-timeout (the default) and with `occupy-timeout=0s`, which treats every request alike: the same traffic without priority. \"Borrowed\" counts the prioritized passes that waited for a future bucket (`waited_for_next_window`); \"busiest second\" is the most passes in a fixed second [k s, k+1 s); \"max 1 s window\" the most in any sliding second.\n\n")
	sc, err := lookup("priority-mix")
	if err != nil {
		return err
	}
	r, err := g.run(sc, nil, simulator.DefaultBin)
	if err != nil {
		return err
	}
	var rows [][]string
	type fig struct {
		prio, ord, max float64
		busiest        int64
	}
	figs := map[string]fig{}
	for i := range r.Algorithms {
		a := &r.Algorithms[i]
		p := a.Priority
		if p == nil {
			return fmt.Errorf("%s: no prioritized arrivals in priority-mix", a.Spec)
		}
		busiest := busiestSecond(r, a)
		wait := "-"
		if p.WaitedForNextWindow > 0 {
			wait = fmt.Sprintf("%s / %s / %s", durationText(p.WaitP50), durationText(p.WaitP99), durationText(p.WaitMax))
		}
		rows = append(rows, []string{"`" + sc.Algorithms[i] + "`",
			fmt.Sprintf("%d of %d (%.1f%%)", p.Passed, p.Arrived, pctOf(p.Passed, p.Arrived)),
			fmt.Sprintf("%d of %d (%.1f%%)", p.OrdinaryPassed, p.OrdinaryArrived, pctOf(p.OrdinaryPassed, p.OrdinaryArrived)),
			itoa(p.WaitedForNextWindow), wait, itoa(busiest),
			itoa(a.MaxWindowPassed), x(a.Overshoot), x(a.SmoothBound)})
		figs[sc.Algorithms[i]] = fig{pctOf(p.Passed, p.Arrived), pctOf(p.OrdinaryPassed, p.OrdinaryArrived), a.Overshoot, busiest}
	}
	g.table([]string{"limiter", "prioritized passed", "ordinary passed", "borrowed", "wait p50 / p99 / max", "busiest second", "max 1 s window", "overshoot", "1 + 1/N"}, rows)
	g.cmd("ratelimit-lab run priority-mix")
	on, off := figs["leap-array:sample-count=2"], figs["leap-array:sample-count=2,occupy-timeout=0s"]
	on10, off10 := figs["leap-array:sample-count=10"], figs["leap-array:sample-count=10,occupy-timeout=0s"]
	g.p("Verdict: priority works as the seeds say and costs what they say. With 2 buckets the prioritized requests pass %.1f%% of the time instead of %.1f%%, and the ordinary ones %.1f%% instead of %.1f%%: each borrowed pass is counted in the bucket it waited for, ahead of that bucket's ordinary traffic. It also goes over the limit: tryOccupyNext checks the borrow against the window as it will be once the oldest bucket leaves, but the current bucket goes on admitting ordinary requests until it ends (its window still holds the bucket that is leaving), so when the borrowed bucket starts the window can hold more than the limit. The busiest sliding second reaches %s of the limit (%s without priority; %s and %s with 10 buckets).\n\n",
		on.prio, off.prio, on.ord, off.ord, x(on.max), x(off.max), x(on10.max), x(off10.max))
	if err := g.priorityShares(sc); err != nil {
		return err
	}
	g.p("Only leap-array (Java flavor, QPS grade: DefaultController) borrows. Sentinel's warm-up and throttling controllers take the prioritized flag and ignore it, and sentinel-golang (`flavor=go`) has no prioritized entries.\n\n")
	return nil
}

func pctOf(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// busiestSecond is the most passes admitted in a fixed second of true
// time [k s, (k+1) s), from the bins (whose width divides a second).
func busiestSecond(r *simulator.Result, a *simulator.AlgoResult) int64 {
	per := map[int64]int64{}
	var best int64
	for i, b := range a.Bins {
		s := int64((r.Start + time.Duration(i)*r.Bin) / time.Second)
		per[s] += b.Passed
		best = max(best, per[s])
	}
	return best
}

// priorityShares reruns priority-mix's traffic with other prioritized
// shares: how the picture changes as more of the traffic is prioritized.
func (g *gen) priorityShares(sc scenarios.Scenario) error {
	g.p("The same traffic with other prioritized shares (the same seeded draw decides which arrivals are prioritized; from Go, `scenarios.Lookup(\"priority-mix\")` with `PriorityShare` set), leap-array with the default occupy timeout:\n\n")
	specs := []string{"leap-array:sample-count=2", "leap-array:sample-count=10"}
	var rows [][]string
	shares := []float64{0.1, 0.3, 0.5, 1}
	over := make([][]float64, len(specs)) // overshoot per spec per share
	bound := make([]float64, len(specs))
	for _, share := range shares {
		s := sc
		s.PriorityShare = share
		r, err := g.run(s, specs, simulator.DefaultBin)
		if err != nil {
			return err
		}
		for i := range r.Algorithms {
			a := &r.Algorithms[i]
			p := a.Priority
			ord := "-"
			if p.OrdinaryArrived > 0 {
				ord = fmt.Sprintf("%.1f%%", pctOf(p.OrdinaryPassed, p.OrdinaryArrived))
			}
			over[i] = append(over[i], a.Overshoot)
			bound[i] = a.SmoothBound
			rows = append(rows, []string{fmt.Sprintf("%.0f%%", 100*share), "`" + specs[i] + "`",
				fmt.Sprintf("%.1f%%", pctOf(p.Passed, p.Arrived)), ord, itoa(p.WaitedForNextWindow),
				itoa(a.Passed), itoa(a.MaxWindowPassed), x(a.Overshoot), x(a.SmoothBound)})
		}
	}
	g.table([]string{"prioritized share", "limiter", "prioritized passed", "ordinary passed", "borrowed", "passed", "max 1 s window", "overshoot", "1 + 1/N"}, rows)
	g.p("\nWithout priority both arrays hold this evenly spaced traffic to the limit exactly (1.000×, above). The more of it is prioritized, the further the busiest sliding second goes over:")
	beyond := false
	for i, s := range specs {
		mx := 0.0
		for _, o := range over[i] {
			mx = max(mx, o)
		}
		rel := "within"
		if mx > bound[i]+1e-9 {
			rel, beyond = "beyond", true
		}
		sep := ";"
		if i == len(specs)-1 {
			sep = "."
		}
		g.p(" `%s` from %s at %.0f%% to %s at most, %s its 1 + 1/N of %s%s", s, x(over[i][0]), 100*shares[0], x(mx), rel, x(bound[i]), sep)
	}
	if beyond {
		g.p(" So 1 + 1/N, the figure for smooth traffic, is no bound once requests borrow.\n\n")
	} else {
		g.p(" Both stay within their 1 + 1/N here.\n\n")
	}
	return nil
}
