package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// breakerNote explains breakers that never opened in a run without a
// downstream. Where the responses come from decides what it says: a trace
// with recorded responses (rt_ms, error) gets, per breaker, how slow and how
// failed its calls were against the breaker's thresholds; a run with neither
// a downstream nor recorded responses has no failed call, and a call is
// slow only by its wait in a limiter's queue, so an error breaker has
// nothing to count.
func breakerNote(res *simulator.Result, ds *scenarios.Downstream, cols scenarios.Columns) string {
	if ds != nil || !simulator.HasBreakers(res) {
		return ""
	}
	for _, a := range res.Algorithms {
		if a.Chain != nil && a.Chain.Opens > 0 {
			return ""
		}
	}
	if !cols.Response {
		return "no circuit-breaker opened: this run has no downstream, so no call fails and a call is slow only " +
			"by its wait in a queue; use a scenario with one (slow-downstream, flapping) or add a downstream: block to a scenario file"
	}
	from := "rt_ms"
	if cols.Error {
		from = "rt_ms, error"
	}
	labels := report.Labels(res)
	var rows []string
	for i, a := range res.Algorithms {
		if a.Chain == nil || a.Chain.Breaker == "" {
			continue
		}
		cfg, ok := breakerConfig(a.Chain.Breaker, res.Limit)
		if !ok {
			continue
		}
		rows = append(rows, labels[i]+": "+breakerFigures(a.Chain, cfg, cols.Error))
	}
	return fmt.Sprintf("no circuit-breaker opened on the trace's recorded responses (%s): %s", from, strings.Join(rows, "; "))
}

// breakerFigures says how the calls of one row compare with its breaker's
// thresholds.
func breakerFigures(c *simulator.ChainResult, cfg algorithms.CircuitBreakerConfig, hasErrors bool) string {
	window := fmt.Sprintf("with at least min-requests=%d in one stat-interval=%s", cfg.MinRequests, algorithms.FormatDuration(cfg.StatInterval))
	calls := report.Plural(c.Completed, "call")
	th := report.Number(cfg.Threshold)
	switch cfg.Strategy {
	case algorithms.SlowRatio:
		maxRT := algorithms.FormatDuration(cfg.MaxRT)
		if c.RTMax <= cfg.MaxRT {
			return fmt.Sprintf("no call was slower than max-rt=%s (the slowest of %s took %s)", maxRT, calls, c.RTMax.String())
		}
		return fmt.Sprintf("some of %s were slower than max-rt=%s (the slowest took %s), but never a ratio above threshold=%s %s",
			calls, maxRT, c.RTMax.String(), th, window)
	case algorithms.ErrorRatio, algorithms.ErrorCount:
		if !hasErrors {
			return fmt.Sprintf("the trace has no error column, so none of %s failed; add one (t_ms,rt_ms,error)", calls)
		}
		what := "a ratio of errors above threshold=" + th
		if cfg.Strategy == algorithms.ErrorCount {
			what = "more errors than threshold=" + th
		}
		return fmt.Sprintf("%s failed in %s, never %s %s", report.Plural(c.Errors, "call"), calls, what, window)
	}
	return calls
}

// priorityNote sums up a run with prioritized arrivals: for each row, the
// share of prioritized and of ordinary arrivals that passed, and the
// prioritized passes that waited for the next window (summary.json's
// priority and waited_for_next_window).
func priorityNote(res *simulator.Result) string {
	labels := report.Labels(res)
	var parts []string
	for i, a := range res.Algorithms {
		p := a.Priority
		if p == nil {
			return ""
		}
		s := fmt.Sprintf("%s %.1f%% / %.1f%%", labels[i], pct(p.Passed, p.Arrived), pct(p.OrdinaryPassed, p.OrdinaryArrived))
		if p.WaitedForNextWindow > 0 {
			s += fmt.Sprintf(" (%d waited for the next window)", p.WaitedForNextWindow)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d prioritized arrivals; passed, prioritized / ordinary: %s",
		res.Algorithms[0].Priority.Arrived, strings.Join(parts, "; "))
}

func pct(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// stepsBackNote says how often a trace's clock stepped back, or "" if
// never or if the stream does not count it.
func stepsBackNote(st scenarios.Stream) string {
	c, ok := st.(interface {
		StepsBack() (n int64, largest time.Duration)
	})
	if !ok {
		return ""
	}
	n, largest := c.StepsBack()
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("the trace steps back in time once, by %v (a timestamp below the one before it): a clock step back for the limiters; see docs/algorithms.md for what each does then", largest)
	}
	return fmt.Sprintf("the trace steps back in time %d times, by up to %v (a timestamp below the one before it): clock steps back for the limiters; see docs/algorithms.md for what each does then", n, largest)
}
