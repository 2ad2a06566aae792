package algorithms

import "time"

// This file lends the Go port of Sentinel's cluster path
// (sentinel_cluster_port_test.go) to the external tests of this package
// (sentinel_cluster_engine_test.go), which run the limiter through the
// simulator: tests only, nothing here is in the package's API.

// PortClusterArrival is one arrival of a trace for PortSentinelCluster.
type PortClusterArrival struct {
	At   time.Duration
	Prio bool
	Cost int64
}

// PortSentinelCluster decides a whole trace at once as Sentinel 1.8.9
// does (portSentinelCluster); arrival i goes to client i mod instances.
func PortSentinelCluster(c SentinelClusterConfig, epochMs int64, trace []PortClusterArrival) []Decision {
	tr := make([]clusterArrival, len(trace))
	for i, a := range trace {
		tr[i] = clusterArrival{at: a.At, prio: a.Prio, cost: a.Cost}
	}
	return portSentinelCluster(c, epochMs, tr)
}
