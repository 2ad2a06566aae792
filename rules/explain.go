package rules

import (
	"fmt"
	"io"
	"strings"
)

// WriteExplain prints what the lab understood of a rules file: each rule,
// the spec it becomes and every note, in a form a user can copy specs
// from (`--algo 'SPEC'`).
func WriteExplain(w io.Writer, file string, rules []Rule) error {
	var b strings.Builder
	format := ""
	if len(rules) > 0 {
		format = rules[0].Format
	}
	fmt.Fprintf(&b, "%s (%s): %d row(s)\n", file, format, len(rules))
	for _, r := range rules {
		fmt.Fprintf(&b, "\n%s  [%s]\n", r.Name, r.Source)
		if r.What != "" {
			fmt.Fprintf(&b, "  rule:  %s\n", r.What)
		}
		fmt.Fprintf(&b, "  spec:  %s\n", r.Spec)
		var needs []string
		if len(r.KeyColumns) > 0 {
			needs = append(needs, "trace column(s) "+strings.Join(r.KeyColumns, ", "))
		}
		if r.NeedsResponses {
			needs = append(needs, "response times (rt_ms) or a downstream")
		}
		if len(needs) > 0 {
			fmt.Fprintf(&b, "  needs: %s\n", strings.Join(needs, "; "))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  note:  %s\n", n)
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
