package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
)

// adversarialAlgorithms contrasts leap-array's worst case (twice the limit
// with 2 buckets) with finer buckets.
var adversarialAlgorithms = []string{
	"fixed-window",
	"leap-array:sample-count=2",
	"leap-array:sample-count=10",
	"leap-array:sample-count=1000",
	"sliding-log",
	"token-bucket",
	"leaky-bucket",
}

// The Redis scenarios' limiter sets (package distributed builds them).
var (
	redisRaceAlgorithms = []string{
		"redis-sliding-log:instances=4,rtt=4ms",
		"redis-sliding-log:instances=4,rtt=4ms,atomic=false",
		"redis-fixed-window:instances=4,rtt=4ms",
	}
	redisSkewAlgorithms = []string{
		"redis-sliding-log:instances=3,skew=50ms,clock=instance",
		"redis-sliding-log:instances=3,skew=50ms,clock=redis",
		"redis-fixed-window:instances=3,skew=50ms,clock=instance",
		"redis-fixed-window:instances=3,skew=50ms,clock=redis",
	}
	redisMemoryAlgorithms = []string{
		"redis-sliding-log:count=passed",
		"redis-sliding-log:count=all",
		"redis-bucketed:buckets=10",
	}
)

const ms = time.Millisecond

// hotKeyAlgorithms show the check-then-add race: leap-array and the sliding
// log with the pass recorded 0, 100 µs, 1 ms and 10 ms after its check.
var hotKeyAlgorithms = []string{
	"leap-array",
	"leap-array:check-to-add=100us",
	"leap-array:check-to-add=1ms",
	"leap-array:check-to-add=10ms",
	"sliding-log",
	"sliding-log:check-to-add=1ms",
}

