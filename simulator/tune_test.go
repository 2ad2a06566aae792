package simulator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

func TestTuneWithRealLeapArray(t *testing.T) {
	open := func() (scenarios.Stream, error) {
		return newPoissonStream(300, 3000, 42), nil // 10 s at 3× a limit of 100
	}
	cfg := DefaultConfig()
	cfg.Scenario, cfg.End = "poisson", 10*time.Second
	tr, err := Tune(context.Background(), open, 100, time.Second, []int{1, 3, 10}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Rows) != 3 {
		t.Fatalf("%d rows", len(tr.Rows))
	}
	if s := tr.Rows[1].Skipped; !strings.Contains(s, "does not divide") || tr.Rows[1].Passed != 0 {
		t.Errorf("sample count 3: %+v", tr.Rows[1])
	}
	for _, i := range []int{0, 2} {
		r := tr.Rows[i]
		if r.Skipped != "" || r.Arrived != 3000 || r.Passed == 0 || r.Passed > 1100 {
			t.Errorf("row %d: %+v", i, r)
		}
		if want := 1 + 1/float64(r.SampleCount); r.SmoothBound != want {
			t.Errorf("row %d SmoothBound %v, want %v", i, r.SmoothBound, want)
		}
		if r.Bucket != time.Second/time.Duration(r.SampleCount) || r.StateBytes == 0 {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	if _, err := Tune(context.Background(), open, 100, 1500*time.Microsecond, []int{1}, cfg); err == nil {
		t.Error("sub-millisecond interval accepted")
	}
}
