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
