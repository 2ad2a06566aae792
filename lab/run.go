package lab

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Run is a finished run whose files are written.
type Run struct {
	*Result
	// Dir is the output directory, Files the names written there.
	Dir   string
	Files []string
	plan  *Plan
}

// Execute replays the plan and writes its files into Plan.Out. The files
// appear only when the whole run succeeds: they are written under
// temporary names and renamed together at the end, and then the files of
// an earlier run there that this one does not write are removed. Before
// the replay it says on h.Notes the source's notes, the decisions.csv
// estimate and a wider bin; a --fail-if field no row has is an error
// before any file is written.
func (p *Plan) Execute(ctx context.Context, h Hooks) (*Run, error) {
	notes := h.notes()
	if err := checkNotMixing(p.out, "run"); err != nil {
		return nil, err
	}
	dir, err := output.Open(p.out)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	dir.Owns(RunFiles...) // an earlier run's files this one does not write go on Commit

	var parts *decisionParts
	if p.opts.Decisions {
		if err := decisionsPlan(notes, p.out, p.src.Approx, p.cfg.Start, p.cfg.End, p.limiters); err != nil {
			return nil, err
		}
		if parts, err = newDecisionParts(p.out, len(p.limiters)); err != nil {
			return nil, err
		}
		defer parts.remove()
		h.Decisions = parts.writer
	}
	p.src.printNotes(notes, h.Width)
	p.rs.printNotes(notes, h.Width)
	planned := binNotice(notes, h.Width, p.cfg.End-p.cfg.Start, p.cfg.Bin)
	res, err := p.Replay(ctx, h)
	if err != nil {
		return nil, err
	}
	widenedNotice(notes, h.Width, res.Result, planned)
	if err := report.CheckFields(res.Result, p.thresholds); err != nil {
		return nil, err // before any file is written
	}
	files, err := p.writeFiles(ctx, hookedDir{dir, h.Writing}, res, parts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // interrupted while writing: keep the earlier files
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	return &Run{Result: res, Dir: p.out, Files: files, plan: p}, nil
}

// hookedDir calls writing before each file it writes.
type hookedDir struct {
	*output.Dir
	writing func(name string)
}

func (d hookedDir) WriteFile(name string, write func(io.Writer) error) error {
	d.announce(name)
	return d.Dir.WriteFile(name, write)
}

func (d hookedDir) announce(name string) {
	if d.writing != nil {
		d.writing(name)
	}
}

// writeFiles renders every file of a run into dir and returns their names.
func (p *Plan) writeFiles(ctx context.Context, dir hookedDir, res *Result, parts *decisionParts) ([]string, error) {
	files, err := WriteRunFiles(ctx, dir, res, FileOptions{Chart: p.chart, HTML: p.opts.HTML})
	if err != nil {
		return nil, err
	}
	if parts != nil {
		dir.announce("decisions.csv")
		if err := writeDecisions(ctx, dir.Dir, parts); err != nil {
			return nil, err
		}
		files = append(files, "decisions.csv")
	}
	return files, nil
}

// FileOptions choose the files WriteRunFiles renders beside series.csv
// and summary.json.
type FileOptions struct {
	// Chart is chart.png's layout and zoom; mode "none" skips it.
	Chart plots.ChartOptions
	// HTML writes report.html.
	HTML bool
}

// FileWriter is where the renderers write: an output.Dir, or anything
// that writes a named file through a function.
type FileWriter interface {
	WriteFile(name string, write func(io.Writer) error) error
}

// WriteRunFiles renders a result's files into dir: series.csv,
// summary.json, breaker.csv (rows with a circuit breaker), keys.csv
// (per-key rows), chart.png and report.html. It returns the names
// written, in that order.
//
// chart.png and report.html, the two slowest, are rendered into memory on
// goroutines of their own while the CSV and JSON files are written, then
// written in their turn: the same bytes in the same order as one after
// the other, sooner when there is more than one core. Every renderer only
// reads res.
func WriteRunFiles(ctx context.Context, dir FileWriter, res *Result, o FileOptions) ([]string, error) {
	rctx, cancel := context.WithCancel(ctx)
	var chart, page *rendering
	if o.Chart.Mode != "none" {
		chart = render(func(w io.Writer) error { return plots.ChartContext(rctx, w, res.Result, o.Chart) })
	}
	if o.HTML {
		page = render(func(w io.Writer) error { return WriteRunHTML(w, res) })
	}
	defer func() {
		// An early return: stop the chart and wait for both, so that
		// nothing renders after the call.
		cancel()
		chart.wait()
		page.wait()
	}()
	if err := dir.WriteFile("series.csv", func(w io.Writer) error { return simulator.WriteSeriesCSV(w, res.Result) }); err != nil {
		return nil, err
	}
	if err := dir.WriteFile("summary.json", func(w io.Writer) error { return writeSummaryJSON(w, res) }); err != nil {
		return nil, err
	}
	files := []string{"series.csv", "summary.json"}
	if simulator.HasBreakers(res.Result) {
		if err := dir.WriteFile("breaker.csv", func(w io.Writer) error { return simulator.WriteBreakerCSV(w, res.Result) }); err != nil {
			return nil, err
		}
		files = append(files, "breaker.csv")
	}
	keyFiles, err := writeKeysCSV(dir, res.Result, res.Keys)
	if err != nil {
		return nil, err
	}
	files = append(files, keyFiles...)
	if o.Chart.Mode != "none" {
		if err := dir.WriteFile("chart.png", chart.writeTo); err != nil {
			return nil, err
		}
		files = append(files, "chart.png")
	}
	if o.HTML {
		if err := dir.WriteFile("report.html", page.writeTo); err != nil {
			return nil, err
		}
		files = append(files, "report.html")
	}
	return files, nil
}

// rendering is a file being rendered into memory on its own goroutine.
type rendering struct {
	buf  bytes.Buffer
	err  error
	done chan struct{}
}

// render starts write into a buffer on a goroutine of its own.
func render(write func(io.Writer) error) *rendering {
	r := &rendering{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = write(&r.buf)
	}()
	return r
}

// wait waits until r is rendered (nil: nothing to wait for).
func (r *rendering) wait() {
	if r != nil {
		<-r.done
	}
}

// writeTo waits for r and writes what it rendered to w, or returns the
// renderer's error.
func (r *rendering) writeTo(w io.Writer) error {
	r.wait()
	if r.err != nil {
		return r.err
	}
	_, err := w.Write(r.buf.Bytes())
	return err
}

// Report is the summary of a result as the report package renders it.
func (r *Result) Report(wide bool, width int) *report.Report {
	return &report.Report{Result: r.Result, Seed: r.Seed, HasSeed: r.HasSeed, Wide: wide, Width: width,
		Warnings: r.Warnings, Notes: r.Notes}
}

// WriteSummary prints the run's summary on out in the plan's Format
// (wide: every column of the table, fitted to width), the top keys under
// a table, and, when the summary is not a table, its warnings and notes
// on side (the caller then prints its own lines there too).
func (r *Run) WriteSummary(out, side io.Writer, wide bool, width int) error {
	o := r.plan.opts
	rep := r.Report(wide, width)
	if err := r.plan.render(out, rep); err != nil {
		return err
	}
	if o.Format == "table" {
		if r.Keys != nil && o.Top > 0 {
			if err := report.WriteTopKeys(out, r.Result.Result, terminalNames(r.Keys.Name), o.Top, width); err != nil {
				return err
			}
		}
		return nil
	}
	if o.Format != "md" {
		for _, w := range rep.Warnings {
			report.WriteNote(side, "warning: ", w, width)
		}
		for _, n := range rep.Notes {
			report.WriteNote(side, "note: ", n, width)
		}
	}
	return nil
}

// Crossed checks the plan's FailIf thresholds: one line per limiter and
// threshold crossed.
func (r *Run) Crossed() ([]string, error) {
	if len(r.plan.thresholds) == 0 {
		return nil, nil
	}
	crossed, err := report.Check(r.Result.Result, r.plan.thresholds)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(crossed))
	for i, c := range crossed {
		lines[i] = c.String()
	}
	return lines, nil
}

