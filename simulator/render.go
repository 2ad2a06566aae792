package simulator

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Number formatting, the same in every renderer so output is
// byte-identical for identical results:
//   - exact quantities (durations in ms, rates, limits) use the shortest
//     decimal that round-trips, in fixed notation ('f', -1): 50, 12.5;
//   - derived ratios and means use six decimals ('f', 6): 1.500000;
//   - ns_per_decision, only in tune.csv and tables, uses one decimal.

func fmtExact(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 6, 64)
}

func fmtMs(d time.Duration) string { return fmtExact(ms(d)) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// csvField quotes s as encoding/csv would if it needs quoting (a spec
// holds commas: "leap-array:limit=100,sample-count=2,interval=1s").
func csvField(s string) string {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && s[0] != ' ' && s[0] != '\t' {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// DecisionsHeader is the header line of a decisions CSV; Run writes rows
// only, so that a caller may write one file per limiter or one for all.
const DecisionsHeader = "algorithm,seq,t_ns,verdict,wait_ns,stage,rt_ns,error,priority\n"

// SeriesHeader is the header line of WriteSeriesCSV.
const SeriesHeader = "algorithm,bin_start_ms,arrived,passed,blocked,wait_mean_ms,wait_max_ms\n"

// WriteSeriesCSV writes one row per algorithm per bin, algorithms in the
// result's order, bins in time order. wait_mean_ms and wait_max_ms describe
// the passes admitted in the bin (0 when there are none).
func WriteSeriesCSV(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	chain := HasResponses(r)
	borrowed := HasBorrowed(r)
	keyed := HasKeys(r)
	adaptive := HasAdaptive(r)
	h := seriesHeader(chain)
	if adaptive {
		h = h[:len(h)-1] + SeriesAdaptiveColumns + "\n"
	}
	if borrowed {
		h = h[:len(h)-1] + SeriesBorrowedColumn + "\n"
	}
	fallbacks := HasClusterFallbacks(r) // cluster.go
	if fallbacks {
		h = h[:len(h)-1] + SeriesFallbacksColumn + "\n"
	}
	bw.WriteString(seriesKeysHeader(h, keyed))
	var b []byte
	for _, a := range r.Algorithms {
		name := csvField(a.Spec)
		var hurt int64 // keys_hurt, a running sum
		for i, bin := range a.Bins {
			b = append(b[:0], name...)
			b = append(b, ',')
			b = append(b, fmtMs(r.Start+time.Duration(i)*r.Bin)...)
			b = append(b, ',')
			b = strconv.AppendInt(b, bin.Arrived, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, bin.Passed, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, bin.Blocked, 10)
			b = append(b, ',')
			mean := 0.0
			if bin.Passed > 0 {
				mean = ms(bin.WaitSum) / float64(bin.Passed)
			}
			b = append(b, fmtRatio(mean)...)
			b = append(b, ',')
			b = append(b, fmtMs(bin.WaitMax)...)
			if chain {
				b = appendResponseBin(b, &bin)
			}
			if adaptive {
				b = appendAdaptiveBin(b, &bin)
			}
			if borrowed {
				b = appendBorrowedBin(b, &bin)
			}
			if fallbacks {
				b = append(b, ',')
				b = strconv.AppendInt(b, bin.Fallbacks, 10)
			}
			if keyed {
				hurt += bin.KeysHurt
				b = appendKeysHurt(b, a.Keys != nil, hurt)
			}
			b = append(b, '\n')
			bw.Write(b)
		}
	}
	return bw.Flush()
}

// jsonNum is a preformatted JSON number; empty means null.
type jsonNum string

func (n jsonNum) MarshalJSON() ([]byte, error) {
	if n == "" {
		return []byte("null"), nil
	}
	return []byte(n), nil
}

// scenarioLimit is summary.json's limit: null when the run has no
// scenario limit (a trace whose rows take their limits from --rules or
// their specs).
func scenarioLimit(limit float64) jsonNum {
	if limit == 0 {
		return ""
	}
	return jsonNum(fmtExact(limit))
}

type summaryJSON struct {
	Scenario   string          `json:"scenario"`
	Limit      jsonNum         `json:"limit"`
	BinMs      jsonNum         `json:"bin_ms"`
	WindowMs   jsonNum         `json:"window_ms"`
	DurationMs jsonNum         `json:"duration_ms"`
	Algorithms []algoSummaryJS `json:"algorithms"`
}

type algoSummaryJS struct {
	Algorithm       string  `json:"algorithm"`
	Name            string  `json:"name"`
	Label           string  `json:"label,omitempty"`
	Rate            jsonNum `json:"rate"`
	Arrived         int64   `json:"arrived"`
	Passed          int64   `json:"passed"`
	Blocked         int64   `json:"blocked"`
	PassRatio       jsonNum `json:"pass_ratio"`
	MaxWindowPassed int64   `json:"max_window_passed"`
	MaxWindowEndMs  jsonNum `json:"max_window_end_ms"`
	WindowMs        jsonNum `json:"window_ms"`
	WindowLimit     jsonNum `json:"window_limit"`
	Overshoot       jsonNum `json:"overshoot"`
	SmoothBound     jsonNum `json:"smooth_bound"`
	PeakBinPassed   int64   `json:"peak_bin_passed"`
	WaitP50Ms       jsonNum `json:"wait_p50_ms"`
	WaitP99Ms       jsonNum `json:"wait_p99_ms"`
	WaitMaxMs       jsonNum `json:"wait_max_ms"`
	StateBytes      int     `json:"state_bytes"`
	LateAdmissions  int64   `json:"late_admissions,omitempty"`
	// EpochMs is set for limiters that read a wall clock: the redis-*
	// ones and the gateway limiters (see epochMs).
	EpochMs *int64 `json:"epoch_ms,omitempty"`
	*chainSummaryJS
	*redisSummaryJS
	*prioritySummaryJS
	*keysSummaryJS
	*clusterSummaryJS
	*kongSyncSummaryJS
	*replicasSummaryJS
}

// passRatio is passed/arrived; 0 for 0/0, which the outputs show as
// null (ratioJSON) or "-" (ratioCell), never as a pass ratio of 0.
func passRatio(passed, arrived int64) float64 {
	if arrived == 0 {
		return 0
	}
	return float64(passed) / float64(arrived)
}

// ratioJSON is summary.json's passed/arrived: null for 0/0 (a run or a
// row without arrivals), so that no gate reads it as 0.
func ratioJSON(passed, arrived int64) jsonNum {
	if arrived == 0 {
		return ""
	}
	return jsonNum(fmtRatio(passRatio(passed, arrived)))
}

// pctCell is a table's "pass %" cell: "-" for 0/0.
func pctCell(passed, arrived int64) string {
	if arrived == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*passRatio(passed, arrived), 'f', 1, 64)
}

// WriteSummaryJSON writes the run's summary as one JSON object, indented by
// two spaces, with a trailing newline. smooth_bound is the ratio 1 + 1/N,
// null for limiters without a sample count; max_window_end_ms is null when
// nothing passed. The measured ns/decision is left out on purpose:
// it changes from run to run and the file is meant to be reproducible.
func WriteSummaryJSON(w io.Writer, r *Result) error {
	s := summaryJSON{
		Scenario:   r.Scenario,
		Limit:      scenarioLimit(r.Limit),
		BinMs:      jsonNum(fmtMs(r.Bin)),
		WindowMs:   jsonNum(fmtMs(r.Window)),
		DurationMs: jsonNum(fmtMs(r.End - r.Start)),
		Algorithms: make([]algoSummaryJS, len(r.Algorithms)),
	}
	for i, a := range r.Algorithms {
		js := algoSummaryJS{
			Algorithm:       a.Spec,
			Name:            a.Name,
			Label:           a.Label,
			Rate:            jsonNum(fmtExact(a.Rate)),
			Arrived:         a.Arrived,
			Passed:          a.Passed,
			Blocked:         a.Blocked,
			PassRatio:       ratioJSON(a.Passed, a.Arrived),
			MaxWindowPassed: a.MaxWindowPassed,
			WindowMs:        jsonNum(fmtMs(r.Window)),
			WindowLimit:     jsonNum(fmtRatio(a.WindowLimit)),
			Overshoot:       jsonNum(fmtRatio(a.Overshoot)),
			PeakBinPassed:   a.PeakBinPassed,
			WaitP50Ms:       jsonNum(fmtMs(a.WaitP50)),
			WaitP99Ms:       jsonNum(fmtMs(a.WaitP99)),
			WaitMaxMs:       jsonNum(fmtMs(a.WaitMax)),
			StateBytes:      a.StateBytes,
			LateAdmissions:  a.LateAdmissions,
		}
		if a.SampleCount > 0 {
			js.SmoothBound = jsonNum(fmtRatio(a.SmoothBound))
		}
		if a.Rate == 0 {
			// A row without a rate (a circuit breaker alone) has no limit:
			// null, as the table's "-", rather than a limit of 0.
			js.WindowLimit, js.Overshoot = "", ""
		}
		if a.HasMaxWindow {
			js.MaxWindowEndMs = jsonNum(fmtMs(a.MaxWindowEnd))
		}
		js.chainSummaryJS = chainSummary(a.Chain)
		js.redisSummaryJS = redisSummary(&r.Algorithms[i])
		js.prioritySummaryJS = prioritySummary(a.Priority)
		js.EpochMs = epochMs(&r.Algorithms[i])
		js.keysSummaryJS = keysSummary(a.Keys)
		js.clusterSummaryJS = clusterSummary(a.Cluster)
		js.kongSyncSummaryJS = kongSyncSummary(a.KongSync)
		js.replicasSummaryJS = replicasSummary(a.Replicas)
		s.Algorithms[i] = js
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s) // Encode ends with a newline
}

// pctCSV is tune.csv's passed_pct: empty for 0/0.
func pctCSV(row TuneRow) string {
	if row.Arrived == 0 {
		return ""
	}
	return fmtRatio(row.PassedPct)
}

// TuneHeader is the header line of WriteTuneCSV.
const TuneHeader = "sample_count,bucket_ms,passed,passed_pct,max_window_passed,overshoot,smooth_bound,peak_bin_passed,state_bytes,ns_per_decision\n"

// WriteTuneCSV writes one row per sample count that ran (skipped sample
// counts are left out). smooth_bound is the ratio 1 + 1/N.
func WriteTuneCSV(w io.Writer, t *TuneResult) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(TuneHeader)
	for _, row := range t.Rows {
		if row.Skipped != "" {
			continue
		}
		bw.WriteString(strings.Join([]string{
			strconv.Itoa(row.SampleCount),
			fmtMs(row.Bucket),
			itoa(row.Passed),
			pctCSV(row),
			itoa(row.MaxWindowPassed),
			fmtRatio(row.Overshoot),
			fmtRatio(row.SmoothBound),
			itoa(row.PeakBinPassed),
			strconv.Itoa(row.StateBytes),
			strconv.FormatFloat(row.NsPerDecision, 'f', 1, 64),
		}, ","))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// SummaryTable returns the terminal table of a run, every column: one row
// per algorithm. "smooth bound" is the ratio 1 + 1/N of limiters with a
// sample count N, beside the measured "overshoot"; "-" for the others. A
// maximum that is only a lower bound (late admissions) reads "≥102", and so
// does the overshoot derived from it.
func SummaryTable(r *Result) (header []string, rows [][]string) {
	header = []string{
		"algorithm", "arrived", "passed", "blocked", "pass %",
		"max/" + shortDur(r.Window), "limit/" + shortDur(r.Window), "overshoot", "smooth bound",
		"peak/" + shortDur(r.Bin), "wait p50", "wait p99", "wait max", "state B", "ns/decision",
	}
	for _, a := range r.Algorithms {
		smooth := "-"
		if a.SampleCount > 0 {
			smooth = strconv.FormatFloat(a.SmoothBound, 'f', 3, 64)
		}
		maxw := itoa(a.MaxWindowPassed)
		over := strconv.FormatFloat(a.Overshoot, 'f', 3, 64)
		if a.Overshoot >= 1e15 {
			over = fmtTableNumber(a.Overshoot) // a limit of 1e-300
		}
		if a.LateAdmissions > 0 {
			maxw, over = LowerBound+maxw, LowerBound+over
		}
		limit := fmtTableNumber(a.WindowLimit)
		if a.Rate == 0 {
			// A row without a rate (a circuit breaker alone) has no limit
			// to overshoot.
			limit, over = "-", "-"
		}
		rows = append(rows, []string{
			a.Spec,
			itoa(a.Arrived),
			itoa(a.Passed),
			itoa(a.Blocked),
			pctCell(a.Passed, a.Arrived),
			maxw,
			limit,
			over,
			smooth,
			itoa(a.PeakBinPassed),
			TableDuration(a.WaitP50),
			TableDuration(a.WaitP99),
			TableDuration(a.WaitMax),
			strconv.Itoa(a.StateBytes),
			strconv.FormatFloat(a.NsPerDecision, 'f', 1, 64),
		})
	}
	header, rows = appendChainColumns(r, header, rows)
	header, rows = appendKeyColumns(r, header, rows)
	return header, rows
}

// TableNumber prints a limit for a table cell as the terminal's table
// does (report.html's table uses it too).
func TableNumber(x float64) string { return fmtTableNumber(x) }

// fmtTableNumber prints a limit (or an overshoot) for a table cell with one decimal, or, when
// that would be long or read 0.0 (from 1e15 up, below 0.05), in four
// significant digits with an exponent: 1e+300, 1e-07.
func fmtTableNumber(x float64) string {
	if a := math.Abs(x); a != 0 && (a >= 1e15 || a < 0.05) {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// appendKeyColumns adds "keys hurt" and "innocent hurt" (keys rejected at
// least once, and those of them never over the nominal limit) to the run
// table when a row limits per key; rows without keys get "-".
func appendKeyColumns(r *Result, header []string, rows [][]string) ([]string, [][]string) {
	keyed := false
	for i := range r.Algorithms {
		keyed = keyed || r.Algorithms[i].Keys != nil
	}
	if !keyed {
		return header, rows
	}
	header = append(header, "keys hurt", "innocent hurt")
	for i := range rows {
		k := r.Algorithms[i].Keys
		if k == nil {
			rows[i] = append(rows[i], "-", "-")
			continue
		}
		rows[i] = append(rows[i], itoa(k.KeysHurt), itoa(k.InnocentKeysHurt))
	}
	return header, rows
}

// TableDuration prints a measured duration for a table cell to four
// significant digits (119.8ms, not 119.832576ms; 1.235s; 60ms); 0 is "0".
func TableDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	a := d
	if a < 0 {
		a = -a
	}
	unit := time.Duration(1)
	for p := time.Duration(10000); p <= a; p *= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}

// LowerBound marks a number that is only a lower bound: "≥102".
const LowerBound = "≥"

// TuneTable returns the terminal table of a tune run: one row per sample
// count that ran (skipped ones are left out; their Skipped says why), the
// measured overshoot beside the smooth bound 1 + 1/N. The time per decision
// is left to tune.csv: at this scale it is noise.
func TuneTable(t *TuneResult) (header []string, rows [][]string) {
	header = []string{
		"N", "bucket", "passed", "pass %", "max/" + shortDur(t.Window),
		"overshoot", "smooth bound", "peak/" + shortDur(t.Bin), "state B",
	}
	for _, row := range t.Rows {
		if row.Skipped != "" {
			continue
		}
		maxw := itoa(row.MaxWindowPassed)
		over := strconv.FormatFloat(row.Overshoot, 'f', 3, 64)
		if row.LateAdmissions > 0 {
			maxw, over = LowerBound+maxw, LowerBound+over
		}
		rows = append(rows, []string{
			strconv.Itoa(row.SampleCount),
			TableDuration(row.Bucket),
			itoa(row.Passed),
			pctCell(row.Passed, row.Arrived),
			maxw,
			over,
			strconv.FormatFloat(row.SmoothBound, 'f', 3, 64),
			itoa(row.PeakBinPassed),
			strconv.Itoa(row.StateBytes),
		})
	}
	return header, rows
}

// ShortDuration prints a duration as the table headers do (max/1s,
// peak/50ms).
func ShortDuration(d time.Duration) string { return shortDur(d) }

// shortDur prints a duration compactly: 0, 50ms, 1s, 1.5ms.
func shortDur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}
