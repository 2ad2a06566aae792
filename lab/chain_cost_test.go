package lab_test

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// TestChainChargesCost: a chain charges each request's cost in every
// stage whose reference takes a count, through the run's chain executor,
// and the run warns for none of them. On costTrace (six requests of cost
// 4 at 0-5 ms, six of cost 1 at 1000-1005 ms):
//   - token-bucket per key + a leap array that never blocks passes what
//     the per-key token bucket alone passes (AllowN(t, 4) above the burst
//     of 3 is refused): the six of cost 1; charging 1 it would pass 12.
//   - a Sentinel resource, leap-array:limit=5 + circuit-breaker, passes
//     the first 4 (4 ≤ 5), blocks the next five (passQps 4 + 4 > 5), and
//     passes the five of cost 1 in the next second but not the sixth
//     (5 + 1 > 5): 6; charging 1 it would pass 10.
func TestChainChargesCost(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int64
	}{
		{"token-bucket:rate=1,burst=3,key=client+leap-array:limit=100", 6},
		{"leap-array:limit=5+circuit-breaker:strategy=error-count,threshold=100", 6},
	} {
		opts := lab.DefaultOptions()
		opts.Source = lab.Source{Trace: costTrace(t), Limit: 1, LimitSet: true}
		opts.Specs = []string{c.spec}
		r := replay(t, opts)
		if got := r.res.Algorithms[0].Passed; got != c.want {
			t.Errorf("%s: passed %d of 12, want %d", c.spec, got, c.want)
		}
		for _, w := range r.res.Warnings {
			if strings.Contains(w, "the trace's cost column") && !strings.Contains(w, "but circuit-breaker,") {
				t.Errorf("%s: warning %q", c.spec, w)
			}
		}
	}
}
