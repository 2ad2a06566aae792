package scenarios

import "time"

// The Kong sync_rate scenario (issue 30): a hot client at 40/s beside 20
// others at 2/s each, every client limited to 50 requests per second, on
// four gateway nodes 10 ms from Redis, and a burst of 200 from the hot
// client straddling a second's edge. Kong with sync_rate = -1 asks Redis
// on every request; with sync_rate > 0 each node counts locally and
// pushes every sync_rate, so a node admits against a stale total;
// envoyproxy/ratelimit's local cache only remembers keys already over the
// limit.

// KongSyncAlgorithms are kong-sync's limiters, all 50 per second and
// client.
var KongSyncAlgorithms = []string{
	"kong:second=50,policy=redis,key=key",
	"kong:second=50,policy=redis,sync-rate=100ms,instances=4,rtt=10ms,key=key",
	"kong:second=50,policy=redis,sync-rate=1s,instances=4,rtt=10ms,key=key",
	"redis-envoy-ratelimit:limit=50,unit=second,instances=4,rtt=10ms,key=key",
	"redis-envoy-ratelimit:limit=50,unit=second,local-cache=true,instances=4,rtt=10ms,key=key",
}

func kongSync() Scenario {
	return Scenario{
		Name: "kong-sync",
		Description: "a hot client at 40/s beside 20 clients at 2/s, each limited to 50 per second, on four nodes 10 ms from Redis; the hot client sends 200 more in 200 ms across the 3 s edge: " +
			"sync_rate 1s admits the burst on every node from stale counts, 100ms less, sync_rate -1 and envoyproxy/ratelimit admit 50 a second; the table under the summary gives the Redis EVALs each sync_rate saves and the passes beyond the limit; local-cache=true spares Redis only for keys already over",
		Limit: 50, Duration: 8 * time.Second, Seed: 3,
		Phases: []Phase{
			{Type: PhasePoisson, Rate: 40, PhaseKeys: PhaseKeys{Key: "hot"}},
			{Type: PhasePoisson, Rate: 40, PhaseKeys: PhaseKeys{Keys: Population{Count: 20}}},
			{Type: PhaseBurst, Start: 2900 * ms, Duration: 200 * ms, Count: 200, PhaseKeys: PhaseKeys{Key: "hot"}},
		},
		Algorithms: append([]string(nil), KongSyncAlgorithms...),
	}
}

// kongSyncCatalog is the Kong sync_rate scenarios, in list order.
func kongSyncCatalog() []Scenario { return []Scenario{kongSync()} }
