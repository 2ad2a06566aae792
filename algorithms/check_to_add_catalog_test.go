package algorithms_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// checkToAddSpecs are the catalog scenario's own specs of the kinds that
// take check-to-add, plus each kind's default.
func checkToAddSpecs(sc scenarios.Scenario) []string {
	kinds := []string{"fixed-window", "leap-array", "sliding-window", "sliding-log", "warm-up"}
	specs := append([]string(nil), "fixed-window", "leap-array", "sliding-log", "warm-up")
	for _, s := range sc.Algorithms {
		name, _, _ := strings.Cut(s, ":")
		if strings.Contains(s, "check-to-add") {
			continue // the scenario's own race, not today's limiter
		}
		for _, k := range kinds {
			if name == k {
				specs = append(specs, s)
			}
		}
	}
	return specs
}

// withZeroGap appends check-to-add=0s to a spec.
func withZeroGap(spec string) string {
	if strings.Contains(spec, ":") {
		return spec + ",check-to-add=0s"
	}
	return spec + ":check-to-add=0s"
}

// runBytes runs sc through lims and returns the series CSV, the summary
// JSON (without the measured ns per decision) and every decision row.
func runBytes(t *testing.T, sc scenarios.Scenario, lims []algorithms.Limiter, sameState bool) []byte {
	t.Helper()
	r, rows := runResult(t, sc, lims)
	return resultBytes(t, r, rows, sameState)
}

// runResult runs sc through lims and returns the result and a hash of
// each limiter's decision rows.
func runResult(t *testing.T, sc scenarios.Scenario, lims []algorithms.Limiter) (*simulator.Result, []hash.Hash) {
	t.Helper()
	st, err := sc.Stream()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := simulator.DefaultConfig()
	cfg.Scenario, cfg.Limit, cfg.End = sc.Name, sc.Limit, sc.Duration
	rows := make([]hash.Hash, len(lims))
	for i := range rows {
		rows[i] = sha256.New()
	}
	cfg.Decisions = func(i int) io.Writer { return rows[i] }
	r, err := simulator.Run(context.Background(), st, lims, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, rows
}

// resultBytes is runBytes' output for a result: with sameState, without
// the state sizes (on a copy of the result's rows).
func resultBytes(t *testing.T, r *simulator.Result, rows []hash.Hash, sameState bool) []byte {
	t.Helper()
	cp := *r
	r = &cp
	r.Algorithms = append([]simulator.AlgoResult(nil), r.Algorithms...)
	for i := range r.Algorithms {
		r.Algorithms[i].NsPerDecision = 0
		if sameState {
			// The wrapper's own fields; the decisions are what must agree.
			r.Algorithms[i].StateBytes = 0
		}
	}
	var out bytes.Buffer
	if err := simulator.WriteSeriesCSV(&out, r); err != nil {
		t.Fatal(err)
	}
	if err := simulator.WriteSummaryJSON(&out, r); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		out.Write(rows[i].Sum(nil))
	}
	return out.Bytes()
}

// TestCheckToAddZeroIsTodayOnTheCatalog replays every catalog scenario
// through today's limiters, through the same limiters wrapped in a
// CheckToAdd with gap 0, and through the registry's check-to-add=0s: the
// series, the summary and every decision are byte-identical (for the
// wrapper, apart from the state size it adds).
func TestCheckToAddZeroIsTodayOnTheCatalog(t *testing.T) {
	for _, sc := range scenarios.Catalog() {
		t.Run(sc.Name, func(t *testing.T) {
			specs := checkToAddSpecs(sc)
			build := func(wrap func(algorithms.Limiter) algorithms.Limiter, zeroGap bool) []algorithms.Limiter {
				var lims []algorithms.Limiter
				for _, s := range specs {
					if zeroGap {
						s = withZeroGap(s)
					}
					l, err := algorithms.New(s, sc.Limit)
					if err != nil {
						t.Fatal(err)
					}
					lims = append(lims, wrap(l))
				}
				return lims
			}
			same := func(l algorithms.Limiter) algorithms.Limiter { return l }
			gap0 := func(l algorithms.Limiter) algorithms.Limiter {
				w, err := algorithms.NewCheckToAdd(l.(algorithms.Stage), 0)
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			plain, wrapped, zero := build(same, false), build(gap0, false), build(same, true)
			today, todayRows := runResult(t, sc, plain)
			if got, want := runBytes(t, sc, zero, false), resultBytes(t, today, todayRows, false); !bytes.Equal(got, want) {
				t.Errorf("check-to-add=0s: output differs from today's (%d vs %d bytes)", len(got), len(want))
			}
			// The wrapper asks its stage with Check and Record, without the
			// request: it decides prioritized arrivals as ordinary ones, so
			// it is compared on the traffic without priority (today's run
			// again when the scenario has none).
			noPrio := sc
			noPrio.PriorityShare = 0
			want := resultBytes(t, today, todayRows, true)
			if sc.PriorityShare != 0 {
				want = runBytes(t, noPrio, build(same, false), true)
			}
			if got := runBytes(t, noPrio, wrapped, true); !bytes.Equal(got, want) {
				t.Errorf("CheckToAdd with gap 0: output differs from today's (%d vs %d bytes)", len(got), len(want))

			}
		})
	}
}

// ExampleNewCheckToAdd shows the race on a leap-array at limit 5: ten
// callers in the same millisecond all pass when the first pass is counted
// only 1 ms after its check, and the window then holds ten passes.
func ExampleNewCheckToAdd() {
	l, _ := algorithms.New("leap-array:limit=5", 0)
	race, _ := algorithms.NewCheckToAdd(l.(algorithms.Stage), 1_000_000) // 1 ms
	passed := 0
	for range 10 {
		if race.Decide(0).Pass {
			passed++
		}
	}
	fmt.Println(passed, "passed at t=0;", race.InFlight(), "in flight")
	fmt.Println("at 1ms:", race.Decide(1_000_000).Pass)
	// Output:
	// 10 passed at t=0; 10 in flight
	// at 1ms: false
}
