package algorithms

import (
	"fmt"
	"strconv"
)

// clusterKinds is Sentinel's cluster flow control (issue 28): a token
// server shared by the instances, on the lab's multi-instance model.
var clusterKinds = []kind{
	{
		info: Info{Name: "sentinel-cluster", Caps: CapCost,
			Summary:   "Sentinel cluster flow control: a token server's window for the whole cluster, clients that ask it per request (rtt, timeout, outages) and fall back to a local check or pass",
			Reference: "Alibaba Sentinel 1.8.9 ClusterFlowChecker.acquireClusterToken, GlobalRequestLimiter, ClusterMetric; FlowRuleChecker.passClusterCheck, applyTokenResult, fallbackToLocalOrPass; DefaultClusterTokenClient"},
		params: []param{
			p("count", "", "FlowRule.count (the scenario's limit when left out), may be fractional", kindFloat),
			p("threshold", "avg-local", "ClusterFlowConfig.thresholdType: global (count for the cluster) or avg-local (count · connected)", kindString),
			p("instances", "1", "token clients; arrival i goes to client i mod instances", kindInt),
			p("connected", "instances", "clients ConnectionManager counts for the namespace (avg-local's multiplier)", kindString),
			p("rtt", "0s", "round trip to the token server: it decides at T + ⌊rtt/2⌋, the client learns at T + rtt", kindDuration),
			p("timeout", "20ms", "the client's requestTimeout: with rtt > timeout a request fails at T + timeout", kindDuration),
			p("fallback", "local", "fallbackToLocalWhenFail: local (the rule's count on the instance's own node) or pass", kindString),
			p("down", "none", "windows of true time the clients are not connected, A-B|C-D (they fail at once)", kindString),
			p("exceed", "1", "ServerFlowConfig.exceedCount (the threshold's factor)", kindFloat),
			p("max-occupy", "1", "ServerFlowConfig.maxOccupyRatio (prioritized requests' SHOULD_WAIT budget)", kindFloat),
			p("max-qps", "30000", "ServerFlowConfig.maxAllowedQps (GlobalRequestLimiter of the namespace)", kindFloat),
			p("sample-count", "10", "ClusterFlowConfig.sampleCount: the server's buckets for the rule", kindInt),
			p("interval", "1s", "ClusterFlowConfig.windowIntervalMs: the server's window for the rule", kindDuration),
			p("local-sample-count", "2", "each client's node: buckets (SampleCountProperty)", kindInt),
			p("local-interval", "1s", "each client's node: window (IntervalProperty)", kindDuration),
			p("skew", "0s", "clients' clocks spread over [−skew, +skew] (the server's is true time)", kindDuration),
			p("route", "none", "a trace column holding each arrival's client index (0 … instances−1); none: arrival i goes to client i mod instances", kindString),
		},
		build: func(a *args) (Limiter, error) {
			var c SentinelClusterConfig
			r := a.reader()
			c.Count = r.float("count")
			c.Global = r.choice("threshold", "avg-local", "global")
			c.Instances = r.int("instances")
			c.RTT = r.duration("rtt")
			c.Timeout = r.duration("timeout")
			c.FallbackLocal = !r.choice("fallback", "local", "pass")
			c.Exceed = r.float("exceed")
			c.MaxOccupy = r.float("max-occupy")
			c.MaxQPS = r.float("max-qps")
			c.SampleCount = r.int("sample-count")
			c.Interval = r.duration("interval")
			c.LocalSampleCount = r.int("local-sample-count")
			c.LocalInterval = r.duration("local-interval")
			c.Skew = r.duration("skew")
			if err := r.err(); err != nil {
				return nil, err
			}
			c.Connected = c.Instances
			if v := a.str("connected"); v != "instances" {
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, fmt.Errorf("sentinel-cluster: connected %q is not a whole number (for example connected=3, or connected=instances)", v)
				}
				c.Connected = n
			}
			ws, err := ParseDownWindows(a.str("down"))
			if err != nil {
				return nil, err
			}
			c.Down = ws
			if v := a.str("route"); v != "none" && v != "(none)" {
				c.Route = v
			}
			return NewSentinelCluster(c)
		},
	},
}
