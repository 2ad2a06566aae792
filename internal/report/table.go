package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Table writes the terminal report: the context line, the table, the full
// specs and the warnings and notes, every line within r.Width columns
// (DefaultWidth when 0) as long as a spec or a word fits. The default
// columns are algorithm, passed, pass %, max/W, overshoot, (for runs with
// responses) opens, errors and rt p99, (per key) keys hurt, (adaptive)
// goodput and attempts/req, smooth bound, peak/bin and wait p99; when even those do not fit, the generic ones (genericColumns) are
// dropped first, then the last ones, and the report says which. r.Wide prints every column whatever the width.
func Table(w io.Writer, r *Report) error {
	fit := r.Width
	if fit <= 0 {
		fit = DefaultWidth
	}
	header, rows := r.columns()
	table, hidden, err := FitTableDropping(header, rows, fit, r.Wide, genericColumns)
	if err != nil {
		return err
	}
	// The Redis limiters' figures, under the same short names.
	var redis []byte
	var redisHidden []string
	if rh, rrows := r.redisTable(); len(rrows) > 0 {
		if redis, redisHidden, err = FitTable(rh, rrows, fit, r.Wide); err != nil {
			return err
		}
	}
	// Kong's sync_rate rows' Redis traffic (issue 30), under the same names.
	if kh, krows := r.kongTable(); len(krows) > 0 {
		kt, kHidden, err := FitTable(kh, krows, fit, r.Wide)
		if err != nil {
			return err
		}
		redis, redisHidden = append(redis, kt...), append(redisHidden, kHidden...)
	}
	var b strings.Builder
	// The context line breaks between its parts, not inside one.
	line := ""
	for _, part := range strings.Split(r.Context(), " · ") {
		switch {
		case line == "":
			line = part
		case width(line)+3+width(part) <= fit:
			line += " · " + part
		default:
			b.WriteString(line + "\n")
			line = "  " + part
		}
	}
	b.WriteString(line + "\n")
	b.Write(table)
	b.Write(redis)
	// A replicas= row: each replica's passes and the limit they admit
	// together, one line under the table (issue 35).
	for i, a := range r.Result.Algorithms {
		if a.Replicas != nil {
			b.WriteString(simulator.ReplicasLine(Labels(r.Result)[i], a.Replicas) + "\n")
		}
	}
	if hidden = append(hidden, redisHidden...); len(hidden) > 0 {
		for _, line := range wrap(fmt.Sprintf("hidden to fit %d columns: %s (--wide shows them)", fit, strings.Join(hidden, ", ")), fit, 2) {
			b.WriteString(line + "\n")
		}
	}
	if r.Wide {
		b.WriteString("specs:\n")
	} else {
		b.WriteString("specs (--wide shows every column):\n")
	}
	labels := Labels(r.Result)
	lines := r.specLines()
	inline := true // every spec beside its name, or every one under it
	for _, line := range lines {
		inline = inline && width(line)+2 <= fit
	}
	for i, line := range lines {
		if inline {
			b.WriteString("  " + line + "\n")
		} else {
			b.WriteString("  " + labels[i] + "\n")
			// A long spec (a chain) breaks after a comma or a "+".
			for _, part := range wrapCell(CompactSpec(r.Result.Algorithms[i].Spec), fit-4) {
				b.WriteString("    " + part + "\n")
			}
		}
	}
	writeNotes(&b, "warning: ", r.Warnings, fit)
	writeNotes(&b, "note: ", r.Notes, fit)
	_, err = io.WriteString(w, b.String())
	return err
}

// FitTable renders a boxed table (as WriteTable), dropping its last columns
// until it fits fit columns (never below two columns, never when wide), and
// returns it with the names of the dropped columns.
func FitTable(header []string, rows [][]string, fit int, wide bool) (table []byte, hidden []string, err error) {
	var buf bytes.Buffer
	for {
		buf.Reset()
		if err := WriteTable(&buf, header, rows, tw.AlignRight); err != nil {
			return nil, nil, err
		}
		if wide || len(header) <= 2 || maxWidth(buf.String()) <= fit {
			return buf.Bytes(), hidden, nil
		}
		last := len(header) - 1
		hidden = append([]string{header[last]}, hidden...)
		header = header[:last]
		for i := range rows {
			rows[i] = rows[i][:last]
		}
	}
}

