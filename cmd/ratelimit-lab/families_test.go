package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// The root --help describes every family the registry has (issue 20): each
// Family of lab.Limiters (the registry) gets its own line with a
// description, not just its limiters' names, and the help says how rules
// files come in.
func TestHelpDescribesEveryFamily(t *testing.T) {
	help, _, err := execute(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range lab.Limiters() {
		f := a.Family
		if f == "" {
			t.Errorf("%s has no family", a.Name)
			continue
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		blurb := familyBlurbs[f]
		if blurb == "" {
			t.Errorf("the family %q (of %s) has no description in the root --help", f, a.Name)
			continue
		}
		first := strings.Fields(blurb)[0]
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f) + ` +` + regexp.QuoteMeta(first) + ` `)
		if !re.MatchString(help) {
			t.Errorf("--help has no line describing the family %q:\n%s", f, help)
		}
	}
	for _, want := range []string{"gateways", "per-key", "adaptive", "Redis"} {
		if !seen[want] {
			t.Errorf("the registry has no family %q", want)
		}
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, want := range []string{"'ratelimit-lab rules explain FILE'", "--rules FILE", "prioritized requests"} {
		if !strings.Contains(flat, want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
	// Every command the help quotes exists, and takes the argument it is
	// quoted with: 'ratelimit-lab rules FILE' named a command group.
	for _, m := range regexp.MustCompile(`'ratelimit-lab ([a-z]+(?: [a-z]+)*)((?: [A-Z.]+)*)'`).FindAllStringSubmatch(flat, -1) {
		words := strings.Fields(m[1])
		if _, _, err := execute(t, append(words, "--help")...); err != nil {
			t.Errorf("--help quotes 'ratelimit-lab %s', which is no command: %v", m[1], err)
		}
		if m[2] == "" {
			continue
		}
		_, _, err := execute(t, append(words, "no-such-file.xyz")...)
		if err != nil && strings.Contains(err.Error(), "unknown command") {
			t.Errorf("--help quotes 'ratelimit-lab %s%s', but %q takes no argument: %v", m[1], m[2], m[1], err)
		}
	}
}

// list groups the algorithms by family: one table per Family, in the
// registry's order, under a line naming the family with its description,
// and each limiter's row in its own family's table.
func TestListGroupsByFamily(t *testing.T) {
	out, _, err := execute(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	_, algos, ok := strings.Cut(out, "\nAlgorithms (spec: NAME[:key=value,...]), by family\n")
	if !ok {
		t.Fatalf("list has no algorithms heading:\n%s", out)
	}
	// The family sections, split at their heading lines.
	fams := lab.Families()
	at := make([]int, len(fams))
	for i, f := range fams {
		at[i] = strings.Index(algos, "\n"+f+": "+strings.Fields(familyBlurbs[f])[0]+" ")
		if at[i] < 0 || i > 0 && at[i] < at[i-1] {
			t.Fatalf("family %q has no heading, or it is out of the registry's order:\n%s", f, algos)
		}
	}
	section := func(i int) string {
		if i+1 < len(at) {
			return algos[at[i]:at[i+1]]
		}
		return algos[at[i]:]
	}
	for _, a := range lab.Limiters() {
		i := slices.Index(fams, a.Family)
		if !strings.Contains(section(i), "│ "+a.Name+" ") {
			t.Errorf("%s is not in the table of its family %q", a.Name, a.Family)
		}
	}
}
