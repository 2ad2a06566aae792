package findings

import (
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// FlavorKinds are the limiters with a flavor=go (sentinel-golang) twin.
var FlavorKinds = []string{"leap-array", "leaky-bucket", "warm-up", "warm-up-rate-limiter"}

// flavorDiff counts how two limiters' decisions differ on one stream.
type flavorDiff struct {
	arrivals, passDiffer, waitDiffer int64
	maxWaitDelta                     time.Duration
}

// flavors compares Java Sentinel with sentinel-golang on the same traffic.
func (g *gen) flavors() error {
	g.section("Java Sentinel against sentinel-golang (flavor=go)")
	g.p("Question: on the same traffic, how far apart are Alibaba Sentinel 1.8 (Java, the default flavor) and sentinel-golang (`flavor=go`) with the same rule? The four rules with their default parameters (interval 1 s); \"pass differs\" counts the arrivals one flavor passes and the other blocks, \"wait differs\" the arrivals both pass after different waits.\n\n")
	var rows [][]string
	var cmds []string
	var maxGap int64
	var passDiffer, waitDiffer int64
	var maxDelta time.Duration
	rejectSame := true
	for _, name := range []string{"poisson", "spikes", "cold-start"} {
		sc, err := lookup(name)
		if err != nil {
			return err
		}
		var specs []string
		for _, k := range FlavorKinds {
			specs = append(specs, k, k+":flavor=go")
		}
		r, err := g.run(sc, specs, simulator.DefaultBin)
		if err != nil {
			return err
		}
		for i, k := range FlavorKinds {
			j, o := r.Algorithms[2*i], r.Algorithms[2*i+1]
			d, err := differingDecisions(sc, k, k+":flavor=go")
			if err != nil {
				return err
			}
			maxGap = max(maxGap, j.Passed-o.Passed, o.Passed-j.Passed)
			if k == "leap-array" || k == "warm-up" {
				rejectSame = rejectSame && d.passDiffer == 0 && d.waitDiffer == 0
			}
			passDiffer += d.passDiffer
			waitDiffer += d.waitDiffer
			maxDelta = max(maxDelta, d.maxWaitDelta)
			rows = append(rows, []string{"`" + name + "`", "`" + k + "`",
				itoa(j.Passed), itoa(j.MaxWindowPassed), x(j.Overshoot),
				itoa(o.Passed), itoa(o.MaxWindowPassed), x(o.Overshoot),
				itoa(d.passDiffer), itoa(d.waitDiffer), durationText(d.maxWaitDelta)})
		}
		cmds = append(cmds, "ratelimit-lab run "+name+" --algo "+strings.Join(specs, " --algo "))
	}
	g.table([]string{"scenario", "limiter", "Java passed", "Java max 1 s", "Java overshoot",
		"Go passed", "Go max 1 s", "Go overshoot", "pass differs", "wait differs", "largest wait gap"}, rows)
	g.cmd(cmds...)
	g.p("Over the %d runs the totals agree to within %d passes, but not request by request: %d arrivals are passed by one flavor and blocked by the other, and %d pass in both after different waits (at most %s apart). ",
		len(rows), maxGap, passDiffer, waitDiffer, durationText(maxDelta))
	if rejectSame {
		g.p("The reject rules (`leap-array`, `warm-up`) decide identically here: with a 1 s interval a count per interval is a count per second, and these scenarios do not step the clock. ")
	} else {
		g.p("Even the reject rules (`leap-array`, `warm-up`) decide differently on some arrivals. ")
	}
	g.p("The throttling rules start apart by sub-millisecond waits, since Java paces on a millisecond clock (the arrival floored to the ms, a cost of round(1000/rate) ms) and sentinel-golang in nanoseconds; once a request at the edge of `max-queue` passes in one flavor and is blocked in the other, their queues stay a cost apart and they admit different requests at the same rate. Java's overshoot of 1.010× on them comes from that flooring ([leaky-bucket](algorithms.md#leaky-bucket-sentinels-throttling)).\n\n")

	// The threshold per stat interval: the same spec with a 500 ms interval.
	sc, err := lookup("poisson")
	if err != nil {
		return err
	}
	specs := []string{"leap-array:interval=500ms", "leap-array:interval=500ms,flavor=go"}
	r, err := g.run(sc, specs, simulator.DefaultBin)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for _, a := range r.Algorithms {
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Arrived), itoa(a.Passed), itoa(a.MaxWindowPassed), num(a.Rate) + "/s"})
	}
	g.p("With an interval other than 1 s the two read the same `limit` differently: Java as a QPS, sentinel-golang as the count of one interval.\n\n")
	g.table([]string{"limiter on `poisson`", "arrived", "passed", "max 1 s window", "limit as a rate"}, rows)
	g.cmd("ratelimit-lab run poisson --algo " + strings.Join(specs, " --algo "))
	ratio := float64(r.Algorithms[1].Passed) / float64(r.Algorithms[0].Passed)
	g.p("Verdict: with the default 1 s interval the flavors admit as many requests to within %d per run, the throttling rules not the same ones; with `interval=500ms` the same spec lets %s as many requests through sentinel-golang as through Java. The traces on which they part are in [docs/algorithms.md](algorithms.md#sentinel-golang-flavorgo).\n\n",
		maxGap, x(ratio))
	return nil
}

func durationText(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// differingDecisions replays sc through a and b side by side.
func differingDecisions(sc scenarios.Scenario, a, b string) (flavorDiff, error) {
	var f flavorDiff
	la, err := lab.NewLimiter(a, sc.Limit)
	if err != nil {
		return f, err
	}
	lb, err := lab.NewLimiter(b, sc.Limit)
	if err != nil {
		return f, err
	}
	st, err := sc.Stream()
	if err != nil {
		return f, err
	}
	defer st.Close()
	for {
		arr, ok := st.Next()
		if !ok {
			break
		}
		f.arrivals++
		da, db := la.Decide(arr.Clock), lb.Decide(arr.Clock)
		switch {
		case da.Pass != db.Pass:
			f.passDiffer++
		case da.Wait != db.Wait:
			f.waitDiffer++
			f.maxWaitDelta = max(f.maxWaitDelta, da.Wait-db.Wait, db.Wait-da.Wait)
		}
	}
	return f, st.Err()
}
