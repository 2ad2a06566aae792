package lab_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// costTrace writes a CSV trace with a cost column, in the shape a
// recorded trace holds it (t_ms,client,cost), and returns its path: six
// clients each send one request of cost 4, then one of cost 1 a second
// later.
func costTrace(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("t_ms,client,cost\n")
	for i, c := range []string{"a", "b", "c", "d", "e", "f"} {
		b.WriteString(strings.Join([]string{strconv.Itoa(i), c, "4"}, ",") + "\n")
	}
	for i, c := range []string{"a", "b", "c", "d", "e", "f"} {
		b.WriteString(strings.Join([]string{strconv.Itoa(1000 + i), c, "1"}, ",") + "\n")
	}
	p := filepath.Join(t.TempDir(), "costs.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCostChargedPerKey: token-bucket per key charges each request's cost
// as x/time/rate's AllowN(t, n) does: a cost of 4 above the burst of 3 is
// refused without taking a token, so all six clients are hurt and their
// requests of cost 1 pass; the summary's per-key figures say so.
func TestCostChargedPerKey(t *testing.T) {
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Trace: costTrace(t), Limit: 1, LimitSet: true}
	opts.Specs = []string{"token-bucket:rate=1,burst=3,key=client"}
	r := replay(t, opts)
	a := r.res.Algorithms[0]
	if a.Passed != 6 {
		t.Errorf("passed %d of 12, want 6 (the requests of cost 1)", a.Passed)
	}
	if k := a.Keys; k == nil || k.KeysHurt != 6 || k.DistinctKeys != 6 {
		t.Fatalf("per-key figures %+v, want 6 keys, 6 hurt", k)
	}
	if len(r.res.Warnings) != 0 {
		t.Errorf("token-bucket charges the cost, yet warnings %q", r.res.Warnings)
	}
}

// TestCostNotChargedWarnsOncePerRow: a run on a trace with a cost column
// warns once for each row that counts every request as 1 (a reference
// without a count, a chain with such a stage, naming it, check-to-add) and for no row
// that charges it (a chain whose every stage takes a count included); the
// same run on a trace without the column warns nothing.
func TestCostNotChargedWarnsOncePerRow(t *testing.T) {
	specs := []string{"uber:rate=1", "token-bucket:rate=1,burst=3", "fixed-window:limit=3+leaky-bucket:limit=1", "guava-bursty:rate=1",
		"leap-array:limit=3+leaky-bucket:limit=1+circuit-breaker:strategy=error-count,threshold=2", "leap-array:limit=3,check-to-add=2ms"}
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Trace: costTrace(t), Limit: 1, LimitSet: true}
	opts.Specs = specs
	r := replay(t, opts)
	var got []string
	for _, w := range r.res.Warnings {
		if strings.Contains(w, "the trace's cost column") {
			got = append(got, w)
		}
	}
	if len(got) != 4 || !strings.HasPrefix(got[0], "uber:rate=1,") ||
		!strings.Contains(got[1], "charged by every stage but fixed-window, where every request counts 1") ||
		!strings.Contains(got[2], "charged by every stage but circuit-breaker, where every request counts 1") ||
		!strings.Contains(got[3], "with check-to-add every request counts 1") {
		t.Errorf("cost warnings %q, want one for uber, one naming the chain's fixed-window, one its circuit-breaker and one for check-to-add", got)
	}

	plain := filepath.Join(t.TempDir(), "plain.csv")
	if err := os.WriteFile(plain, []byte("t_ms\n0\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Source = lab.Source{Trace: plain, Limit: 1, LimitSet: true}
	for _, w := range replay(t, opts).res.Warnings {
		if strings.Contains(w, "cost") {
			t.Errorf("a trace without a cost column warns %q", w)
		}
	}
}