// Catalog returns the built-in scenarios, in the order 'ratelimit-lab list'
// shows them. Each call returns fresh copies.
func Catalog() []Scenario {
	algos := func() []string { return append([]string(nil), DefaultAlgorithms...) }
	return append([]Scenario{
		{
			Name:        "boundary-burst",
			Description: "500 requests just before a window boundary and 500 just after: a fixed window passes twice the limit",
			Limit:       500, Duration: 3 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseBurst, Start: 900 * ms, Duration: 100 * ms, Count: 500},
				{Type: PhaseBurst, Start: 1000 * ms, Duration: 100 * ms, Count: 500},
			},
			Algorithms: algos(),
		},
		{
			Name:        "boundary-burst-small",
			Description: "80 requests in the 200 ms before a window boundary and 80 in the 200 ms after",
			Limit:       100, Duration: 3 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseBurst, Start: 800 * ms, Duration: 200 * ms, Count: 80},
				{Type: PhaseBurst, Start: 1000 * ms, Duration: 200 * ms, Count: 80},
			},
			Algorithms: algos(),
		},
		{
			Name:        "steady-overload",
			Description: "evenly spaced traffic at twice the limit for 10 s",
			Limit:       100, Duration: 10 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseConstant, Rate: 200},
			},
			Algorithms: algos(),
		},
		{
			Name:        "poisson",
			Description: "Poisson arrivals at 1.5 times the limit for 60 s (seed 1)",
			Limit:       100, Duration: 60 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhasePoisson, Rate: 150},
			},
			Algorithms: algos(),
		},
		{
			Name:        "cold-start",
			Description: "10 s at a tenth of the limit, then twice the limit for 30 s: the warm-up staircase",
			Limit:       100, Duration: 40 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseConstant, Rate: 10, Duration: 10 * time.Second},
				{Type: PhaseConstant, Start: 10 * time.Second, Rate: 200},
			},
			Algorithms: algos(),
		},
		{
			Name:        "spikes",
			Description: "Poisson background at half the limit plus a burst of one limit's worth within 50 ms every 2 s",
			Limit:       100, Duration: 20 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhasePoisson, Rate: 50},
				{Type: PhaseBurst, Start: 1000 * ms, Duration: 50 * ms, Count: 100, Every: 2 * time.Second},
			},
			Algorithms: algos(),
		},
		{
			Name:        "adversarial",
			Description: "100 requests at 999 ms, then 100 at every whole millisecond from 1000 to 1999 ms: leap-array's 2x worst case",
			Limit:       100, Duration: 3 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseBurst, Start: 999 * ms, Count: 100},
				{Type: PhaseBurst, Start: 1000 * ms, Count: 100, Every: ms, Until: 2000 * ms},
			},
			Algorithms: append([]string(nil), adversarialAlgorithms...),
		},
		{
			Name:        "clock-rollback",
			Description: "evenly spaced traffic at 1.5 times the limit; at 5 s the limiters' clock steps back 800 ms",
			Limit:       100, Duration: 10 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseConstant, Rate: 150},
				{Type: PhaseClockStep, Start: 5 * time.Second, Offset: -800 * ms},
			},
			Algorithms: algos(),
		},
		{
			Name:        "hot-key",
			Description: "a hot key at a small limit: 1000 requests within 10 ms (100 000/s) at 500 ms of every second, limit 10/s",
			Limit:       10, Duration: 3 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseBurst, Start: 500 * ms, Duration: 10 * ms, Count: 1000, Every: time.Second, Until: 3 * time.Second},
			},
			Algorithms: append([]string(nil), hotKeyAlgorithms...),
		},
		{
			Name:        "hot-key-1qps",
			Description: "100 callers on a 1 QPS rule: each calls once every 10 ms, all 100 within 1 ms (100 000/s while they call)",
			Limit:       1, Duration: 5 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseBurst, Duration: ms, Count: 100, Every: 10 * ms, Until: 5 * time.Second},
			},
			Algorithms: append([]string(nil), hotKeyAlgorithms...),
		},
		{
			Name:        "hot-key-overload",
			Description: "steady overload at a large limit: evenly spaced traffic at 20 000/s for 5 s, limit 10 000/s",
			Limit:       10000, Duration: 5 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseConstant, Rate: 20000},
			},
			Algorithms: append([]string(nil), hotKeyAlgorithms...),
		},
		slowDownstream(),
		flapping(),
		priorityMix(),
		gatewayBoundary(),
		gatewayIdleSecond(),
		gatewayOverLimit(),
		{
			Name:        "redis-race",
			Description: "4 gateway instances, 4 ms round trips to one Redis, bursts of 200 requests in 20 ms every second: the atomic Lua script against §4.2's check-then-act",
			Limit:       100, Duration: 5 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseBurst, Start: 0, Duration: 20 * ms, Count: 200, Every: time.Second},
			},
			Algorithms: append([]string(nil), redisRaceAlgorithms...),
		},
		{
			Name:        "redis-skew",
			Description: "3 instances whose clocks are 50 ms slow, right and 50 ms fast, evenly spaced traffic at twice the limit: each instance's clock against Redis's TIME",
			Limit:       100, Duration: 10 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseConstant, Rate: 200},
			},
			Algorithms: append([]string(nil), redisSkewAlgorithms...),
		},
		{
			Name:        "redis-memory",
			Description: "Poisson arrivals at 10 times the limit for 60 s: members kept by the per-request ZSET (count=passed, count=all) and by the bucketed ZSET",
			Limit:       30, Duration: 60 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhasePoisson, Rate: 300},
			},
			Algorithms: append([]string(nil), redisMemoryAlgorithms...),
		},
	}, slices.Concat(keyedCatalog(), adaptiveCatalog(), clusterCatalog(), layersCatalog(), kongSyncCatalog())...) // catalog_keys.go, catalog_adaptive.go, catalog_cluster.go, catalog_layers.go, catalog_kongsync.go
}

// Names returns the catalog's scenario names in order.
func Names() []string {
	var names []string
	for _, s := range Catalog() {
		names = append(names, s.Name)
	}
	return names
}

// Lookup returns the catalog scenario called name. An unknown name gives a
// one-line error suggesting the nearest valid name.
func Lookup(name string) (Scenario, error) {
	for _, s := range Catalog() {
		if s.Name == name {
			return s, nil
		}
	}
	msg := fmt.Sprintf("unknown scenario %q", name)
	if near := nearest(name, Names()); near != "" {
		msg += fmt.Sprintf(": did you mean %q?", near)
	}
	return Scenario{}, fmt.Errorf("%s (run 'ratelimit-lab list' to see all)", msg)
}

// nearest returns the candidate closest to s when it is close enough to be
// a plausible typo, else "".
func nearest(s string, candidates []string) string {
	if near, ok := suggest.Nearest(s, candidates); ok {
		return near
	}
	return ""
}
