package lab

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// Rules are users' own rule files (Sentinel JSON, nginx.conf, Envoy, ...)
// whose rules become rows of a run, or whose flow rule a tune takes.
type Rules struct {
	Files []string
	// Format is auto (from the content) or one of rules.Formats.
	Format string
	// NginxPrefix is where a copy of the server's nginx directory
	// (/etc/nginx) is, for includes (--nginx-prefix; see rules.Options).
	NginxPrefix string
}

// load reads every --rules file; nil when none is given.
func (o Rules) load() ([]rules.Rule, error) {
	if o.Format != "auto" && o.Format != "" && !slices.Contains(rules.Formats, o.Format) {
		return nil, fmt.Errorf("--rules-format %q is unknown; use auto or one of %s", o.Format, strings.Join(rules.Formats, ", "))
	}
	if len(o.Files) == 0 && o.Format != "auto" && o.Format != "" {
		return nil, errors.New("--rules-format needs --rules FILE")
	}
	if len(o.Files) == 0 {
		if o.NginxPrefix != "" {
			return nil, errors.New("--nginx-prefix needs --rules with an nginx.conf")
		}
		return nil, nil
	}
	// Files and directories are read together, so that the nginx files
	// among them combine into one configuration (LoadRuleSets).
	sets, err := LoadRuleSets(o.Files, o.Format, o.NginxPrefix)
	if err != nil {
		return nil, err
	}
	var out []rules.Rule
	for _, s := range sets {
		if s.Fragment != nil {
			return nil, s.Fragment
		}
		out = append(out, s.Rules...)
	}
	return out, nil
}

// LoadRules reads one rules file and checks that every translation is a
// spec the lab builds, so `rules explain` never prints a spec that `run`
// refuses: a translation the lab cannot build is an error at the rule's
// file:line.
func LoadRules(f, format string) ([]rules.Rule, error) {
	rs, err := rules.Load(f, format)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.Spec == "" && !r.Active() {
			continue // nothing to build: the rule has no row
		}
		if err := checkSpec(r.Spec); err != nil {
			return nil, fmt.Errorf("%s: rule %q becomes %s, which the lab cannot build (%s); remove the rule, or run its nearest spec with --algo", r.Source, r.Name, r.Spec, strings.TrimSpace(err.Error()))
		}
	}
	return rs, nil
}

// ruleRows turns rules into specs and row labels: rules with the same spec
// share one row (the lab runs each limiter once), labelled with every
// name; a dry-run rule's name says "(dry run)", since the reference lets
// all of it through and the row shows what it would reject. A rule that
// is not Active (inactive in the product, or not simulated) has no row;
// ruleNotes says why.
func ruleRows(rs []rules.Rule) (specs, labels []string) {
	at := map[string]int{}
	for _, r := range rs {
		if !r.Active() {
			continue
		}
		name := r.Name
		if r.DryRun {
			name += " (dry run)"
		}
		if i, ok := at[r.Spec]; ok {
			labels[i] += ", " + name
			continue
		}
		at[r.Spec] = len(specs)
		specs = append(specs, r.Spec)
		labels = append(labels, name)
	}
	return specs, labels
}

// ruleNotes are the lines a run prints once about its rules: each rule
// without a row (inactive, or not simulated) and why, then each field of
// an active rule that the lab does not simulate and what it does instead.
func ruleNotes(rs []rules.Rule) []string {
	var out []string
	for _, r := range rs {
		if n := r.OutcomeNote(); n != "" {
			out = append(out, n)
		}
	}
	for _, r := range rs {
		if !r.Active() {
			continue
		}
		for _, n := range r.Unsimulated() {
			out = append(out, fmt.Sprintf("rule %s: %s", r.Where(), n))
		}
	}
	// The traps rules lint finds, once each (issue 35).
	for _, l := range rules.LintRules(rs) {
		out = append(out, fmt.Sprintf("rule %s (%s): lint %s", l.Rule, l.Source, l.Note()))
	}
	return out
}

// noActiveRule is the error of a run whose --rules files give no row and
// that has no --algo either: which rules there are, and what to do.
func noActiveRule(rs []rules.Rule) error {
	var what []string
	for _, r := range rs {
		what = append(what, fmt.Sprintf("%s is %s (%s)", r.Where(), r.Outcome, r.Why))
	}
	return fmt.Errorf("no rule of the --rules files is active, so the run has no row: %s; enable a rule in the file (ratelimit-lab rules explain FILE shows each), or give --algo SPEC to run beside them", strings.Join(what, "; "))
}

