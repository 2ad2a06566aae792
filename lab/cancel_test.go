package lab_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/labtest"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// execute plans and executes opts, failing the test on an error.
func execute(t *testing.T, opts lab.Options) *lab.Run {
	t.Helper()
	run, err := tryExecute(context.Background(), opts, lab.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// tryExecute plans and executes opts with h.
func tryExecute(ctx context.Context, opts lab.Options, h lab.Hooks) (*lab.Run, error) {
	plan, err := lab.NewPlan(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer plan.Close()
	return plan.Execute(ctx, h)
}

// TestCancelLeavesTheEarlierRun cancels a run (what SIGINT and SIGTERM do
// to the command's context) while it simulates, while it draws chart.png
// and while it writes decisions.csv: Execute returns the context's error,
// every temporary file is gone and the earlier run's files are there byte
// for byte. Each cancel is made on the event itself (the first progress
// report, the file about to be written), so the test holds on a loaded
// machine.
func TestCancelLeavesTheEarlierRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	first := lab.DefaultOptions()
	first.Source.Scenario, first.Decisions, first.Out = "boundary-burst", true, out
	execute(t, first)
	before := labtest.Snapshot(t, out)

	long := lab.DefaultOptions() // 10⁶ arrivals: progress is reported on the way
	long.Source = lab.Source{Scenario: "poisson", Limit: 50000, LimitSet: true, Duration: 20 * time.Second, DurationSet: true}
	long.Specs, long.Decisions, long.Chart, long.Out = []string{"fixed-window", "token-bucket"}, true, "none", out
	short := lab.DefaultOptions()
	short.Source.Scenario, short.Decisions, short.Out = "poisson", true, out
	for _, c := range []struct {
		phase string
		opts  lab.Options
		hooks func(cancel func()) lab.Hooks
	}{
		{"simulation", long, func(cancel func()) lab.Hooks { return lab.Hooks{Progress: func(int64) { cancel() }} }},
		{"chart", short, func(cancel func()) lab.Hooks {
			return lab.Hooks{Writing: func(name string) {
				if name == "chart.png" {
					cancel()
				}
			}}
		}},
		{"writing", short, func(cancel func()) lab.Hooks {
			return lab.Hooks{Writing: func(name string) {
				if name == "decisions.csv" {
					cancel()
				}
			}}
		}},
	} {
		t.Run(c.phase, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			_, err := tryExecute(ctx, c.opts, c.hooks(func() { once.Do(cancel) }))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Execute returned %v, want context.Canceled", err)
			}
			labtest.Unchanged(t, out, before, "cancel")
		})
	}
}

// TestYearLongDurationRunsAndStops: a year of poisson says it widens the
// bin, starts, and stops as soon as it is cancelled, leaving no output
// directory behind.
func TestYearLongDurationRunsAndStops(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Scenario: "poisson", Duration: 8760 * time.Hour, DurationSet: true}
	opts.Out = out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var notes strings.Builder
	_, err := tryExecute(ctx, opts, lab.Hooks{Notes: &notes, Progress: func(int64) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute returned %v, want context.Canceled", err)
	}
	if !strings.Contains(notes.String(), "using --bin") {
		t.Errorf("no bin note: %q", notes.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the cancelled run left %s behind (%v)", out, err)
	}
}
