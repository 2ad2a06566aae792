// Package report renders a run's summary in the forms `ratelimit-lab run
// --format` offers, in the style of vegeta's reporters: each format is a
// Renderer writing one Report to an io.Writer.
//
//   - table: the terminal table, fitted to a width (100 columns unless told
//     otherwise), with a context line above it, the full specs and any
//     warnings below it;
//   - md: the same table as GitHub Markdown;
//   - json: summary.json's content, byte for byte;
//   - csv: one row per limiter with every field of summary.json.
package report

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// Report is everything a renderer needs about one run.
type Report struct {
	Result *simulator.Result
	// Seed is the scenario's random seed; HasSeed is false for a trace.
	Seed    uint64
	HasSeed bool
	// Wide asks for every column instead of the default few.
	Wide bool
	// Width is the terminal width the table must fit (DefaultWidth when 0).
	Width int
	// Warnings and Notes are printed under the table, warnings first.
	Warnings, Notes []string
}

// DefaultWidth is the width the table fits when none is given.
const DefaultWidth = 100

// Renderer writes a report in one format.
type Renderer func(w io.Writer, r *Report) error

// Formats maps each --format name to its renderer.
var Formats = map[string]Renderer{
	"table": Table,
	"md":    Markdown,
	"json":  JSON,
	"csv":   CSV,
}

// FormatNames lists the formats, table first.
var FormatNames = []string{"table", "json", "csv", "md"}

// Context is the line above the table: what ran, over which span (to the
// microsecond: a trace's run ends 1 ns after its last arrival), with which
// settings.
func (r *Report) Context() string {
	res := r.Result
	var arrived, retries int64
	for i, a := range res.Algorithms {
		var r int64
		if a.Chain != nil {
			r = a.Chain.Retries
		}
		if i == 0 {
			arrived = a.Arrived - r
		}
		retries += r
	}
	traffic := plural(arrived, "arrival")
	if retries > 0 {
		// Each row's attempts are these plus its own retries.
		traffic = plural(arrived, "request") + " (each row adds its retries)"
	}
	parts := []string{
		res.Scenario,
		fmt.Sprintf("%s to %s (%s)", Duration(res.Start.Round(time.Microsecond)), Duration(res.End.Round(time.Microsecond)),
			Duration((res.End - res.Start).Round(time.Microsecond))),
		traffic,
		LimitText(res.Limit),
		"bin " + Duration(res.Bin),
		"window " + Duration(res.Window),
	}
	if r.HasSeed {
		parts = append(parts, "seed "+strconv.FormatUint(r.Seed, 10))
	}
	return strings.Join(parts, " · ")
}

// LimitText is the context line's limit: the scenario's, or "limits per
// row" when the run has none (a trace whose rows take their limits from
// --rules or their specs).
func LimitText(limit float64) string {
	if !(limit > 0) {
		return "limits per row"
	}
	return "limit " + Number(limit) + "/s"
}

func plural(n int64, word string) string { return Plural(n, word) }

// Plural prints a count with its noun, singular for one: "1 limiter",
// "7 limiters".
func Plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}

// Number prints a number the shortest way that reads back exactly, in
// fixed notation (500, 12.5, 1000000) unless that would be long: from 1e21
// up and below 1e-6 it takes an exponent (1e+300, 2.5e-07), as JavaScript
// prints numbers.
func Number(x float64) string {
	if a := math.Abs(x); a != 0 && (a >= 1e21 || a < 1e-6) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// specNumberRE is a parameter value that is a plain decimal number.
var specNumberRE = regexp.MustCompile(`=(-?[0-9]+(?:\.[0-9]+)?)([,+]|$)`)

// CompactSpec is a spec as the terminal shows it: every parameter that is a
// number printed by Number, so rate=1e300 reads 1e+300 instead of 301
// digits. The canonical spec (summary.json, the files) stays exact and in
// fixed notation; this one reads back to the same limiter.
func CompactSpec(spec string) string {
	return specNumberRE.ReplaceAllStringFunc(spec, func(m string) string {
		sub := specNumberRE.FindStringSubmatch(m)
		v, err := strconv.ParseFloat(sub[1], 64)
		if n := Number(v); err == nil && len(n) < len(sub[1]) {
			return "=" + n + sub[2]
		}
		return m
	})
}

// Duration prints a duration without float noise: in seconds from one
// second up (3s, 1.5s, 21556.81459s), in milliseconds below (5ms, 50ms,
// 0.25ms), 0s for none.
func Duration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	if d < time.Second {
		return sign + strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
	}
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if frac := int64(d % time.Second); frac != 0 {
		f := strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
		s += "." + f
	}
	return sign + s + "s"
}

