package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
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
	HTML         bool
	// Target, when set, names the smallest N whose overshoot is at most it.
	Target    float64
	targetSet bool
	windowSet bool
	// Rules and Rule pick the flow rule whose limit is tuned (--rules,
	// --rule).
	Rules rulesOptions
	Rule  string
}

// DefaultSampleCounts are the sample counts `tune` tries by default.
var DefaultSampleCounts = []int{1, 2, 4, 5, 10, 20, 50, 100, 1000}

// NewCmdTune builds `tune`. runF replaces the action in tests.
func NewCmdTune(io *IOStreams, runF func(context.Context, *TuneOptions) error) *cobra.Command {
	opts := &TuneOptions{IO: io}
	opts.Source.In = io.In
	cmd := &cobra.Command{
		Use:   "tune [SCENARIO | FILE.yaml] [flags]",
		Short: "Compare leap-array sample counts on the same traffic",
		Long: `Tune runs Sentinel's leap-array at several sample counts, in parallel, on
the same arrivals, and shows what each costs and lets through: passed %,
the largest number of passes in any sliding window against the limit (the
overshoot) beside the smooth bound 1 + 1/N of the seed articles, the peak
bin and the state size.

The sliding window behind the overshoot is --window, which defaults to
--interval: the window leap-array itself limits.

It writes tune.csv (with the time per decision), tune.png and report.html
(the same charts, interactive) under --out
(default out/<scenario>-tune); an earlier tune's report.html there goes
with --html=false. A sample count that does not divide the
interval is reported under the table and skipped; if none divides it, tune
says so and stops. --target 1.05 names the smallest N whose overshoot is at
most 1.05, and exits with status 3 if no N tried reaches it.

--rules FILE tunes one of your own flow rules: the limit is the count of
its QPS rule with the default (reject) behaviour, the one rule of that kind
in the files or the one --rule names; in a resource's chain (param flow,
flow and degrade rules) that rule's stage is tuned alone.`,
		Example: `  ratelimit-lab tune poisson
  ratelimit-lab tune adversarial --sample-counts 1,2,10,100,1000
  ratelimit-lab tune --trace requests.csv --limit 200 --interval 2s
  ratelimit-lab tune poisson --target 1.05
  ratelimit-lab tune poisson --rules sentinel-flow-rules.json --rule GET:/api/orders`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source.fromFlags(cmd, args)
			opts.targetSet = cmd.Flags().Changed("target")
			opts.windowSet = cmd.Flags().Changed("window")
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
	f.DurationVar(&opts.Window, "window", 0, "sliding window behind max_window_passed (default --interval)")
	f.StringVarP(&opts.Out, "out", "o", "", "output directory (default out/<scenario>-tune)")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&opts.HTML, "html", true, "write report.html, the interactive page (--html=false skips it)")
	f.Float64Var(&opts.Target, "target", 0, "name the smallest N with overshoot at most this (exit 3 if none)")
	opts.Rules.addFlags(cmd)
	// tune replays one rule's QPS flow stage, not a row per rule.
	f.Lookup("rules").Usage = "a rules file (as run takes it), repeatable: tune takes its QPS flow rule's count as the limit and varies the sample count (--rule picks one when there are several; 'rules explain' shows them)"
	f.StringVar(&opts.Rule, "rule", "", "with --rules: the rule (resource) whose limit is tuned, when the files have several")
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
	if opts.targetSet && (!(opts.Target > 0) || math.IsInf(opts.Target, 0)) {
		return fmt.Errorf("--target must be a positive overshoot such as 1.05, got %v", opts.Target)
	}
	if err := someDivides(opts.SampleCounts, opts.Interval); err != nil {
		return err
	}
	if err := tuneRule(opts); err != nil {
		return err
	}
	window := opts.Window
	if !opts.windowSet {
		window = opts.Interval
	}
	// One leap-array spec checks the limit and the interval before the run.
	p, err := prepareRun(&opts.Source, []string{"leap-array:sample-count=1,interval=" + opts.Interval.String()}, true, opts.Bin, window, opts.Out, "-tune", nil)
	if err != nil {
		return err
	}
	defer p.src.cleanup()
	dir, err := output.Open(p.out)
	if err != nil {
		return err
	}
	defer dir.Abort()
	dir.Owns(tuneFiles...) // an earlier run's files this one does not write go on Commit
	bar := newProgress(opts.IO, opts.Quiet, p.src.Expected)
	p.cfg.Progress = bar.update
	p.src.printNotes(opts.IO.ErrOut, opts.IO.Width)
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
	files := "tune.csv,tune.png"
	if opts.HTML {
		if err := writeTuneHTML(dir, res); err != nil {
			return err
		}
		files += ",report.html"
	}
	if err := ctx.Err(); err != nil {
		return err // interrupted while writing: keep the earlier files
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	out := opts.IO.Out
	fit := opts.IO.Width
	if fit <= 0 {
		fit = report.DefaultWidth
	}
	// The context line wraps to the table's width, as run's does.
	head := fmt.Sprintf("%s · leap-array at %s/s, interval %s · window %s · bin %s",
		res.Scenario, report.Number(res.Limit), report.Duration(res.Interval), report.Duration(res.Window), report.Duration(res.Bin))
	if err := report.WriteWrapped(out, head, fit); err != nil {
		return err
	}
	header, rows := simulator.TuneTable(res)
	table, hidden, err := report.FitTuneTable(header, rows, fit)
	if err != nil {
		return err
	}
	out.Write(table)
	if len(hidden) > 0 {
		if err := report.WriteWrapped(out, fmt.Sprintf("hidden to fit %d columns: %s (tune.csv has them)", fit, strings.Join(hidden, ", ")), fit); err != nil {
			return err
		}
	}
	for _, row := range res.Rows {
		if row.Skipped != "" {
			line := fmt.Sprintf("skipped N=%d: %s", row.SampleCount, strings.TrimPrefix(row.Skipped, fmt.Sprintf("sample count %d ", row.SampleCount)))
			if err := report.WriteWrapped(out, line, fit); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(out, "wrote %s/{%s}\n", filepath.ToSlash(p.out), files)
	if opts.targetSet {
		return reportTarget(out, res, opts.Target, fit)
	}
	return nil
}

// someDivides reports, before anything runs, a tune in which every sample
// count would be skipped.
func someDivides(counts []int, interval time.Duration) error {
	ims := int64(interval / time.Millisecond)
	for _, n := range counts {
		if ims%int64(n) == 0 {
			return nil
		}
	}
	var divisors []string
	for _, d := range []int64{1, 2, 4, 5, 10, 20, 50, 100, 1000} {
		if ims%d == 0 {
			divisors = append(divisors, strconv.FormatInt(d, 10))
		}
	}
	return fmt.Errorf("no sample count in --sample-counts %s divides the interval of %d ms, and Sentinel requires it to; nothing to tune: give divisors such as --sample-counts %s",
		joinInts(counts), ims, strings.Join(divisors, ","))
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// reportTarget names the smallest N whose overshoot is at most target, or
// returns an exit status 3 error when no N tried reaches it.
func reportTarget(out io.Writer, res *simulator.TuneResult, target float64, fit int) error {
	best := -1
	for i, row := range res.Rows {
		// A lower bound (late admissions) does not show the overshoot within.
		if row.Skipped != "" || row.LateAdmissions > 0 || row.Overshoot > target {
			continue
		}
		if best < 0 || row.SampleCount < res.Rows[best].SampleCount {
			best = i
		}
	}
	t := strconv.FormatFloat(target, 'f', -1, 64)
	if best < 0 {
		return &exitError{code: exitThreshold, msg: fmt.Sprintf("no sample count tried keeps the overshoot within --target %s; try larger ones, e.g. --sample-counts 100,1000", t)}
	}
	row := res.Rows[best]
	over := strconv.FormatFloat(row.Overshoot, 'f', 3, 64)
	if row.LateAdmissions > 0 {
		over = simulator.LowerBound + over
	}
	return report.WriteWrapped(out, fmt.Sprintf("target %s: the smallest N with overshoot ≤ %s is N=%d (overshoot %s, bucket %s)", t, t, row.SampleCount, over, row.Bucket), fit)
}
