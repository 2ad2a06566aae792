package findings

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

func TestInFlightAndPeakRate(t *testing.T) {
	for _, tc := range []struct {
		rate int64
		gap  time.Duration
		want int64
	}{
		{100000, 0, 0}, {100000, 10 * time.Microsecond, 1}, {100000, 11 * time.Microsecond, 2},
		{20000, 50 * time.Microsecond, 1}, {20000, time.Millisecond, 20}, {3, time.Second, 3},
	} {
		if got := inFlight(tc.rate, tc.gap); got != tc.want {
			t.Errorf("inFlight(%d, %v) = %d, want %d", tc.rate, tc.gap, got, tc.want)
		}
	}
	for name, want := range map[string][2]int64{"hot-key": {100000, 1000}, "hot-key-1qps": {100000, 100}, "hot-key-overload": {20000, 0}} {
		sc, err := scenarios.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if r, b := peakRate(sc); r != want[0] || b != want[1] {
			t.Errorf("%s: peak rate %d, burst %d; want %v", name, r, b, want)
		}
	}
}

// TestRaceBenchData checks the committed §5.3 measurements: each was made
// with the command shown beside it.
func TestRaceBenchData(t *testing.T) {
	for _, d := range RaceBenchDirs {
		f, err := os.Open(filepath.Join(root, d.Dir, "bench.json"))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := concurrent.ReadReport(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Results) != 6 || rep.Duration != "2s" {
			t.Errorf("%s: %d results over %s, want 6 over 2s", d.Dir, len(rep.Results), rep.Duration)
		}
		for _, r := range rep.Results {
			if r.Passes+r.Blocks != r.Decisions || r.Decisions == 0 {
				t.Errorf("%s: %+v does not add up", d.Dir, r)
			}
		}
	}
}
