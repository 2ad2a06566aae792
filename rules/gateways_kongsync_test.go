package rules

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// sync_rate > 0 with policy redis becomes kong's sync-rate (issue 30),
// a spec the registry builds; -1 adds nothing.
func TestKongSyncRate(t *testing.T) {
	const g = "_format_version: \"3.0\"\nplugins:\n  - name: rate-limiting\n    config:\n      minute: 100\n      policy: redis\n"
	for body, want := range map[string]string{
		g + "      sync_rate: 0.5\n": "policy=redis,sync-rate=0.5",
		g + "      sync_rate: 10\n":  "policy=redis,sync-rate=10",
		g + "      sync_rate: -1\n":  "policy=redis",
	} {
		rs, err := Parse("k.yaml", []byte(body), "kong")
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		spec := rs[0].Spec
		if !strings.Contains(spec, want) || (want == "policy=redis" && strings.Contains(spec, "sync-rate")) {
			t.Errorf("%s: spec %q, want %q in it", body, spec, want)
		}
		for _, n := range rs[0].Notes {
			if strings.HasPrefix(n, NotSimulatedNote) && strings.Contains(n, "sync_rate") {
				t.Errorf("%s: note %q still says not simulated", body, n)
			}
		}
		base, _, _ := strings.Cut(spec, ",key=")
		if _, err := algorithms.New(base, 0); err != nil {
			t.Errorf("%s: %q does not build: %v", body, base, err)
		}
	}
}