// WriteWrapped writes text broken at spaces into lines of at most fit
// columns (DefaultWidth when 0).
func WriteWrapped(w io.Writer, text string, fit int) error {
	if fit <= 0 {
		fit = DefaultWidth
	}
	var b strings.Builder
	for _, line := range wrap(text, fit, 0) {
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteNote writes one "note: …" or "warning: …" line wrapped to fit
// columns (DefaultWidth when fit is 0), later lines indented by two, as the
// report writes its notes: the notes a command prints on stderr read the
// same at COLUMNS=60 as those under the table.
func WriteNote(w io.Writer, prefix, text string, fit int) error {
	if fit <= 0 {
		fit = DefaultWidth
	}
	var b strings.Builder
	writeNotes(&b, prefix, []string{text}, fit)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNotes(b *strings.Builder, prefix string, notes []string, width int) {
	for _, n := range notes {
		for _, line := range wrap(prefix+n, width, 2) {
			b.WriteString(line + "\n")
		}
	}
}

func maxWidth(s string) int {
	m := 0
	for _, line := range strings.Split(s, "\n") {
		m = max(m, width(line))
	}
	return m
}

// WriteTable writes a boxed table with headers as written ("pass %", not
// upper-cased), the first column aligned left and the others as align.
func WriteTable(w io.Writer, header []string, rows [][]string, align tw.Align) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: align, PerColumn: []tw.Align{tw.AlignLeft}}),
	)
	h := make([]any, len(header))
	for i, x := range header {
		// Its numbers are short: two lines keep the column narrow.
		if x == "smooth bound" {
			x = "smooth\nbound"
		}
		h[i] = x
	}
	t.Header(h...)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// Markdown writes the report as GitHub Markdown: the context line, the
