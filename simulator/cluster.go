package simulator

import (
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Optional interfaces of the sentinel-cluster limiter (issue 28).
type (
	// requestBatchDecider decides consecutive requests at once, reading
	// their priority and cost: a decision made later than its arrival (a
	// fallback's local check) sees every arrival of the batch before it.
	requestBatchDecider interface {
		DecideRequests(clocks []time.Duration, reqs []algorithms.Request, out []algorithms.Decision)
	}
	// clusterFigurer reports a cluster limiter's figures.
	clusterFigurer interface {
		ClusterFigures() (fallbacks, shouldWait int64, instancePassed []int64)
	}
)

// decideRequests lets a requestBatchDecider decide arr into ds; false if
// lim is not one.
func decideRequests(lim algorithms.Limiter, arr []scenarios.Arrival, ds []algorithms.Decision) bool {
	b, ok := lim.(requestBatchDecider)
	if !ok {
		return false
	}
	clocks := make([]time.Duration, len(arr))
	reqs := make([]algorithms.Request, len(arr))
	for j := range arr {
		clocks[j] = arr[j].Clock
		requestOf(&arr[j], &reqs[j])
	}
	b.DecideRequests(clocks, reqs, ds)
	return true
}

// ClusterFigures are a cluster limiter's figures over a run.
type ClusterFigures struct {
	// Fallbacks counts the arrivals decided on the fail path (client not
	// connected, timeout, TOO_MANY_REQUEST), whatever the verdict.
	Fallbacks int64
	// ShouldWait counts the passes the server answered SHOULD_WAIT.
	ShouldWait int64
	// InstancePassed holds the passes of each client.
	InstancePassed []int64
}

func clusterFigures(lim algorithms.Limiter) *ClusterFigures {
	f, ok := lim.(clusterFigurer)
	if !ok {
		return nil
	}
	var c ClusterFigures
	c.Fallbacks, c.ShouldWait, c.InstancePassed = f.ClusterFigures()
	return &c
}

// clusterSummaryJS is what summary.json adds for a cluster limiter.
type clusterSummaryJS struct {
	ClusterFallbacks      int64   `json:"cluster_fallbacks"`
	ClusterShouldWait     int64   `json:"cluster_should_wait"`
	ClusterInstancePassed []int64 `json:"cluster_instance_passed"`
}

func clusterSummary(c *ClusterFigures) *clusterSummaryJS {
	if c == nil {
		return nil
	}
	return &clusterSummaryJS{c.Fallbacks, c.ShouldWait, c.InstancePassed}
}

// ClusterTable returns a table of the cluster limiters' figures, or no
// rows when the run has none.
func ClusterTable(r *Result) (header []string, rows [][]string) {
	header = []string{"algorithm", "fallbacks", "fallback %", "should wait", "passed per instance"}
	for _, a := range r.Algorithms {
		c := a.Cluster
		if c == nil {
			continue
		}
		per := 0.0
		if a.Arrived > 0 {
			per = 100 * float64(c.Fallbacks) / float64(a.Arrived)
		}
		ps := make([]string, len(c.InstancePassed))
		for i, n := range c.InstancePassed {
			ps[i] = itoa(n)
		}
		rows = append(rows, []string{a.Spec, itoa(c.Fallbacks), strconv.FormatFloat(per, 'f', 1, 64),
			itoa(c.ShouldWait), strings.Join(ps, " ")})
	}
	return header, rows
}

// fallbackFlagger is a cluster limiter that tells, for its last batch,
// which arrivals it decided on its fail path.
type fallbackFlagger interface {
	LastFallbacks() []bool
}

// addFallbacks counts the last batch's fallbacks in their arrival's bin.
func addFallbacks(lim algorithms.Limiter, a *accumulator, arr []scenarios.Arrival) {
	f, ok := lim.(fallbackFlagger)
	if !ok {
		return
	}
	flags := f.LastFallbacks()
	for j := range arr {
		if j < len(flags) && flags[j] {
			a.binAt(int64(arr[j].At)).Fallbacks++
		}
	}
}

// HasClusterFallbacks reports whether a row is a cluster limiter
// (series.csv then has a cluster_fallbacks column).
func HasClusterFallbacks(r *Result) bool {
	for i := range r.Algorithms {
		if r.Algorithms[i].Cluster != nil {
			return true
		}
	}
	return false
}

// SeriesFallbacksColumn is the column series.csv adds, last, when a row is
// a cluster limiter: the arrivals of the bin it decided on its fail path.
const SeriesFallbacksColumn = ",cluster_fallbacks"
