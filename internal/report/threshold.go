package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Threshold is one --fail-if condition, [NAME.]FIELD OP VALUE, tested on
// every limiter (or on those with a stage of registry name NAME, whichever
// stage of a chain it is): the run fails when it
// holds for some limiter, as k6's thresholds fail a test (but written as the
// failing condition).
type Threshold struct {
	Text string // as given
	// Name, if not empty, restricts the test to limiters with a stage of
	// that registry name ("leap-array", "circuit-breaker").
	Name  string
	Field string
	Op    string
	Value float64
}

var thresholdRE = regexp.MustCompile(`^\s*(?:([a-z][a-z0-9-]*)\.)?([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$`)

// ParseThreshold parses "overshoot>1.05", "pass_pct < 60" or
// "leap-array.overshoot>1.05". Field is a per-limiter field of summary.json
// holding a number, or pass_pct (100 · pass_ratio); see SummaryFields; the
// optional NAME is a registry name from names (nil: any name). Errors are
// one line listing the fields, the names or the operators.
func ParseThreshold(s string, names ...string) (Threshold, error) {
	m := thresholdRE.FindStringSubmatch(s)
	if m == nil {
		return Threshold{}, fmt.Errorf("--fail-if %q is not [NAME.]FIELD OP NUMBER; write for example --fail-if 'overshoot>1.05' (operators > >= < <= == !=)", s)
	}
	name, field, op, value := m[1], m[2], m[3], m[4]
	if name != "" && len(names) > 0 && !slices.Contains(names, name) {
		hint := ""
		if near, ok := suggest.Nearest(name, names); ok {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		return Threshold{}, fmt.Errorf("--fail-if %q: no algorithm is named %q%s; names: %s", s, name, hint, strings.Join(names, ", "))
	}
	t := Threshold{Text: strings.TrimSpace(s), Name: name, Field: strings.ToLower(field), Op: op}
	fields := SummaryFields()
	if !slices.Contains(fields, t.Field) {
		hint := ""
		if near, ok := suggest.Nearest(t.Field, fields); ok {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		return Threshold{}, fmt.Errorf("--fail-if %q: unknown field %q%s; fields: %s", s, field, hint, strings.Join(fields, ", "))
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Threshold{}, fmt.Errorf("--fail-if %q: %q is not a number; write for example --fail-if '%s%s1.05'", s, value, t.Field, t.Op)
	}
	t.Value = v
	return t, nil
}

// Matches reports whether the threshold tests the limiter of this spec:
// always without a NAME, else when some stage of the spec (the limiter
// itself, or any stage of a chain A+B) has that registry name.
func (t Threshold) Matches(spec string) bool {
	return t.Name == "" || slices.Contains(algorithms.StageNames(spec), t.Name)
}

// CheckNames returns a one-line error for the first threshold whose NAME
// matches none of specs (the run's limiters), so that a gate on a kind the
// run does not have fails before anything runs instead of passing.
func CheckNames(specs []string, thresholds []Threshold) error {
	for _, t := range thresholds {
		if t.Name == "" || slices.ContainsFunc(specs, t.Matches) {
			continue
		}
		rows := make([]string, len(specs))
		for i, s := range specs {
			rows[i] = strings.Join(algorithms.StageNames(s), "+")
		}
		return fmt.Errorf("--fail-if %q: no limiter of this run has a %s stage (rows: %s), so it could never fail; add one with --algo or drop %q", t.Text, t.Name, strings.Join(rows, ", "), t.Name+".")
	}
	return nil
}

// CheckFields returns a one-line error for the first threshold whose
// field no limiter it tests has in summary.json (goodput in a run without
// responses, keys_hurt without a per-key row): like a NAME no row has
// (CheckNames), a gate that could never fail. Which fields a row has is
// known once it has run, so call it before writing any file. A field
// that is null in every tested row (smooth_bound of rows without buckets)
// could never fail either; recovery_ms of a row that never recovered
// counts as a value (see never).
func CheckFields(res *simulator.Result, thresholds []Threshold) error {
	if len(thresholds) == 0 {
		return nil
	}
	s, _, err := summaryOf(res)
	if err != nil {
		return err
	}
	for _, t := range thresholds {
		var rows []string
		found := false
		for i, fields := range s.Algorithms {
			if !t.Matches(res.Algorithms[i].Spec) {
				continue
			}
			rows = append(rows, strings.Join(algorithms.StageNames(res.Algorithms[i].Spec), "+"))
			for _, f := range fields {
				if (f.Key == t.Field || (t.Field == "pass_pct" && f.Key == "pass_ratio")) && (f.isNumber() || never(fields, f.Key) || undefined(fields, t.Field)) {
					found = true
				}
			}
		}
		if !found {
			return fmt.Errorf("--fail-if %q: no limiter of this run has a value for %s in summary.json (rows: %s; a null is not tested), so it could never fail; drop it, or run rows that have it (docs/outputs.md says which)", t.Text, t.Field, strings.Join(rows, ", "))
		}
	}
	return nil
}

// holds reports whether x OP Value.
func (t Threshold) holds(x float64) bool {
	switch t.Op {
	case ">":
		return x > t.Value
	case ">=":
		return x >= t.Value
	case "<":
		return x < t.Value
	case "<=":
		return x <= t.Value
	case "==":
		return x == t.Value
	case "!=":
		return x != t.Value
	}
	return false
}

// Crossing is one limiter for which one threshold holds.
type Crossing struct {
	Label, Spec string
	Threshold   Threshold
	// Value is the field's value as summary.json writes it.
	Value string
}

func (c Crossing) String() string {
	return fmt.Sprintf("%s: %s is %s, crossing --fail-if '%s' (%s)", c.Label, c.Threshold.Field, c.Value, c.Threshold.Text, CompactSpec(c.Spec))
}

// Check tests every threshold on every limiter of res, with the values
// summary.json holds, and returns the crossings, limiters in order, then
// thresholds in order. A field that is null for a limiter (smooth_bound of
// a limiter without buckets) is not tested for it; one that is null as
// 0/0 is undefined (CheckUndefined).
func Check(res *simulator.Result, thresholds []Threshold) ([]Crossing, error) {
	s, _, err := summaryOf(res)
	if err != nil {
		return nil, err
	}
	labels := Labels(res)
	var out []Crossing
	for i, fields := range s.Algorithms {
		values := map[string]string{}
		for _, f := range fields {
			if f.isNumber() {
				values[f.Key] = string(f.Raw)
			} else if never(fields, f.Key) {
				values[f.Key] = neverValue
			}
		}
		// A maximum that is only a lower bound is shown as one.
		lower := map[string]bool{}
		if late, ok := values["late_admissions"]; ok && late != "0" {
			lower["max_window_passed"], lower["overshoot"] = true, true
		}
		if r, ok := values["pass_ratio"]; ok {
			x, _ := strconv.ParseFloat(r, 64)
			values["pass_pct"] = strconv.FormatFloat(100*x, 'f', 4, 64)
		}
		for _, t := range thresholds {
			raw, ok := values[t.Field]
			if !ok || !t.Matches(res.Algorithms[i].Spec) {
				continue
			}
			x, _ := strconv.ParseFloat(raw, 64)
			if raw == neverValue {
				x = math.Inf(1) // never back: later than any bound
			}
			if t.holds(x) {
				if lower[t.Field] {
					raw = simulator.LowerBound + raw
				}
				out = append(out, Crossing{Label: labels[i], Spec: res.Algorithms[i].Spec, Threshold: t, Value: raw})
			}
		}
	}
	return out, nil
}

// Undefined is one limiter on which a threshold's field is undefined: a
// ratio of 0/0 (pass_pct of a row without arrivals), null in summary.json.
// Such a gate neither passes nor fails: the run exits with its own status.
type Undefined struct {
	Label, Spec string
	Threshold   Threshold
	// Over is the count that is 0 ("arrived").
	Over string
}

func (u Undefined) String() string {
	return fmt.Sprintf("%s: %s is undefined (0/0: %s is 0), so --fail-if '%s' neither passes nor fails (%s)", u.Label, u.Threshold.Field, u.Over, u.Threshold.Text, CompactSpec(u.Spec))
}

// ratioOver names, for each field that is a ratio over a count of the
// row, that count: when it is 0 the field is 0/0, written null.
var ratioOver = map[string]string{"pass_ratio": "arrived", "pass_pct": "arrived", "attempts_per_request": "arrived"}

// undefined reports whether key is a ratio whose count is 0 in fields.
func undefined(fields []Field, key string) bool {
	over, ok := ratioOver[key]
	if !ok {
		return false
	}
	for _, f := range fields {
		if f.Key == over {
			return string(f.Raw) == "0"
		}
	}
	return false
}

// CheckUndefined returns, limiters in order then thresholds in order, the
// thresholds whose field is undefined (0/0) on a limiter they test.
func CheckUndefined(res *simulator.Result, thresholds []Threshold) ([]Undefined, error) {
	s, _, err := summaryOf(res)
	if err != nil {
		return nil, err
	}
	labels := Labels(res)
	var out []Undefined
	for i, fields := range s.Algorithms {
		for _, t := range thresholds {
			if !t.Matches(res.Algorithms[i].Spec) || !undefined(fields, t.Field) {
				continue
			}
			has := false
			for _, f := range fields {
				has = has || f.Key == t.Field || (t.Field == "pass_pct" && f.Key == "pass_ratio")
			}
			if has {
				out = append(out, Undefined{Label: labels[i], Spec: res.Algorithms[i].Spec, Threshold: t, Over: ratioOver[t.Field]})
			}
		}
	}
	return out, nil
}

// neverValue is how a crossing shows a recovery that never came.
const neverValue = "null (never recovered)"

// never reports whether key is recovery_ms of a row whose trigger ended
// and whose goodput never came back: summary.json writes null, and a
// --fail-if on it treats that as later than any bound
// (recovery_ms>5000 fails).
func never(fields []Field, key string) bool {
	if key != "recovery_ms" {
		return false
	}
	var rec, end *Field
	for i := range fields {
		switch fields[i].Key {
		case "recovery_ms":
			rec = &fields[i]
		case "trigger_end_ms":
			end = &fields[i]
		}
	}
	return rec != nil && end != nil && !rec.isNumber() && end.isNumber()
}
