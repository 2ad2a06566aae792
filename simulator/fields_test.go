package simulator

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// Every number field listed is in summary.json (with late admissions), and
// every number in summary.json is listed.
func TestSummaryNumberFields(t *testing.T) {
	r := fixedResult()
	r.Algorithms[0].LateAdmissions = 1
	// An evented row and a Redis row add their own fields.
	r.Algorithms[1].Chain = &ChainResult{Responses: true, Breaker: "circuit-breaker:strategy=error-count,threshold=5"}
	r.Algorithms[2].Redis = &RedisFigures{Commands: 3, PeakMembers: 2, PeakBytes: 100}
	r.Algorithms[1].Cluster = &ClusterFigures{Fallbacks: 2, ShouldWait: 1, InstancePassed: []int64{1, 2}}
	r.Algorithms[2].KongSync = &KongSyncFigures{Reads: 3, Syncs: 1, SyncEvals: 2, Realtime: 9, Beyond: 1}
	r.Algorithms[0].Priority = &PriorityResult{Arrived: 3, Passed: 2, WaitedForNextWindow: 1}
	r.Algorithms[0].Keys = &KeyResult{HasUsers: true, KeysHurt: 1, Stats: KeyStatsOf([]KeyStat{{Requests: 1, Rejected: 1}})}
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Algorithms []map[string]any `json:"algorithms"`
	}
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	fields := SummaryNumberFields()
	a := map[string]any{} // every row's fields
	for _, row := range v.Algorithms {
		for k, x := range row {
			a[k] = x
		}
	}
	for _, f := range fields {
		if _, ok := a[f]; !ok {
			t.Errorf("%s listed but not in summary.json", f)
		}
	}
	for _, f := range []string{"breaker_opens", "errors", "rt_p99_ms", "redis_commands", "redis_peak_bytes"} {
		if !slices.Contains(fields, f) {
			t.Errorf("%s not listed: --fail-if cannot test it", f)
		}
	}
	for k, x := range a {
		_, isNum := x.(float64)
		if isNum != slices.Contains(fields, k) && x != nil {
			t.Errorf("%s (%v) listed: %v", k, x, slices.Contains(fields, k))
		}
	}
	if !slices.Contains(fields, "overshoot") || slices.Contains(fields, "algorithm") {
		t.Errorf("fields %v", fields)
	}
}
