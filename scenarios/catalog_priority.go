package scenarios

import (
	"math/rand/v2"
	"time"
)

// The prioritized-request scenario: Sentinel's SphU.entryWithPriority on a
// share of steady traffic above the limit, through leap-arrays that honour
// it (occupy-timeout, the default 500 ms) and the same leap-arrays with it
// off (occupy-timeout=0s), so one run shows what priority buys and costs.

// PriorityMixAlgorithms are priority-mix's limiters: sample counts 2 and
// 10, each with prioritized requests honoured and ignored.
var PriorityMixAlgorithms = []string{
	"leap-array:sample-count=2",
	"leap-array:sample-count=2,occupy-timeout=0s",
	"leap-array:sample-count=10",
	"leap-array:sample-count=10,occupy-timeout=0s",
}

func priorityMix() Scenario {
	return Scenario{
		Name:        "priority-mix",
		Description: "evenly spaced traffic at 1.5 times the limit, 30% of it prioritized: leap-array borrowing from the next bucket (occupy-timeout) against the same arrays ignoring priority",
		Limit:       100, Duration: 10 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhaseConstant, Rate: 150},
		},
		PriorityShare: 0.3,
		Algorithms:    append([]string(nil), PriorityMixAlgorithms...),
	}
}

// priorityStream marks a seeded share of its source's arrivals
// prioritized: each arrival independently with probability share, from a
// PCG seeded by the scenario's seed, so a run is reproducible.
type priorityStream struct {
	src   Stream
	share float64
	rng   *rand.Rand
}

func withPriority(src Stream, share float64, seed uint64) Stream {
	return &priorityStream{src: src, share: share, rng: newPCG(splitmix64(seed ^ 0x9e3779b97f4a7c15))}
}

func (p *priorityStream) Next() (Arrival, bool) {
	a, ok := p.src.Next()
	if ok {
		a.Priority = p.rng.Float64() < p.share
	}
	return a, ok
}

func (p *priorityStream) Err() error   { return p.src.Err() }
func (p *priorityStream) Close() error { return p.src.Close() }
