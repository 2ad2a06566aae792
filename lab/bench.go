package lab

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	textreport "github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
)

// BenchOptions say what a bench hammers: concurrent limiters on the wall
// clock, one hot key, at several goroutine counts.
type BenchOptions struct {
	// Impls are the implementations (default all of concurrent.Impls).
	Impls       []string
	Goroutines  []int
	Duration    time.Duration
	Limit       int
	Window      time.Duration
	SampleCount int
	Out         string
	HTML        bool
	// Format is the form of the results on stdout: table, json, csv or md.
	Format string
}

// DefaultGoroutines are the goroutine counts a bench tries by default.
var DefaultGoroutines = []int{1, 2, 8, 64, 256}

// BenchPlan is a validated bench.
type BenchPlan struct {
	opts  BenchOptions
	impls []concurrent.Impl
	cfgs  []concurrent.BenchConfig
}

// NewBenchPlan checks a bench's options before anything runs or is
// written.
func NewBenchPlan(opts BenchOptions) (*BenchPlan, error) {
	switch opts.Format {
	case "table", "json", "csv", "md":
	default:
		return nil, fmt.Errorf("--format %q is unknown; use one of table, json, csv, md", opts.Format)
	}
	impls, cfgs, err := benchPlan(&opts)
	if err != nil {
		return nil, err
	}
	return &BenchPlan{opts: opts, impls: impls, cfgs: cfgs}, nil
}

// Hammers is the number of hammers the bench runs (implementations ×
// goroutine counts).
func (b *BenchPlan) Hammers() int { return len(b.impls) * len(b.cfgs) }

// Bench is a finished bench whose files are written.
type Bench struct {
	*concurrent.Report
	Dir   string
	Files []string
	opts  BenchOptions
}

// Execute runs every hammer in turn (describe, if not nil, is called with
// each one's name before it, step after it) and writes bench.csv,
// bench.json, bench.png and report.html into Out, all or none.
func (b *BenchPlan) Execute(ctx context.Context, describe func(string), step func()) (*Bench, error) {
	opts := b.opts
	if err := checkNotMixing(opts.Out, "bench"); err != nil {
		return nil, err
	}
	dir, err := output.Open(opts.Out)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	dir.Owns(BenchFiles...) // an earlier run's files this one does not write go on Commit

	report := concurrent.NewReport(b.cfgs[0])
	for _, im := range b.impls {
		for _, c := range b.cfgs {
			if describe != nil {
				describe(fmt.Sprintf("%s × %d", im.Name, c.Goroutines))
			}
			r, err := concurrent.Bench(ctx, im, c)
			if err != nil {
				return nil, BenchFailed(im.Name, c.Goroutines, err)
			}
			report.Results = append(report.Results, r)
			if step != nil {
				step()
			}
		}
	}
	detail := fmt.Sprintf("%d CPUs · limit %d per %v · %v per point · wall clock", report.CPUs, opts.Limit, opts.Window, opts.Duration)
	if err := dir.WriteFile("bench.csv", func(w io.Writer) error { return concurrent.WriteCSV(w, report.Results) }); err != nil {
		return nil, err
	}
	if err := dir.WriteFile("bench.json", report.WriteJSON); err != nil {
		return nil, err
	}
	if err := dir.WriteFile("bench.png", func(w io.Writer) error { return plots.BenchChart(w, report.Results, detail) }); err != nil {
		return nil, err
	}
	files := []string{"bench.csv", "bench.json", "bench.png"}
	if opts.HTML {
		name := filepath.Base(filepath.Clean(dir.Path()))
		if err := dir.WriteFile("report.html", func(w io.Writer) error { return WriteBenchHTML(w, name, report.Results) }); err != nil {
			return nil, err
		}
		files = append(files, "report.html")
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	return &Bench{Report: report, Dir: opts.Out, Files: files, opts: opts}, nil
}

// WriteSummary prints the results on out in the plan's Format (a table
// fitted to width, every column when wide) and the machine line: after
// the table on out, else on side (machine-readable forms stay alone on
// out). It returns where the machine line went.
func (b *Bench) WriteSummary(out, side io.Writer, wide bool, width int) (io.Writer, error) {
	opts := b.opts
	machine := fmt.Sprintf("%s/%s, GOMAXPROCS %d, %d CPUs; wall-clock numbers, they vary from run to run",
		runtime.GOOS, runtime.GOARCH, b.GOMAXPROCS, b.CPUs)
	var err error
	switch opts.Format {
	case "json":
		err = b.WriteJSON(out)
	case "csv":
		err = concurrent.WriteCSV(out, b.Results)
	case "md":
		header, rows := concurrent.Table(b.Results)
		err = textreport.WriteMarkdownTable(out, header, rows)
	default:
		// The header and the machine line wrap to the table's width.
		head := fmt.Sprintf("bench · limit %d per %v · %v per point · wall clock", opts.Limit, opts.Window, opts.Duration)
		if err := textreport.WriteWrapped(out, head, width); err != nil {
			return nil, err
		}
		if err := writeBenchTable(out, b.Results, width, wide); err != nil {
			return nil, err
		}
		return out, textreport.WriteWrapped(out, machine, width)
	}
	if err != nil {
		return nil, err
	}
	return side, textreport.WriteWrapped(side, machine, width)
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

// BenchFailed is the error of one hammer that did not finish: "bench
// mutex-ring with 1 goroutine: …", the count with its noun.
func BenchFailed(impl string, goroutines int, err error) error {
	return fmt.Errorf("bench %s with %s: %v", impl, textreport.Plural(int64(goroutines), "goroutine"), err)
}
