package simulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Tune runs leap-array with limit and interval at every sample count in
// sampleCounts, all in parallel on one pass over the arrivals from open, and
// returns one row per sample count in the order given. A sample count that
// does not divide the interval (in ms) gets a row with Skipped set and is
// not run. cfg supplies Scenario, Bin, Window and the other run settings;
// its Limit is replaced by limit.
func Tune(ctx context.Context, open func() (scenarios.Stream, error), limit float64, interval time.Duration, sampleCounts []int, cfg Config) (*TuneResult, error) {
	return tune(ctx, open, limit, interval, sampleCounts, cfg, algorithms.New)
}

// LeapArraySpec is the spec Tune gives algorithms.New for one sample count.
func LeapArraySpec(limit float64, sampleCount int, interval time.Duration) string {
	return fmt.Sprintf("leap-array:limit=%s,sample-count=%d,interval=%v", fmtExact(limit), sampleCount, interval)
}

func tune(ctx context.Context, open func() (scenarios.Stream, error), limit float64, interval time.Duration,
	sampleCounts []int, cfg Config, build func(string, float64) (algorithms.Limiter, error)) (*TuneResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(sampleCounts) == 0 {
		return nil, errors.New("no sample counts to tune: give at least one, for example 2,5,10,20")
	}
	if interval <= 0 || interval%time.Millisecond != 0 {
		return nil, fmt.Errorf("--interval must be a positive whole number of milliseconds, got %v", interval)
	}
	cfg.Limit = limit
	res := &TuneResult{
		Scenario: cfg.Scenario,
		Limit:    limit,
		Interval: interval,
		Window:   cfg.Window,
		Bin:      cfg.Bin,
		Rows:     make([]TuneRow, len(sampleCounts)),
	}
	ims := int64(interval / time.Millisecond)
	var lims []algorithms.Limiter
	var rowOf []int // rowOf[k]: the row of lims[k]
	for i, n := range sampleCounts {
		row := &res.Rows[i]
		row.SampleCount = n
		switch {
		case n < 1:
			row.Skipped = fmt.Sprintf("sample count %d is not positive.", n)
			continue
		case ims%int64(n) != 0:
			row.Skipped = fmt.Sprintf("sample count %d does not divide the interval of %d ms, as Sentinel requires.", n, ims)
			continue
		}
		lim, err := build(LeapArraySpec(limit, n, interval), limit)
		if err != nil {
			return nil, err
		}
		lims = append(lims, lim)
		rowOf = append(rowOf, i)
	}
	if len(lims) == 0 {
		return res, nil
	}
	src, err := open()
	if err != nil {
		return nil, err
	}
	r, err := Run(ctx, src, lims, cfg)
	if cerr := src.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	for k, a := range r.Algorithms {
		row := &res.Rows[rowOf[k]]
		row.Bucket = interval / time.Duration(row.SampleCount)
		row.Arrived, row.Passed = a.Arrived, a.Passed
		row.PassedPct = 100 * passRatio(a.Passed, a.Arrived)
		row.MaxWindowPassed = a.MaxWindowPassed
		row.LateAdmissions = a.LateAdmissions
		row.Overshoot = a.Overshoot
		row.SmoothBound = 1 + 1/float64(row.SampleCount)
		row.PeakBinPassed = a.PeakBinPassed
		row.StateBytes = a.StateBytes
		row.NsPerDecision = a.NsPerDecision
	}
	return res, nil
}
