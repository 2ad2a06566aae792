package simulator

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

func TestPlanBin(t *testing.T) {
	const year = 8760 * time.Hour
	for _, c := range []struct {
		span, bin time.Duration
		max       int
		want      time.Duration
	}{
		{2 * time.Second, 50 * time.Millisecond, 100, 50 * time.Millisecond},
		{5 * time.Second, 50 * time.Millisecond, 100, 50 * time.Millisecond}, // exactly 100 bins
		{5*time.Second + 1, 50 * time.Millisecond, 100, 100 * time.Millisecond},
		{24 * time.Hour, 50 * time.Millisecond, DefaultMaxBins, time.Second},
		{10 * time.Second, time.Nanosecond, DefaultMaxBins, 100 * time.Microsecond},
		{year, 50 * time.Millisecond, DefaultMaxBins, 500 * time.Second},
		{time.Duration(1<<63 - 1), time.Nanosecond, DefaultMaxBins, 100 * time.Second * 1e3},
		{0, time.Nanosecond, 10, time.Nanosecond},
	} {
		got := PlanBin(c.span, c.bin, c.max)
		if got != c.want {
			t.Errorf("PlanBin(%v, %v, %d) = %v, want %v", c.span, c.bin, c.max, got, c.want)
		}
		if c.span > 0 && (int64(c.span)-1)/int64(got)+1 > int64(c.max) {
			t.Errorf("PlanBin(%v, %v, %d) = %v: %d bins", c.span, c.bin, c.max, got, (int64(c.span)-1)/int64(got)+1)
		}
	}
}

// binsAt runs arrs through a limiter that passes everything after a wait
// and returns the result.
func runBins(t *testing.T, arrs []scenarios.Arrival, cfg Config) *Result {
	t.Helper()
	r, err := Run(context.Background(), &sliceStream{arr: arrs},
		[]algorithms.Limiter{&alternate{}, &queue{wait: 130 * time.Millisecond}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestYearLongTraceIsBounded is the 3-line trace spanning a year that the
// OOM killer stopped at 24 GB: the series has at most DefaultMaxBins bins
// and the bins still add up to the totals.
func TestYearLongTraceIsBounded(t *testing.T) {
	year := 8760 * time.Hour
	cfg := cfgFor(year + 1)
	r := runBins(t, at(0, year/2, year), cfg)
	if r.Bin != 500*time.Second || r.RequestedBin != DefaultBin {
		t.Errorf("Bin %v (requested %v), want 500s (50ms)", r.Bin, r.RequestedBin)
	}
	for _, a := range r.Algorithms {
		if len(a.Bins) > DefaultMaxBins {
			t.Errorf("%s: %d bins", a.Spec, len(a.Bins))
		}
		var arrived int64
		for _, b := range a.Bins {
			arrived += b.Arrived
		}
		if arrived != 3 {
			t.Errorf("%s: bins hold %d arrivals, want 3", a.Spec, arrived)
		}
	}
}

// TestBinsWidenDuringTheRun: arrivals far outside the declared span (a
// trace read from a pipe has none) make the accumulator double its bin on
// the fly; the result equals a run at the final width from the start.
func TestBinsWidenDuringTheRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var ts []time.Duration
	for range 5000 {
		ts = append(ts, time.Duration(rng.Int64N(int64(40*time.Second)))-5*time.Second)
	}
	slices.Sort(ts)
	cfg := cfgFor(time.Second)
	cfg.MaxBins = 100
	got := runBins(t, at(ts...), cfg)
	if got.Bin <= DefaultBin || got.Bin%DefaultBin != 0 {
		t.Fatalf("Bin %v, want a multiple of 50ms above it", got.Bin)
	}
	for _, a := range got.Algorithms {
		if len(a.Bins) > 100 {
			t.Errorf("%s: %d bins, want at most 100", a.Spec, len(a.Bins))
		}
	}
	direct := cfgFor(time.Second)
	direct.Bin = got.Bin
	want := runBins(t, at(ts...), direct)
	if want.Start != got.Start || want.End != got.End {
		t.Errorf("span %v..%v, direct run %v..%v", got.Start, got.End, want.Start, want.End)
	}
	for i := range got.Algorithms {
		if !slices.Equal(got.Algorithms[i].Bins, want.Algorithms[i].Bins) {
			t.Errorf("%s: widened bins differ from a run at %v", got.Algorithms[i].Spec, got.Bin)
		}
		if got.Algorithms[i].PeakBinPassed != want.Algorithms[i].PeakBinPassed {
			t.Errorf("%s: peak bin %d, direct %d", got.Algorithms[i].Spec, got.Algorithms[i].PeakBinPassed, want.Algorithms[i].PeakBinPassed)
		}
	}
}

func TestClockStepsAreListed(t *testing.T) {
	arr := []scenarios.Arrival{
		{At: 0, Clock: 0},
		{At: 100 * time.Millisecond, Clock: 100 * time.Millisecond},
		{At: 200 * time.Millisecond, Clock: -300 * time.Millisecond}, // back 500ms
		{At: 300 * time.Millisecond, Clock: -200 * time.Millisecond},
		{At: 400 * time.Millisecond, Clock: 1400 * time.Millisecond}, // forward 1.5s
		{At: 500 * time.Millisecond, Clock: 500 * time.Millisecond},  // trace-like: timestamp back
		{At: 450 * time.Millisecond, Clock: 450 * time.Millisecond},
	}
	r := runBins(t, arr, cfgFor(time.Second))
	want := []ClockStep{
		{At: 200 * time.Millisecond, By: -500 * time.Millisecond},
		{At: 400 * time.Millisecond, By: 1500 * time.Millisecond},
		{At: 500 * time.Millisecond, By: -time.Second},
		{At: 500 * time.Millisecond, By: -50 * time.Millisecond},
	}
	if !slices.Equal(r.ClockSteps, want) || r.ClockStepCount != 4 {
		t.Errorf("clock steps %v (%d), want %v", r.ClockSteps, r.ClockStepCount, want)
	}
}
