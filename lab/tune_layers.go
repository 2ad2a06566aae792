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

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
)

// DefaultLayerBudgets are the fine-bucket counts n `tune --layers` tries
// by default: with n = 2, 4, 10 the layered window (n + 2 counters) meets
// the uniform ring of 4, 6 and 12 at equal memory.
var DefaultLayerBudgets = []int{2, 4, 6, 10, 12, 20, 60}

// LayersTuneFiles are the files `tune --layers` writes.
var LayersTuneFiles = []string{"tune-layers.csv"}

// The kinds of row a layers tune compares, for each fine-bucket count n
// that divides the window W (in ns).
const (
	// KindRing is the uniform ring, layers=(W/n)*n: n counters; it
	// forgets the slice at the old edge (leap-array at interval 1s decides
	// the same).
	KindRing = "ring"
	// KindRingEdge is the ring holding one more bucket, (W/n)*(n+1), which
	// weighs the old edge's bucket by its share in the window: n+1.
	KindRingEdge = "ring+edge"
	// KindLayered is the ring plus a coarse layer of two window-long
	// buckets that estimates the forgotten slice, (W/n)*n+W*2: n+2.
	KindLayered = "layered"
	// KindCounter is Cloudflare's sliding-window counter: 2 counters.
	KindCounter = "counter"
)

// LayersRow is one limiter of a layers tune.
type LayersRow struct {
	Kind, Spec string
	// Buckets is the number of counters; G the uncertain span at the old
	// edge (docs/algorithms.md, hierarchical).
	Buckets int
	G       time.Duration
	// The run's figures: the overshoot is MaxWindowPassed over the limit
	// per window.
	Arrived, Passed, MaxWindowPassed, LateAdmissions int64
	Overshoot, NsPerDecision                         float64
	StateBytes                                       int
}

// LayersTune is a finished layers tune.
type LayersTune struct {
	Scenario string
	// Rate is the source's limit per second, Window the window every row
	// limits, Limit = Rate·Window.
	Rate, Limit float64
	Window      time.Duration
	Rows        []LayersRow
	Skipped     []string
	Dir         string
	Files       []string
	target      float64
	targetSet   bool
}

// LayersTunePlan is a validated layers tune.
type LayersTunePlan struct {
	opts TuneOptions
	p    *Plan
	rows []LayersRow
	skip []string
}

// layerSpecs are the rows for fine-bucket counts ns over window w at
// limit, and the counts skipped (n not dividing w).
func layerSpecs(limit float64, w time.Duration, ns []int) (rows []LayersRow, skipped []string) {
	lim := strconv.FormatFloat(limit, 'f', -1, 64)
	ws := algorithms.FormatDuration(w)
	add := func(kind, layers string) {
		ls, err := algorithms.ParseLayers(layers)
		if err != nil {
			return
		}
		cfg := algorithms.HierarchicalConfig{Window: w, Layers: ls}
		rows = append(rows, LayersRow{Kind: kind, Spec: "hierarchical:limit=" + lim + ",window=" + ws + ",layers=" + layers,
			Buckets: cfg.Buckets(), G: cfg.UncertainSpan()})
	}
	for _, n := range ns {
		if n < 1 || w%time.Duration(n) != 0 {
			skipped = append(skipped, fmt.Sprintf("n=%d does not divide the window of %s", n, ws))
			continue
		}
		b := algorithms.FormatDuration(w / time.Duration(n))
		add(KindRing, fmt.Sprintf("%s*%d", b, n))
		if n > 1 {
			add(KindRingEdge, fmt.Sprintf("%s*%d", b, n+1))
			add(KindLayered, fmt.Sprintf("%s*%d+%s*2", b, n, ws))
		}
	}
	rows = append(rows, LayersRow{Kind: KindCounter, Spec: "sliding-window-counter:limit=" + lim + ",window=" + ws, Buckets: 2, G: w})
	// By memory, then kind, so that equal budgets stand together.
	order := map[string]int{KindCounter: 0, KindRing: 1, KindRingEdge: 2, KindLayered: 3}
	slices.SortStableFunc(rows, func(a, b LayersRow) int {
		if a.Buckets != b.Buckets {
			return a.Buckets - b.Buckets
		}
		return order[a.Kind] - order[b.Kind]
	})
	rows = slices.CompactFunc(rows, func(a, b LayersRow) bool { return a.Spec == b.Spec })
	return rows, skipped
}

