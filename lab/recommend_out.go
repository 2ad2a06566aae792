package lab

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/htmlreport"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// MaxPointRuns bounds the points whose run files a recommendation writes
// under points/: the front's, in grid order, and the recommended one.
const MaxPointRuns = 50

// Recommendation is a finished tune --vary whose files are written.
type Recommendation struct {
	// Scenario names the source; Base is the spec varied, Rule its rule
	// (nil with --algo).
	Scenario string
	Base     string
	Rule     *rules.Rule
	// Names are the --vary names, in order; Points every point run, in
	// grid order.
	Names  []string
	Points []*Point
	// Best is the recommended point (nil when none meets every
	// constraint); Why says why in one line; Notes say what the search
	// assumed.
	Best  *Point
	Why   string
	Notes []string
	// Goals are the constraints, Objective the max/min goal (nil: none).
	Goals     []Goal
	Objective *Goal
	// Grid is the number of points of the full grid.
	Grid int
	// Dir is the output directory, Files what was written there;
	// Emitted is the --emit file's path ("" without --emit or a
	// recommendation).
	Dir     string
	Files   []string
	Emitted string
	plan    *RecommendPlan
}

// Spec is the recommended configuration as a lab spec ("" when none).
func (rec *Recommendation) Spec() string {
	if rec.Best == nil {
		return ""
	}
	return rec.Best.Spec
}

// Assignment is the recommended point's value of each --vary name (nil
// when none).
func (rec *Recommendation) Assignment() map[string]string {
	if rec.Best == nil {
		return nil
	}
	m := map[string]string{}
	for k, n := range rec.Names {
		m[n] = rec.Best.Params[k]
	}
	return m
}

// RecommendFiles are the files a recommendation writes (points/ beside).
var RecommendFiles = TuneFiles

// Search runs the points and picks the recommendation, writing nothing.
func (r *RecommendPlan) Search(ctx context.Context, h RecommendHooks) (*Recommendation, error) {
	if len(r.goals) == 0 && r.objective == nil {
		return nil, fmt.Errorf("tune --vary needs at least one --goal: a constraint (--goal 'users_hurt<=0') or an objective (--goal 'max passed')")
	}
	pts, notes, err := r.search(ctx, h)
	if h.Finished != nil {
		h.Finished()
	}
	if err != nil {
		return nil, err
	}
	for _, g := range r.goals {
		if !slices.ContainsFunc(pts, func(p *Point) bool { _, ok := p.Metrics[g.Field]; return ok }) {
			return nil, missingMetric(g.Text, g.Field, pts[0])
		}
	}
	if o := r.objective; o != nil && !slices.ContainsFunc(pts, func(p *Point) bool { _, ok := p.Metrics[o.Field]; return ok }) {
		return nil, missingMetric(o.Text, o.Field, pts[0])
	}
	r.front(pts)
	rec := &Recommendation{Scenario: r.p.src.Name, Base: r.base, Rule: r.rule, Points: pts, Notes: notes,
		Goals: r.goals, Objective: r.objective, Grid: r.size, Dir: r.p.out, plan: r}
	for _, a := range r.axes {
		rec.Names = append(rec.Names, a.Label)
	}
	feasible := 0
	for _, p := range pts {
		if p.Feasible {
			feasible++
			if rec.Best == nil || r.better(p, rec.Best) {
				rec.Best = p
			}
		}
	}
	rec.Why = r.why(rec, feasible)
	return rec, nil
}

// why is the recommendation's one line.
func (r *RecommendPlan) why(rec *Recommendation, feasible int) string {
	var cons []string
	for _, g := range r.goals {
		cons = append(cons, g.Text)
	}
	meets := "every goal"
	if len(cons) > 0 {
		meets = strings.Join(cons, " and ")
	}
	if rec.Best == nil {
		return fmt.Sprintf("no point tried meets %s (%d of %d points run); the front shows the closest ones", meets, len(rec.Points), r.size)
	}
	b := rec.Best
	tie := "ties go to the smaller values"
	if o := r.objective; o != nil {
		word := "largest"
		if !o.Maximize {
			word = "smallest"
		}
		return fmt.Sprintf("recommended %s: the %s %s (%s) among the %d of %d points run that meet %s; %s", r.assignment(b), word, o.Field, b.Raw[o.Field], feasible, len(rec.Points), meets, tie)
	}
	return fmt.Sprintf("recommended %s: the smallest values among the %d of %d points run that meet %s", r.assignment(b), feasible, len(rec.Points), meets)
}

