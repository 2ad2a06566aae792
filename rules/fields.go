package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// fields reads one rule object, remembering which fields were read so the
// rest can be reported as ignored.
type fields struct {
	d    *doc
	m    mapping
	what string // "FlowRule", for errors
	read []string
}

func (d *doc) fields(n *yaml.Node, what string) (*fields, error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.errAt(n, "a %s must be an object with fields, got %s; check the file's structure", what, kindName(n))
	}
	return &fields{d: d, m: mp(n), what: what}, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "an object"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", clip(n.Value))
	}
	return "nothing"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// node marks key read and returns its value node (nil when absent or null).
func (f *fields) node(key string) *yaml.Node {
	f.read = append(f.read, key)
	v := f.m.get(key)
	if v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	return v
}

func (f *fields) at(key string) *yaml.Node {
	if k := f.m.keyNode(key); k != nil {
		return k
	}
	return f.m.n
}

func (f *fields) errf(key, format string, args ...any) error {
	return f.d.errAt(f.at(key), "%s field %s: %s", f.what, key, fmt.Sprintf(format, args...))
}

// num reads a number (def when absent).
func (f *fields) num(key string, def float64) (float64, error) {
	v := f.node(key)
	if v == nil {
		return def, nil
	}
	if v.Kind != yaml.ScalarNode {
		return 0, f.errf(key, "is %s, not a number; write a number such as 10", kindName(v))
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, f.errf(key, "%q is not a number; write a number such as 10", clip(v.Value))
	}
	return x, nil
}

// whole reads an integer (def when absent); a fraction is an error, as a
// Java int field refuses it.
func (f *fields) whole(key string, def int64) (int64, error) {
	x, err := f.num(key, float64(def))
	if err != nil {
		return 0, err
	}
	if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, f.errf(key, "%v is not a whole number; the reference keeps it in an integer field", x)
	}
	return int64(x), nil
}

// nonNegative reads a number that must not be negative.
func (f *fields) nonNegative(key string, def float64) (float64, error) {
	x, err := f.num(key, def)
	if err == nil && x < 0 {
		err = f.errf(key, "is negative (%v); the reference ignores such a rule, so give a value of 0 or more", x)
	}
	return x, err
}

// positive reads a number the lab needs above 0 (a limit): a negative one
// is refused here with a hint that asks for more than 0; 0 itself is left
// to the caller, whose error says what 0 would mean.
func (f *fields) positive(key string, def float64) (float64, error) {
	x, err := f.num(key, def)
	if err == nil && x < 0 {
		err = f.errf(key, "is negative (%v); the reference ignores such a rule, so give a positive value", x)
	}
	return x, err
}

func (f *fields) str(key, def string) (string, error) {
	v := f.node(key)
	if v == nil {
		return def, nil
	}
	if v.Kind != yaml.ScalarNode {
		return "", f.errf(key, "is %s, not a string", kindName(v))
	}
	return v.Value, nil
}

func (f *fields) boolean(key string, def bool) (bool, error) {
	v := f.node(key)
	if v == nil {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v.Value)) {
	case "true", "on", "yes":
		return true, nil
	case "false", "off", "no":
		return false, nil
	}
	return false, f.errf(key, "%q is not true or false", clip(v.Value))
}

// choice reads an enum given as its number or one of its names (case and
// '-'/'_' ignored); names[i] is the name of value i+base.
func (f *fields) choice(key string, def int, base int, names ...string) (int, error) {
	v := f.node(key)
	if v == nil {
		return def, nil
	}
	s := strings.TrimSpace(v.Value)
	if n, err := strconv.Atoi(s); err == nil {
		if n < base || n >= base+len(names) {
			return 0, f.errf(key, "%d is not one of %s", n, enumList(base, names))
		}
		return n, nil
	}
	norm := func(x string) string { return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(x)) }
	for i, name := range names {
		if norm(name) == norm(s) {
			return base + i, nil
		}
	}
	return 0, f.errf(key, "%q is not one of %s", clip(s), enumList(base, names))
}

func enumList(base int, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%d (%s)", base+i, n)
	}
	return strings.Join(parts, ", ")
}

// unread returns the fields present but never read, in file order.
func (f *fields) unread() []string {
	var out []string
	for _, k := range f.m.keys() {
		if !slices.Contains(f.read, k) {
			out = append(out, k)
		}
	}
	return out
}