// NewLayersTunePlan checks a layers tune: opts.SampleCounts are the
// fine-bucket counts n, opts.Window (default opts.Interval) the window.
func NewLayersTunePlan(ctx context.Context, opts TuneOptions, notes io.Writer, width int) (*LayersTunePlan, error) {
	if len(opts.Vary) > 0 {
		return nil, fmt.Errorf("--layers and --vary are two kinds of tune; drop one")
	}
	if len(opts.Rules.Files) > 0 {
		return nil, fmt.Errorf("--layers compares window specs on the source's limit; drop --rules (or --layers)")
	}
	if len(opts.SampleCounts) == 0 {
		return nil, fmt.Errorf("--sample-counts is empty; with --layers give the fine-bucket counts, for example --sample-counts 4,10,60")
	}
	w := opts.Window
	if !opts.WindowSet {
		w = opts.Interval
	}
	if w <= 0 {
		return nil, fmt.Errorf("--window must be positive with --layers, got %v (for example --window 1m)", w)
	}
	if opts.TargetSet && (!(opts.Target > 0) || math.IsInf(opts.Target, 0)) {
		return nil, fmt.Errorf("--target must be a positive overshoot such as 1.05, got %v", opts.Target)
	}
	if notes == nil {
		notes = io.Discard
	}
	p, err := prepare(ctx, &opts.Source, []string{"sliding-window-counter:window=" + w.String()}, true, opts.Bin, w, opts.Out, "-tune-layers", nil)
	if err != nil {
		return nil, err
	}
	limit := p.src.Limit * w.Seconds()
	rows, skipped := layerSpecs(limit, w, opts.SampleCounts)
	p.limiters = p.limiters[:0]
	for _, r := range rows {
		l, err := algorithms.New(r.Spec, 0)
		if err != nil {
			p.src.cleanup()
			return nil, err
		}
		p.limiters = append(p.limiters, l)
	}
	opts.Window, opts.WindowSet = w, true
	return &LayersTunePlan{opts: opts, p: p, rows: rows, skip: skipped}, nil
}

// Close removes what resolving the source left on disk.
func (t *LayersTunePlan) Close() { t.p.src.cleanup() }

// Expected is the number of arrivals when known beforehand, else 0.
func (t *LayersTunePlan) Expected() int64 { return t.p.src.Expected }

// Approx is the mean arrival count of a random source (0 when Expected is
// exact), for the progress bar's approximate total.
func (t *LayersTunePlan) Approx() float64 { return t.p.src.Approx }

// Execute replays every row on the same arrivals and writes
// tune-layers.csv into Out.
func (t *LayersTunePlan) Execute(ctx context.Context, h Hooks) (*LayersTune, error) {
	dir, err := output.Open(t.p.out)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	dir.Owns(LayersTuneFiles...)
	t.p.src.printNotes(h.notes(), h.Width)
	res, err := t.p.Replay(ctx, h)
	if err != nil {
		return nil, err
	}
	out := &LayersTune{Scenario: res.Scenario, Rate: t.p.src.Limit, Window: t.opts.Window, Skipped: t.skip,
		Dir: t.p.out, Files: LayersTuneFiles, target: t.opts.Target, targetSet: t.opts.TargetSet}
	out.Limit = out.Rate * out.Window.Seconds()
	for i, a := range res.Algorithms {
		r := t.rows[i]
		r.Arrived, r.Passed, r.MaxWindowPassed, r.LateAdmissions = a.Arrived, a.Passed, a.MaxWindowPassed, a.LateAdmissions
		r.Overshoot, r.NsPerDecision, r.StateBytes = a.Overshoot, a.NsPerDecision, a.StateBytes
		out.Rows = append(out.Rows, r)
	}
	if err := dir.WriteFile("tune-layers.csv", out.writeCSV); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	return out, nil
}

func (t *LayersTune) writeCSV(w io.Writer) error {
	_, err := io.WriteString(w, "kind,spec,buckets,uncertain_span_s,arrived,passed,max_window_passed,late_admissions,overshoot,bound_smooth,ns_per_decision,state_bytes\n")
	for _, r := range t.Rows {
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s,%s,%d,%s,%d,%d,%d,%d,%.6f,%.6f,%.1f,%d\n", r.Kind, r.Spec, r.Buckets,
			strconv.FormatFloat(r.G.Seconds(), 'f', -1, 64), r.Arrived, r.Passed, r.MaxWindowPassed, r.LateAdmissions,
			r.Overshoot, 1+r.G.Seconds()/t.Window.Seconds(), r.NsPerDecision, r.StateBytes)
	}
	return err
}

