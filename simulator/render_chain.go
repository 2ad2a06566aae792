package simulator

import (
	"bufio"
	"io"
	"strconv"
)

// Renderers for what evented rows add: responses and breakers. A run
// without them writes exactly what it wrote before.

// HasResponses reports whether any row has responses (a downstream, a
// trace with rt_ms, or a breaker).
func HasResponses(r *Result) bool {
	for i := range r.Algorithms {
		if c := r.Algorithms[i].Chain; c != nil && c.Responses {
			return true
		}
	}
	return false
}

// HasBreakers reports whether any row has a circuit breaker.
func HasBreakers(r *Result) bool {
	for i := range r.Algorithms {
		if c := r.Algorithms[i].Chain; c != nil && c.Breaker != "" {
			return true
		}
	}
	return false
}

// SeriesResponseColumns are the columns series.csv adds when the run has
// responses: the responses that completed in the bin, by exit time.
const SeriesResponseColumns = ",errors,timeouts,rt_mean_ms,rt_max_ms"

func seriesHeader(responses bool) string {
	if !responses {
		return SeriesHeader
	}
	return SeriesHeader[:len(SeriesHeader)-1] + SeriesResponseColumns + "\n"
}

func appendResponseBin(b []byte, bin *Bin) []byte {
	b = append(b, ',')
	b = strconv.AppendInt(b, bin.Errors, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, bin.Timeouts, 10)
	b = append(b, ',')
	mean := 0.0
	if bin.Completed > 0 {
		mean = ms(bin.RTSum) / float64(bin.Completed)
	}
	b = append(b, fmtRatio(mean)...)
	b = append(b, ',')
	return append(b, fmtMs(bin.RTMax)...)
}

// chainSummaryJS is what summary.json adds for an evented row.
type chainSummaryJS struct {
	Breaker      string  `json:"breaker,omitempty"`
	BreakerOpens int64   `json:"breaker_opens"`
	OpenMs       jsonNum `json:"open_ms"`
	Probes       int64   `json:"probes"`
	Completed    int64   `json:"completed"`
	Errors       int64   `json:"errors"`
	Timeouts     int64   `json:"timeouts"`
	RTP50Ms      jsonNum `json:"rt_p50_ms"`
	RTP99Ms      jsonNum `json:"rt_p99_ms"`
	RTMaxMs      jsonNum `json:"rt_max_ms"`
	*adaptiveSummaryJS
}

func chainSummary(c *ChainResult) *chainSummaryJS {
	if c == nil {
		return nil
	}
	return &chainSummaryJS{
		Breaker:      c.Breaker,
		BreakerOpens: c.Opens,
		OpenMs:       jsonNum(fmtMs(c.OpenTime)),
		Probes:       c.Probes,
		Completed:    c.Completed,
		Errors:       c.Errors,
		Timeouts:     c.Timeouts,
		RTP50Ms:      jsonNum(fmtMs(c.RTP50)),
		RTP99Ms:      jsonNum(fmtMs(c.RTP99)),
		RTMaxMs:      jsonNum(fmtMs(c.RTMax)),

		adaptiveSummaryJS: adaptiveSummary(c),
	}
}

// appendChainColumns adds "opens", "errors" and "rt p99" to the run table
// when some row has responses.
func appendChainColumns(r *Result, header []string, rows [][]string) ([]string, [][]string) {
	if !HasResponses(r) {
		return header, rows
	}
	header = append(header, "opens", "errors", "rt p99")
	for i := range rows {
		c := r.Algorithms[i].Chain
		if c == nil {
			rows[i] = append(rows[i], "-", "-", "-")
			continue
		}
		opens := "-"
		if c.Breaker != "" {
			opens = itoa(c.Opens)
		}
		rows[i] = append(rows[i], opens, itoa(c.Errors), TableDuration(c.RTP99))
	}
	return appendAdaptiveColumns(r, header, rows)
}

// appendAdaptiveColumns adds, for a run with an adaptive row, what the
// closed loop is judged by: "goodput" (passes completed without error or
// timeout, attempts included), "attempts/req" (the retry amplification),
// "retries" and "timeouts".
func appendAdaptiveColumns(r *Result, header []string, rows [][]string) ([]string, [][]string) {
	if !HasAdaptive(r) {
		return header, rows
	}
	header = append(header, "goodput", "attempts/req", "retries", "timeouts")
	for i := range rows {
		c := r.Algorithms[i].Chain
		if c == nil {
			rows[i] = append(rows[i], "-", "-", "-", "-")
			continue
		}
		attempts := "-"
		if c.Requests > 0 {
			attempts = strconv.FormatFloat(float64(c.Requests+c.Retries)/float64(c.Requests), 'f', 2, 64)
		}
		rows[i] = append(rows[i], itoa(c.Goodput), attempts, itoa(c.Retries), itoa(c.Timeouts))
	}
	return header, rows
}

// BreakerHeader is the header line of WriteBreakerCSV.
const BreakerHeader = "algorithm,t_ns,from,to\n"

// WriteBreakerCSV writes one row per state change of every row's breaker,
// rows in the result's order; t_ns is the limiters' clock at the change,
// as in decisions.csv.
func WriteBreakerCSV(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(BreakerHeader)
	var b []byte
	for _, a := range r.Algorithms {
		if a.Chain == nil {
			continue
		}
		name := csvField(a.Spec)
		for _, t := range a.Chain.Transitions {
			b = append(b[:0], name...)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(t.Clock), 10)
			b = append(b, ',')
			b = append(b, t.From.String()...)
			b = append(b, ',')
			b = append(b, t.To.String()...)
			b = append(b, '\n')
			bw.Write(b)
		}
	}
	return bw.Flush()
}
