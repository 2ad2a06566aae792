package lab

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

func tuneOf(rows ...simulator.TuneRow) *simulator.TuneResult {
	return &simulator.TuneResult{Interval: time.Second, Rows: rows}
}

// --target's claim is as strong as the counts tried: it says "among the
// sample counts tried" and names the divisors of the interval below the
// answer that were not tried (poisson's N=50 left 40 untried, which meets
// 1.05 too); an unreachable target suggests only counts not tried yet.
func TestTuneTargetClaimsOnlyWhatItTried(t *testing.T) {
	row := func(n int, over float64) simulator.TuneRow {
		return simulator.TuneRow{SampleCount: n, Bucket: time.Second / time.Duration(n), Overshoot: over}
	}
	var b bytes.Buffer
	if err := reportTarget(&b, tuneOf(row(1, 2), row(2, 1.5), row(4, 1.2), row(5, 1.2), row(10, 1.1), row(20, 1.06), row(50, 1.04), row(100, 1.02), row(1000, 1)), 1.05, 300); err != nil {
		t.Fatal(err)
	}
	if want := "target 1.05: among the sample counts tried, the smallest N with overshoot ≤ 1.05 is N=50 (overshoot 1.040, bucket 20ms); not tried below it: 8,25,40 (add them to --sample-counts to check)\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	// Every divisor below the answer tried: nothing to add.
	b.Reset()
	if err := reportTarget(&b, tuneOf(row(1, 1.04), row(2, 1.5)), 1.05, 300); err != nil || strings.Contains(b.String(), "not tried") {
		t.Errorf("N=1 has nothing below it: %q, %v", b.String(), err)
	}
	for _, c := range []struct {
		rows []simulator.TuneRow
		want string
	}{
		// Larger divisors not tried: three of them, none of those tried.
		{[]simulator.TuneRow{row(2, 2), row(10, 2), row(100, 2)}, "try larger ones not tried yet, e.g. --sample-counts 125,250,1000"},
		// The largest tried already: smaller untried ones.
		{[]simulator.TuneRow{row(1000, 2), row(500, 2)}, "try other ones not tried yet, e.g. --sample-counts 1,25,250"},
	} {
		err := reportTarget(&b, tuneOf(c.rows...), 0.5, 300)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("unreachable: %v, want %q", err, c.want)
		}
		for _, r := range c.rows {
			if strings.Contains(err.Error(), "--sample-counts "+itoa(r.SampleCount)+",") {
				t.Errorf("suggests %d, which was tried: %v", r.SampleCount, err)
			}
		}
	}
	// Every divisor of a 4 ms interval tried: says none is left.
	all := &simulator.TuneResult{Interval: 4 * time.Millisecond, Rows: []simulator.TuneRow{row(1, 2), row(2, 2), row(4, 2)}}
	if err := reportTarget(&b, all, 0.5, 300); err == nil || !strings.Contains(err.Error(), "every sample count that divides the interval of 4 ms was tried") {
		t.Errorf("none left: %v", err)
	}
}

func itoa(n int) string { return joinInts([]int{n}) }

// --sample-counts 2,2,2 runs N=2 once and says so on the notes.
func TestTuneDropsDuplicateSampleCounts(t *testing.T) {
	opts := DefaultTuneOptions()
	opts.Source.Scenario = "boundary-burst-small"
	opts.SampleCounts = []int{2, 2, 10, 2, 10}
	opts.Out = t.TempDir()
	var notes bytes.Buffer
	plan, err := NewTunePlan(context.Background(), opts, &notes, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	res, err := plan.Replay(context.Background(), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range res.Rows {
		got = append(got, r.SampleCount)
	}
	if joinInts(got) != "2,10" || !strings.Contains(notes.String(), "note: --sample-counts names 2,10 more than once; each runs once") {
		t.Errorf("rows %v, notes %q", got, notes.String())
	}
}