// WriteSummary prints the context line and the table fitted to width.
func (t *LayersTune) WriteSummary(out io.Writer, width int) error {
	fit := width
	if fit <= 0 {
		fit = report.DefaultWidth
	}
	head := fmt.Sprintf("%s · window %s, limit %s per window (%s/s) · layered window against the uniform ring and the sliding-window counter, by counters",
		t.Scenario, report.Duration(t.Window), report.Number(t.Limit), report.Number(t.Rate))
	if err := report.WriteWrapped(out, head, fit); err != nil {
		return err
	}
	header := []string{"kind", "layers", "buckets", "uncertain span", "1+G/W", "overshoot", "max/" + report.Duration(t.Window), "pass %", "ns/decision"}
	var rows [][]string
	for _, r := range t.Rows {
		layers := "—"
		if _, l, ok := strings.Cut(r.Spec, ",layers="); ok {
			layers = l
		}
		over := strconv.FormatFloat(r.Overshoot, 'f', 3, 64)
		if r.LateAdmissions > 0 {
			over = "≥" + over
		}
		pct := 0.0
		if r.Arrived > 0 {
			pct = 100 * float64(r.Passed) / float64(r.Arrived)
		}
		rows = append(rows, []string{r.Kind, layers, strconv.Itoa(r.Buckets), report.Duration(r.G),
			strconv.FormatFloat(1+r.G.Seconds()/t.Window.Seconds(), 'f', 3, 64), over,
			strconv.FormatInt(r.MaxWindowPassed, 10), strconv.FormatFloat(pct, 'f', 1, 64), strconv.FormatFloat(r.NsPerDecision, 'f', 0, 64)})
	}
	table, hidden, err := report.FitTableDropping(header, rows, fit, false, []string{"ns/decision", "pass %", "max/", "1+G/W"})
	if err != nil {
		return err
	}
	out.Write(table)
	if len(hidden) > 0 {
		if err := report.WriteWrapped(out, fmt.Sprintf("hidden to fit %d columns: %s (tune-layers.csv has them)", fit, strings.Join(hidden, ", ")), fit); err != nil {
			return err
		}
	}
	for _, s := range t.Skipped {
		if err := report.WriteWrapped(out, "skipped "+s, fit); err != nil {
			return err
		}
	}
	return nil
}

// WriteTarget names, for each kind, the fewest counters whose overshoot is
// at most the target, or returns a ThresholdError when no row reaches it;
// without a target it does nothing.
// Print writes the summary, the files written and the target's line
// (or returns its ThresholdError): what the command prints.
func (t *LayersTune) Print(out io.Writer, width int) error {
	if err := t.WriteSummary(out, width); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s/{%s}\n", filepath.ToSlash(t.Dir), strings.Join(t.Files, ","))
	return t.WriteTarget(out, width)
}

func (t *LayersTune) WriteTarget(out io.Writer, width int) error {
	if !t.targetSet {
		return nil
	}
	if width <= 0 {
		width = report.DefaultWidth
	}
	ts := strconv.FormatFloat(t.target, 'f', -1, 64)
	var found []string
	for _, kind := range []string{KindCounter, KindRing, KindRingEdge, KindLayered} {
		for _, r := range t.Rows { // sorted by buckets
			if r.Kind == kind && r.LateAdmissions == 0 && r.Overshoot <= t.target {
				_, spec, _ := strings.Cut(r.Spec, ",window=")
				found = append(found, fmt.Sprintf("%s %d buckets (window=%s, overshoot %.3f, %.0f ns)", kind, r.Buckets, spec, r.Overshoot, r.NsPerDecision))
				break
			}
		}
	}
	if len(found) == 0 {
		return &ThresholdError{Msg: fmt.Sprintf("no row keeps the overshoot within --target %s; try more fine buckets, e.g. --sample-counts 100,1000", ts)}
	}
	return report.WriteWrapped(out, fmt.Sprintf("target %s, the fewest counters per kind: %s", ts, strings.Join(found, "; ")), width)
}
