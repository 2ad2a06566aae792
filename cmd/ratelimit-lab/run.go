package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// RunOptions holds everything `run` needs.
type RunOptions struct {
	IO     *IOStreams
	Source sourceOptions

	Algos       []string
	Bin, Window time.Duration
	Out         string
	Decisions   bool
	Quiet       bool
	Chart       string
	From, To    time.Duration
	// Wide prints every column; Format picks the summary's form on stdout;
	// FailIf holds the --fail-if thresholds.
	Wide   bool
	Format string
	FailIf []string
	// Redis is the URL of a real server for the redis-* limiters ("" for
	// the embedded native default, "lua" for the embedded Lua).
	Redis string
	// RedisTimeout bounds the wait for a real server's reply;
	// RedisTimeoutSet says the user gave it.
	RedisTimeout    time.Duration
	RedisTimeoutSet bool
	// Top is how many keys by rejections to list under the table for a
	// per-key limiter.
	Top int
	// Rules are the --rules files whose rules become rows.
	Rules rulesOptions
	// HTML writes report.html (--html=false skips it).
	HTML bool
}

// NewCmdRun builds `run`. runF replaces the action in tests.
func NewCmdRun(io *IOStreams, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io}
	opts.Source.In = io.In
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
stay. Per-key limiters (nginx-limit-req, sentinel-param, any spec with
key=COLUMN) read a key column of the trace and list their top keys by
rejections under the table (--top N).

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
with status 3, its files written.`,
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
			opts.Source.fromFlags(cmd, args)
			opts.RedisTimeoutSet = cmd.Flags().Changed("redis-timeout")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	opts.Source.addFlags(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&opts.Algos, "algo", nil, "limiter spec NAME[:key=v,...], repeatable; replaces the scenario's")
	f.DurationVar(&opts.Bin, "bin", simulator.DefaultBin, "width of a series bin")
	f.DurationVar(&opts.Window, "window", simulator.DefaultWindow, "sliding window behind max_window_passed")
	f.StringVarP(&opts.Out, "out", "o", "", "output directory (default out/<scenario or trace name>)")
	f.BoolVar(&opts.Decisions, "decisions", false, "also write decisions.csv, one row per arrival and limiter")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.StringVar(&opts.Chart, "chart", plots.ModePanels, "chart.png layout: panels, overlay or none")
	f.DurationVar(&opts.From, "from", 0, "chart only: start of the zoom")
	f.DurationVar(&opts.To, "to", 0, "chart only: end of the zoom")
	f.BoolVar(&opts.Wide, "wide", false, "print every column of the summary table")
	f.StringVar(&opts.Format, "format", "table", "summary on stdout: table, json, csv or md")
	f.StringArrayVar(&opts.FailIf, "fail-if", nil, "exit 3 if [NAME.]FIELD OP NUMBER holds for a limiter ('overshoot>1.05')")
	f.BoolVar(&opts.HTML, "html", true, "write report.html, the interactive page (--html=false skips it)")
	f.StringVar(&opts.Redis, "redis", "", "redis-* limiters: a real server redis://HOST:PORT/DB, or lua for the embedded Lua interpreter, instead of the embedded native default")
	f.DurationVar(&opts.RedisTimeout, "redis-timeout", distributed.DefaultTimeout, "--redis redis://...: how long a connection, a write or a reply may take before the run stops with one line")
	f.IntVar(&opts.Top, "top", 10, "per-key limiters: list this many keys by rejections under the table (0: none)")
	opts.Rules.addFlags(cmd)
	return cmd
}

// prepared is a validated run, ready to go.
type prepared struct {
	src      *source
	limiters []algorithms.Limiter
	cfg      simulator.Config
	out      string
}

func buildLimiters(specs []string, limit float64, rs *redisSession) ([]algorithms.Limiter, error) {
	if len(specs) == 0 {
		return nil, errors.New("no algorithm to run: give --algo SPEC (run 'ratelimit-lab list' to see them)")
	}
	out := make([]algorithms.Limiter, len(specs))
	given := map[string]int{} // canonical spec → index in specs
	for i, spec := range specs {
		var l algorithms.Limiter
		var err error
		if distributed.IsRedis(spec) {
			l, err = rs.build(spec, limit)
		} else {
			l, err = algorithms.New(spec, limit)
		}
		if err != nil {
			return nil, err
		}
		if j, dup := given[l.Spec()]; dup {
			if specs[j] == spec {
				return nil, fmt.Errorf("algorithm %q is given twice; give each limiter once", spec)
			}
			return nil, fmt.Errorf("algorithms %q and %q are the same limiter (%s); give each limiter once", specs[j], spec, l.Spec())
		}
		given[l.Spec()] = i
		out[i] = l
	}
	return out, nil
}

// prepareRun resolves the arrivals and builds the limiters: algos, or the
// source's own when algos is empty. ownSpecs says that algos are the
// command's (tune's leap-array), not specs the user wrote, so that a
// missing limit is blamed on the missing --limit rather than on them.
func prepareRun(src *sourceOptions, algos []string, ownSpecs bool, bin, window time.Duration, out, suffix string, rs *redisSession) (_ *prepared, err error) {
	// Durations beyond a year would overflow the nanosecond arithmetic of
	// bins and windows on long traces; no run needs them.
	if bin > scenarios.MaxTime {
		return nil, fmt.Errorf("--bin %v is longer than %v; give a shorter bin such as --bin 1h", bin, scenarios.MaxTime)
	}
	if window > scenarios.MaxTime {
		return nil, fmt.Errorf("--window %v is longer than %v; give a shorter window such as --window 1h", window, scenarios.MaxTime)
	}
	s, err := src.resolve()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.cleanup()
		}
	}()
	if !(s.Limit > 0) && (len(algos) == 0 || ownSpecs) {
		// A trace has no limit of its own; the specs nobody wrote (the
		// default limiters, tune's) take --limit.
		what := s.Name
		switch src.Trace {
		case "":
		case "-":
			what = "the trace on stdin"
		default:
			what = "the trace " + src.Trace
		}
		return nil, fmt.Errorf("%s gives no limit: pass --limit N, the requests per second the limiters allow (for example --limit 100)", what)
	}
	if len(algos) > 0 {
		s.Algorithms = algos
	}
	limiters, err := buildLimiters(s.Algorithms, s.Limit, rs)
	if err != nil {
		return nil, err
	}
	cfg := simulator.DefaultConfig()
	cfg.Scenario, cfg.Limit, cfg.Bin, cfg.Window = s.Name, s.Limit, bin, window
	cfg.Start, cfg.End = s.Start, s.End
	cfg.Downstream = s.Downstream
	if bin <= 0 {
		return nil, fmt.Errorf("--bin must be positive, got %v (for example --bin 50ms)", bin)
	}
	if window <= 0 {
		return nil, fmt.Errorf("--window must be positive, got %v (for example --window 1s)", window)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if out == "" {
		out = filepath.Join("out", s.Name+suffix)
	}
	return &prepared{src: s, limiters: limiters, cfg: cfg, out: out}, nil
}

func runRun(ctx context.Context, opts *RunOptions) error {
	render, ok := report.Formats[opts.Format]
	if !ok {
		return fmt.Errorf("--format %q is unknown; use one of %s", opts.Format, strings.Join(report.FormatNames, ", "))
	}
	var names []string // the registry names summary.json's "name" holds
	for _, a := range append(algorithms.List(), distributed.List()...) {
		names = append(names, a.Name)
	}
	if opts.Top < 0 {
		return fmt.Errorf("--top must be 0 or more, got %d (0 lists no keys; for example --top 10)", opts.Top)
	}
	thresholds := make([]report.Threshold, len(opts.FailIf))
	for i, s := range opts.FailIf {
		t, err := report.ParseThreshold(s, names...)
		if err != nil {
			return err
		}
		thresholds[i] = t
	}
	if opts.From != 0 && opts.To != 0 && opts.From >= opts.To {
		if opts.From == opts.To {
			return fmt.Errorf("--from and --to are both %v; the zoom needs --from before --to", opts.From)
		}
		return fmt.Errorf("--from %v is after --to %v; --from is where the zoom starts, so swap them (--from %v --to %v)", opts.From, opts.To, opts.To, opts.From)
	}
	rs, err := newRedisSession(ctx, opts)
	if err != nil {
		return err
	}
	defer rs.close()
	imported, err := opts.Rules.load()
	if err != nil {
		return err
	}
	ruleSpecs, ruleLabels := ruleRows(imported)
	algos := opts.Algos
	if len(ruleSpecs) > 0 {
		algos = append(slices.Clip(algos), ruleSpecs...)
	}
	p, err := prepareRun(&opts.Source, algos, false, opts.Bin, opts.Window, opts.Out, "", rs)
	if err != nil {
		return err
	}
	defer p.src.cleanup()
	if err := checkRuleNeeds(imported, p.src); err != nil {
		return err
	}
	specs := make([]string, len(p.limiters))
	for i, l := range p.limiters {
		specs[i] = l.Spec()
	}
	if err := report.CheckNames(specs, thresholds); err != nil {
		return err
	}
	chart := plots.ChartOptions{Mode: opts.Chart, From: opts.From, To: opts.To}
	switch opts.Chart {
	case "none":
		if opts.From != 0 || opts.To != 0 {
			return errors.New("--from and --to zoom the chart, but --chart none draws none; drop them or pick a chart")
		}
	case "", plots.ModePanels, plots.ModeOverlay:
		// Check the zoom against the run's span before running.
		span := &simulator.Result{Start: p.cfg.Start, End: p.cfg.End, Algorithms: make([]simulator.AlgoResult, len(p.limiters))}
		if err := chart.Validate(span); err != nil {
			return err
		}
	default:
		return fmt.Errorf("chart mode %q is unknown; use --chart panels, overlay or none", opts.Chart)
	}
	dir, err := output.Open(p.out)
	if err != nil {
		return err
	}
	defer dir.Abort()
	dir.Owns(runFiles...) // an earlier run's files this one does not write go on Commit

	var parts *decisionParts
	if opts.Decisions {
		if err := decisionsPlan(opts.IO.ErrOut, p.out, p.src.Approx, p.cfg.Start, p.cfg.End, p.limiters); err != nil {
			return err
		}
		if parts, err = newDecisionParts(p.out, len(p.limiters)); err != nil {
			return err
		}
		defer parts.remove()
		p.cfg.Decisions = parts.writer
	}
	p.src.printNotes(opts.IO.ErrOut, opts.IO.Width)
	rs.printNotes(opts.IO.ErrOut, opts.IO.Width)
	planned := binNotice(opts.IO.ErrOut, opts.IO.Width, p.cfg.End-p.cfg.Start, p.cfg.Bin)
	bar := newProgress(opts.IO, opts.Quiet, p.src.Expected)
	p.cfg.Progress = bar.update

	stream, err := p.src.Open()
	if err != nil {
		return err
	}
	defer stream.Close()
	run, keyTable, err := bindKeys(stream, p.src.Name, p.limiters)
	if err != nil {
		return err
	}
	stopTracking := rs.trackProgress(&p.cfg, bar.update)
	res, err := simulator.Run(ctx, run, p.limiters, p.cfg)
	stopTracking()
	bar.finish()
	if err != nil {
		return err
	}
	widenedNotice(opts.IO.ErrOut, opts.IO.Width, res, planned)
	labelRows(res, ruleLabels, len(opts.Algos))
	if err := report.CheckFields(res, thresholds); err != nil {
		return err // before any file is written
	}

	if err := dir.WriteFile("series.csv", func(w io.Writer) error { return simulator.WriteSeriesCSV(w, res) }); err != nil {
		return err
	}
	if err := dir.WriteFile("summary.json", func(w io.Writer) error { return simulator.WriteSummaryJSON(w, res) }); err != nil {
		return err
	}
	files := []string{"series.csv", "summary.json"}
	if simulator.HasBreakers(res) {
		if err := dir.WriteFile("breaker.csv", func(w io.Writer) error { return simulator.WriteBreakerCSV(w, res) }); err != nil {
			return err
		}
		files = append(files, "breaker.csv")
	}
	keyFiles, err := writeKeysCSV(dir, res, keyTable)
	if err != nil {
		return err
	}
	files = append(files, keyFiles...)
	if opts.Chart != "none" {
		if err := dir.WriteFile("chart.png", func(w io.Writer) error { return plots.ChartContext(ctx, w, res, chart) }); err != nil {
			return err
		}
		files = append(files, "chart.png")
	}
	if opts.HTML {
		if err := writeRunHTML(dir, res, p.src.Seed, p.src.HasSeed); err != nil {
			return err
		}
		files = append(files, "report.html")
	}
	if opts.Decisions {
		if err := writeDecisions(ctx, dir, parts); err != nil {
			return err
		}
		files = append(files, "decisions.csv")
	}
	if err := ctx.Err(); err != nil {
		return err // interrupted while writing: keep the earlier files
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	rep := &report.Report{Result: res, Seed: p.src.Seed, HasSeed: p.src.HasSeed, Wide: opts.Wide, Width: opts.IO.Width}
	for _, l := range p.limiters {
		rep.Warnings = append(rep.Warnings, algorithms.Warnings(l)...)
	}
	if note := stepsBackNote(stream); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	if note := breakerNote(res, p.cfg.Downstream, scenarios.StreamColumns(stream)); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	if note := priorityNote(res); note != "" { // priority_note.go
		rep.Notes = append(rep.Notes, note)
	}
	if err := render(opts.IO.Out, rep); err != nil {
		return err
	}
	if opts.Format == "table" {
		if err := printTopKeys(opts.IO, res, keyTable, opts.Top); err != nil {
			return err
		}
	}
	side := opts.IO.Out // the "wrote" line and, off the table, the warnings
	if opts.Format != "table" {
		side = opts.IO.ErrOut
		if opts.Format != "md" {
			for _, w := range rep.Warnings {
				report.WriteNote(side, "warning: ", w, opts.IO.Width)
			}
			for _, n := range rep.Notes {
				report.WriteNote(side, "note: ", n, opts.IO.Width)
			}
		}
	}
	fmt.Fprintf(side, "wrote %s/{%s}\n", filepath.ToSlash(p.out), strings.Join(files, ","))
	return failIf(opts.IO, res, thresholds)
}

// failIf reports every limiter that crosses a --fail-if threshold, one
// line each on stderr, and returns an exit status 3 error if any does.
func failIf(io *IOStreams, res *simulator.Result, thresholds []report.Threshold) error {
	if len(thresholds) == 0 {
		return nil
	}
	crossed, err := report.Check(res, thresholds)
	if err != nil {
		return err
	}
	if len(crossed) == 0 {
		return nil
	}
	for _, c := range crossed {
		fmt.Fprintln(io.ErrOut, "ratelimit-lab: "+c.String())
	}
	return &exitError{code: exitThreshold, msg: fmt.Sprintf("%d --fail-if threshold(s) crossed; the outputs are written", len(crossed))}
}

// progress shows a bar on a terminal for runs longer than about a second.
// The bar starts with the run, so that its rate (arrivals/s) is over the
// run's elapsed time, but writes nothing until a second has passed: a bar
// created only then would start its clock at its first tick and show a
// rate of every arrival so far over a few microseconds.
type progress struct {
	enabled  bool
	errOut   io.Writer
	expected int64
	start    time.Time
	gate     *gatedWriter
	bar      *progressbar.ProgressBar
}

// gatedWriter drops what is written until open.
type gatedWriter struct {
	w    io.Writer
	open bool
}

func (g *gatedWriter) Write(b []byte) (int, error) {
	if !g.open {
		return len(b), nil
	}
	return g.w.Write(b)
}

func newProgress(io *IOStreams, quiet bool, expected int64) *progress {
	return &progress{enabled: io.ErrTTY && !quiet, errOut: io.ErrOut, expected: expected, start: time.Now()}
}

// showAfter is how long a run goes before its bar appears.
const showAfter = time.Second

func (p *progress) update(done int64) {
	if !p.enabled {
		return
	}
	if p.bar == nil {
		max := p.expected
		if max == 0 {
			max = -1
		}
		p.gate = &gatedWriter{w: p.errOut}
		p.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(p.gate),
			progressbar.OptionSetDescription("arrivals"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("arrivals"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	if !p.gate.open && time.Since(p.start) >= showAfter {
		p.gate.open = true
	}
	_ = p.bar.Set64(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
