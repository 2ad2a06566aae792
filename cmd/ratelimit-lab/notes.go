package main

import (
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// breakerNote explains breakers that never opened in a run without a
// downstream: there no passed call fails, and a call is slow only by its
// wait in a limiter's queue, so an error breaker has nothing to count.
func breakerNote(res *simulator.Result, ds *scenarios.Downstream) string {
	if ds != nil || !simulator.HasBreakers(res) {
		return ""
	}
	for _, a := range res.Algorithms {
		if a.Chain != nil && a.Chain.Opens > 0 {
			return ""
		}
	}
	return "no circuit-breaker opened: this run has no downstream, so no call fails and a call is slow only " +
		"by its wait in a queue; use a scenario with one (slow-downstream, flapping) or add a downstream: block to a scenario file"
}
