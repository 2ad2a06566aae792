package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/internal/progress"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// TuneOptions holds everything `tune` needs.
type TuneOptions struct {
	IO    *IOStreams
	Lab   lab.TuneOptions
	Quiet bool
	// Layers: compare the layered window instead (tune_layers.go).
	Layers bool
}

// NewCmdTune builds `tune`. runF replaces the action in tests.
func NewCmdTune(io *IOStreams, runF func(context.Context, *TuneOptions) error) *cobra.Command {
	opts := &TuneOptions{IO: io, Lab: lab.DefaultTuneOptions()}
	opts.Lab.Source.In = io.In
	cmd := &cobra.Command{
		Use:   "tune [SCENARIO | FILE.yaml] [flags]",
		Short: "Compare leap-array sample counts, or recommend any spec's parameters for your goals (--vary)",
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
says so and stops; a sample count given twice runs once. --target 1.05
names, among the sample counts tried, the smallest N whose overshoot is at
most 1.05, and the divisors of the interval below it that were not tried
(the overshoot is not monotone in N, so one of those may meet it too); it
exits with status 3 if no N tried reaches it, suggesting counts not tried.

--rules FILE tunes one of your own flow rules: the limit is the count of
its QPS rule with the default (reject) behaviour, the one rule of that kind
in the files or the one --rule names; in a resource's chain (param flow,
flow and degrade rules) that rule's stage is tuned alone.

--layers compares seed 002's layered window (hierarchical) instead: over
--window, at the limit per second times the window, for each fine-bucket
count n of --sample-counts the uniform ring of n buckets, the ring holding
one more (its old edge weighted), and the ring plus two window-long
counters, beside the sliding-window counter, by counters, with each one's
uncertain span G; it writes tune-layers.csv.

--vary recommends a configuration instead: it varies parameters of --algo
(or of the --rules row --rule picks, or of each of several: --rule A
--rule B or --rule all, one search each, under --out/N-RULE/, with one
--emit file patching them all; Sentinel's count, maxQueueingTimeMs,
warmUpPeriodSec also by those names) over ranges (burst=0..100/10,
rate=1..10, limit=10..1000~5 log-spaced, max-queue=0s..1s/250ms) or lists,
on any source, keeps the points meeting every --goal constraint (the
--fail-if grammar, here a condition to meet: keys_hurt<=3, rt_p99<=200ms,
pass_pct>=95%) and recommends the best one for the --goal objective (max
passed, min keys_hurt). One monotone parameter is bisected (the assumption
is checked on the points run); otherwise the grid runs, at most --max-runs
points, on --workers goroutines, with the same output for any number. It
prints the Pareto front and the recommended spec, and writes tune.csv
(every point), tune.png and report.html (the front, each point linked to
its run under points/NNN/); exit status 3 when no point meets the goals.
See docs/recommend.md.`,
		Example: `  ratelimit-lab tune poisson
  ratelimit-lab tune adversarial --sample-counts 1,2,10,100,1000
  ratelimit-lab tune --trace requests.csv --limit 200 --interval 2s
  ratelimit-lab tune poisson --target 1.05
  ratelimit-lab tune poisson --rules sentinel-flow-rules.json --rule GET:/api/orders
  ratelimit-lab tune layered-minute --layers --window 1m --target 1.1
  ratelimit-lab tune --trace access.log --key ip --rules nginx.conf --vary rate=1..10 --vary burst=0..30/5 --goal 'keys_hurt<=3' --goal 'min passed'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sourceFromFlags(&opts.Lab.Source, cmd, args)
			opts.Lab.TargetSet = cmd.Flags().Changed("target")
			opts.Lab.WindowSet = cmd.Flags().Changed("window")
			if n := opts.Lab.RuleNames; len(n) == 1 && n[0] != "all" {
				opts.Lab.Rule = n[0]
			}
			layersDefaults(cmd, opts)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tuneRun(cmd.Context(), opts)
		},
	}
	o := &opts.Lab
	addSourceFlags(cmd, &o.Source)
	cmd.ValidArgsFunction = completeScenario
	f := cmd.Flags()
	f.IntSliceVar(&o.SampleCounts, "sample-counts", lab.DefaultSampleCounts, "sample counts to compare")
	f.DurationVar(&o.Interval, "interval", time.Second, "leap-array's statistic interval (whole ms)")
	f.DurationVar(&o.Bin, "bin", lab.DefaultBin, "bin behind peak_bin_passed")
	f.DurationVar(&o.Window, "window", 0, "sliding window behind max_window_passed (default --interval)")
	f.StringVarP(&o.Out, "out", "o", "", "output directory (default out/<scenario>-tune)")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&o.HTML, "html", true, "write report.html, the interactive page (--html=false skips it)")
	f.Float64Var(&o.Target, "target", 0, "name the smallest N tried with overshoot at most this (exit 3 if none)")
	addRulesFlags(cmd, &o.Rules)
	// tune replays one rule's QPS flow stage, not a row per rule.
	f.Lookup("rules").Usage = "a rules file (as run takes it), repeatable: tune takes its QPS flow rule's count as the limit and varies the sample count; with --vary, the rule's spec is what varies (--rule picks one when there are several; 'rules explain' shows them)"
	f.StringArrayVar(&o.RuleNames, "rule", nil, "with --rules: the rule (resource, location) that is tuned, when the files have several; with --vary, repeat it (or --rule all) to tune several, each on its own")
	addLayersFlag(cmd, opts)
	f.StringArrayVar(&o.Vary, "vary", nil, "recommend a configuration: vary this parameter of --algo (or of the --rules row): NAME=A..B, A..B/STEP, A..B~N (log-spaced), a,b,c (docs/recommend.md)")
	f.StringVar(&o.Algo, "algo", "", "with --vary: the spec whose parameters vary")
	f.StringArrayVar(&o.Goals, "goal", nil, "with --vary: a constraint in --fail-if's grammar that must hold (users_hurt<=0, rt_p99<=200ms), or the objective (max passed, min keys_hurt)")
	f.IntVar(&o.MaxRuns, "max-runs", lab.DefaultMaxRuns, "with --vary: the most points to run")
	f.StringVar(&o.Emit, "emit", "", "with --vary: also write the recommended configuration as FORMAT (nginx, sentinel, spring, ...; 'rules emit --help'); your --rules file's own format patches it, only the tuned fields changed")
	f.IntVar(&o.Workers, "workers", 0, "with --vary: points run side by side (default: every CPU); the output is the same for any number")
	addProfileFlags(cmd) // --cpuprofile, --memprofile (profile.go)
	return cmd
}

