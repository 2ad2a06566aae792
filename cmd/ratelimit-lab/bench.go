package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// BenchOptions holds everything `bench` needs.
type BenchOptions struct {
	IO  *IOStreams
	Lab lab.BenchOptions
	// Quiet hides the progress bar; Wide prints every column of the table.
	Quiet bool
	Wide  bool
}

// DefaultGoroutines are the goroutine counts `bench` tries by default.
var DefaultGoroutines = lab.DefaultGoroutines

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
Markdown table; the notes then go to stderr.

` + benchMemoryHelp(),
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
	f.StringArrayVar(&opts.Lab.Impls, "impl", nil, "implementation to run; repeat it (default all: "+strings.Join(concurrent.Names(), ", ")+")")
	f.IntSliceVar(&opts.Lab.Goroutines, "goroutines", DefaultGoroutines, fmt.Sprintf("goroutine counts to hammer with, each from 1 to %d", concurrent.MaxGoroutines))
	f.DurationVar(&opts.Lab.Duration, "duration", 2*time.Second, "how long each hammer runs")
	f.IntVar(&opts.Lab.Limit, "limit", 100, fmt.Sprintf("passes allowed per --window, from 1 to %d", concurrent.MaxLimit))
	f.DurationVar(&opts.Lab.Window, "window", 100*time.Millisecond, "the limit's window (the rings' interval), whole ms")
	f.IntVar(&opts.Lab.SampleCount, "sample-count", 2, fmt.Sprintf("buckets of the rings (Sentinel's SAMPLE_COUNT), from 1 to %d", concurrent.MaxSampleCount))
	f.StringVarP(&opts.Lab.Out, "out", "o", filepath.Join("out", "bench"), "output directory")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&opts.Lab.HTML, "html", true, "write report.html, the interactive page (--html=false skips it)")
	f.BoolVar(&opts.Wide, "wide", false, "print every column of the table")
	f.StringVar(&opts.Lab.Format, "format", "table", "results on stdout: table, json (bench.json), csv (bench.csv) or md")
	return cmd
}

func benchRun(ctx context.Context, opts *BenchOptions) error {
	plan, err := lab.NewBenchPlan(opts.Lab)
	if err != nil {
		return err
	}
	n := plan.Hammers()
	bar := newBenchProgress(opts.IO, opts.Quiet, n, time.Duration(n)*opts.Lab.Duration)
	bench, err := plan.Execute(ctx, bar.describe, bar.step)
	bar.finish()
	if err != nil {
		return err
	}
	side, err := bench.WriteSummary(opts.IO.Out, opts.IO.ErrOut, opts.Wide, opts.IO.Width)
	if err != nil {
		return err
	}
	fmt.Fprintf(side, "wrote %s/{%s}\n", filepath.ToSlash(bench.Dir), strings.Join(bench.Files, ","))
	return nil
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

// benchMemoryHelp is --help's line on bench's peak memory, from the
// bound package concurrent measures (BenchmarkBenchMemory).
func benchMemoryHelp() string {
	peak := concurrent.BytesPerGoroutine * concurrent.MaxGoroutines
	return fmt.Sprintf("Memory: each goroutine takes at most about %d KB while it hammers (its stack\nand tallies; the latency histograms are shared), so the peak is about\n%d MB at the most goroutines, --goroutines %d, plus the pass times kept.",
		concurrent.BytesPerGoroutine>>10, (peak+(1<<20)-1)>>20, concurrent.MaxGoroutines)
}
