package scenarios

import "time"

// The cluster flow control scenario (issue 28): Sentinel's token server
// shared by 4 instances, with what each rule's clusterConfig does when the
// server goes away, and what AVG_LOCAL's connected count makes of the
// threshold.

// ClusterOutageAlgorithms are sentinel-cluster-outage's rows: a GLOBAL
// rule of 100/s with the server away from 10 s to 20 s, falling back to
// the local check (each instance checks the cluster's 100) and to pass; the
// same rule over a round trip above the 20 ms request timeout; and an
// AVG_LOCAL rule of 25 per instance with 4, 3 and 5 connected clients.
var ClusterOutageAlgorithms = []string{
	"sentinel-cluster:threshold=global,instances=4,rtt=2ms,down=10s-20s",
	"sentinel-cluster:threshold=global,instances=4,rtt=2ms,down=10s-20s,fallback=pass",
	"sentinel-cluster:threshold=global,instances=4,rtt=30ms",
	"sentinel-cluster:count=25,instances=4,rtt=2ms",
	"sentinel-cluster:count=25,instances=4,connected=3,rtt=2ms",
	"sentinel-cluster:count=25,instances=4,connected=5,rtt=2ms",
}

func clusterCatalog() []Scenario {
	return []Scenario{{
		Name:        "sentinel-cluster-outage",
		Description: "4 instances behind one Sentinel token server, evenly spaced traffic at twice the limit, the server away from 10 s to 20 s: a GLOBAL rule falls back to each instance's local check (the cluster's count on every instance) or to pass; rtt above the 20 ms timeout makes it local for good; AVG_LOCAL follows the connected clients (4, 3, 5)",
		Limit:       100, Duration: 30 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhaseConstant, Rate: 200},
		},
		Algorithms: append([]string(nil), ClusterOutageAlgorithms...),
	}}
}
