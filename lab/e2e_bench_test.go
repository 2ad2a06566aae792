package lab_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/floor"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// Issue 27's end-to-end run is `ratelimit-lab run poisson --limit 100000
// --duration 60s` (9,000,508 arrivals through the catalog's seven limiters,
// with the bins, summary, chart.png and report.html), and its floor is
// floor.PoissonSevenFixed (floorcmd poisson): the same arrivals through
// seven fixed windows with 50 ms bins, written as CSV. The two benchmarks
// below run them in one process; docs/performance.md has the commands and
// the figures, and the whole-process comparison of the two binaries.

// e2eLimit and e2eDuration are the run's --limit and --duration:
// RATELIMIT_E2E_LIMIT (default 100000) and 60s.
func e2eLimit(b *testing.B) float64 {
	if s := os.Getenv("RATELIMIT_E2E_LIMIT"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) {
			b.Fatalf("RATELIMIT_E2E_LIMIT=%q; set a positive number", s)
		}
		return v
	}
	return 100_000
}

const e2eDuration = 60 * time.Second

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// poissonOptions are `run poisson --limit limit --duration d -o out`.
func poissonOptions(limit float64, d time.Duration, out string) lab.Options {
	o := lab.DefaultOptions()
	o.Source = lab.Source{Scenario: "poisson", Limit: limit, LimitSet: true, Duration: d, DurationSet: true}
	o.Out = out
	return o
}

// go test -run '^$' -bench 'PoissonFloor|RunPoisson' -benchtime 1x -count 3 ./lab/
func BenchmarkRunPoisson(b *testing.B) {
	opts := poissonOptions(e2eLimit(b), e2eDuration, b.TempDir())
	ctx := context.Background()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		plan, err := lab.NewPlan(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		run, err := plan.Execute(ctx, lab.Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		plan.Close()
		if len(run.Files) != 4 {
			b.Fatalf("wrote %v", run.Files)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/run")
}

// BenchmarkPoissonFloor is the floor of BenchmarkRunPoisson (its CSV
// written to a file in a temporary directory, as floorcmd does).
func BenchmarkPoissonFloor(b *testing.B) {
	limit := e2eLimit(b)
	dir := b.TempDir()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		f, err := os.Create(dir + "/poisson-bins.csv")
		if err != nil {
			b.Fatal(err)
		}
		res, err := floor.PoissonSevenFixed(f, limit, e2eDuration)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		if res.Lines == 0 {
			b.Fatal("no arrivals")
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/run")
}

// The floor replays the same arrivals as `run poisson`: at a small limit,
// its fixed windows' bins are the run's fixed-window bins, one by one
// (arrived, passed, blocked), and its arrivals the run's.
func TestPoissonFloorMatchesRun(t *testing.T) {
	const limit, d = 1000.0, 3 * time.Second
	var buf bytes.Buffer
	fl, err := floor.PoissonSevenFixed(&buf, limit, d)
	if err != nil {
		t.Fatal(err)
	}
	opts := poissonOptions(limit, d, "")
	opts.Specs = []string{"fixed-window"}
	ctx := context.Background()
	plan, err := lab.NewPlan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	res, err := plan.Replay(ctx, lab.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Algorithms[0]
	if a.Arrived != fl.Lines || a.Passed != fl.Passed || fl.Lines < 4000 {
		t.Fatalf("run: %d arrived, %d passed; floor: %d, %d", a.Arrived, a.Passed, fl.Lines, fl.Passed)
	}
	if !strings.HasPrefix(buf.String(), "t_ms,limiter,arrived,passed,blocked\n") {
		t.Fatalf("floor CSV starts %.60q", buf.String())
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][3]int64{} // fw0's bins by start (ms)
	for _, r := range rows[1:] {
		if r[1] != "fw0" {
			continue // the seven windows decide alike
		}
		var v [3]int64
		for k := range v {
			v[k], _ = strconv.ParseInt(r[2+k], 10, 64)
		}
		ms, _ := strconv.ParseInt(r[0], 10, 64)
		got[ms] = v
	}
	if res.Bin != 50*time.Millisecond {
		t.Fatalf("bin %v", res.Bin)
	}
	checked := 0
	for i, bn := range a.Bins {
		ms := (res.Start + time.Duration(i)*res.Bin).Milliseconds()
		want := [3]int64{bn.Arrived, bn.Passed, bn.Blocked}
		if got[ms] != want {
			t.Fatalf("bin at %d ms: floor %v, run %v", ms, got[ms], want)
		}
		if want[0] > 0 {
			checked++
		}
	}
	if checked != 60 {
		t.Fatalf("%d bins checked", checked)
	}
}
