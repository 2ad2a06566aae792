package concurrent

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"time"
)

// Report is a whole bench: the machine, the configuration and every
// hammer's result, as bench.json holds it.
type Report struct {
	GOOS        string        `json:"goos"`
	GOARCH      string        `json:"goarch"`
	CPUs        int           `json:"cpus"`
	GOMAXPROCS  int           `json:"gomaxprocs"`
	GoVersion   string        `json:"go_version"`
	Limit       int           `json:"limit"`
	Window      string        `json:"window"`
	SampleCount int           `json:"sample_count"`
	Duration    string        `json:"duration"`
	Results     []BenchResult `json:"results"`
}

// NewReport describes this machine and c; the results are added by the
// caller.
func NewReport(c BenchConfig) *Report {
	return &Report{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(), Limit: c.Limit, Window: c.Window.String(), SampleCount: c.SampleCount,
		Duration: c.Duration.String(),
	}
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads bench.json.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CSVHeader is the header of bench.csv.
var CSVHeader = []string{"impl", "goroutines", "decisions", "passes", "blocks", "decisions_per_sec", "ns_per_decision",
	"p50_ns", "p99_ns", "max_ns", "max_window_passed", "max_aligned_passed", "limit", "overshoot", "aligned_overshoot", "cas_failures", "lock_misses", "yields"}

// WriteCSV writes one row per result under CSVHeader.
func WriteCSV(w io.Writer, results []BenchResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	d := func(x time.Duration) string { return i(int64(x)) }
	for _, r := range results {
		if err := cw.Write([]string{r.Impl, i(int64(r.Goroutines)), i(r.Decisions), i(r.Passes), i(r.Blocks),
			f(r.DecisionsPerSec, 0), f(r.NsPerDecision, 1), d(r.P50), d(r.P99), d(r.Max),
			i(r.MaxWindowPassed), i(r.MaxAlignedPassed), i(int64(r.Limit)), f(r.Overshoot, 4), f(r.AlignedOvershoot, 4), i(r.CASFailures), i(r.LockMisses), i(r.Yields)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Table returns the terminal table of results.
func Table(results []BenchResult) (header []string, rows [][]string) {
	header = []string{"impl", "goroutines", "decisions/s", "ns/decision", "p50", "p99", "max", "max window", "max aligned", "limit", "aligned/limit", "CAS fail", "lock miss", "yields"}
	for _, r := range results {
		rows = append(rows, []string{r.Impl, strconv.Itoa(r.Goroutines), humanRate(r.DecisionsPerSec),
			strconv.FormatFloat(r.NsPerDecision, 'f', 0, 64), shortNs(r.P50), shortNs(r.P99), shortNs(r.Max),
			strconv.FormatInt(r.MaxWindowPassed, 10), strconv.FormatInt(r.MaxAlignedPassed, 10), strconv.Itoa(r.Limit), strconv.FormatFloat(r.AlignedOvershoot, 'f', 3, 64) + "×",
			strconv.FormatInt(r.CASFailures, 10), strconv.FormatInt(r.LockMisses, 10), strconv.FormatInt(r.Yields, 10)})
	}
	return header, rows
}

// humanRate writes 12345678 as 12.3M.
func humanRate(x float64) string {
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 2, 64) + "G"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 2, 64) + "M"
	case x >= 1e3:
		return strconv.FormatFloat(x/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// shortNs writes a latency in ns, µs or ms.
func shortNs(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + "ms"
	case d >= 10*time.Microsecond:
		return strconv.FormatFloat(float64(d)/1e3, 'f', 0, 64) + "µs"
	case d >= time.Microsecond:
		return strconv.FormatFloat(float64(d)/1e3, 'f', 1, 64) + "µs"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}