// Execute searches and writes tune.csv (every point), tune.png (the
// front) and report.html into Out, all or none, then the run files of
// the front's points (at most MaxPointRuns) under points/NNN/.
func (r *RecommendPlan) Execute(ctx context.Context, h RecommendHooks, notes io.Writer, width int) (*Recommendation, error) {
	if err := checkNotMixing(r.p.out, "tune"); err != nil {
		return nil, err
	}
	if err := checkEmit(r.opts.Emit); err != nil {
		return nil, err
	}
	dir, err := output.Open(r.p.out)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	dir.Owns(RecommendFiles...)
	if notes == nil {
		notes = io.Discard
	}
	if !r.shared {
		r.p.src.printNotes(notes, width)
	}
	rec, err := r.Search(ctx, h)
	if err != nil {
		return nil, err
	}
	// --emit: built before any file is written, so that a spec the format
	// cannot express leaves nothing behind.
	ename, edata, err := rec.emitRecommended(r.opts.Emit)
	if err != nil {
		return nil, err
	}
	if err := dir.WriteFile("tune.csv", rec.WriteCSV); err != nil {
		return nil, err
	}
	fr := rec.frontData()
	if err := dir.WriteFile("tune.png", func(w io.Writer) error { return plots.FrontChart(w, fr) }); err != nil {
		return nil, err
	}
	rec.Files = []string{"tune.csv", "tune.png"}
	if r.opts.HTML {
		if err := dir.WriteFile("report.html", rec.writeHTML); err != nil {
			return nil, err
		}
		rec.Files = append(rec.Files, "report.html")
	}
	if ename != "" {
		dir.Owns(ename)
		if err := dir.WriteFile(ename, func(w io.Writer) error { _, err := w.Write(edata); return err }); err != nil {
			return nil, err
		}
		rec.Files = append(rec.Files, ename)
		rec.Emitted = filepath.Join(r.p.out, ename)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	if err := rec.writePoints(ctx); err != nil {
		return nil, err
	}
	return rec, nil
}

// pointDir is where point p's run files go, relative to the output
// directory.
func pointDir(p *Point) string { return fmt.Sprintf("points/%03d", p.Index+1) }

// linked are the points whose run files are written: the front and the
// recommended point, in grid order, at most MaxPointRuns.
func (rec *Recommendation) linked() []*Point {
	var out []*Point
	for _, p := range rec.Points {
		if (p.Front || p == rec.Best) && len(out) < MaxPointRuns {
			out = append(out, p)
		}
	}
	return out
}

// writePoints replays the linked points (deterministic: the same
// decisions) and writes their run files, replacing an earlier tune's
// points/.
func (rec *Recommendation) writePoints(ctx context.Context) error {
	if err := removePoints(filepath.Join(rec.Dir, "points")); err != nil {
		return err
	}
	for _, p := range rec.linked() {
		_, res, err := rec.plan.runPoint(ctx, p.Index)
		if err != nil {
			return err
		}
		d, err := output.Open(filepath.Join(rec.Dir, pointDir(p)))
		if err != nil {
			return err
		}
		if _, err := WriteRunFiles(ctx, d, res, FileOptions{Chart: plots.ChartOptions{Mode: "none"}, HTML: rec.plan.opts.HTML}); err != nil {
			d.Abort()
			return err
		}
		if err := d.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// removePoints removes an earlier tune's points/: in each NNN directory
// the run files the lab writes (RunFiles), then the directories left
// empty; a file or directory of anyone else stays, and so do its parents.
func removePoints(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		for _, f := range RunFiles {
			if err := os.Remove(filepath.Join(root, e.Name(), f)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		os.Remove(filepath.Join(root, e.Name())) // only if empty
	}
	os.Remove(root) // only if empty
	return nil
}

// columns are tune.csv's metric columns: the goals' fields first, then
// every number field of summary.json some point has, in the file's order.
func (rec *Recommendation) columns() []string {
	var cols []string
	for _, g := range rec.Goals {
		if !slices.Contains(cols, g.Field) {
			cols = append(cols, g.Field)
		}
	}
	if o := rec.Objective; o != nil && !slices.Contains(cols, o.Field) {
		cols = append(cols, o.Field)
	}
	for _, f := range report.SummaryFields() {
		// A metric named as a --vary (the limiter's rate) would read as it.
		if slices.Contains(cols, f) || slices.Contains(rec.Names, f) {
			continue
		}
		for _, p := range rec.Points {
			if _, ok := p.Raw[f]; ok {
				cols = append(cols, f)
				break
			}
		}
	}
	return cols
}

// WriteCSV writes tune.csv: one row per point run, in grid order: its
// number, its values, its spec, whether it meets every constraint, is on
// the front, is the recommendation, then its metrics.
func (rec *Recommendation) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cols := rec.columns()
	head := append([]string{"point"}, rec.Names...)
	head = append(head, "spec", "feasible", "front", "recommended")
	if err := cw.Write(append(head, cols...)); err != nil {
		return err
	}
	for _, p := range rec.Points {
		row := append([]string{strconv.Itoa(p.Index + 1)}, p.Params...)
		row = append(row, p.Spec, strconv.FormatBool(p.Feasible), strconv.FormatBool(p.Front), strconv.FormatBool(p == rec.Best))
		for _, c := range cols {
			row = append(row, p.Raw[c])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSummary prints the context line, the front (and the recommended
// point) as a table fitted to width, the search's notes and the why.
func (rec *Recommendation) WriteSummary(out io.Writer, width int) error {
	fit := width
	if fit <= 0 {
		fit = report.DefaultWidth
	}
	what := rec.Base
	if rec.Rule != nil {
		what = fmt.Sprintf("rule %q (%s)", rec.Rule.Name, rec.Base)
	}
	head := fmt.Sprintf("%s · tune %s over %s · %d of %d points run", rec.Scenario, what, strings.Join(rec.varyTexts(), " "), len(rec.Points), rec.Grid)
	if err := report.WriteWrapped(out, head, fit); err != nil {
		return err
	}
	header := append([]string{"point"}, rec.Names...)
	var metrics []string
	for _, g := range rec.Goals {
		if !slices.Contains(metrics, g.Field) {
			metrics = append(metrics, g.Field)
		}
	}
	if o := rec.Objective; o != nil && !slices.Contains(metrics, o.Field) {
		metrics = append(metrics, o.Field)
	}
	header = append(header, metrics...)
	header = append(header, "meets goals")
	var rows [][]string
	for _, p := range rec.Points {
		if !p.Front && p != rec.Best {
			continue
		}
		mark := ""
		if p == rec.Best {
			mark = " *"
		}
		row := append([]string{strconv.Itoa(p.Index+1) + mark}, p.Params...)
		for _, m := range metrics {
			v, ok := p.Raw[m]
			if !ok {
				v = "-"
			}
			row = append(row, v)
		}
		yes := "no"
		if p.Feasible {
			yes = "yes"
		}
		rows = append(rows, append(row, yes))
	}
	if err := report.WriteWrapped(out, "the front (no other point is better on every goal at once; * recommended):", fit); err != nil {
		return err
	}
	table, hidden, err := report.FitTableDropping(header, rows, fit, false, nil)
	if err != nil {
		return err
	}
	out.Write(table)
	if len(hidden) > 0 {
		report.WriteWrapped(out, fmt.Sprintf("hidden to fit %d columns: %s (tune.csv has them)", fit, strings.Join(hidden, ", ")), fit)
	}
	for _, n := range rec.Notes {
		if err := report.WriteNote(out, "note: ", n, fit); err != nil {
			return err
		}
	}
	if err := report.WriteWrapped(out, rec.Why, fit); err != nil {
		return err
	}
	if rec.Best != nil {
		return report.WriteWrapped(out, "spec: "+rec.Best.Spec, fit)
	}
	return nil
}

// Print writes the summary and the files written, and returns Missed.
func (rec *Recommendation) Print(out io.Writer, width int) error {
	if err := rec.WriteSummary(out, width); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s/{%s} and points/ (the front's runs)\n", filepath.ToSlash(rec.Dir), strings.Join(rec.Files, ","))
	if rec.Emitted != "" {
		fmt.Fprintf(out, "recommended configuration, in the product's syntax: %s\n", filepath.ToSlash(rec.Emitted))
	}
	return rec.Missed()
}

// Missed returns the ThresholdError of a recommendation no point of
// which meets the constraints (exit status 3), else nil.
func (rec *Recommendation) Missed() error {
	if rec.Best != nil {
		return nil
	}
	return &ThresholdError{Msg: rec.Why}
}

func (rec *Recommendation) varyTexts() []string {
	var s []string
	for _, a := range rec.plan.axes {
		s = append(s, a.Text)
	}
	return s
}

// frontData is what tune.png and report.html draw: every point's
// objective against its smallest slack (in the first constraint's
// units when there is one constraint).
func (rec *Recommendation) frontData() plots.FrontData {
	d := plots.FrontData{Title: "tune " + rec.Scenario + " · " + strings.Join(rec.varyTexts(), " ")}
	d.XLabel, d.YLabel = "point (grid order)", "slack"
	if o := rec.Objective; o != nil {
		d.XLabel = o.Field
		if o.Maximize {
			d.XLabel += " (maximized)"
		} else {
			d.XLabel += " (minimized)"
		}
	}
	switch len(rec.Goals) {
	case 0:
		d.YLabel = "no constraint"
	case 1:
		d.YLabel = "slack of " + rec.Goals[0].Text + " (≥ 0 meets it)"
	default:
		d.YLabel = "least slack over the constraints (≥ 0 meets them all)"
	}
	for _, p := range rec.Points {
		x := float64(p.Index + 1)
		if o := rec.Objective; o != nil {
			v, ok := p.Metrics[o.Field]
			if !ok {
				continue
			}
			x = v
		}
		y, ok := 0.0, true
		for k, g := range rec.Goals {
			v, has := g.value(p.Metrics)
			if !has {
				ok = false
				break
			}
			if s := g.slack(v); k == 0 || s < y {
				y = s
			}
		}
		if !ok {
			continue
		}
		d.Points = append(d.Points, plots.FrontPoint{X: x, Y: y, Label: fmt.Sprintf("%d: %s", p.Index+1, rec.plan.assignment(p)),
			Front: p.Front, Best: p == rec.Best, Feasible: p.Feasible})
	}
	return d
}

// ReplayOf is a point's replay with its summary, for callers (the lead's
// emitters) that want more than the metrics.
func (r *RecommendPlan) ReplayOf(ctx context.Context, p *Point) (*simulator.Result, error) {
	_, res, err := r.runPoint(ctx, p.Index)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// writeHTML writes report.html: tune.csv's points as a table with a link
// to each linked point's run, and the front chart, its points clickable.
func (rec *Recommendation) writeHTML(w io.Writer) error {
	var b strings.Builder
	if err := rec.WriteCSV(&b); err != nil {
		return err
	}
	all, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		return err
	}
	links := map[int]string{}
	for _, p := range rec.linked() {
		links[p.Index] = pointDir(p) + "/report.html"
	}
	header := append([]string{"run"}, all[0]...)
	var rows [][]string
	for i, row := range all[1:] {
		rows = append(rows, append([]string{links[rec.Points[i].Index]}, row...))
	}
	fr := rec.frontData()
	tried := htmlreport.XYLine{Label: "point tried", Color: "#b0b0b0", PointsOnly: true}
	front := htmlreport.XYLine{Label: "on the front (click: its run)", Color: "#1f77b4"}
	best := htmlreport.XYLine{Label: "recommended", Color: "#d62728", PointsOnly: true}
	k := 0
	for _, p := range rec.Points {
		if k >= len(fr.Points) || fr.Points[k].Label != fmt.Sprintf("%d: %s", p.Index+1, rec.plan.assignment(p)) {
			continue
		}
		q := fr.Points[k]
		k++
		line := &tried
		if p.Front {
			line = &front
		}
		line.X, line.Y, line.Links = append(line.X, q.X), append(line.Y, q.Y), append(line.Links, links[p.Index])
		if p == rec.Best {
			best.X, best.Y, best.Links = append(best.X, q.X), append(best.Y, q.Y), append(best.Links, links[p.Index])
		}
	}
	name := rec.Scenario + " tune"
	page := htmlreport.NewPage(htmlreport.TitleOf([]string{name}))
	page.AddFront(name, header, rows, htmlreport.XYChart{Title: fr.Title + " · the front", XLabel: fr.XLabel, YLabel: fr.YLabel,
		Lines: []htmlreport.XYLine{tried, front, best}})
	return page.Write(w)
}
