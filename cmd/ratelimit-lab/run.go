package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
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
	Redis       string
}

// NewCmdRun builds `run`. runF replaces the action in tests.
func NewCmdRun(io *IOStreams, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "run [SCENARIO | FILE.yaml] [flags]",
		Short: "Replay a scenario or a trace through the limiters",
		Long: `Run replays the arrivals of a built-in scenario, a YAML scenario file or a
recorded trace (--trace) through every chosen limiter on a virtual clock.

It prints a summary table and writes, under --out (default
out/<scenario or trace name>): series.csv (per-bin counts), summary.json,
chart.png and, with --decisions, decisions.csv. Files appear only when the
whole run succeeds.`,
		Example: `  ratelimit-lab run boundary-burst
  ratelimit-lab run boundary-burst --from 0.8s --to 1.3s
  ratelimit-lab run adversarial --algo leap-array:sample-count=1000 --algo fixed-window
  ratelimit-lab run poisson --limit 100000 --quiet
  ratelimit-lab run scenarios/examples/clock-step.yaml --decisions
  ratelimit-lab run --trace requests.csv --limit 200 --bin 100ms`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source.fromFlags(cmd, args)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	opts.Source.addFlags(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&opts.Algos, "algo", nil, "limiter spec NAME[:key=value,...]; repeat it; replaces the scenario's set")
	f.DurationVar(&opts.Bin, "bin", simulator.DefaultBin, "width of a series bin")
	f.DurationVar(&opts.Window, "window", simulator.DefaultWindow, "sliding window behind max_window_passed")
	f.StringVarP(&opts.Out, "out", "o", "", "output directory (default out/<scenario or trace name>)")
	f.BoolVar(&opts.Decisions, "decisions", false, "also write decisions.csv, one row per arrival and limiter")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.StringVar(&opts.Chart, "chart", plots.ModePanels, "chart.png layout: panels, overlay or none")
	f.DurationVar(&opts.From, "from", 0, "chart only: start of the zoom")
	f.DurationVar(&opts.To, "to", 0, "chart only: end of the zoom")
	f.StringVar(&opts.Redis, "redis", "", "redis-* limiters: a real server redis://HOST:PORT/DB instead of the embedded one")
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
		out[i] = l
	}
	return out, nil
}

func prepareRun(src *sourceOptions, algos []string, bin, window time.Duration, out, suffix string, rs *redisSession) (*prepared, error) {
	s, err := src.resolve()
	if err != nil {
		return nil, err
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
	rs := &redisSession{ctx: ctx, url: opts.Redis, bin: opts.Bin}
	defer rs.close()
	p, err := prepareRun(&opts.Source, opts.Algos, opts.Bin, opts.Window, opts.Out, "", rs)
	if err != nil {
		return err
	}
	chart := plots.ChartOptions{Mode: opts.Chart, From: opts.From, To: opts.To}
	switch opts.Chart {
	case "none":
		if opts.From != 0 || opts.To != 0 {
			return errors.New("--from and --to zoom the chart, but --chart none draws none; drop them or pick a chart")
		}
	default:
		// Check the zoom against the run's span before running.
		span := &simulator.Result{Start: p.cfg.Start, End: p.cfg.End, Algorithms: make([]simulator.AlgoResult, len(p.limiters))}
		if err := chart.Validate(span); err != nil {
			return fmt.Errorf("%v (--chart is panels, overlay or none)", err)
		}
	}
	dir, err := output.Open(p.out)
	if err != nil {
		return err
	}
	defer dir.Abort()

	var parts []*os.File
	if opts.Decisions {
		parts = make([]*os.File, len(p.limiters))
		for i := range parts {
			f, err := os.CreateTemp(p.out, ".decisions-part-*")
			if err != nil {
				return fmt.Errorf("cannot write decisions in %s: %v", p.out, err)
			}
			defer os.Remove(f.Name())
			defer f.Close()
			parts[i] = f
		}
		p.cfg.Decisions = func(i int) io.Writer { return parts[i] }
	}
	bar := newProgress(opts.IO, opts.Quiet, p.src.Expected)
	p.cfg.Progress = bar.update

	stream, err := p.src.Open()
	if err != nil {
		return err
	}
	defer stream.Close()
	stopTracking := rs.trackProgress(&p.cfg, bar.update)
	res, err := simulator.Run(ctx, stream, p.limiters, p.cfg)
	stopTracking()
	bar.finish()
	if err != nil {
		return err
	}

	if err := dir.WriteFile("series.csv", func(w io.Writer) error { return simulator.WriteSeriesCSV(w, res) }); err != nil {
		return err
	}
	if err := dir.WriteFile("summary.json", func(w io.Writer) error { return simulator.WriteSummaryJSON(w, res) }); err != nil {
		return err
	}
	files := []string{"series.csv", "summary.json"}
	if opts.Chart != "none" {
		if err := dir.WriteFile("chart.png", func(w io.Writer) error { return plots.Chart(w, res, chart) }); err != nil {
			return err
		}
		files = append(files, "chart.png")
	}
	if opts.Decisions {
		err := dir.WriteFile("decisions.csv", func(w io.Writer) error {
			if _, err := io.WriteString(w, simulator.DecisionsHeader); err != nil {
				return err
			}
			for _, f := range parts {
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					return err
				}
				if _, err := io.Copy(w, bufio.NewReader(f)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		files = append(files, "decisions.csv")
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	header, rows := simulator.SummaryTable(res)
	if err := renderTable(opts.IO.Out, header, rows); err != nil {
		return err
	}
	if err := renderRedisTable(opts.IO.Out, res); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s/{%s}\n", filepath.ToSlash(p.out), strings.Join(files, ","))
	return nil
}

// renderTable writes a table with the first column aligned left and the
// (numeric) others right.
func renderTable(w io.Writer, header []string, rows [][]string) error {
	return writeTable(w, header, rows, tw.AlignRight)
}

// renderTextTable writes a table of words, every column aligned left.
func renderTextTable(w io.Writer, header []string, rows [][]string) error {
	return writeTable(w, header, rows, tw.AlignLeft)
}

func writeTable(w io.Writer, header []string, rows [][]string, align tw.Align) error {
	// Headers as written ("pass %", "wait p99"), not upper-cased with
	// their punctuation spaced out.
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: align, PerColumn: []tw.Align{tw.AlignLeft}}),
	)
	h := make([]any, len(header))
	for i, x := range header {
		h[i] = x
	}
	t.Header(h...)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// progress shows a bar on a terminal for runs longer than about a second.
type progress struct {
	enabled  bool
	errOut   io.Writer
	expected int64
	start    time.Time
	bar      *progressbar.ProgressBar
}

func newProgress(io *IOStreams, quiet bool, expected int64) *progress {
	return &progress{enabled: io.ErrTTY && !quiet, errOut: io.ErrOut, expected: expected, start: time.Now()}
}

func (p *progress) update(done int64) {
	if !p.enabled {
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < time.Second {
			return
		}
		max := p.expected
		if max == 0 {
			max = -1
		}
		p.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(p.errOut),
			progressbar.OptionSetDescription("arrivals"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("arrivals"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set64(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