func tuneRun(ctx context.Context, opts *TuneOptions) error {
	if opts.Lab.Emit != "" && len(opts.Lab.Vary) == 0 {
		return errors.New("--emit writes a recommendation: give the parameters to vary with --vary (docs/recommend.md)")
	}
	if opts.Layers {
		return tuneLayersRun(ctx, opts)
	} else if len(opts.Lab.Vary) > 0 {
		return recommendRun(ctx, opts)
	} else if lab.SeveralRules(opts.Lab) {
		return errors.New("several --rule (or --rule all) tune each rule's --vary parameters; the sample-count tune takes one --rule")
	}
	plan, err := lab.NewTunePlan(ctx, opts.Lab, opts.IO.ErrOut, opts.IO.Width)
	if err != nil {
		return err
	}
	defer plan.Close()
	bar := newProgress(opts.IO, opts.Quiet, plan.Expected(), plan.Approx())
	tune, err := plan.Execute(ctx, lab.Hooks{Notes: opts.IO.ErrOut, Width: opts.IO.Width, Progress: bar.Update, Finished: bar.Finish})
	if err != nil {
		return err
	}
	return tune.Print(opts.IO.Out, opts.IO.Width)
}

// recommendRun is tune --vary: the search and its files in lab, for one
// rule (or --algo) or several.
func recommendRun(ctx context.Context, opts *TuneOptions) error {
	var execute func(lab.RecommendHooks) (interface{ Print(io.Writer, int) error }, error)
	if lab.SeveralRules(opts.Lab) {
		rows, err := lab.NewRecommendRows(ctx, opts.Lab, opts.IO.ErrOut, opts.IO.Width)
		if err != nil {
			return err
		}
		defer rows.Close()
		execute = func(h lab.RecommendHooks) (interface{ Print(io.Writer, int) error }, error) {
			return rows.Execute(ctx, h, opts.IO.ErrOut, opts.IO.Width)
		}
	} else {
		plan, err := lab.NewRecommendPlan(ctx, opts.Lab, opts.IO.ErrOut, opts.IO.Width)
		if err != nil {
			return err
		}
		defer plan.Close()
		execute = func(h lab.RecommendHooks) (interface{ Print(io.Writer, int) error }, error) {
			return plan.Execute(ctx, h, opts.IO.ErrOut, opts.IO.Width)
		}
	}
	bar := progress.NewPoints(opts.IO.ErrOut, opts.IO.ErrTTY && !opts.Quiet, opts.IO.Width)
	res, err := execute(lab.RecommendHooks{Point: bar.Update, Finished: bar.Finish})
	if err != nil {
		return err
	}
	return res.Print(opts.IO.Out, opts.IO.Width)
}
