package rules

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// NotSimulatedNote starts a note about a field of a translated rule that
// the lab does not simulate (envoyproxy/ratelimit's replaces, Traefik's
// redis store, ...): the rest of the note says what the lab does instead.
// Such notes are printed by `rules explain` and, once, in a run's notes.
const NotSimulatedNote = "not simulated: "

// Unsimulated returns the rule's notes about fields the lab does not
// simulate (those starting with NotSimulatedNote).
func (r Rule) Unsimulated() []string {
	var out []string
	for _, n := range r.Notes {
		if strings.HasPrefix(n, NotSimulatedNote) {
			out = append(out, n)
		}
	}
	return out
}

// Where names a rule for a note: its name, where it is in the file and,
// when the product scopes it, its scope ("limit (kong.yaml:12, route
// orders)").
func (r Rule) Where() string {
	if r.Scope != "" && r.Scope != r.Name {
		return fmt.Sprintf("%s (%s, %s)", r.Name, r.Source, r.Scope)
	}
	return fmt.Sprintf("%s (%s)", r.Name, r.Source)
}

// OutcomeNote is the one line a run prints for a rule without a row (""
// for a translated rule): "rule NAME (FILE:LINE): inactive: WHY".
func (r Rule) OutcomeNote() string {
	if r.Active() {
		return ""
	}
	return fmt.Sprintf("rule %s: %s, no row: %s", r.Where(), r.Outcome, r.Why)
}

// WriteExplain prints what the lab understood of a rules file: each rule,
// its outcome (the spec it becomes, or why it is inactive or not
// simulated), the scope it applies to in the product, and every note, in
// a form a user can copy specs from (`--algo 'SPEC'`). With width > 0 (a
// terminal, or $COLUMNS) lines fit width columns: text breaks at spaces, a
// spec after a ',' or a '+', and a continuation is indented under the
// text it continues. With width 0 (a pipe or a file) every line is whole,
// one spec a line, for scripts.
func WriteExplain(w io.Writer, file string, rules []Rule, width int) error {
	var b strings.Builder
	line := func(prefix, text string) {
		for _, l := range wrapText(prefix, text, width) {
			b.WriteString(l + "\n")
		}
	}
	format := ""
	if len(rules) > 0 {
		format = rules[0].Format
	}
	lints := LintRules(rules) // each rule's traps, under it (rules lint FILE details them)
	rows, counts := 0, map[Outcome]int{}
	for _, r := range rules {
		if r.Active() {
			rows++
		} else {
			counts[r.Outcome]++
		}
	}
	head := fmt.Sprintf("%s (%s): %d row(s)", file, format, rows)
	for _, o := range []Outcome{Inactive, NotSimulated} {
		if counts[o] > 0 {
			head += fmt.Sprintf(", %d %s", counts[o], o)
		}
	}
	line("", head)
	if rows == 0 && len(rules) > 0 {
		line("", "no rule of this file is active: run has no row from it; enable a rule in the file, or give --algo SPEC")
	}
	for _, r := range rules {
		b.WriteString("\n")
		line("", fmt.Sprintf("%s  [%s]", r.Name, r.Source))
		if r.Scope != "" && r.Scope != r.Name {
			line("  scope: ", r.Scope)
		}
		if r.What != "" {
			line("  rule:  ", r.What)
		}
		if !r.Active() {
			line("  "+string(r.Outcome)+": ", r.Why)
		}
		switch {
		case r.Active():
			line("  spec:  ", r.Spec)
		case r.Spec != "":
			line("  would run: ", r.Spec) // were it active
		}
		var needs []string
		if len(r.KeyColumns) > 0 {
			needs = append(needs, "trace column(s) "+strings.Join(r.KeyColumns, ", "))
		}
		if r.NeedsResponses {
			needs = append(needs, "response times (rt_ms) or a downstream")
		}
		if len(needs) > 0 && r.Active() {
			line("  needs: ", strings.Join(needs, "; "))
		}
		for _, n := range r.Notes {
			line("  note:  ", n)
		}
		for _, l := range LintsOf(lints, r) {
			line("  lint:  ", l.Note()+" (rules lint "+file+" replays it)")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFragment prints what explain shows of an nginx include fragment: its
// zones, and that no limit_req uses them in it, so it has no row.
func WriteFragment(w io.Writer, e *FragmentError) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (nginx): 0 row(s), %d limit_req_zone and no limit_req\n", e.File, len(e.Zones))
	for _, z := range e.Zones {
		fmt.Fprintf(&b, "\nzone %s  [%s]\n", z.Name, z.Source)
		fmt.Fprintf(&b, "  rule:  %s\n", z.Text)
		if z.Key == "*" {
			fmt.Fprintf(&b, "  key:   one state for every request (key=*)\n")
		} else {
			fmt.Fprintf(&b, "  key:   trace column %s\n", z.Key)
		}
	}
	fmt.Fprintf(&b, "\nnote:  an include fragment: a zone limits nothing until a limit_req names it, so --rules has no row from this file; %s\n", e.Fix())
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapText breaks prefix+text into lines of at most width columns at
// spaces; a word wider than a line breaks after a ',' or a '+' (a spec),
// else is left whole. Lines after the first are indented by the prefix's
// width (2 when the prefix is empty).
func wrapText(prefix, text string, width int) []string {
	if width <= 0 || utf8.RuneCountInString(prefix+text) <= width {
		return []string{prefix + text} // as written, spaces and all
	}
	indent := utf8.RuneCountInString(prefix)
	if indent == 0 {
		indent = 2
	}
	if indent > width/2 {
		indent = 2
	}
	var lines []string
	cur := prefix
	fresh := true // cur holds no word yet
	add := func(word string) {
		switch {
		case fresh:
			cur += word
			fresh = false
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) <= width:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = strings.Repeat(" ", indent) + word
		}
	}
	for _, word := range strings.Fields(text) {
		room := width - indent
		if utf8.RuneCountInString(word) <= room {
			add(word)
			continue
		}
		// A spec: pieces that end after a ',' or a '+', joined up to the
		// room left on the line.
		for i, tok := range splitAfter(word, ",+") {
			switch {
			case i == 0:
				add(tok) // after a space, like any word
			case utf8.RuneCountInString(cur)+utf8.RuneCountInString(tok) <= width:
				cur += tok
			default:
				lines = append(lines, cur)
				cur = strings.Repeat(" ", indent) + tok
			}
		}
	}
	return append(lines, cur)
}

// splitAfter cuts s after each of the runes in seps.
func splitAfter(s, seps string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if strings.ContainsRune(seps, r) {
			out = append(out, s[start:i+len(string(r))])
			start = i + len(string(r))
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
