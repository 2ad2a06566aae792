package lab_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// workersRun executes opts with workers and returns every file it wrote,
// the printed summary with its top keys, and its notes.
func workersRun(t *testing.T, opts lab.Options, workers int) (map[string]string, []string) {
	t.Helper()
	ctx := context.Background()
	opts.Workers, opts.SayWorkers = workers, true
	opts.Out = filepath.Join(t.TempDir(), "out")
	plan, err := lab.NewPlan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	run, err := plan.Execute(ctx, lab.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, name := range run.Files {
		b, err := os.ReadFile(filepath.Join(run.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	var out, side bytes.Buffer
	if err := run.WriteSummary(&out, &side, true, 120); err != nil {
		t.Fatal(err)
	}
	// ns/decision is the one figure of the table measured on the wall clock.
	files["summary table"] = nsColumn(out.String())
	return files, run.Notes
}

// nsColumn drops the table's lines, keeping its specs and top keys:
// --wide shows ns/decision, which no two runs share. It drops the notes
// too, which --workers adds (compared apart).
func nsColumn(s string) string {
	var keep []string
	note := false
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "note: ") {
			note = true
		} else if !strings.HasPrefix(l, "  ") {
			note = false
		}
		if !note && !strings.ContainsAny(l, "│┌└├") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Every catalog scenario with per-key rows, with the rows that split
// added, writes the same files (series.csv, summary.json, keys.csv,
// decisions.csv; chart.png and report.html on burst-zero) and top keys
// for --workers 1 to 8 (2, 3 and 8 unless RATELIMIT_LAB_SOAK is set: the
// simulator's TestWorkersByteIdentical runs every N on random traces).
func TestWorkersCatalogByteIdentical(t *testing.T) {
	extra := []string{
		"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=0,key=key",
		"sentinel-param:count=10,duration=1s,capacity=unbounded,key=key",
		"leap-array:limit=10,sample-count=2,key=key",
	}
	ws := []int{2, 3, 8}
	if os.Getenv("RATELIMIT_LAB_SOAK") != "" {
		ws = []int{2, 3, 4, 5, 6, 7, 8}
	}
	for _, sc := range scenarios.Catalog() {
		keyed := false
		for _, s := range sc.Algorithms {
			keyed = keyed || strings.Contains(s, "key=") || strings.HasPrefix(s, "nginx-limit-req") || strings.HasPrefix(s, "sentinel-param")
		}
		if !keyed {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			opts := lab.DefaultOptions()
			opts.Source.Scenario = sc.Name
			switch {
			case sc.Name == "key-spray": // its spray starts at 5 s
				opts.Source.Duration, opts.Source.DurationSet = 6*time.Second, true
			case sc.Duration > 2*time.Second:
				opts.Source.Duration, opts.Source.DurationSet = time.Second, true
			}
			if sc.Name != "burst-zero" {
				// chart.png and report.html are drawn from the result: compared
				// on one scenario, to keep the test short.
				opts.Chart, opts.HTML = "none", false
			}
			opts.Specs = append(append([]string{}, sc.Algorithms...), extra...)
			opts.Decisions = true
			want, _ := workersRun(t, opts, 1)
			for _, w := range ws {
				got, notes := workersRun(t, opts, w)
				for name, s := range want {
					if got[name] != s {
						t.Errorf("--workers %d: %s differs from --workers 1", w, name)
						if !strings.HasSuffix(name, ".png") && !strings.HasSuffix(name, ".html") {
							t.Logf("got:\n%.2000s\nwant:\n%.2000s", got[name], s)
						}
					}
				}
				if len(got) != len(want) {
					t.Errorf("--workers %d wrote %d files, --workers 1 %d", w, len(got), len(want))
				}
				if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "decided by key on") {
					t.Errorf("--workers %d: no row split; notes %q", w, notes)
				}
			}
		})
	}
}
