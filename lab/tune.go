package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// TuneOptions say what a tune compares: Sentinel's leap-array at several
// sample counts on the same arrivals.
type TuneOptions struct {
	Source       Source
	SampleCounts []int
	// Interval is leap-array's statistic interval (whole ms).
	Interval time.Duration
	// Bin is the bin behind peak_bin_passed, Window the sliding window
	// behind max_window_passed (Interval unless WindowSet).
	Bin       time.Duration
	Window    time.Duration
	WindowSet bool
	// Out is the output directory (default out/<scenario>-tune).
	Out  string
	HTML bool
	// Target, when TargetSet, names the smallest N whose overshoot is at
	// most it.
	Target    float64
	TargetSet bool
	// Rules and Rule pick the flow rule whose limit is tuned.
	Rules Rules
	Rule  string
	// RuleNames, with Vary, are the rules to tune one after another
	// (several --rule, or "all": every active row; NewRecommendRows);
	// one name is Rule.
	RuleNames []string
	// Vary, when given, makes the tune a recommendation (NewRecommendPlan):
	// the parameters of Algo (or of the --rules row Rule picks) to vary
	// (ParseVary), the Goals to meet and the objective (ParseGoal), at
	// most MaxRuns points, on Workers goroutines (0: every CPU).
	Algo    string
	Vary    []string
	Goals   []string
	MaxRuns int
	Workers int
	// Emit, with Vary, also writes the recommended configuration in this
	// format's syntax (rules.EmitFormatNames; a --rules row's own format
	// patches the user's file, only the tuned fields changed).
	Emit string
}

// DefaultSampleCounts are the sample counts a tune tries by default.
var DefaultSampleCounts = []int{1, 2, 4, 5, 10, 20, 50, 100, 1000}

// DefaultTuneOptions are the command's defaults.
func DefaultTuneOptions() TuneOptions {
	return TuneOptions{SampleCounts: DefaultSampleCounts, Interval: time.Second, Bin: DefaultBin, HTML: true, MaxRuns: DefaultMaxRuns}
}

// TunePlan is a validated tune.
type TunePlan struct {
	opts TuneOptions
	p    *Plan
}

// NewTunePlan checks a tune's options and inputs. The rule a --rules file
// gives is said on notes, wrapped to width.
func NewTunePlan(ctx context.Context, opts TuneOptions, notes io.Writer, width int) (*TunePlan, error) {
	if len(opts.SampleCounts) == 0 {
		return nil, fmt.Errorf("--sample-counts is empty; give for example --sample-counts 1,2,10,100")
	}
	for _, n := range opts.SampleCounts {
		if n < 1 {
			return nil, fmt.Errorf("--sample-counts has %d; every sample count must be at least 1", n)
		}
	}
	if opts.Interval <= 0 || opts.Interval%time.Millisecond != 0 {
		return nil, fmt.Errorf("--interval must be a positive whole number of milliseconds, got %v (for example --interval 1s)", opts.Interval)
	}
	if opts.TargetSet && (!(opts.Target > 0) || math.IsInf(opts.Target, 0)) {
		return nil, fmt.Errorf("--target must be a positive overshoot such as 1.05, got %v", opts.Target)
	}
	if err := someDivides(opts.SampleCounts, opts.Interval); err != nil {
		return nil, err
	}
	if notes == nil {
		notes = io.Discard
	}
	// The same sample count twice is the same row twice: keep the first.
	if counts, dups := dedupCounts(opts.SampleCounts); len(dups) > 0 {
		if err := report.WriteWrapped(notes, fmt.Sprintf("note: --sample-counts names %s more than once; each runs once", joinInts(dups)), width); err != nil {
			return nil, err
		}
		opts.SampleCounts = counts
	}
	if err := tuneRule(&opts, notes, width); err != nil {
		return nil, err
	}
	window := opts.Window
	if !opts.WindowSet {
		window = opts.Interval
	}
	// One leap-array spec checks the limit and the interval before the run.
	p, err := prepare(ctx, &opts.Source, []string{"leap-array:sample-count=1,interval=" + opts.Interval.String()}, true, opts.Bin, window, opts.Out, "-tune", nil)
	if err != nil {
		return nil, err
	}
	return &TunePlan{opts: opts, p: p}, nil
}

// Close removes what resolving the source left on disk.
func (t *TunePlan) Close() { t.p.src.cleanup() }

// Out is the output directory Execute writes.
func (t *TunePlan) Out() string { return t.p.out }

// Expected is the number of arrivals when known beforehand, else 0.
func (t *TunePlan) Expected() int64 { return t.p.src.Expected }

// Approx is the mean number of arrivals expected, 0 when not known.
func (t *TunePlan) Approx() float64 { return t.p.src.Approx }

// Replay runs every sample count on the arrivals, in parallel.
func (t *TunePlan) Replay(ctx context.Context, h Hooks) (*simulator.TuneResult, error) {
	cfg := t.p.cfg
	cfg.Progress = h.Progress
	res, err := simulator.Tune(ctx, t.p.src.Open, t.p.src.Limit, t.opts.Interval, t.opts.SampleCounts, cfg)
	if h.Finished != nil {
		h.Finished()
	}
	return res, err
}

// Tune is a finished tune whose files are written.
type Tune struct {
	*simulator.TuneResult
	Dir   string
	Files []string
	opts  TuneOptions
}

