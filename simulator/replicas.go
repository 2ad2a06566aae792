package simulator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// replicaFigurer is a row of replicas=N (algorithms.Replicas): what the
// balancer sent each replica, what each passed, and the periods of fixed
// replica count. The simulator reads it at the end of a run, as it reads
// a cluster limiter's clusterFigurer (cluster.go).
type replicaFigurer interface {
	ReplicaFigures() (arrived, passed []int64, periods []algorithms.ReplicaPeriod)
}

// ReplicaFigures are a replicas= row's per-replica figures over a run.
type ReplicaFigures struct {
	// Arrived and Passed hold each replica slot's requests and passes.
	Arrived, Passed []int64
	// Periods are the stretches of fixed replica count, with the limit
	// the replicas admit together (replicas × one replica's rate).
	Periods []algorithms.ReplicaPeriod
}

func replicaFigures(lim algorithms.Limiter) *ReplicaFigures {
	f, ok := lim.(replicaFigurer)
	if !ok {
		return nil
	}
	var r ReplicaFigures
	r.Arrived, r.Passed, r.Periods = f.ReplicaFigures()
	return &r
}

// replicaPeriodJS is one period in summary.json.
type replicaPeriodJS struct {
	FromS          jsonNum `json:"from_s"`
	Replicas       int     `json:"replicas"`
	EffectiveLimit jsonNum `json:"effective_limit"`
	WindowS        jsonNum `json:"window_s"`
	PerKey         bool    `json:"per_key"`
}

// replicasSummaryJS is what summary.json adds for a replicas= row.
type replicasSummaryJS struct {
	ReplicaArrived []int64           `json:"replica_arrived"`
	ReplicaPassed  []int64           `json:"replica_passed"`
	ReplicaPeriods []replicaPeriodJS `json:"replica_periods"`
}

func replicasSummary(r *ReplicaFigures) *replicasSummaryJS {
	if r == nil {
		return nil
	}
	js := &replicasSummaryJS{ReplicaArrived: r.Arrived, ReplicaPassed: r.Passed}
	for _, p := range r.Periods {
		js.ReplicaPeriods = append(js.ReplicaPeriods, replicaPeriodJS{jsonNum(fmtExact(p.From.Seconds())), p.Replicas,
			jsonNum(fmtExact(p.Limit)), jsonNum(fmtExact(p.Window.Seconds())), p.PerKey})
	}
	return js
}

// ReplicasLine is the terminal's one line for a replicas= row: what each
// replica passed and the limit the replicas admit together, per period.
func ReplicasLine(label string, r *ReplicaFigures) string {
	ps := make([]string, len(r.Passed))
	for i := range r.Passed {
		ps[i] = strconv.FormatInt(r.Passed[i], 10) + "/" + strconv.FormatInt(r.Arrived[i], 10)
	}
	lims := make([]string, len(r.Periods))
	for i, p := range r.Periods {
		per := "/" + algorithms.FormatDuration(p.Window)
		if p.PerKey {
			per += " per key"
		}
		lims[i] = fmt.Sprintf("%d × %s = %s%s", p.Replicas, formatLimit(p.Limit/float64(max(p.Replicas, 1))), formatLimit(p.Limit), per)
		if len(r.Periods) > 1 {
			lims[i] = "from " + algorithms.FormatDuration(p.From) + " " + lims[i]
		}
	}
	return fmt.Sprintf("%s: passed/sent per replica %s; effective limit %s", label, strings.Join(ps, " "), strings.Join(lims, ", "))
}

func formatLimit(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
