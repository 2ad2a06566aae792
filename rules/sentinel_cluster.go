package rules

import (
	"fmt"
	"strings"
)

// javaClusterFlow translates a QPS FlowRule with clusterMode true into
// sentinel-cluster (issue 28): the rule's count, and from its
// clusterConfig (sentinel-core ClusterFlowConfig, Sentinel 1.8.9)
// thresholdType (0 AVG_LOCAL, the default; 1 GLOBAL),
// fallbackToLocalWhenFail (default true), sampleCount (10) and
// windowIntervalMs (1000). ok is false when the rule is not in cluster
// mode, or is one the lab's cluster model does not cover (THREAD grade:
// ConcurrentClusterFlowChecker; a controlBehavior other than 0, whose
// local fallback is not DefaultController): the row stays the local
// translation, with its note. On a translation it replaces the note that
// says clusterMode is not simulated with the ones that say where the
// deployment's parameters come from.
func javaClusterFlow(f *fields, grade int, behavior int64, count string, notes *[]string) (out string, ok bool, err error) {
	cluster, err := f.boolean("clusterMode", false)
	if err != nil || !cluster || grade != 1 || behavior != 0 {
		return "", false, err
	}
	threshold, fallback := "avg-local", "local"
	sampleCount, interval := int64(10), int64(1000)
	if n := f.node("clusterConfig"); n != nil {
		cf, err := f.d.fields(n, "ClusterFlowConfig")
		if err != nil {
			return "", false, err
		}
		tt, e1 := cf.choice("thresholdType", 0, 0, "AVG_LOCAL", "GLOBAL")
		fb, e2 := cf.boolean("fallbackToLocalWhenFail", true)
		sc, e3 := cf.whole("sampleCount", 10)
		iv, e4 := cf.whole("windowIntervalMs", 1000)
		strat, e5 := cf.whole("strategy", 0)
		if err := first(e1, e2, e3, e4, e5); err != nil {
			return "", false, err
		}
		if sc <= 0 || iv <= 0 || iv%sc != 0 {
			return "", false, cf.errf("sampleCount", "%d with windowIntervalMs %d: ClusterMetric needs both positive and the interval divided evenly by the sample count", sc, iv)
		}
		if tt == 1 {
			threshold = "global"
		}
		if !fb {
			fallback = "pass"
		}
		sampleCount, interval = sc, iv
		if strat != 0 {
			*notes = append(*notes, fmt.Sprintf("clusterConfig.strategy %d: ignored (Sentinel 1.8.9's server checks every cluster rule with the normal strategy)", strat))
		}
		cf.node("flowId")
		for _, k := range cf.unread() {
			*notes = append(*notes, fmt.Sprintf("clusterConfig.%s: ignored (not read on the token path the lab simulates)", k))
		}
	}
	kept := (*notes)[:0]
	for _, n := range *notes {
		if !strings.HasPrefix(n, "clusterMode true: not simulated") {
			kept = append(kept, n)
		}
	}
	*notes = append(kept, "clusterMode true: the deployment, not the file, gives instances, connected, rtt, timeout (the client's requestTimeout), down, skew and the server's exceed, max-occupy and max-qps; the row runs Sentinel's defaults (one client, no round trip, 20 ms): set them on the spec with --algo to model your cluster")
	return spec("sentinel-cluster", "count", count, "threshold", threshold, "fallback", fallback,
		"sample-count", fmt.Sprint(sampleCount), "interval", fmt.Sprintf("%dms", interval)), true, nil
}
