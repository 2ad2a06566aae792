package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// sourceOptions are the flags shared by run and tune that choose the
// arrivals: a catalog scenario, a YAML file or a trace, and overrides.
type sourceOptions struct {
	Arg      string
	Trace    string
	Limit    float64
	Duration time.Duration
	Seed     uint64

	limitSet, durationSet, seedSet bool
}

func (o *sourceOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Trace, "trace", "", "replay a CSV trace (header t_ms, one arrival per line, in file order)")
	f.Float64Var(&o.Limit, "limit", 0, "replace the scenario's limit in req/s; its traffic scales with it")
	f.DurationVar(&o.Duration, "duration", 0, "replace the scenario's duration (not with --trace)")
	f.Uint64Var(&o.Seed, "seed", 0, "replace the scenario's random seed (not with --trace)")
}

func (o *sourceOptions) fromFlags(cmd *cobra.Command, args []string) {
	if len(args) > 0 {
		o.Arg = args[0]
	}
	o.limitSet = cmd.Flags().Changed("limit")
	o.durationSet = cmd.Flags().Changed("duration")
	o.seedSet = cmd.Flags().Changed("seed")
}

// source is a resolved set of arrivals with its run settings.
type source struct {
	Name       string
	Limit      float64
	Start, End time.Duration
	Algorithms []string
	// Expected is the number of arrivals when it is known beforehand.
	Expected int64
	// Approx is the mean number of arrivals (Expected when known), for
	// estimates made before the run.
	Approx float64
	Open   func() (scenarios.Stream, error)
}

func isScenarioFile(arg string) bool {
	ext := strings.ToLower(filepath.Ext(arg))
	return ext == ".yaml" || ext == ".yml"
}

// resolve checks every input before anything runs or is written.
func (o *sourceOptions) resolve() (*source, error) {
	if o.limitSet && (!(o.Limit > 0) || math.IsInf(o.Limit, 0)) {
		return nil, fmt.Errorf("--limit must be a positive number of requests per second, got %v", o.Limit)
	}
	if o.durationSet && o.Duration <= 0 {
		return nil, fmt.Errorf("--duration must be positive, got %v (for example --duration 10s)", o.Duration)
	}
	if o.Arg == "" && o.Trace == "" {
		return nil, errors.New("name a scenario, a scenario file or --trace FILE (run 'ratelimit-lab list' to see the scenarios)")
	}
	var sc scenarios.Scenario
	var err error
	switch {
	case o.Arg == "":
	case isScenarioFile(o.Arg):
		sc, err = scenarios.LoadFile(o.Arg)
	default:
		if _, statErr := os.Stat(o.Arg); statErr == nil && strings.ContainsAny(o.Arg, `/\.`) {
			return nil, fmt.Errorf("%s: a scenario file must end in .yaml or .yml (a trace goes with --trace)", o.Arg)
		}
		sc, err = scenarios.Lookup(o.Arg)
	}
	if err != nil {
		return nil, err
	}
	if o.Trace != "" {
		return o.resolveTrace(sc)
	}
	if o.limitSet {
		sc = sc.WithLimit(o.Limit)
	}
	if o.durationSet {
		sc = sc.WithDuration(o.Duration)
	}
	if o.seedSet {
		sc = sc.WithSeed(o.Seed)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &source{
		Name:       sc.Name,
		Limit:      sc.Limit,
		End:        sc.Duration,
		Algorithms: sc.Algorithms,
		Approx:     sc.ExpectedArrivals(),
		Open:       sc.Stream,
	}, nil
}

// resolveTrace replays a trace; a scenario given beside it supplies the
// limit and the algorithms.
func (o *sourceOptions) resolveTrace(sc scenarios.Scenario) (*source, error) {
	if o.durationSet {
		return nil, errors.New("--duration does not apply to --trace: the run lasts the trace's span")
	}
	if o.seedSet {
		return nil, errors.New("--seed does not apply to --trace: a trace has no randomness")
	}
	start, end, n, err := scenarios.TraceSpan(o.Trace)
	if err != nil {
		return nil, err
	}
	s := &source{
		Name:       strings.TrimSuffix(filepath.Base(o.Trace), filepath.Ext(o.Trace)),
		Limit:      sc.Limit,
		Start:      floorSecond(start),
		End:        end + time.Nanosecond,
		Algorithms: sc.Algorithms,
		Expected:   n,
		Approx:     float64(n),
		Open:       func() (scenarios.Stream, error) { return scenarios.OpenTrace(o.Trace) },
	}
	if o.limitSet {
		s.Limit = o.Limit
	}
	if len(s.Algorithms) == 0 {
		s.Algorithms = scenarios.DefaultAlgorithms
	}
	return s, nil
}

// floorSecond aligns the first bin of a trace on a whole second.
func floorSecond(d time.Duration) time.Duration {
	f := d.Truncate(time.Second)
	if f > d {
		f -= time.Second
	}
	return f
}
