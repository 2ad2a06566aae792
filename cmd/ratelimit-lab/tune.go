package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// TuneOptions holds everything `tune` needs.
type TuneOptions struct {
	IO     *IOStreams
	Source sourceOptions

	SampleCounts []int
	Interval     time.Duration
	Bin, Window  time.Duration
	Out          string
	Quiet        bool
}

// DefaultSampleCounts are the sample counts `tune` tries by default.
var DefaultSampleCounts = []int{1, 2, 4, 5, 10, 20, 50, 100, 1000}

// NewCmdTune builds `tune`. runF replaces the action in tests.
func NewCmdTune(io *IOStreams, runF func(context.Context, *TuneOptions) error) *cobra.Command {
	opts := &TuneOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "tune [SCENARIO | FILE.yaml] [flags]",
		Short: "Compare leap-array sample counts on the same traffic",
		Long: `Tune runs Sentinel's leap-array at several sample counts, in parallel, on
the same arrivals, and shows what each costs and lets through: passed %,
the largest number of passes in any sliding window against the limit (the
overshoot) beside the seed articles' smooth-traffic figure 1 + 1/N, the peak
bin, the state size and the time per decision.

It writes tune.csv and tune.png under --out (default out/<scenario>-tune).
A sample count that does not divide the interval is reported and skipped.`,
		Example: `  ratelimit-lab tune poisson
  ratelimit-lab tune adversarial --sample-counts 1,2,10,100,1000
  ratelimit-lab tune --trace requests.csv --limit 200 --interval 2s`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source.fromFlags(cmd, args)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tuneRun(cmd.Context(), opts)
		},
	}
	opts.Source.addFlags(cmd)
	f := cmd.Flags()
	f.IntSliceVar(&opts.SampleCounts, "sample-counts", DefaultSampleCounts, "sample counts to compare")
	f.DurationVar(&opts.Interval, "interval", time.Second, "leap-array's statistic interval (whole ms)")
	f.DurationVar(&opts.Bin, "bin", simulator.DefaultBin, "bin behind peak_bin_passed")
	f.DurationVar(&opts.Window, "window", simulator.DefaultWindow, "sliding window behind max_window_passed")
	f.StringVarP(&opts.Out, "out", "o", "", "output directory (default out/<scenario>-tune)")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	return cmd
}

func tuneRun(ctx context.Context, opts *TuneOptions) error {
	if len(opts.SampleCounts) == 0 {
		return fmt.Errorf("--sample-counts is empty; give for example --sample-counts 1,2,10,100")
	}
	for _, n := range opts.SampleCounts {
		if n < 1 {
			return fmt.Errorf("--sample-counts has %d; every sample count must be at least 1", n)
		}
	}
	if opts.Interval <= 0 || opts.Interval%time.Millisecond != 0 {
		return fmt.Errorf("--interval must be a positive whole number of milliseconds, got %v (for example --interval 1s)", opts.Interval)
	}
	// One leap-array spec checks the limit and the interval before the run.
	p, err := prepareRun(&opts.Source, []string{"leap-array:sample-count=1,interval=" + opts.Interval.String()}, opts.Bin, opts.Window, opts.Out, "-tune", nil)
	if err != nil {
		return err
	}
	dir, err := output.Open(p.out)
	if err != nil {
		return err
	}
	defer dir.Abort()
	bar := newProgress(opts.IO, opts.Quiet, p.src.Expected)
	p.cfg.Progress = bar.update
	res, err := simulator.Tune(ctx, p.src.Open, p.src.Limit, opts.Interval, opts.SampleCounts, p.cfg)
	bar.finish()
	if err != nil {
		return err
	}
	if err := dir.WriteFile("tune.csv", func(w io.Writer) error { return simulator.WriteTuneCSV(w, res) }); err != nil {
		return err
	}
	if err := dir.WriteFile("tune.png", func(w io.Writer) error { return plots.TuneChart(w, res) }); err != nil {
		return err
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	header, rows := simulator.TuneTable(res)
	if err := renderTable(opts.IO.Out, header, rows); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s/{tune.csv,tune.png}\n", filepath.ToSlash(p.out))
	return nil
}