// table (default or wide columns, never trimmed), the specs, the warnings
// and the notes.
func Markdown(w io.Writer, r *Report) error {
	header, rows := r.columns()
	var b strings.Builder
	b.WriteString(mdCell(r.Context()) + "\n\n")
	mdTable(&b, header, rows)
	if rh, rrows := r.redisTable(); len(rrows) > 0 {
		b.WriteString("\n")
		mdTable(&b, rh, rrows)
	}
	if kh, krows := r.kongTable(); len(krows) > 0 {
		b.WriteString("\n")
		mdTable(&b, kh, krows)
	}
	b.WriteString("\nSpecs:\n\n")
	for i, label := range Labels(r.Result) {
		fmt.Fprintf(&b, "- %s: `%s`\n", mdCell(label), CompactSpec(r.Result.Algorithms[i].Spec))
	}
	for _, group := range []struct {
		title string
		items []string
	}{{"Warnings", r.Warnings}, {"Notes", r.Notes}} {
		if len(group.items) == 0 {
			continue
		}
		b.WriteString("\n" + group.title + ":\n\n")
		for _, n := range group.items {
			b.WriteString("- " + mdCell(n) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdownTable writes a GitHub Markdown table to w, the first column
// aligned left and the others right, each cell escaped.
func WriteMarkdownTable(w io.Writer, header []string, rows [][]string) error {
	var b strings.Builder
	mdTable(&b, header, rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// mdTable writes a Markdown table, the first column aligned left and the
// others right.
func mdTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(mdCells(header), " | ") + " |\n|")
	for i := range header {
		if i == 0 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(mdCells(row), " | ") + " |\n")
	}
}

// redisTable is simulator.RedisTable under the short row names (no rows
// when the run has no Redis limiter).
func (r *Report) redisTable() (header []string, rows [][]string) {
	header, rows = simulator.RedisTable(r.Result)
	labels := Labels(r.Result)
	if len(rows) == 0 {
		// No Redis limiter: the cluster limiters' figures (issue 28).
		header, rows = simulator.ClusterTable(r.Result)
		k := 0
		for i, a := range r.Result.Algorithms {
			if a.Cluster != nil && k < len(rows) {
				rows[k][0] = labels[i]
				k++
			}
		}
		return header, rows
	}
	k := 0
	for i, a := range r.Result.Algorithms {
		if a.Redis != nil && k < len(rows) {
			rows[k][0] = labels[i]
			k++
		}
	}
	return header, rows
}

// kongTable is simulator.KongSyncTable under the short row names.
func (r *Report) kongTable() (header []string, rows [][]string) {
	header, rows = simulator.KongSyncTable(r.Result)
	labels := Labels(r.Result)
	k := 0
	for i, a := range r.Result.Algorithms {
		if a.KongSync != nil && k < len(rows) {
			rows[k][0] = labels[i]
			k++
		}
	}
	return header, rows
}

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdCell(c)
	}
	return out
}

// mdCell escapes what would break a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// WriteTextTable writes a boxed table of words, every column aligned left.
// When the table is wider than width columns (DefaultWidth when 0), its
// widest columns are narrowed in turn, their cells wrapped at spaces and
// after commas, until it fits (or no column can shrink below 12); when a
// word longer than its column still keeps the table too wide
// (WarmUpRateLimiterController at 60 columns), words are broken too.
func WriteTextTable(w io.Writer, header []string, rows [][]string, fit int) error {
	if fit <= 0 {
		fit = DefaultWidth
	}
	const minCol = 12
	n := len(header)
	colW := make([]int, n)
	for i, h := range header {
		colW[i] = width(h)
	}
	for _, row := range rows {
		for i, c := range row {
			colW[i] = max(colW[i], width(c))
		}
	}
	total := func() int {
		t := 3*n + 1
		for _, c := range colW {
			t += c
		}
		return t
	}
	// The width a column takes once wrapped at w: a word longer than w
	// keeps it wider.
	hard := false // break words longer than their column
	cellLines := func(s string, w int) []string {
		if hard {
			return breakWords(wrapCell(s, w), w)
		}
		return wrapCell(s, w)
	}
	wrappedWidth := func(i, w int) int {
		m := width(header[i])
		for _, row := range rows {
			for _, line := range cellLines(row[i], w) {
				m = max(m, width(line))
			}
		}
		return m
	}
	stuck := make([]bool, n) // narrowing it no longer narrows the table
	for total() > fit {
		widest := -1
		for i := range colW {
			if !stuck[i] && colW[i] > minCol && (widest < 0 || colW[i] > colW[widest]) {
				widest = i
			}
		}
		if widest < 0 && !hard {
			// Long words hold the columns: break them and go on.
			hard = true
			clear(stuck)
			continue
		}
		if widest < 0 {
			break
		}
		if w := wrappedWidth(widest, colW[widest]-1); w < colW[widest] {
			colW[widest] = w
		} else {
			stuck[widest] = true
		}
	}
	wrapped := make([][]string, len(rows))
	for r, row := range rows {
		wrapped[r] = make([]string, len(row))
		for i, c := range row {
			wrapped[r][i] = strings.Join(cellLines(c, colW[i]), "\n")
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	h := make([]any, len(header))
	for i, x := range header {
		h[i] = x
	}
	t.Header(h...)
	if err := t.Bulk(wrapped); err != nil {
		return err
	}
	return t.Render()
}

// breakWords cuts every line wider than w: after the last '.', '/', '(',
// '_' or lower-to-upper case change that leaves at least half the width on
// the line (RateLimiter.|create, WarmUpRate|Limiter), else at w.
func breakWords(lines []string, w int) []string {
	var out []string
	for _, line := range lines {
		r := []rune(line)
		for len(r) > w {
			cut := w
			for i := w; i >= (w+1)/2 && i > 0; i-- {
				if strings.ContainsRune("./(_", r[i-1]) || i < len(r) && unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i]) {
					cut = i
					break
				}
			}
			out = append(out, string(r[:cut]))
			r = r[cut:]
		}
		out = append(out, string(r))
	}
	return out
}

// wrapCell breaks s into lines of at most w columns, after a space, a
// comma or a "+", and a word longer than w after a "=" or "-"; a word
// longer than w without them is left whole.
func wrapCell(s string, w int) []string {
	if width(s) <= w {
		return []string{s}
	}
	var tokens []string // each ends where a line may break
	start := 0
	for i, r := range s {
		if r == ' ' || r == ',' || r == '+' {
			tokens = append(tokens, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		tokens = append(tokens, s[start:])
	}
	// A token wider than the column also breaks after a '=' or a '-' (a
	// long key=value such as stop-increment-over-limit=false,).
	for k := 0; k < len(tokens); k++ {
		if tok := tokens[k]; width(tok) > w {
			if i := strings.IndexAny(tok, "=-"); i >= 0 && i < len(tok)-1 {
				tokens = append(tokens[:k], append([]string{tok[:i+1], tok[i+1:]}, tokens[k+1:]...)...)
			}
		}
	}
	var lines []string
	line := ""
	for _, tok := range tokens {
		if line != "" && width(strings.TrimRight(line+tok, " ")) > w {
			lines = append(lines, strings.TrimRight(line, " "))
			line = ""
		}
		line += tok
	}
	if line = strings.TrimRight(line, " "); line != "" {
		lines = append(lines, line)
	}
	return lines
}
