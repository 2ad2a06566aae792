package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// SeveralRules reports whether a tune --vary names several rules (two or
// more --rule, or --rule all): NewRecommendRows tunes them.
func SeveralRules(opts TuneOptions) bool {
	return len(opts.RuleNames) > 1 || slices.Contains(opts.RuleNames, "all")
}

// RecommendRows is a tune --vary of several --rules rows: one search per
// rule with the same --vary and --goal, each on its own metrics, on one
// source, one after another. Rule n's files go under
// <out>/<n>-<rule slug>/; <out> holds an index report.html and the
// --emit file, one patched file with every recommended rule's fields.
type RecommendRows struct {
	opts  TuneOptions
	plans []*RecommendPlan
	out   string
}

// RowsRecommendation is a finished RecommendRows.
type RowsRecommendation struct {
	Dir   string
	Recs  []*Recommendation
	Files []string
	// Emitted is the --emit file's path; Unchanged the rules it leaves as
	// they were (no recommendation).
	Emitted   string
	Unchanged []string
}

// NewRecommendRows checks every rule's search before any runs: the rules
// named (all: every active row), each --vary against each rule's spec.
func NewRecommendRows(ctx context.Context, opts TuneOptions, notes io.Writer, width int) (_ *RecommendRows, err error) {
	imported, err := opts.Rules.load()
	if err != nil {
		return nil, err
	}
	if len(imported) == 0 {
		return nil, errors.New("several --rule pick rules of --rules files; give --rules FILE too")
	}
	if opts.Algo != "" {
		return nil, errors.New("tune --vary varies one spec: give --algo SPEC or --rules FILE, not both")
	}
	var active []string
	for _, ru := range imported {
		if ru.Active() {
			active = append(active, ru.Name)
		}
	}
	if len(active) == 0 {
		return nil, noActiveRule(imported)
	}
	var names []string
	for _, n := range opts.RuleNames {
		switch {
		case n == "all":
			for _, a := range active {
				names = appendUnique(names, a)
			}
		case !slices.Contains(active, n):
			return nil, fmt.Errorf("--rule %q is not a rule of the --rules files; pick among: %s (or --rule all)", n, strings.Join(active, ", "))
		case slices.Contains(names, n):
			if !slices.Contains(opts.RuleNames, "all") {
				return nil, fmt.Errorf("--rule %q is given twice; name each rule once", n)
			}
		default:
			names = append(names, n)
		}
	}
	if err := checkEmit(opts.Emit); err != nil {
		return nil, err
	}
	rr := &RecommendRows{opts: opts}
	defer func() {
		if err != nil {
			rr.Close()
		}
	}()
	for i, n := range names {
		o := opts
		o.Rule, o.RuleNames, o.Emit = n, nil, ""
		var shared *Plan
		if i > 0 {
			shared = rr.plans[0].p
		}
		r, err := newRecommendPlan(ctx, o, notes, width, shared)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "unknown parameter") || strings.Contains(msg, "no stage of") {
				if ru := imported[slices.IndexFunc(imported, func(x rules.Rule) bool { return x.Name == n && x.Active() })]; len(rules.TunableFields(ru)) > 0 {
					var fs []string
					for _, f := range rules.TunableFields(ru) {
						fs = append(fs, f.Name)
					}
					return nil, fmt.Errorf("rule %q: %w; its fields: %s (tune it alone, or --vary what every rule has)", n, err, strings.Join(fs, ", "))
				}
			}
			return nil, fmt.Errorf("rule %q: %w", n, err)
		}
		if i == 0 {
			rr.out = r.p.out
		}
		rr.plans = append(rr.plans, r)
	}
	for i, r := range rr.plans {
		r.p.out = filepath.Join(rr.out, fmt.Sprintf("%d-%s", i+1, ruleSlug(r.rule.Name)))
	}
	if f := strings.ToLower(opts.Emit); f != "" {
		for _, r := range rr.plans {
			if r.rule.Format != f || len(rules.TunableFields(*r.rule)) == 0 {
				return nil, fmt.Errorf("--emit %s with several rules patches their own file, and rule %q (%s) is %s; give --emit %s, or tune that rule alone", f, r.rule.Name, r.rule.Source, r.rule.Format, r.rule.Format)
			}
			// One file out: the rules of one file (nginx's includes are
			// written one after another, as for one rule).
			if f != "nginx" && sourceFile(r.rule.Source) != sourceFile(rr.plans[0].rule.Source) {
				return nil, fmt.Errorf("--emit %s with several rules writes one file, and rule %q is in %s, rule %q in %s; tune each file's rules apart", f, rr.plans[0].rule.Name, rr.plans[0].rule.Source, r.rule.Name, r.rule.Source)
			}
		}
	}
	return rr, nil
}

// sourceFile is FILE of a rule's FILE:LINE.
func sourceFile(src string) string {
	if i := strings.LastIndexByte(src, ':'); i > 0 {
		return src[:i]
	}
	return src
}

func appendUnique(s []string, x string) []string {
	if slices.Contains(s, x) {
		return s
	}
	return append(s, x)
}

// ruleSlug is a rule's name as a directory name: GET:/api/orders is
// get-api-orders.
func ruleSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "rule"
	}
	return b.String()
}

// Close removes what resolving the source left on disk.
func (rr *RecommendRows) Close() {
	for _, r := range rr.plans {
		r.Close()
	}
}

