package lab

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// MaxWorkers is the largest --workers.
const MaxWorkers = 256

// DefaultWorkers is run's --workers default: the machine's CPUs.
func DefaultWorkers() int { return min(runtime.NumCPU(), MaxWorkers) }

func checkWorkers(n int) error {
	if n < 0 || n > MaxWorkers {
		return fmt.Errorf("--workers must be between 1 and %d, got %d (for example --workers %d, this machine's CPUs)", MaxWorkers, n, DefaultWorkers())
	}
	return nil
}

// workersNotes says, once per run, which rows were split over the
// workers and, one line each, why the others were decided on one worker.
func workersNotes(res *simulator.Result) []string {
	if len(res.Workers) == 0 {
		return nil
	}
	labels := report.Labels(res)
	var split, notes []string
	n := 0
	for i, w := range res.Workers {
		switch {
		case w.Shards > 1:
			split, n = append(split, labels[i]), w.Shards
		case w.Why != "":
			notes = append(notes, fmt.Sprintf("row %s: %s, decided on one worker", labels[i], w.Why))
		}
	}
	if len(split) > 0 {
		notes = append([]string{fmt.Sprintf("decided by key on %d workers: %s (every file is the same as with --workers 1)",
			n, strings.Join(split, ", "))}, notes...)
	}
	return notes
}