// ignoreRest adds a note for every field not read.
func (f *fields) ignoreRest(r *Rule) {
	for _, k := range f.unread() {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: ignored (not a field this %s uses for rate limiting)", k, f.what))
	}
}

// duration reads a duration written in Go/Spring syntax ("500ms", "1s"),
// ISO-8601 ("PT0.5S"), or a plain number of unit.
func (f *fields) duration(key string, def time.Duration, unit time.Duration) (time.Duration, error) {
	v := f.node(key)
	if v == nil {
		return def, nil
	}
	d, err := parseDuration(v.Value, unit)
	if err != nil {
		return 0, f.errf(key, "%v", err)
	}
	if d < 0 {
		return 0, f.errf(key, "is negative (%v); give 0 or more", d)
	}
	return d, nil
}

// parseDuration reads "500ms", "1s", "2m", Spring's "10ns"/"1d", ISO-8601
// "PT1.5S"/"P1D", or a plain number counted in unit.
func parseDuration(s string, unit time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("is empty; write a duration such as 500ms or 1s")
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(math.Round(n * float64(unit))), nil
	}
	up := strings.ToUpper(s)
	if strings.HasPrefix(up, "PT") || strings.HasPrefix(up, "P") && strings.HasSuffix(up, "D") {
		return parseISO(up)
	}
	if strings.HasSuffix(s, "d") {
		if n, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; write 500ms, 1s or PT1S", clip(s))
	}
	return d, nil
}

func parseISO(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not an ISO-8601 duration; write PT1S or PT0.5S", clip(s))
	rest := strings.TrimPrefix(s, "P")
	var total float64
	if dpart, tpart, ok := strings.Cut(rest, "T"); ok || strings.HasSuffix(rest, "D") {
		if !ok {
			dpart, tpart = rest, ""
		}
		if dpart != "" {
			n, err := strconv.ParseFloat(strings.TrimSuffix(dpart, "D"), 64)
			if err != nil || !strings.HasSuffix(dpart, "D") {
				return 0, bad
			}
			total += n * float64(24*time.Hour)
		}
		rest = tpart
	}
	for rest != "" {
		i := strings.IndexAny(rest, "HMS")
		if i <= 0 {
			return 0, bad
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, bad
		}
		switch rest[i] {
		case 'H':
			total += n * float64(time.Hour)
		case 'M':
			total += n * float64(time.Minute)
		case 'S':
			total += n * float64(time.Second)
		}
		rest = rest[i+1:]
	}
	return time.Duration(math.Round(total)), nil
}

// fmtNum writes a number for a spec: integers without a point, others in
// the shortest form that reads back the same.
func fmtNum(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// fmtDur writes a duration for a spec in Go syntax ("500ms", "10s").
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0 && d >= 24*time.Hour:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d%time.Microsecond == 0:
		return fmt.Sprintf("%dus", d/time.Microsecond)
	}
	return fmt.Sprintf("%dns", int64(d))
}

// keyColumn names the trace column a parameter index reads: key for 0,
// key2 for 1, and so on.
func keyColumn(idx int) string {
	if idx == 0 {
		return "key"
	}
	return fmt.Sprintf("key%d", idx+1)
}

// dropErr is a rule the product itself drops when it loads the file (its
// validation refuses the rule, the rest load): the lab shows it as
// Inactive with why, quoting the validation, and reads on.
type dropErr struct {
	n    *yaml.Node
	res  string // the rule's resource, "" when it has none
	what string // "FlowRule"
	why  string
}

func (e *dropErr) Error() string { return e.why }

// drop is a dropErr for the rule f reads.
func (f *fields) drop(res, format string, args ...any) error {
	return &dropErr{n: f.m.n, res: res, what: f.what, why: fmt.Sprintf(format, args...)}
}

// notSim is a notSimErr for the rule f reads.
func (f *fields) notSim(res, format string, args ...any) error {
	return &notSimErr{n: f.m.n, res: res, what: f.what, why: fmt.Sprintf(format, args...)}
}

// notSimErr is a rule the product applies that the lab does not simulate:
// it becomes a NotSimulated rule with why, and the file reads on.
type notSimErr struct {
	n    *yaml.Node
	res  string
	what string
	why  string
}

func (e *notSimErr) Error() string { return e.why }