// Out is the directory holding each rule's.
func (rr *RecommendRows) Out() string { return rr.out }

// Execute runs each rule's search and writes its files (Execute of one
// rule), then the index report.html and the --emit file in Out.
func (rr *RecommendRows) Execute(ctx context.Context, h RecommendHooks, notes io.Writer, width int) (*RowsRecommendation, error) {
	if err := checkNotMixing(rr.out, "tune"); err != nil {
		return nil, err
	}
	res := &RowsRecommendation{Dir: rr.out}
	for i, r := range rr.plans {
		if i == 0 {
			r.p.src.printNotes(notes, width)
		}
		rec, err := r.Execute(ctx, h, notes, width)
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.rule.Name, err)
		}
		res.Recs = append(res.Recs, rec)
	}
	ename, edata, err := res.emit(rr.opts.Emit)
	if err != nil {
		return nil, err
	}
	dir, err := output.Open(rr.out)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	if rr.opts.HTML {
		dir.Owns("report.html")
		if err := dir.WriteFile("report.html", res.writeIndex); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, "report.html")
	}
	if ename != "" {
		dir.Owns(ename)
		if err := dir.WriteFile(ename, func(w io.Writer) error { _, err := w.Write(edata); return err }); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, ename)
		res.Emitted = filepath.Join(rr.out, ename)
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// emit is the rules' file with every recommended rule's tuned fields
// changed (rules.PatchRules), checked to read back as each recommended
// spec, the other rules as they were; nil without --emit or when no rule
// has a recommendation.
func (res *RowsRecommendation) emit(format string) (string, []byte, error) {
	if format == "" {
		return "", nil, nil
	}
	var rs []rules.Rule
	var sets []map[string]string
	var want []string
	any := false
	for _, rec := range res.Recs {
		rs = append(rs, *rec.Rule)
		var set map[string]string
		w := rec.Rule.Spec
		if rec.Best != nil {
			var err error
			if set, err = rules.SetFor(*rec.Rule, rec.Best.Spec); err != nil {
				return "", nil, fmt.Errorf("--emit %s: rule %q: %w", format, rec.Rule.Name, err)
			}
			w, any = rec.Best.Spec, true
		} else {
			res.Unchanged = append(res.Unchanged, rec.Rule.Name)
		}
		sets, want = append(sets, set), append(want, w)
	}
	if !any {
		return "", nil, nil
	}
	files, ups, err := rules.PatchRules(rs, sets)
	if err != nil {
		return "", nil, fmt.Errorf("--emit %s: %w", format, err)
	}
	for i, up := range ups {
		w, err := rules.CanonicalSpec(want[i])
		if err != nil {
			return "", nil, err
		}
		if got, _ := rules.CanonicalSpec(up.Spec); got != w {
			return "", nil, fmt.Errorf("--emit %s: %s (%s): the patched file reads back as %s, not %s; nothing written", format, up.Name, up.Source, got, w)
		}
	}
	var buf bytes.Buffer
	for _, f := range files {
		if len(files) > 1 {
			fmt.Fprintf(&buf, "# --- %s\n", f.File)
		}
		buf.Write(f.Data)
	}
	return emitName(format, res.Recs[0].Rule), buf.Bytes(), nil
}

// writeIndex is the index report.html: each rule's recommendation and a
// link to its own report.
func (res *RowsRecommendation) writeIndex(w io.Writer) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tune: several rules</title></head><body>\n<h1>tune: several rules</h1>\n<ul>\n")
	for _, rec := range res.Recs {
		rel := filepath.ToSlash(filepath.Join(filepath.Base(rec.Dir), "report.html"))
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a>: %s</li>\n", html.EscapeString(rel), html.EscapeString(rec.Rule.Name), html.EscapeString(rec.Why))
	}
	b.WriteString("</ul>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Print writes each rule's summary under a heading naming it, the files,
// and returns a ThresholdError naming the rules whose goals no point
// meets (exit status 3).
func (res *RowsRecommendation) Print(out io.Writer, width int) error {
	var missed []string
	for i, rec := range res.Recs {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "== rule %q (%s) ==\n", rec.Rule.Name, rec.Rule.Source)
		if err := rec.WriteSummary(out, width); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s/{%s} and points/ (the front's runs)\n", filepath.ToSlash(rec.Dir), strings.Join(rec.Files, ","))
		if rec.Best == nil {
			missed = append(missed, fmt.Sprintf("%q", rec.Rule.Name))
		}
	}
	if len(res.Files) > 0 {
		fmt.Fprintf(out, "\nwrote %s/{%s}\n", filepath.ToSlash(res.Dir), strings.Join(res.Files, ","))
	}
	if res.Emitted != "" {
		fmt.Fprintf(out, "recommended configuration, every rule's tuned fields changed: %s\n", filepath.ToSlash(res.Emitted))
		if len(res.Unchanged) > 0 {
			report.WriteWrapped(out, fmt.Sprintf("left as they were (no point meets the goals): %s", strings.Join(res.Unchanged, ", ")), width)
		}
	}
	if len(missed) > 0 {
		return &ThresholdError{Msg: fmt.Sprintf("no point tried meets the goals for %d of %d rules: %s", len(missed), len(res.Recs), strings.Join(missed, ", "))}
	}
	return nil
}