// Labels returns a short row name per limiter: its registry name, with
// N=<sample count> for limiters that have one, and with the parameters that
// tell apart limiters that would otherwise share a name.
func Labels(res *simulator.Result) []string {
	labels := make([]string, len(res.Algorithms))
	for i, a := range res.Algorithms {
		labels[i] = baseLabel(a)
	}
	groups := map[string][]int{}
	for i, l := range labels {
		groups[l] = append(groups[l], i)
	}
	for _, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		params := make([][][2]string, len(idx))
		for k, i := range idx {
			params[k] = specParams(res.Algorithms[i].Spec)
		}
		// Keys whose value differs somewhere in the group (or that only
		// some members give, such as check-to-add), in spec order.
		var differ []string
		for _, p := range params {
			for _, kv := range p {
				if slices.Contains(differ, kv[0]) {
					continue
				}
				for _, other := range params {
					if v, ok := lookup(other, kv[0]); !ok || v != kv[1] {
						differ = append(differ, kv[0])
						break
					}
				}
			}
		}
		named := make([]string, len(idx))
		long := false
		for k, i := range idx {
			var extra []string
			for _, key := range differ {
				if key == "sample-count" {
					continue
				}
				if v, ok := lookup(params[k], key); ok {
					extra = append(extra, CompactSpec(key+"="+v))
				}
			}
			named[k] = labels[i]
			if len(extra) > 0 {
				named[k] += " " + strings.Join(extra, ",")
			}
			long = long || width(named[k]) > maxLabel
		}
		for k, i := range idx {
			if long {
				// Too many differences to name in a short row name: number
				// the rows; the spec list under the table tells them apart.
				named[k] = labels[i] + " #" + strconv.Itoa(k+1)
			}
			labels[i] = named[k]
		}
	}
	// Whatever still collides (the same spec twice) is numbered.
	seen := map[string]int{}
	for i, l := range labels {
		seen[l]++
		if n := seen[l]; n > 1 {
			labels[i] = l + " #" + strconv.Itoa(n)
		}
	}
	return labels
}

// maxLabel is the widest row name made of parameters: a group of rows that
// would need a wider one is numbered instead.
const maxLabel = 44

// baseLabel is a row's name before telling apart rows that share it: the
// registry name with N=<sample count>, or for a chain A+B+... each stage's
// name (and N) joined by "+", so that "leap-array N=2+circuit-breaker" does
// not read as the plain leap-array.
func baseLabel(a simulator.AlgoResult) string {
	if a.Label != "" {
		return a.Label
	}
	sp := spec.Split(a.Spec)
	if !sp.IsChain() {
		if a.SampleCount > 0 {
			return a.Name + " N=" + strconv.Itoa(a.SampleCount)
		}
		return a.Name
	}
	names := make([]string, len(sp.Stages))
	for i, st := range sp.Stages {
		names[i] = st.Name
		if n, ok := st.Get("sample-count"); ok {
			names[i] += " N=" + n
		}
	}
	return strings.Join(names, "+")
}

// specParams returns the key=value pairs of a spec, stage after stage for a
// chain.
func specParams(s string) [][2]string {
	var out [][2]string
	for _, st := range spec.Split(s).Stages {
		for _, p := range st.Params {
			if p.OK {
				out = append(out, [2]string{p.Key, p.Value})
			}
		}
	}
	return out
}

