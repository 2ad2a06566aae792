package htmlreport

import (
	"math"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Table is the run's summary as the terminal prints it (simulator's
// SummaryTable and the columns a run with responses, an adaptive or a
// keyed row adds): the same names, units and rounding, built from
// summary.json's fields so that a page made later from the files by
// `report` shows the same. Titles say what each column means (the page
// shows them on hover); Keys are the raw figures the columns sort by
// (summary.json's numbers, "" for null). The raw fields stay on the page
// (Run.Header, Run.Rows), one click away.
type Table struct {
	Header []string   `json:"header"`
	Titles []string   `json:"titles"`
	Rows   [][]string `json:"rows"`
	Keys   [][]string `json:"keys"`
}

// tableColumn is one column of the terminal's table: its name (W and B
// stand for the window and the bin), the summary.json field behind it,
// how the terminal prints it, and what it means.
type tableColumn struct {
	name, field string
	format      func(v string, row map[string]string) string
	title       string
}

// The formats of the terminal's cells (simulator/render.go).
func intCell(v string, _ map[string]string) string { return dash(v, v) }

func dash(v, s string) string {
	if v == "" {
		return "-"
	}
	return s
}

func fixed(prec int, scale float64) func(string, map[string]string) string {
	return func(v string, _ map[string]string) string {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "-"
		}
		return strconv.FormatFloat(scale*x, 'f', prec, 64)
	}
}

// msCell prints a field in ms as the terminal prints a duration
// (simulator.TableDuration: four significant digits, 0 as "0").
func msCell(v string, _ map[string]string) string {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return "-"
	}
	return simulator.TableDuration(time.Duration(math.Round(x * 1e6)))
}

// lowerBound marks a maximum that is only a lower bound (late admissions).
func lowerBound(f func(string, map[string]string) string) func(string, map[string]string) string {
	return func(v string, row map[string]string) string {
		s := f(v, row)
		if late := row["late_admissions"]; late != "" && late != "0" && s != "-" {
			return simulator.LowerBound + s
		}
		return s
	}
}

var tableColumns = []tableColumn{
	{"arrived", "arrived", intCell, "arrivals this row saw (its retries included)"},
	{"passed", "passed", intCell, "arrivals let through"},
	{"blocked", "blocked", intCell, "arrivals refused"},
	{"pass %", "pass_ratio", fixed(1, 100), "passed / arrived, in %; - when nothing arrived (0/0)"},
	{"max/W", "max_window_passed", lowerBound(intCell), "the most passes in any sliding window (t − W, t] of the run"},
	{"limit/W", "window_limit", func(v string, r map[string]string) string {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "-"
		}
		return simulator.TableNumber(x)
	}, "the row's limit over the window W; - for a row without a rate"},
	{"overshoot", "overshoot", lowerBound(fixed(3, 1)), "max/W ÷ limit/W: above 1, the row let more through in some window than its limit"},
	{"smooth bound", "smooth_bound", fixed(3, 1), "1 + 1/N for a limiter with N buckets, to compare with the overshoot; - for the others"},
	{"peak/B", "peak_bin_passed", intCell, "the most passes in one bin B"},
	{"wait p50", "wait_p50_ms", msCell, "median wait of the passes"},
	{"wait p99", "wait_p99_ms", msCell, "99th percentile wait of the passes (nearest rank)"},
	{"wait max", "wait_max_ms", msCell, "longest wait of a pass"},
	{"state B", "state_bytes", intCell, "bytes of the limiter's state at the end"},
	{"opens", "breaker_opens", func(v string, r map[string]string) string {
		if r["breaker"] == "" {
			return "-"
		}
		return dash(v, v)
	}, "times the breaker opened; - without a breaker"},
	{"errors", "errors", intCell, "responses that failed, timeouts included"},
	{"rt p99", "rt_p99_ms", msCell, "99th percentile response time (exit − admission)"},
	{"goodput", "goodput", intCell, "responses without error or timeout, retries included"},
	{"attempts/req", "attempts_per_request", fixed(2, 1), "(requests + retries) / requests: the retry amplification"},
	{"retries", "retries", intCell, "retries the clients sent"},
	{"timeouts", "timeouts", intCell, "calls the caller gave up on"},
	{"keys hurt", "keys_hurt", intCell, "keys with at least one reject"},
	{"innocent hurt", "innocent_keys_hurt", intCell, "keys hurt that never offered more than the nominal limit"},
}

// terminalTable builds the Table of a run from its rows' fields (field
// name → summary.json's value as text, "" for null), labels first; a
// column shows when some row has its field. window and bin name max/W,
// limit/W and peak/B as the terminal does (1s, 50ms).
func terminalTable(fields []map[string]string, labels []string, window, bin string) *Table {
	t := &Table{Header: []string{"algorithm"}, Titles: []string{"the row's short name; the specs are listed below"}}
	rows := make([][]string, len(fields))
	keys := make([][]string, len(fields))
	for i := range fields {
		rows[i] = []string{labels[i]}
		keys[i] = []string{labels[i]}
	}
	for _, c := range tableColumns {
		has := false
		for _, f := range fields {
			_, ok := f[c.field]
			has = has || ok
		}
		if !has {
			continue
		}
		name := c.name
		switch name {
		case "max/W", "limit/W":
			name = name[:len(name)-1] + window
		case "peak/B":
			name = "peak/" + bin
		}
		t.Header = append(t.Header, name)
		t.Titles = append(t.Titles, c.title)
		for i, f := range fields {
			v, ok := f[c.field]
			if !ok {
				rows[i] = append(rows[i], "-")
				keys[i] = append(keys[i], "")
				continue
			}
			rows[i] = append(rows[i], c.format(v, f))
			keys[i] = append(keys[i], v)
		}
	}
	t.Rows, t.Keys = rows, keys
	return t
}
