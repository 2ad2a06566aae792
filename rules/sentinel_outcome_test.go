package rules

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestSentinelDropsInvalidRules: a rule Sentinel's (or sentinel-golang's)
// own validation refuses is dropped and the rest of the file loads, as
// the rule managers do; the dropped rule is Inactive with the validation
// quoted. A rule the product runs but the lab does not simulate is
// NotSimulated. Only a document that does not parse refuses the file.
func TestSentinelDropsInvalidRules(t *testing.T) {
	const ok = `{"resource": "ok", "count": 5}`
	for _, c := range []struct {
		name, file, rule string
		outcome          Outcome
		why              string
	}{
		{"negative count", "r.json", `{"resource": "a", "count": -5}`, Inactive, "FlowRuleUtil.isValidRule: count >= 0"},
		{"no resource", "r.json", `{"count": 5}`, Inactive, "resource is blank"},
		{"grade 2", "r.json", `{"resource": "a", "count": 5, "grade": 2}`, Inactive, "neither 0 (THREAD) nor 1 (QPS)"},
		{"warm-up without period", "r.json", `{"resource": "a", "count": 5, "controlBehavior": 1, "warmUpPeriodSec": 0}`, Inactive, "checkControlBehaviorField"},
		{"rate limiter without queue", "r.json", `{"resource": "a", "count": 5, "controlBehavior": 2, "maxQueueingTimeMs": 0}`, Inactive, "checkControlBehaviorField"},
		{"relate without refResource", "r.json", `{"resource": "a", "count": 5, "strategy": 1}`, Inactive, "checkStrategyField"},
		{"regex with a shaping behavior", "r.json", `{"resource": "a.*", "count": 5, "regex": true, "controlBehavior": 2, "maxQueueingTimeMs": 10}`, Inactive, "checkRegexField"},
		{"relate", "r.json", `{"resource": "a", "count": 5, "strategy": 1, "refResource": "b"}`, NotSimulated, "selectReferenceNode"},
		{"chain", "r.json", `{"resource": "a", "count": 5, "strategy": 2, "refResource": "entrance"}`, NotSimulated, "context \"entrance\""},
		{"go associated resource", "r.json", `{"resource": "a", "threshold": 5, "relationStrategy": 1, "refResource": "b"}`, NotSimulated, "generateStatFor"},
		{"cluster without config", "r.json", `{"resource": "a", "count": 5, "clusterMode": true}`, Inactive, "clusterConfig == null"},
		{"cluster bad window", "r.json", `{"resource": "a", "count": 5, "clusterMode": true, "clusterConfig": {"flowId": 1, "sampleCount": 3, "windowIntervalMs": 1000}}`, Inactive, "isWindowConfigValid"},
		{"cluster thread grade without fallback", "r.json", `{"resource": "a", "grade": 0, "count": 5, "clusterMode": true, "clusterConfig": {"flowId": 1, "fallbackToLocalWhenFail": false}}`, NotSimulated, "fallbackToLocalOrPass"},
		{"degrade without window", "r.json", `{"resource": "a", "grade": 2, "count": 5, "timeWindow": 0}`, Inactive, "timeWindow > 0"},
		{"exception ratio above 1", "r.json", `{"resource": "a", "grade": 1, "count": 1.5, "timeWindow": 10}`, Inactive, "ratio from 0 to 1"},
		{"param without idx", "r.json", `{"resource": "a", "count": 5, "durationInSec": 1}`, Inactive, "paramIdx != null"},
		{"param negative idx", "r.json", `{"resource": "a", "count": 5, "paramIdx": -1}`, NotSimulated, "from the end"},
		{"param cluster without fallback", "r.json", `{"resource": "a", "count": 5, "paramIdx": 0, "clusterMode": true, "clusterConfig": {"flowId": 7, "fallbackToLocalWhenFail": false}}`, NotSimulated, "ParamFlowChecker.fallbackToLocalOrPass"},
		{"param cluster without flowId", "r.json", `{"resource": "a", "count": 5, "paramIdx": 0, "clusterMode": true, "clusterConfig": {}}`, Inactive, "ParamFlowRuleUtil.checkCluster: validClusterRuleId"},
		{"param thread grade", "r.json", `{"resource": "a", "count": 5, "paramIdx": 0, "grade": 0}`, NotSimulated, "THREAD"},
		{"go negative threshold", "r.json", `{"resource": "a", "threshold": -1, "tokenCalculateStrategy": 0}`, Inactive, "negative Threshold"},
		{"go warm-up cold factor 1", "r.json", `{"resource": "a", "threshold": 5, "tokenCalculateStrategy": 1, "warmUpPeriodSec": 10, "warmUpColdFactor": 1}`, Inactive, "greater than 1"},
		{"go memory adaptive", "r.json", `{"resource": "a", "threshold": 5, "tokenCalculateStrategy": 2}`, NotSimulated, "MemoryAdaptive"},
		{"go hotspot index and key", "r.json", `{"resource": "a", "metricType": 1, "paramIndex": 1, "paramKey": "k", "threshold": 5, "durationInSec": 1}`, Inactive, "mutually exclusive"},
		{"go breaker retry 0", "r.json", `{"resource": "a", "strategy": 2, "retryTimeoutMs": 0, "statIntervalMs": 1000, "threshold": 5}`, Inactive, "invalid RetryTimeoutMs"},
		{"go breaker retry not whole seconds", "r.json", `{"resource": "a", "strategy": 2, "retryTimeoutMs": 1500, "statIntervalMs": 1000, "threshold": 5}`, NotSimulated, "multiple of 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			okRule := ok
			if strings.Contains(c.name, "go ") {
				okRule = `{"resource": "ok", "threshold": 5}`
			}
			rules, err := Parse(c.file, []byte("[\n"+okRule+",\n"+c.rule+"\n]"), "")
			if err != nil {
				t.Fatal(err)
			}
			if len(rules) != 2 || !rules[0].Active() || rules[0].Name != "ok" {
				t.Fatalf("rules = %+v, want the valid rule first and active", rules)
			}
			r := rules[1]
			if r.Outcome != c.outcome || !strings.Contains(r.Why, c.why) || r.Spec != "" || r.Source != c.file+":3" {
				t.Errorf("rule = %+v, want %s with why containing %q at %s:3", r, c.outcome, c.why, c.file)
			}
		})
	}
}

// count 0 is a valid FlowRule (count >= 0) that blocks every request, and
// threshold 0 a valid sentinel-golang flow rule that does too: each runs
// as a spec that refuses every arrival.
func TestZeroThresholdBlocksEverything(t *testing.T) {
	for _, body := range []string{`[{"resource": "a", "count": 0}]`, `[{"resource": "a", "grade": 1}]`, `[{"resource": "a", "threshold": 0, "controlBehavior": 1}]`} {
		rules, err := Parse("r.json", []byte(body), "")
		if err != nil || len(rules) != 1 || !rules[0].Active() {
			t.Fatalf("%s: rules = %+v, err = %v", body, rules, err)
		}
		l, err := algorithms.New(rules[0].Spec, 100)
		if err != nil {
			t.Fatalf("%s: %v", rules[0].Spec, err)
		}
		rl, ok := l.(algorithms.RequestLimiter)
		for i := 0; i < 50; i++ {
			var pass bool
			if ok {
				pass = rl.DecideRequest(0, &algorithms.Request{Cost: 1}).Pass
			} else {
				pass = l.Decide(0).Pass
			}
			if pass {
				t.Fatalf("%s (%s): arrival %d passed", body, rules[0].Spec, i)
			}
		}
	}
}
