package rules

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// A flow-rules file in the shape the Sentinel dashboard pushes to a
// datasource (Nacos, Apollo) for cluster flow control: clusterMode with
// its clusterConfig.
const clusterRulesJSON = `[
  {
    "resource": "createOrder",
    "limitApp": "default",
    "grade": 1,
    "count": 200,
    "strategy": 0,
    "controlBehavior": 0,
    "clusterMode": true,
    "clusterConfig": {
      "flowId": 111,
      "thresholdType": 1,
      "fallbackToLocalWhenFail": false,
      "strategy": 0,
      "sampleCount": 10,
      "windowIntervalMs": 1000
    }
  },
  {
    "resource": "queryStock",
    "limitApp": "default",
    "grade": 1,
    "count": 50,
    "clusterMode": true,
    "clusterConfig": {"flowId": 112, "thresholdType": 0}
  },
  {
    "resource": "payThreads",
    "grade": 0,
    "count": 8,
    "clusterMode": true,
    "clusterConfig": {"flowId": 113, "thresholdType": 1}
  }
]`

func TestSentinelClusterRules(t *testing.T) {
	rs, err := Parse("flow-rules.json", []byte(clusterRulesJSON), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"createOrder": "sentinel-cluster:count=200,threshold=global,fallback=pass,sample-count=10,interval=1000ms",
		"queryStock":  "sentinel-cluster:count=50,threshold=avg-local,fallback=local,sample-count=10,interval=1000ms",
		"payThreads":  "concurrency:limit=8", // THREAD grade: ConcurrentClusterFlowChecker, not simulated
	}
	if len(rs) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rs), len(want), rs)
	}
	for _, r := range rs {
		if r.Spec != want[r.Name] {
			t.Errorf("%s: spec %q, want %q", r.Name, r.Spec, want[r.Name])
		}
		notes := strings.Join(r.Notes, "\n")
		if r.Name == "payThreads" {
			if !strings.Contains(notes, "the token server is not simulated") {
				t.Errorf("%s: notes %q lack the not-simulated note", r.Name, notes)
			}
			continue
		}
		if strings.Contains(notes, "not simulated") || !strings.Contains(notes, "instances, connected, rtt, timeout") {
			t.Errorf("%s: notes %q should name the deployment's parameters", r.Name, notes)
		}
		if _, err := algorithms.New(r.Spec, 0); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}

// A cluster window Sentinel cannot build drops the rule, as
// FlowRuleUtil.isWindowConfigValid drops it; the file loads.
func TestSentinelClusterRuleErrors(t *testing.T) {
	bad := `[{"resource": "a", "count": 10, "clusterMode": true,
  "clusterConfig": {"flowId": 1, "sampleCount": 3, "windowIntervalMs": 1000}}]`
	rs, err := Parse("rules.json", []byte(bad), "sentinel")
	if err != nil || len(rs) != 1 || rs[0].Outcome != Inactive || !strings.Contains(rs[0].Why, "isWindowConfigValid") {
		t.Fatalf("rules %+v, error %v; want the rule inactive, why naming isWindowConfigValid", rs, err)
	}
}
