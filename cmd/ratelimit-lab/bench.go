package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	textreport "github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
)

// BenchOptions holds everything `bench` needs.
type BenchOptions struct {
	IO *IOStreams

	Impls       []string
	Goroutines  []int
	Duration    time.Duration
	Limit       int
	Window      time.Duration
	SampleCount int
	Out         string
	Quiet       bool
	HTML        bool
	// Wide prints every column of the table; Format picks the form of the
	// results on stdout (table, json, csv or md).
	Wide   bool
	Format string
}

// DefaultGoroutines are the goroutine counts `bench` tries by default.
var DefaultGoroutines = []int{1, 2, 8, 64, 256}

// NewCmdBench builds `bench`. runF replaces the action in tests.
func NewCmdBench(io *IOStreams, runF func(context.Context, *BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Hammer one hot key with real goroutines on the wall clock",
		Long: `Bench is the one command of the lab that leaves the virtual clock for the
wall clock: it runs real goroutines against concurrent limiters and times
them, so its numbers depend on the machine, its cores and its load, and
change from run to run. Everything else in the lab is deterministic.

For each implementation and each --goroutines value it starts that many
goroutines calling Allow on one limiter (one hot key) for --duration, and
reports decisions per second, the mean ns per decision, the p50/p99/max
latency of one decision, the largest number of passes recorded in any
trailing --window against --limit (the overshoot), and the counters of
CAS failures, lock misses and yields (runtime.Gosched, Sentinel's
Thread.yield()). The implementations (package concurrent):

  sentinel-ring        Sentinel's lock-free LeapArray: check, then add
  mutex-ring           the same ring behind one mutex: check and add together
  atomic-fixed-window  a fixed window in one word, checked and added by CAS
  x-time-rate          golang.org/x/time/rate Allow, burst 1

It prints a table that fits 100 columns (or $COLUMNS; --wide shows every
column) and writes bench.csv, bench.json, bench.png (throughput and
overshoot against goroutines, log axes) and report.html (the interactive
page; --html=false skips it, and removes an earlier bench's) under --out
(default out/bench). Files appear only when every hammer succeeded. --format json or csv prints
bench.json's or bench.csv's content instead of the table, --format md a
Markdown table; the notes then go to stderr.`,
		Example: `  ratelimit-lab bench
  ratelimit-lab bench --goroutines 1,8,64 --duration 500ms
  ratelimit-lab bench --impl sentinel-ring --impl mutex-ring --limit 1 --window 1s --goroutines 100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Impls, "impl", nil, "implementation to run; repeat it (default all: "+strings.Join(concurrent.Names(), ", ")+")")
	f.IntSliceVar(&opts.Goroutines, "goroutines", DefaultGoroutines, fmt.Sprintf("goroutine counts to hammer with, each from 1 to %d", concurrent.MaxGoroutines))
	f.DurationVar(&opts.Duration, "duration", 2*time.Second, "how long each hammer runs")
	f.IntVar(&opts.Limit, "limit", 100, fmt.Sprintf("passes allowed per --window, from 1 to %d", concurrent.MaxLimit))
	f.DurationVar(&opts.Window, "window", 100*time.Millisecond, "the limit's window (the rings' interval), whole ms")
	f.IntVar(&opts.SampleCount, "sample-count", 2, fmt.Sprintf("buckets of the rings (Sentinel's SAMPLE_COUNT), from 1 to %d", concurrent.MaxSampleCount))
	f.StringVarP(&opts.Out, "out", "o", filepath.Join("out", "bench"), "output directory")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&opts.HTML, "html", true, "write report.html, the interactive page (--html=false skips it)")
	f.BoolVar(&opts.Wide, "wide", false, "print every column of the table")
	f.StringVar(&opts.Format, "format", "table", "results on stdout: table, json (bench.json), csv (bench.csv) or md")
	return cmd
}

// benchColumns are the columns of the default bench table, most important
// first (the last ones give way on a narrow terminal); --wide adds the
// others. A header's second line keeps a column of short numbers narrow.
var benchColumns = []string{"impl", "goroutines", "decisions/s", "p99", "max window", "aligned/limit", "CAS fail", "lock miss", "yields"}

var benchHeaders = map[string]string{
	"goroutines":    "go-\nroutines",
	"decisions/s":   "decisions\nper s",
	"ns/decision":   "ns per\ndecision",
	"max window":    "max\nwindow",
	"max aligned":   "max\naligned",
	"aligned/limit": "aligned\n/ limit",
	"CAS fail":      "CAS\nfails",
	"lock miss":     "lock\nmisses",
}

// writeBenchTable writes the bench table fitted to width (every column of
// concurrent.Table when wide) and a note of the columns it left out.
func writeBenchTable(w io.Writer, results []concurrent.BenchResult, width int, wide bool) error {
	full, fullRows := concurrent.Table(results)
	var keep []int
	for i, h := range full {
		if wide || slices.Contains(benchColumns, h) {
			keep = append(keep, i)
		}
	}
	if !wide {
		slices.SortStableFunc(keep, func(a, b int) int {
			return slices.Index(benchColumns, full[a]) - slices.Index(benchColumns, full[b])
		})
	}
	header := make([]string, len(keep))
	var left []string
	for i, h := range full {
		if !slices.Contains(keep, i) {
			left = append(left, h)
		}
	}
	for k, i := range keep {
		header[k] = full[i]
		if h, ok := benchHeaders[full[i]]; ok {
			header[k] = h
		}
	}
	rows := make([][]string, len(fullRows))
	for r, fr := range fullRows {
		for _, i := range keep {
			rows[r] = append(rows[r], fr[i])
		}
	}
	if width <= 0 {
		width = textreport.DefaultWidth
	}
	table, hidden, err := textreport.FitTable(header, rows, width, wide)
	if err != nil {
		return err
	}
	if _, err := w.Write(table); err != nil {
		return err
	}
	for i, h := range hidden {
		hidden[i] = strings.ReplaceAll(h, "\n", " ")
	}
	if left = append(hidden, left...); len(left) > 0 {
		err = textreport.WriteWrapped(w, "also in bench.csv (--wide shows them): "+strings.Join(left, ", "), width)
	}
	return err
}

// benchPlan validates the options and returns the implementations and one
// config per goroutine count, before anything runs or is written.
func benchPlan(opts *BenchOptions) ([]concurrent.Impl, []concurrent.BenchConfig, error) {
	impls := concurrent.Impls
	if len(opts.Impls) > 0 {
		impls = nil
		for _, name := range opts.Impls {
			im, err := concurrent.Lookup(name)
			if err != nil {
				return nil, nil, fmt.Errorf("--impl: %v", err)
			}
			impls = append(impls, im)
		}
	}
	if len(opts.Goroutines) == 0 {
		return nil, nil, fmt.Errorf("--goroutines needs at least one count (for example --goroutines 1,8,64)")
	}
	var cfgs []concurrent.BenchConfig
	for _, g := range opts.Goroutines {
		c := concurrent.BenchConfig{
			Config:     concurrent.Config{Limit: opts.Limit, Window: opts.Window, SampleCount: opts.SampleCount},
			Goroutines: g, Duration: opts.Duration,
		}
		if err := c.Validate(); err != nil {
			return nil, nil, err
		}
		cfgs = append(cfgs, c)
	}
	return impls, cfgs, nil
}

func benchRun(ctx context.Context, opts *BenchOptions) error {
	switch opts.Format {
	case "table", "json", "csv", "md":
	default:
		return fmt.Errorf("--format %q is unknown; use one of table, json, csv, md", opts.Format)
	}
	impls, cfgs, err := benchPlan(opts)
	if err != nil {
		return err
	}
	dir, err := output.Open(opts.Out)
	if err != nil {
		return err
	}
	defer dir.Abort()
	dir.Owns(lab.BenchFiles...) // an earlier run's files this one does not write go on Commit

	report := concurrent.NewReport(cfgs[0])
	total := len(impls) * len(cfgs)
	bar := newBenchProgress(opts.IO, opts.Quiet, total, time.Duration(total)*opts.Duration)
	for _, im := range impls {
		for _, c := range cfgs {
			bar.describe(fmt.Sprintf("%s × %d", im.Name, c.Goroutines))
			r, err := concurrent.Bench(ctx, im, c)
			if err != nil {
				bar.finish()
				return benchFailed(im.Name, c.Goroutines, err)
			}
			report.Results = append(report.Results, r)
			bar.step()
		}
	}
	bar.finish()

	detail := fmt.Sprintf("%d CPUs · limit %d per %v · %v per point · wall clock", report.CPUs, opts.Limit, opts.Window, opts.Duration)
	if err := dir.WriteFile("bench.csv", func(w io.Writer) error { return concurrent.WriteCSV(w, report.Results) }); err != nil {
		return err
	}
	if err := dir.WriteFile("bench.json", report.WriteJSON); err != nil {
		return err
	}
	if err := dir.WriteFile("bench.png", func(w io.Writer) error { return plots.BenchChart(w, report.Results, detail) }); err != nil {
		return err
	}
	files := "bench.csv,bench.json,bench.png"
	if opts.HTML {
		name := filepath.Base(filepath.Clean(dir.Path()))
		if err := dir.WriteFile("report.html", func(w io.Writer) error { return lab.WriteBenchHTML(w, name, report.Results) }); err != nil {
			return err
		}
		files += ",report.html"
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	machine := fmt.Sprintf("%s/%s, GOMAXPROCS %d, %d CPUs; wall-clock numbers, they vary from run to run",
		runtime.GOOS, runtime.GOARCH, report.GOMAXPROCS, report.CPUs)
	wrote := fmt.Sprintf("wrote %s/{%s}", filepath.ToSlash(opts.Out), files)
	// Machine-readable forms alone on stdout; the notes go to stderr.
	switch opts.Format {
	case "json":
		err = report.WriteJSON(opts.IO.Out)
	case "csv":
		err = concurrent.WriteCSV(opts.IO.Out, report.Results)
	case "md":
		header, rows := concurrent.Table(report.Results)
		err = writeMarkdownTable(opts.IO.Out, header, rows)
	default:
		// The header and the machine line wrap to the table's width.
		head := fmt.Sprintf("bench · limit %d per %v · %v per point · wall clock", opts.Limit, opts.Window, opts.Duration)
		if err := textreport.WriteWrapped(opts.IO.Out, head, opts.IO.Width); err != nil {
			return err
		}
		if err := writeBenchTable(opts.IO.Out, report.Results, opts.IO.Width, opts.Wide); err != nil {
			return err
		}
		if err := textreport.WriteWrapped(opts.IO.Out, machine, opts.IO.Width); err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.Out, wrote)
		return nil
	}
	if err != nil {
		return err
	}
	if err := textreport.WriteWrapped(opts.IO.ErrOut, machine, opts.IO.Width); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, wrote)
	return nil
}

// writeMarkdownTable writes a GitHub Markdown table, the first column
// aligned left and the others right.
func writeMarkdownTable(w io.Writer, header []string, rows [][]string) error {
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i == 0 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchProgress shows a bar of hammers on a terminal when the whole bench
// takes more than a few seconds.
type benchProgress struct {
	bar *progressbar.ProgressBar
}

func newBenchProgress(io *IOStreams, quiet bool, total int, expected time.Duration) *benchProgress {
	if !io.ErrTTY || quiet || expected < 3*time.Second {
		return &benchProgress{}
	}
	return &benchProgress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(io.ErrOut),
		progressbar.OptionSetDescription("bench"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *benchProgress) describe(s string) {
	if p.bar != nil {
		p.bar.Describe("bench " + s)
	}
}

func (p *benchProgress) step() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

func (p *benchProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// benchFailed is the error of one hammer that did not finish: "bench
// mutex-ring with 1 goroutine: …", the count with its noun.
func benchFailed(impl string, goroutines int, err error) error {
	return fmt.Errorf("bench %s with %s: %v", impl, textreport.Plural(int64(goroutines), "goroutine"), err)
}
