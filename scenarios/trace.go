package scenarios

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// TraceHeader is the required first line of a trace file.
const TraceHeader = "t_ms"

// maxTraceLine bounds one line of a trace file.
const maxTraceLine = 64 * 1024

// traceStream reads a trace lazily, one line per Next.
type traceStream struct {
	name   string
	sc     *bufio.Scanner
	closer io.Closer
	line   int
	err    error
	done   bool

	// prev is the last timestamp; back counts the timestamps below the one
	// before them, largest is the largest such step.
	prev    time.Duration
	back    int64
	largest time.Duration
	// cols is the number of columns: 1 (t_ms), 2 (t_ms,rt_ms) or 3
	// (t_ms,rt_ms,error).
	cols int

	// named is set by a header with named columns (trace_columns.go);
	// keys interns its key and user cells; cpu and load1 hold the last
	// values of those columns; scratch unquotes cells.
	named      *namedColumns
	keys       *KeyTable
	cpu, load1 float32
	scratch    []byte
	// scanning is set for a validating pass (ScanLog, TraceSpan) whose
	// stream is closed after it: its key and user cells are checked but
	// not interned (Arrival.Keys and User stay NoKey), as the replay's
	// stream interns them once.
	scanning bool
	// keeping is set when that pass keeps the arrivals (ScanLog with
	// LogOptions.Keep): it interns the cells then.
	keeping bool
}

// StepsBack returns how many timestamps so far were below the one before
// them (each a clock step back for the limiters) and the largest step.
func (t *traceStream) StepsBack() (n int64, largest time.Duration) { return t.back, t.largest }

// OpenTrace opens a trace file (see NewTraceReader). Close closes the file.
func OpenTrace(path string) (Stream, error) { return OpenTraceAs(path, path) }

// OpenTraceAs opens the trace file at path and names it name in errors
// ("stdin:3: ..." for a copy of standard input).
func OpenTraceAs(path, name string) (Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the trace (%s); check the path", name, oneLine(err.Error()))
	}
	t := newTrace(f, name)
	t.closer = f
	return t, nil
}

// NewTraceReader streams a trace from r; name is used in errors.
//
// A trace is CSV with one column: the first line is the header t_ms, then
// one arrival per line, in file order, as decimal milliseconds from the
// start of the recording ("1000.25"). Timestamps need not increase: a
// smaller one is the limiters' clock going backwards; At and Clock are both
// the timestamp. More than six decimals are rounded to the nearest
// nanosecond (halves up). A final newline is fine; any other blank line is
// an error, and so are signs, exponents, NaN, Inf and a missing header.
// Errors stop the stream and are reported by Err as one line,
// "NAME:LINE: problem; fix".
func NewTraceReader(r io.Reader, name string) Stream {
	return newTrace(r, name)
}

func newTrace(r io.Reader, name string) *traceStream {
	// The scanner reads as much as its buffer holds at a time: start at
	// the largest line, so a trace is read in 64 KiB reads, not 4 KiB ones.
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, maxTraceLine), maxTraceLine)
	return &traceStream{name: name, sc: sc, keys: NewKeyTable()}
}

func (t *traceStream) fail(format string, args ...any) (Arrival, bool) {
	t.err = fmt.Errorf("%s:%d: %s", t.name, t.line, oneLine(fmt.Sprintf(format, args...)))
	t.done = true
	return Arrival{}, false
}

// scan reads the next line; false at the end or on a read error.
func (t *traceStream) scan() bool {
	if t.sc.Scan() {
		t.line++
		return true
	}
	if err := t.sc.Err(); err != nil {
		t.line++
		if errors.Is(err, bufio.ErrTooLong) {
			t.fail("the line is longer than %d bytes; write one timestamp per line", maxTraceLine)
		} else {
			t.fail("cannot read the trace (%v); check the file", err)
		}
	}
	t.done = true
	return false
}

func (t *traceStream) Next() (Arrival, bool) {
	if t.done {
		return Arrival{}, false
	}
	if t.line == 0 && !t.readHeader() {
		return Arrival{}, false
	}
	if !t.scan() {
		return Arrival{}, false
	}
	if t.named != nil {
		return t.namedLine(t.sc.Bytes())
	}
	// The line stays in the scanner's buffer: no string per line, and
	// millisBytes reads the digits from the bytes; only a line it does not
	// take goes through parseMillis, which formats the error.
	s := bytes.TrimSpace(t.sc.Bytes())
	if len(s) == 0 {
		return t.fail("blank line; remove it (one timestamp per line; only a final newline may follow the last)")
	}
	if t.cols > 1 {
		return t.responseLine(s)
	}
	d, ok := millisBytes(s)
	if !ok {
		var err error
		if d, err = parseMillis(string(s)); err != nil {
			return t.fail("%v", err)
		}
	}
	if t.line > 2 && d < t.prev {
		t.back++
		t.largest = max(t.largest, t.prev-d)
	}
	t.prev = d
	return Arrival{At: d, Clock: d}, true
}

