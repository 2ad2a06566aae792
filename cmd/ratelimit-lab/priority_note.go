package main

import (
	"fmt"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

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