// checkRuleNeeds refuses, before anything runs, a rule that reads what the
// arrivals lack: a key column or response times.
func checkRuleNeeds(rs []rules.Rule, s *source) error {
	rs = slices.DeleteFunc(slices.Clone(rs), func(r rules.Rule) bool { return !r.Active() })
	var needCols, needRT bool
	for _, r := range rs {
		needCols = needCols || len(r.KeyColumns) > 0
		needRT = needRT || r.NeedsResponses
	}
	if !needCols && !needRT {
		return nil
	}
	st, err := s.Open()
	if err != nil {
		return err
	}
	defer st.Close()
	a, ok := st.Next()
	hasRT := s.Downstream != nil || ok && a.HasResponse
	var cols []string
	if ks, isKeyed := st.(scenarios.KeyedStream); isKeyed {
		cols = ks.KeyColumns()
	}
	for _, r := range rs {
		if r.NeedsResponses && !hasRT {
			return fmt.Errorf("rule %q (%s) needs response times (%s); replay a trace with columns t_ms,rt_ms,error or a scenario with a downstream (slow-downstream)", r.Name, r.Source, r.What)
		}
		for _, c := range r.KeyColumns {
			// As bindKeys reads them: key falls back to the first key
			// column; * needs none.
			if c == ConstKey || c == "key" && len(cols) > 0 {
				continue
			}
			if !slices.Contains(cols, c) {
				has := "none"
				if len(cols) > 0 {
					has = strings.Join(cols, ", ")
				}
				return fmt.Errorf("rule %q (%s) reads the trace column %q, which these arrivals lack (key columns: %s); add %s %s column to the trace, or pick it with --key", r.Name, r.Source, c, has, article(c), c)
			}
		}
	}
	return nil
}

// article is "an" before a column name that starts with a vowel (an ip
// column), else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// labelRows names the result's rows after their rules (the rows from
// --algo keep their spec names).
func labelRows(res *simulator.Result, labels []string, first int) {
	for i, l := range labels {
		if j := first + i; j < len(res.Algorithms) {
			res.Algorithms[j].Label = l
		}
	}
}

// tuneRule sets tune's limit from the flow rule --rules (and --rule) pick:
// a leap-array stage, as a QPS FlowRule with the default behaviour
// becomes, alone or as the one such stage of a resource's chain (param
// flow, flow, degrade rules in Sentinel's slot order). Tune replays that
// stage alone, as it replays any leap-array: the sample count it varies is
// that stage's, and the message says which stages are left out.
func tuneRule(opts *TuneOptions, notes io.Writer, width int) error {
	imported, err := opts.Rules.load()
	if err != nil {
		return err
	}
	if len(imported) == 0 {
		if opts.Rule != "" {
			return errors.New("--rule names a rule of --rules files; give --rules FILE too")
		}
		return nil
	}
	type candidate struct {
		rules.Rule
		stage  spec.Stage // the leap-array stage
		what   string     // its rule's words
		others []string
	}
	var cands []candidate
	for _, r := range imported {
		if !r.Active() {
			continue
		}
		stages := spec.Split(r.Spec).Stages
		whats := strings.Split(r.What, " + ")
		at := -1
		for i, st := range stages {
			if flavor, _ := st.Get("flavor"); st.Name == "leap-array" && len(st.Params) > 0 && flavor != "go" {
				if at >= 0 { // two QPS flow rules on one resource: no one stage to tune
					at = -1
					break
				}
				at = i
			}
		}
		if at < 0 {
			continue
		}
		c := candidate{Rule: r, stage: stages[at], what: r.What}
		if len(whats) == len(stages) {
			c.what = whats[at]
		}
		for i, st := range stages {
			if i != at {
				c.others = append(c.others, st.Name)
			}
		}
		cands = append(cands, c)
	}
	var names []string
	for _, r := range cands {
		names = append(names, r.Name)
	}
	var pick *candidate
	switch {
	case len(cands) == 0:
		return fmt.Errorf("tune compares Sentinel's leap-array sample counts, and no rule in --rules is a QPS flow rule with the default behaviour, alone or as the one such rule of a resource (ratelimit-lab rules explain shows what each becomes)")
	case opts.Rule != "":
		for i := range cands {
			if cands[i].Name == opts.Rule {
				pick = &cands[i]
			}
		}
		if pick == nil {
			return fmt.Errorf("--rule %q is not a QPS flow rule of the --rules files; pick one of: %s", opts.Rule, strings.Join(names, ", "))
		}
	case len(cands) > 1:
		return fmt.Errorf("the --rules files have %d QPS flow rules; pick the one to tune with --rule NAME: %s", len(cands), strings.Join(names, ", "))
	default:
		pick = &cands[0]
	}
	if v, ok := pick.stage.Get("limit"); ok {
		if _, err := fmt.Sscanf(v, "%g", &opts.Source.Limit); err != nil {
			return fmt.Errorf("rule %q: limit %q is not a number", pick.Name, v)
		}
		opts.Source.LimitSet = true
	}
	if len(pick.others) == 0 {
		fmt.Fprintf(notes, "tuning rule %q (%s): %s\n", pick.Name, pick.Source, pick.what)
		return nil
	}
	return report.WriteNote(notes, "", fmt.Sprintf("tuning rule %q (%s): its %s (%s) alone, without the resource's %s (run --rules to replay the whole chain)",
		pick.Name, pick.Source, pick.what, pick.stage, stageList(pick.others)), width)
}

// stageList names a chain's stages: "sentinel-param stage", "sentinel-param
// and circuit-breaker stages".
func stageList(kinds []string) string {
	if len(kinds) == 1 {
		return kinds[0] + " stage"
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " and " + kinds[len(kinds)-1] + " stages"
}