// Undefined lists the plan's FailIf thresholds whose field is undefined
// (0/0, null) on a limiter they test: one line each.
func (r *Run) Undefined() ([]string, error) {
	if len(r.plan.thresholds) == 0 {
		return nil, nil
	}
	und, err := report.CheckUndefined(r.Result.Result, r.plan.thresholds)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(und))
	for i, u := range und {
		lines[i] = u.String()
	}
	return lines, nil
}

// UndefinedError is a run that worked and whose --fail-if gate tested a
// field that is undefined (0/0) on some limiter, and crossed no other:
// the gate neither passed nor failed. Its files are written.
type UndefinedError struct{ Msg string }

func (e *UndefinedError) Error() string { return e.Msg }

// UndefinedGateError is the UndefinedError of n undefined gates.
func UndefinedGateError(n int) error {
	return &UndefinedError{Msg: fmt.Sprintf("%d --fail-if threshold(s) tested an undefined (0/0) value, so the gate neither passed nor failed; the outputs are written", n)}
}

// ThresholdError is a run that worked and crossed a threshold (--fail-if,
// tune's --target); its files are written.
type ThresholdError struct{ Msg string }

func (e *ThresholdError) Error() string { return e.Msg }

// CrossedError is the ThresholdError of n crossed --fail-if thresholds.
func CrossedError(n int) error {
	return &ThresholdError{Msg: fmt.Sprintf("%d --fail-if threshold(s) crossed; the outputs are written", n)}
}

// emptyNotes says once why the run, or a row of it, has no arrivals:
// every ratio over arrivals is then 0/0, written null (pass_ratio) or
// "-" (the table's pass %). silent are the scenario's phases that send
// nothing (after its end); without arrivals they are the reason, with
// some they are a note of their own.
func emptyNotes(res *simulator.Result, silent []string) []string {
	total := int64(0)
	for _, a := range res.Algorithms {
		total = max(total, a.Arrived)
	}
	if total == 0 {
		why := "the traffic sends nothing within the run"
		if len(silent) > 0 {
			why = strings.Join(silent, "; ")
		}
		return []string{fmt.Sprintf("the run has no arrivals (%s): every ratio over arrivals is 0/0, null in summary.json and \"-\" in the table, and a --fail-if on one is undefined", why)}
	}
	var out []string
	for _, s := range silent {
		out = append(out, s)
	}
	labels := report.Labels(res)
	for i, a := range res.Algorithms {
		if a.Arrived == 0 {
			out = append(out, fmt.Sprintf("%s has no arrivals while other rows have: its ratios over arrivals are 0/0, null", labels[i]))
		}
	}
	return out
}
