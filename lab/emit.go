package lab

import (
	"fmt"
	"io"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// Emit writes the configuration that runs spec in format's product
// syntax. With rule (the --rules rule a tune started from) and format
// its own format (or ""), it is the user's file with only the tuned fields
// changed: set names them by the product's names (rules.TunableFields),
// or, when set is empty, they are the fields that make the rule run as
// spec (rules.SetFor); the patched file must read back as spec, else
// nothing is written. Otherwise it is a new file (rules.Emit) named after
// the rule, or "limit" (also for a rule whose format has no field to
// patch, as ingress-nginx's annotations). When the patch spans several files (an nginx
// zone's rate in an included file), each is written after a comment line
// naming it.
func Emit(w io.Writer, format, spec string, rule *rules.Rule, set map[string]string) error {
	format = strings.ToLower(strings.TrimSpace(format))
	if rule != nil && (format == "" || format == rule.Format) && len(set) == 0 && len(rules.TunableFields(*rule)) == 0 {
		// A format whose rules have no field to patch (ingress-nginx's
		// annotations drive several parameters at once): a new file in
		// the rule's own format.
		return rules.Emit(w, rule.Format, spec, rule.Name)
	}
	if rule == nil || (format != "" && format != rule.Format) {
		if format == "" {
			return fmt.Errorf("--emit needs a format: one of %s", strings.Join(rules.EmitFormatNames(), ", "))
		}
		name := "limit"
		if rule != nil {
			name = rule.Name
		}
		return rules.Emit(w, format, spec, name)
	}
	if len(set) == 0 {
		var err error
		if set, err = rules.SetFor(*rule, spec); err != nil {
			return err
		}
		if len(set) == 0 {
			return fmt.Errorf("%s (%s) already runs %s; there is nothing to change in its file", rule.Name, rule.Source, spec)
		}
	}
	files, up, err := rules.PatchFiles(*rule, set)
	if err != nil {
		return err
	}
	if spec != "" {
		want, err := rules.CanonicalSpec(spec)
		if err != nil {
			return err
		}
		if got, _ := rules.CanonicalSpec(up.Spec); got != want {
			return fmt.Errorf("%s (%s): the patched file reads back as %s, not %s; nothing written", rule.Name, rule.Source, got, want)
		}
	}
	for _, f := range files {
		if len(files) > 1 {
			if _, err := fmt.Fprintf(w, "# --- %s\n", f.File); err != nil {
				return err
			}
		}
		if _, err := w.Write(f.Data); err != nil {
			return err
		}
	}
	return nil
}
