package main

import (
	"fmt"
	"strings"

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
		l, err := algorithms.New(a.Chain.Breaker, res.Limit)
		b, ok := l.(*algorithms.CircuitBreaker)
		if err != nil || !ok {
			continue
		}
		rows = append(rows, labels[i]+": "+breakerFigures(a.Chain, b.Config(), cols.Error))
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
