package lab

import (
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// TestEmptyKeysWarnings: a key column empty on most requests warns once
// per column with the count; half or fewer does not.
func TestEmptyKeysWarnings(t *testing.T) {
	row := func(col int, arrived, empty int64) simulator.AlgoResult {
		return simulator.AlgoResult{Arrived: arrived, Keys: &simulator.KeyResult{Column: col, EmptyKeys: empty}}
	}
	res := &simulator.Result{Algorithms: []simulator.AlgoResult{
		row(0, 4, 3), row(0, 4, 3), row(1, 4, 2), {Arrived: 4},
	}}
	got := emptyKeysWarnings(res, []string{"ip", "user"})
	if len(got) != 1 || !strings.HasPrefix(got[0], `3 of 4 requests (75%) have an empty key column "ip"`) || !strings.Contains(got[0], "--key") {
		t.Errorf("warnings %q, want one for ip with 3 of 4", got)
	}
}
