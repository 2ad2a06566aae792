package scenarios

import "time"

// The Kong sync_rate scenario (issue 30): one hot identifier (every
// arrival is the same client) limited to 50 requests per second, on four
// gateway nodes, a burst of 200 straddling a second's edge. Kong with
// sync_rate = -1 asks Redis on every request; with sync_rate > 0 each node
// counts locally and pushes every sync_rate, so a node admits against a
// stale total; envoyproxy/ratelimit's local cache only remembers keys
// already over the limit.

// KongSyncAlgorithms are kong-sync's limiters, all 50 per second.
var KongSyncAlgorithms = []string{
	"kong:second=50,policy=redis",
	"kong:second=50,policy=redis,sync-rate=100ms,instances=4",
	"kong:second=50,policy=redis,sync-rate=1s,instances=4",
	"redis-envoy-ratelimit:limit=50,unit=second,instances=4",
	"redis-envoy-ratelimit:limit=50,unit=second,local-cache=true,instances=4",
}

func kongSync() Scenario {
	return Scenario{
		Name: "kong-sync",
		Description: "one hot client at 40/s against 50 per second on four nodes, 200 requests in 200 ms across the 3 s edge: " +
			"sync_rate 1s admits the burst on every node from stale counts (see summary.json's kong_beyond_limit and kong_evals_saved), " +
			"sync_rate 100ms less, sync_rate -1 and envoyproxy/ratelimit none; local-cache=true spares Redis only for keys already over",
		Limit: 50, Duration: 8 * time.Second, Seed: 3,
		Phases: []Phase{
			{Type: PhasePoisson, Rate: 40},
			{Type: PhaseBurst, Start: 2900 * ms, Duration: 200 * ms, Count: 200},
		},
		Algorithms: append([]string(nil), KongSyncAlgorithms...),
	}
}

// kongSyncCatalog is the Kong sync_rate scenarios, in list order.
func kongSyncCatalog() []Scenario { return []Scenario{kongSync()} }