// Execute replays the tune and writes tune.csv, tune.png and report.html
// into Out, all or none.
func (t *TunePlan) Execute(ctx context.Context, h Hooks) (*Tune, error) {
	if err := checkNotMixing(t.p.out, "tune"); err != nil {
		return nil, err
	}
	dir, err := output.Open(t.p.out)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	dir.Owns(TuneFiles...) // an earlier run's files this one does not write go on Commit
	t.p.src.printNotes(h.notes(), h.Width)
	res, err := t.Replay(ctx, h)
	if err != nil {
		return nil, err
	}
	if err := dir.WriteFile("tune.csv", func(w io.Writer) error { return simulator.WriteTuneCSV(w, res) }); err != nil {
		return nil, err
	}
	if err := dir.WriteFile("tune.png", func(w io.Writer) error { return plots.TuneChart(w, res) }); err != nil {
		return nil, err
	}
	files := []string{"tune.csv", "tune.png"}
	if t.opts.HTML {
		if err := dir.WriteFile("report.html", func(w io.Writer) error { return WriteTuneHTML(w, res) }); err != nil {
			return nil, err
		}
		files = append(files, "report.html")
	}
	if err := ctx.Err(); err != nil {
		return nil, err // interrupted while writing: keep the earlier files
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	return &Tune{TuneResult: res, Dir: t.p.out, Files: files, opts: t.opts}, nil
}

// WriteSummary prints the tune's context line and table fitted to width
// (0: 100 columns), and the sample counts it skipped.
func (t *Tune) WriteSummary(out io.Writer, width int) error {
	res := t.TuneResult
	fit := width
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
	return nil
}

// WriteTarget names, on out, the smallest N whose overshoot is at most the
// target, or returns a ThresholdError when no N tried reaches it; without
// a target it does nothing.
func (t *Tune) WriteTarget(out io.Writer, width int) error {
	if !t.opts.TargetSet {
		return nil
	}
	if width <= 0 {
		width = report.DefaultWidth
	}
	return reportTarget(out, t.TuneResult, t.opts.Target, width)
}

// Print writes the summary, the files written and the target's line
// (or returns its ThresholdError): what the command prints.
func (t *Tune) Print(out io.Writer, width int) error {
	if err := t.WriteSummary(out, width); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s/{%s}\n", filepath.ToSlash(t.Dir), strings.Join(t.Files, ","))
	return t.WriteTarget(out, width)
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

// dedupCounts returns counts without repeats (first occurrences, in
// order) and the counts that were repeated, each once.
func dedupCounts(counts []int) (kept, dups []int) {
	seen := map[int]bool{}
	for _, n := range counts {
		if !seen[n] {
			seen[n] = true
			kept = append(kept, n)
		} else if !slices.Contains(dups, n) {
			dups = append(dups, n)
		}
	}
	return kept, dups
}

// untriedDivisors are the sample counts Sentinel accepts for the interval
// (those that divide it in whole ms, buckets of at least 1 ms) strictly
// between lo and hi that the tune did not try, ascending.
func untriedDivisors(res *simulator.TuneResult, lo, hi int) []int {
	ims := int(res.Interval / time.Millisecond)
	tried := map[int]bool{}
	for _, row := range res.Rows {
		tried[row.SampleCount] = true
	}
	var out []int
	for n := lo + 1; n < hi && n <= ims; n++ {
		if ims%n == 0 && !tried[n] {
			out = append(out, n)
		}
	}
	return out
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// reportTarget names the smallest N among those tried whose overshoot is
// at most target, and the sample counts it did not try below it (the
// overshoot is not monotone in N, so an untried smaller one may meet the
// target too: the claim is only as strong as the counts tried); or it
// returns a ThresholdError when no N tried reaches it, suggesting only
// counts not tried.
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
		return &ThresholdError{Msg: noTargetMsg(res, t)}
	}
	row := res.Rows[best]
	over := strconv.FormatFloat(row.Overshoot, 'f', 3, 64)
	if row.LateAdmissions > 0 {
		over = simulator.LowerBound + over
	}
	line := fmt.Sprintf("target %s: among the sample counts tried, the smallest N with overshoot ≤ %s is N=%d (overshoot %s, bucket %s)", t, t, row.SampleCount, over, row.Bucket)
	if below := untriedDivisors(res, 0, row.SampleCount); len(below) > 0 {
		line += fmt.Sprintf("; not tried below it: %s (add them to --sample-counts to check)", joinInts(below))
	}
	return report.WriteWrapped(out, line, fit)
}

// noTargetMsg is the line of a tune whose tried counts all miss the
// target: it suggests larger sample counts not tried yet (the overshoot
// tends to fall as N grows), else smaller ones, else says none is left.
func noTargetMsg(res *simulator.TuneResult, t string) string {
	most := 0
	for _, row := range res.Rows {
		most = max(most, row.SampleCount)
	}
	ims := int(res.Interval / time.Millisecond)
	pick := untriedDivisors(res, most, ims+1)
	which := "larger"
	if len(pick) == 0 {
		pick, which = untriedDivisors(res, 0, most), "other"
	}
	if len(pick) == 0 {
		return fmt.Sprintf("no sample count tried keeps the overshoot within --target %s, and every sample count that divides the interval of %d ms was tried; no leap-array at this interval reaches it: raise --target or change --interval", t, ims)
	}
	if len(pick) > 3 {
		pick = []int{pick[0], pick[len(pick)/2], pick[len(pick)-1]}
	}
	return fmt.Sprintf("no sample count tried keeps the overshoot within --target %s; try %s ones not tried yet, e.g. --sample-counts %s", t, which, joinInts(pick))
}
