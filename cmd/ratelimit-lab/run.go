package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
)

// RunOptions holds everything `run` needs: the library's options, and
// what only the command does with them.
type RunOptions struct {
	IO  *IOStreams
	Lab lab.Options
	// Quiet hides the progress bar; Wide prints every column.
	Quiet bool
	Wide  bool
}

// NewCmdRun builds `run`. runF replaces the action in tests.
func NewCmdRun(io *IOStreams, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io, Lab: lab.DefaultOptions()}
	opts.Lab.Source.In = io.In
	cmd := &cobra.Command{
		Use:   "run [SCENARIO | FILE.yaml] [flags]",
		Short: "Replay a scenario or a trace through the limiters",
		Long: `Run replays the arrivals of a built-in scenario, a YAML scenario file or a
recorded trace through every chosen limiter on a virtual clock.

A trace (--trace FILE, or - for stdin) is a CSV file or an access log (see
docs/formats.md). A CSV trace has a header: t_ms (the arrival time in
milliseconds) first, then any of rt_ms (the recorded response time of a
pass) and error (0 or 1, beside rt_ms): the responses breakers and
adaptive limiters read; cost (requests a line stands for), user, priority
(0 or 1), cpu and load1 (the signals adaptive limiters sample), and key
columns under any other name (key, ip, route, ...) for per-key limiters.

It prints a summary and writes, under --out (default out/<scenario or
trace name>):
  series.csv     per-bin counts (and responses, when a row has them)
  summary.json   one object per limiter: every figure of the table
  chart.png      the chart (--chart none skips it)
  report.html    the interactive page: zoom, hover, toggles (--html=false
                 skips it)
  breaker.csv    when a row has a circuit breaker: its state changes
  keys.csv       for per-key limiters: one row per limiter and key
  decisions.csv  with --decisions: one row per arrival and limiter
Files appear only when the whole run succeeds, and then the files of an
earlier run in --out that this one does not write are removed; other files
stay. An --out holding a tune's or a bench's files is refused (each command
writes its own report.html). --limit scales a scenario's traffic, and in a
scenario with a downstream its servers (or cores) too, so the load against
its capacity holds; a limit that would make servers fractional is refused. Per-key limiters (nginx-limit-req, sentinel-param, any spec with
key=COLUMN) read a key column of the trace and list their top keys by
rejections under the table (--top N).

--workers N (default: the CPUs) decides a per-key row by key on N
goroutines, with byte-identical files for every N, when its keys are
independent ('list' names the families; no capacity=, nginx zone=0,
sentinel-param capacity=unbounded); the other rows run on one worker, and
with --workers given a note says why.

The summary is a table that fits 100 columns (or $COLUMNS): a context line,
one row per limiter under a short name, then the full specs and any
warnings; --wide shows every column. --format json prints summary.json's
content instead, --format csv one CSV row per limiter with every field,
--format md a Markdown table; the "wrote" line then goes to stderr.

--fail-if FIELD OP NUMBER (repeatable) tests every limiter's summary.json
field, e.g. --fail-if 'overshoot>1.05' or --fail-if 'pass_pct<60'
(NAME.FIELD tests only the limiters with a stage of that name, any stage of
a chain: 'leap-array.overshoot>1.1', 'circuit-breaker.breaker_opens>0'; a
NAME no limiter of the run has is an error);
if any holds, the run says which limiter crossed which threshold and exits
with status 3, its files written. A ratio of 0/0 (pass_pct of a run without
arrivals) is undefined: a gate on it neither passes nor fails, and the run
exits with status 4 unless another threshold was crossed.`,
		Example: `  ratelimit-lab run boundary-burst
  ratelimit-lab run boundary-burst --from 0.8s --to 1.3s
  ratelimit-lab run adversarial --algo leap-array:sample-count=1000 --algo fixed-window
  ratelimit-lab run poisson --limit 100000 --quiet
  ratelimit-lab run scenarios/examples/clock-step.yaml --decisions
  ratelimit-lab run --trace requests.csv --limit 200 --bin 100ms
  cat requests.csv | ratelimit-lab run --trace - --limit 200
  ratelimit-lab run --trace access.log.gz --key ip --user user --limit 10
  ratelimit-lab run boundary-burst --fail-if 'overshoot>1.05' --format json
  ratelimit-lab run --trace access.log --key ip --algo 'nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m'
  ratelimit-lab run poisson --rules examples/rules/sentinel-flow-rules.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sourceFromFlags(&opts.Lab.Source, cmd, args)
			opts.Lab.Redis.TimeoutSet = cmd.Flags().Changed("redis-timeout")
			opts.Lab.ToSet = cmd.Flags().Changed("to")
			opts.Lab.SayWorkers = cmd.Flags().Changed("workers")
			if opts.Lab.Workers == 0 {
				opts.Lab.Workers = lab.DefaultWorkers()
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	o := &opts.Lab
	addSourceFlags(cmd, &o.Source)
	f := cmd.Flags()
	f.StringArrayVar(&o.Specs, "algo", nil, "limiter spec NAME[:key=v,...], repeatable; replaces the scenario's")
	_ = cmd.RegisterFlagCompletionFunc("algo", completeAlgo)
	cmd.ValidArgsFunction = completeScenario
	f.DurationVar(&o.Bin, "bin", lab.DefaultBin, "width of a series bin")
	f.DurationVar(&o.Window, "window", lab.DefaultWindow, "sliding window behind max_window_passed")
	f.StringVarP(&o.Out, "out", "o", "", "output directory (default out/<scenario or trace name>)")
	f.BoolVar(&o.Decisions, "decisions", false, "also write decisions.csv, one row per arrival and limiter")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.StringVar(&o.Chart, "chart", plots.ModePanels, "chart.png layout: panels, overlay or none")
	f.DurationVar(&o.From, "from", 0, "chart only: start of the zoom")
	f.DurationVar(&o.To, "to", 0, "chart only: end of the zoom")
	f.BoolVar(&opts.Wide, "wide", false, "print every column of the summary table")
	f.StringVar(&o.Format, "format", "table", "summary on stdout: table, json, csv or md")
	f.StringArrayVar(&o.FailIf, "fail-if", nil, "exit 3 if [NAME.]FIELD OP NUMBER holds for a limiter ('overshoot>1.05')")
	f.BoolVar(&o.HTML, "html", true, "write report.html, the interactive page (--html=false skips it)")
	f.StringVar(&o.Redis.URL, "redis", "", "redis-* limiters: a real server redis://HOST:PORT/DB, or lua for the embedded Lua interpreter, instead of the embedded native default")
	f.DurationVar(&o.Redis.Timeout, "redis-timeout", lab.DefaultRedisTimeout, "--redis redis://...: how long a connection, a write or a reply may take before the run stops with one line")
	f.IntVar(&o.Top, "top", 10, "per-key limiters: list this many keys by rejections under the table (0: none)")
	f.IntVar(&o.Workers, "workers", 0, "goroutines deciding a per-key row by key, same files for any N (0: the number of CPUs)")
	addRulesFlags(cmd, &o.Rules)
	addProfileFlags(cmd) // --cpuprofile, --memprofile (profile.go)
	return cmd
}

func runRun(ctx context.Context, opts *RunOptions) error {
	plan, err := lab.NewPlan(ctx, opts.Lab)
	if err != nil {
		return err
	}
	defer plan.Close()
	bar := newProgress(opts.IO, opts.Quiet, plan.Expected(), plan.Approx())
	run, err := plan.Execute(ctx, lab.Hooks{Notes: opts.IO.ErrOut, Width: opts.IO.Width, Progress: bar.Update, Finished: bar.Finish})
	if err != nil {
		return err
	}
	side := opts.IO.Out // the "wrote" line and, off the table, the warnings
	if opts.Lab.Format != "table" {
		side = opts.IO.ErrOut
	}
	if err := run.WriteSummary(opts.IO.Out, side, opts.Wide, opts.IO.Width); err != nil {
		return err
	}
	fmt.Fprintf(side, "wrote %s/{%s}\n", filepath.ToSlash(run.Dir), strings.Join(run.Files, ","))
	crossed, err := run.Crossed()
	if err != nil {
		return err
	}
	undefined, err := run.Undefined()
	if err != nil {
		return err
	}
	for _, c := range append(crossed, undefined...) {
		fmt.Fprintln(opts.IO.ErrOut, "ratelimit-lab: "+c)
	}
	switch {
	case len(crossed) > 0: // a gate that failed outweighs one that could not tell
		return lab.CrossedError(len(crossed))
	case len(undefined) > 0:
		return lab.UndefinedGateError(len(undefined))
	}
	return nil
}