func lookup(params [][2]string, key string) (string, bool) {
	for _, kv := range params {
		if kv[0] == key {
			return kv[1], true
		}
	}
	return "", false
}

// defaultColumns are the columns of the narrow table, most important
// first; a trailing "/" matches the window or bin suffix ("max/1s").
var defaultColumns = []string{"algorithm", "passed", "pass %", "max/", "overshoot", "keys hurt", "opens", "errors", "rt p99", "goodput", "attempts/req", "smooth bound", "peak/", "wait p99"}

// columns returns the table to print: every column of
// simulator.SummaryTable for a wide report, the default ones otherwise, and
// the short labels in the first column.
func (r *Report) columns() (header []string, rows [][]string) {
	full, fullRows := simulator.SummaryTable(r.Result)
	var keep []int
	if r.Wide {
		for i := range full {
			keep = append(keep, i)
		}
	} else {
		for _, want := range defaultColumns {
			for i, h := range full {
				if h == want || strings.HasSuffix(want, "/") && strings.HasPrefix(h, want) {
					if i > 0 && h != "pass %" && allDash(fullRows, i) {
						break // smooth bound without a limiter that has one
					}
					// pass % stays, "-" in a run without arrivals (0/0).
					keep = append(keep, i)
					break
				}
			}
		}
	}
	labels := Labels(r.Result)
	for _, i := range keep {
		header = append(header, full[i])
	}
	for k, fr := range fullRows {
		row := make([]string, 0, len(keep))
		for _, i := range keep {
			row = append(row, fr[i])
		}
		if len(keep) > 0 && keep[0] == 0 {
			row[0] = labels[k]
		}
		rows = append(rows, row)
	}
	return header, rows
}

func allDash(rows [][]string, col int) bool {
	for _, r := range rows {
		if r[col] != "-" {
			return false
		}
	}
	return true
}

// specLines lists each label beside its full spec, once.
func (r *Report) specLines() []string {
	labels := Labels(r.Result)
	wl := 0
	for _, l := range labels {
		wl = max(wl, width(l))
	}
	lines := make([]string, len(labels))
	for i, a := range r.Result.Algorithms {
		lines[i] = labels[i] + strings.Repeat(" ", wl-width(labels[i])) + "  " + CompactSpec(a.Spec)
	}
	return lines
}

// width is the display width of s on a terminal: one column per rune
// (every character the tables use is one column wide).
func width(s string) int { return len([]rune(s)) }

// wrap breaks text into lines of at most w columns at spaces, indenting the
// lines after the first by indent spaces.
func wrap(text string, w, indent int) []string {
	words := strings.Fields(text)
	var lines []string
	cur := ""
	for _, word := range words {
		// A word wider than a line (a spec) breaks where a spec may:
		// after a comma, a '+', a '=' or a '-'.
		if width(word) > w-indent {
			if pieces := wrapCell(word, w-indent); len(pieces) > 1 {
				if cur != "" {
					lines = append(lines, cur)
				}
				for _, p := range pieces[:len(pieces)-1] {
					if len(lines) > 0 {
						p = strings.Repeat(" ", indent) + p
					}
					lines = append(lines, p)
				}
				cur = strings.Repeat(" ", indent) + pieces[len(pieces)-1]
				continue
			}
		}
		switch {
		case cur == "":
			cur = word
			if len(lines) > 0 {
				cur = strings.Repeat(" ", indent) + word
			}
		case width(cur)+1+width(word) <= w:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = strings.Repeat(" ", indent) + word
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// SummaryFields lists the per-limiter fields of summary.json that hold
// numbers, in file order, plus pass_pct (100 · pass_ratio): the fields
// --fail-if can test.
func SummaryFields() []string {
	names := simulator.SummaryNumberFields()
	if i := slices.Index(names, "pass_ratio"); i >= 0 {
		names = slices.Insert(names, i+1, "pass_pct")
	}
	return names
}
