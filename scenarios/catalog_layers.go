package scenarios

import "time"

// The layered-window scenario (issue 30): a one-minute window of 600
// requests (10/s), a burst at the start of a 5 s bucket and another one
// minute later, when every ring has moved past the first burst's bucket
// while the burst is still inside the exact window.

// LayeredMinuteAlgorithms are layered-minute's limiters, all limiting 600
// requests per minute: the uniform ring of 12 buckets, the ring holding
// one more bucket (its edge bucket weighted by its share in the window),
// the ring of ten 6 s buckets with and without two minute-long counters
// behind it, the sliding-window counter and the exact sliding log.
var LayeredMinuteAlgorithms = []string{
	"hierarchical:limit=600,window=1m,layers=5s*12",
	"hierarchical:limit=600,window=1m,layers=5s*13",
	"hierarchical:limit=600,window=1m,layers=6s*10",
	"hierarchical:limit=600,window=1m,layers=6s*10+1m*2",
	"sliding-window-counter:limit=600,window=1m",
	"sliding-log:limit=600,window=1m",
}

func layeredMinute() Scenario {
	return Scenario{
		Name: "layered-minute",
		Description: "a one-minute window of 600 (10/s) over Poisson at 4/s: 300 requests at 35.5 s (the start of a 5 s bucket) and 400 at 95 s, " +
			"inside the window of the first; run with --window 1m: the 12-bucket ring passes the second burst, the same ring holding its edge bucket keeps it, " +
			"two minute counters behind a ring of ten keep a few",
		Limit: 10, Duration: 150 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhasePoisson, Rate: 4},
			{Type: PhaseBurst, Start: 35500 * ms, Duration: 400 * ms, Count: 300},
			{Type: PhaseBurst, Start: 95 * time.Second, Duration: 400 * ms, Count: 400},
		},
		Algorithms: append([]string(nil), LayeredMinuteAlgorithms...),
	}
}

// layersCatalog is the layered-window scenarios, in list order.
func layersCatalog() []Scenario { return []Scenario{layeredMinute()} }