// readHeader reads and checks the header line; false (with Err set) when
// it is missing or wrong. Next calls it first; KeyColumns and Columns call
// it so a trace's columns are known before its first arrival.
func (t *traceStream) readHeader() bool {
	if !t.scan() {
		if t.err == nil {
			t.line = 1
			t.fail("the trace is empty; start it with the header line %s, then one timestamp in milliseconds per line", TraceHeader)
			return false
		}
		return false
	}
	h := strings.TrimSpace(strings.TrimPrefix(t.sc.Text(), "\ufeff"))
	t.cols = responseColumns(h)
	if t.cols == 0 {
		nc, ok, err := parseNamedHeader(h)
		if err != nil {
			t.fail("%v", err)
			return false
		}
		t.named = nc
		if ok {
			t.cols = 1
		}
	}
	if t.cols == 0 && h != TraceHeader {
		if _, err := parseMillis(h); err == nil {
			t.fail("the first line is %q, not the header %s; add a first line %s", clip(h), TraceHeader, TraceHeader)
			return false
		}
		t.fail("the header is %q, expected %s; make the first line exactly %s, or %s,rt_ms,error for recorded responses", clip(h), TraceHeader, TraceHeader, TraceHeader)
		return false
	}
	return true
}

func (t *traceStream) Err() error { return t.err }

func (t *traceStream) Close() error {
	t.done = true
	if t.closer != nil {
		c := t.closer
		t.closer = nil
		return c.Close()
	}
	return nil
}

// clip shortens a value quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// MaxTraceMillis bounds a trace's timestamps: 7,000,000,000,000 ms, about
// 221 years (Unix milliseconds until the year 2191). The limiters count
// nanoseconds in an int64 on Sentinel's clock (leaky-bucket's nanosecond
// path adds an epoch of 1.6e18 ns), and the run adds windows, waits and
// bins to the timestamps; every such sum stays below the int64 range only
// up to here, so a later timestamp is rejected instead of wrapping.
const MaxTraceMillis = 7_000_000_000_000

// parseMillis converts decimal milliseconds ("1000.25") to an exact
// duration, without going through floating point: "0.1" is exactly
// 100000 ns. Digits past the sixth decimal are rounded to the nearest
// nanosecond, halves up.
//
// Its errors are built only when s is bad (quoting s and formatting a
// message per good line was half of a trace's reading time, issue 27);
// the readers try millisBytes on the bytes first and call it only when that
// fails.
func parseMillis(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("empty timestamp; write milliseconds such as 1000.25")
	}
	q := strconv.Quote(clip(s))
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan", "inf", "infinity":
		return 0, fmt.Errorf("%s is not a time; write a finite number of milliseconds such as 1000.25", q)
	}
	if s[0] == '-' {
		return 0, fmt.Errorf("%s is negative; timestamps are milliseconds from 0 on, so shift the trace to start at 0 or later", q)
	}
	if strings.ContainsAny(s, ",;\t ") {
		return 0, fmt.Errorf("%s has more than one column; write one timestamp per line", q)
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if !allDigits(intPart) || intPart == "" || (hasDot && !allDigits(frac)) || (hasDot && frac == "") {
		if strings.ContainsAny(s, "eE") && !strings.ContainsAny(strings.ToLower(s), "abcdfghijklmnopqrstuvwxyz") {
			return 0, fmt.Errorf("%s uses an exponent; write the number out, e.g. 1000 or 1000.25", q)
		}
		return 0, fmt.Errorf("%s is not a decimal number of milliseconds; write digits with at most one '.', e.g. 1000.25", q)
	}
	intPart = strings.TrimLeft(intPart, "0")
	tooLarge := func() error {
		return fmt.Errorf("%s is past the last time the lab can replay, %d ms (about 221 years from 0, Unix time until 2191): the limiters' nanosecond clocks would wrap; shift the trace nearer to 0", q, int64(MaxTraceMillis))
	}
	if len(intPart) > 19 {
		return 0, tooLarge()
	}
	ms, err := strconv.ParseInt("0"+intPart, 10, 64)
	if err != nil || ms > MaxTraceMillis {
		return 0, tooLarge()
	}
	ns := ms * int64(time.Millisecond)
	var sub int64
	for i := 0; i < 6; i++ {
		sub *= 10
		if i < len(frac) {
			sub += int64(frac[i] - '0')
		}
	}
	if len(frac) > 6 && frac[6] >= '5' {
		sub++ // round half up
	}
	if ms == MaxTraceMillis && sub > 0 {
		return 0, tooLarge()
	}
	return time.Duration(ns + sub), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// TraceSpan reads a whole trace file once, validating every line, and
// returns its smallest and largest timestamps and the number of arrivals.
// A trace without arrivals is an error. Call it before streaming, so bad
// input is caught before any output is written.
func TraceSpan(path string) (start, end time.Duration, n int64, err error) {
	return TraceSpanAs(path, path)
}

// TraceSpanAs is TraceSpan naming the file name in errors.
func TraceSpanAs(path, name string) (start, end time.Duration, n int64, err error) {
	st, err := OpenTraceAs(path, name)
	if err != nil {
		return 0, 0, 0, err
	}
	defer st.Close()
	st.(*traceStream).scanning = true
	start, end, n, err = span(st)
	if err == nil && n == 0 {
		err = fmt.Errorf("%s: the trace has no timestamps after the header; add one per line, in milliseconds", name)
	}
	return start, end, n, err
}

// span drains a stream and returns the smallest and largest At and the
// count.
func span(st Stream) (start, end time.Duration, n int64, err error) {
	keeping := false
	return spanKeep(st, nil, &keeping)
}
