package lab_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// tableHeader is the text of the first table's header cells (one line,
// even when a header wraps inside its cell).
func tableHeader(out string) string {
	var cells []string
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "├") {
			for _, h := range lines[:i] {
				if strings.HasPrefix(h, "│") {
					cells = append(cells, h)
				}
			}
			break
		}
	}
	return strings.Join(strings.Fields(strings.Join(cells, " ")), " ")
}

// Per-key and adaptive tables keep the columns that carry their point at
// 80 and 100 columns (issue 20): keys hurt; goodput, attempts per request,
// errors and RT p99; --wide shows every column, retries and timeouts too.
// Durations in cells are rounded, and the per-key lines under the table
// wrap to the width.
func TestPointColumnsPerKeyAndAdaptive(t *testing.T) {
	dir := t.TempDir()
	unrounded := regexp.MustCompile(`│ *[0-9]+\.[0-9]{4,}(ns|µs|ms|s) *│|first at [0-9]+\.[0-9]{4,}(ns|µs|ms|s)`)
	for _, c := range []struct {
		scenario   string
		keep, wide []string
	}{
		{"key-spray", []string{"keys hurt"}, []string{"keys hurt", "innocent hurt"}},
		{"heavy-hitters", []string{"keys hurt"}, []string{"keys hurt", "innocent hurt"}},
		{"retry-storm", []string{"errors", "rt p99", "goodput", "attempts/req"},
			[]string{"errors", "rt p99", "goodput", "attempts/req", "retries", "timeouts"}},
	} {
		// One run, its summary rendered at each width, narrow and wide.
		opts := lab.DefaultOptions()
		opts.Source.Scenario, opts.HTML, opts.Chart, opts.Out = c.scenario, false, "none", filepath.Join(dir, c.scenario)
		run := execute(t, opts)
		for _, cols := range []int{80, 100} {
			for _, wide := range []bool{false, true} {
				name := c.scenario + " at " + strconv.Itoa(cols)
				want := c.keep
				if wide {
					want, name = c.wide, name+" --wide"
				}
				var b strings.Builder
				if err := run.WriteSummary(&b, &b, wide, cols); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				header := " " + tableHeader(out) + " "
				for _, col := range want {
					if !strings.Contains(header, " "+col+" ") {
						t.Errorf("%s: the table has no %q column:\n%s", name, col, out)
					}
				}
				if m := unrounded.FindString(out); m != "" {
					t.Errorf("%s: an unrounded duration %q:\n%s", name, m, out)
				}
				for _, line := range strings.Split(out, "\n") {
					if wide && strings.ContainsAny(line, "┌│├└") {
						continue // a wide table may overflow; the lines under it may not
					}
					if n := utf8.RuneCountInString(line); n > cols {
						t.Errorf("%s: a line of %d columns:\n%s", name, n, line)
					}
				}
			}
		}
	}
}
