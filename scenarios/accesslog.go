package scenarios

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// Trace formats (--trace-format). Auto tells them apart by the first line:
// the header t_ms is a CSV trace, '{' a JSON-lines log, anything else must
// parse as a combined or common access log.
const (
	FormatAuto     = "auto"
	FormatCSV      = "csv"
	FormatCombined = "combined"
	FormatCommon   = "common"
	FormatJSONL    = "jsonl"
)

// TraceFormats lists the formats in documentation order.
var TraceFormats = []string{FormatAuto, FormatCSV, FormatCombined, FormatCommon, FormatJSONL}

// Fields of the combined and common formats that --key and --user name.
// A value "-" (the log's "absent") of user, agent or referer is no key.
var (
	combinedFields = []string{"ip", "user", "method", "path", "status", "agent", "referer"}
	commonFields   = combinedFields[:5]
)

const (
	fIP = iota
	fUser
	fMethod
	fPath
	fStatus
	fAgent
	fReferer
	nCLF
)

// jsonTimeFields are the fields a JSON-lines log's time is looked for in,
// in order, when --time-field is not given.
var jsonTimeFields = []string{"time", "timestamp", "ts", "@timestamp", "msec", "time_iso8601", "time_local", "date"}

// logBuffer is the read buffer of an access log, and so the longest line.
const logBuffer = 256 << 10

// LogOptions say how to read a trace file (see OpenLog).
type LogOptions struct {
	// Format is one of TraceFormats ("" means auto).
	Format string
	// Keys are the fields that become key columns, in order (--key). The
	// first is also the column "key", the name a spec's key= defaults to.
	Keys []string
	// User is the field that fills Arrival.User (--user), "" for none.
	User string
	// TimeField is a JSON-lines log's time field; "" looks for the usual
	// names (time, timestamp, ts, @timestamp, msec, ...).
	TimeField string
	// Origin is the absolute time the stream's 0 stands for. ScanLog finds
	// it (the earliest line); zero means the first line's time.
	Origin time.Time
}

// LogInfo is what ScanLog learns from a whole trace file.
type LogInfo struct {
	// Format is the format read (never auto).
	Format string
	// Start and End are the smallest and largest arrival times; N is the
	// number of arrivals.
	Start, End time.Duration
	N          int64
	// Origin is the absolute time of 0 for an access log (the earliest
	// line), zero for a CSV trace.
	Origin time.Time
	// WholeSeconds is set when no timestamp of the log has a fraction of a
	// second: every request of a second then arrives at its start.
	WholeSeconds bool
	// Columns are the columns the arrivals carry.
	Columns Columns
}

// input is an opened trace file, gunzipped when it starts with gzip's
// magic bytes.
type input struct {
	br     *bufio.Reader
	closer []io.Closer
}

func (in *input) Close() error {
	var err error
	for i := len(in.closer) - 1; i >= 0; i-- {
		if e := in.closer[i].Close(); err == nil {
			err = e
		}
	}
	in.closer = nil
	return err
}

func openInput(path, name string) (*input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the trace (%s); check the path", name, oneLine(err.Error()))
	}
	in := &input{br: bufio.NewReaderSize(f, logBuffer), closer: []io.Closer{f}}
	if magic, _ := in.br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(in.br)
		if err != nil {
			in.Close()
			return nil, fmt.Errorf("%s: the file starts like gzip but cannot be read (%s); check that it is a whole .gz file", name, oneLine(err.Error()))
		}
		in.closer = append(in.closer, gz)
		in.br = bufio.NewReaderSize(gz, logBuffer)
	}
	return in, nil
}

// DetectFormat tells a trace's format from its first line: "" when it is
// none of them.
func DetectFormat(first []byte) string {
	first = bytes.TrimPrefix(first, []byte("\ufeff"))
	first = bytes.TrimSpace(first)
	switch {
	case bytes.HasPrefix(first, []byte(TraceHeader)):
		return FormatCSV
	case len(first) > 0 && first[0] == '{':
		return FormatJSONL
	}
	s := &logStream{}
	s.msec = hasMsecPrefix(first)
	var rec clfRecord
	if s.parseCLF(first, &rec) != "" {
		return ""
	}
	if rec.combined {
		return FormatCombined
	}
	return FormatCommon
}

// firstLine peeks at the first non-blank line of the input (in its first
// 64 kB) without consuming it, without a byte-order mark.
func firstLine(br *bufio.Reader) []byte {
	b, _ := br.Peek(64 << 10)
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	for {
		line := b
		i := bytes.IndexByte(b, '\n')
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 || i < 0 {
			return line
		}
	}
}

// OpenLog opens a trace file of any format (gzipped or not) as a stream.
// A CSV trace is read as NewTraceReader reads it; --key, --user and
// --time-field do not apply to it (it names its columns in its header).
//
// An access log's arrivals are at the lines' times minus o.Origin, in file
// order (a line earlier than the one before is a clock step back). The
// combined and common formats have whole-second times ([$time_local])
// unless each line starts with nginx's $msec (seconds with a fraction,
// "1700000000.123 10.0.0.1 - - [...] ..."); a JSON-lines log's time is an
// RFC 3339 string, a $time_local string, or a number read by its
// magnitude: below 1e11 seconds (with any fraction), below 1e14
// milliseconds, below 1e17 microseconds, else nanoseconds.
func OpenLog(path, name string, o LogOptions) (Stream, error) {
	in, err := openInput(path, name)
	if err != nil {
		return nil, err
	}
	st, err := newLog(in, name, o)
	if err != nil {
		in.Close()
		return nil, err
	}
	return st, nil
}

// newLog builds the stream for in's format.
func newLog(in *input, name string, o LogOptions) (Stream, error) {
	format := o.Format
	if format == "" {
		format = FormatAuto
	}
	if !slices.Contains(TraceFormats, format) {
		return nil, fmt.Errorf("--trace-format %q is unknown; use one of %s", format, strings.Join(TraceFormats, ", "))
	}
	first := firstLine(in.br)
	if format == FormatAuto {
		format = DetectFormat(first)
		switch {
		case format != "":
		case bytes.ContainsAny(first, "[\"{"):
			return nil, fmt.Errorf("%s:1: cannot tell the trace's format from its first line %q; give --trace-format csv, combined, common or jsonl", name, clip(string(first)))
		case o.TimeField != "":
			// Only a JSON-lines log has a time field: its parser says
			// what is wrong with the line.
			format = FormatJSONL
		case len(o.Keys) > 0 || o.User != "":
			// Only an access log has --key and --user fields: a first
			// line that is not a log line (nor t_ms, nor JSON) gets the
			// log parser's error, with its line.
			format = FormatCombined
		default:
			// A first line that does not look like a log line (no quote,
			// bracket or brace: an empty file, a bare timestamp, a wrong
			// header) gets the CSV reader's own explanation.
			format = FormatCSV
		}
	}
	if format == FormatCSV {
		switch {
		case len(o.Keys) > 0:
			return nil, errors.New("--key applies to access logs; a CSV trace names its key columns in its header (t_ms,key or t_ms,ip,route)")
		case o.User != "":
			return nil, errors.New("--user applies to access logs; a CSV trace gives users in a user column (t_ms,key,user)")
		case o.TimeField != "":
			return nil, errors.New("--time-field applies to JSON-lines logs; a CSV trace's time is its t_ms column")
		}
		t := newTrace(in.br, name)
		t.closer = in
		return t, nil
	}
	if o.TimeField != "" && format != FormatJSONL {
		return nil, fmt.Errorf("--time-field applies to JSON-lines logs; the %s format's time is its [time] field (or $msec first)", format)
	}
	s := &logStream{name: name, in: in, format: format, keys: NewKeyTable(), user: -1, whole: true}
	if !o.Origin.IsZero() {
		s.origin, s.hasOrigin = o.Origin.UnixNano(), true
	}
	if err := s.bindFields(o); err != nil {
		return nil, err
	}
	return s, nil
}

// ScanLog reads a whole trace file once, validating every line, and
// returns what it holds. A trace without arrivals is an error, and so is a
// JSON-lines --key or --user field that no line has. Call it before
// streaming, so bad input is caught before any output is written; pass its
// Origin to OpenLog so the earliest line is at 0.
func ScanLog(path, name string, o LogOptions) (LogInfo, error) {
	o.Origin = time.Time{}
	st, err := OpenLog(path, name, o)
	if err != nil {
		return LogInfo{}, err
	}
	defer st.Close()
	info := LogInfo{}
	if t, ok := st.(*traceStream); ok {
		info.Format = FormatCSV
		info.Start, info.End, info.N, err = span(t)
		if err == nil && info.N == 0 {
			err = fmt.Errorf("%s: the trace has no timestamps after the header; add one per line, in milliseconds", name)
		}
		info.Columns = t.Columns()
		return info, err
	}
	s := st.(*logStream)
	s.scanning = true
	info.Format = s.format
	info.Start, info.End, info.N, err = span(s)
	if err != nil {
		return info, err
	}
	if info.N == 0 {
		return info, fmt.Errorf("%s: the log has no requests; check the file (blank lines are skipped)", name)
	}
	if err := s.checkSeen(); err != nil {
		return info, err
	}
	info.Origin = time.Unix(0, s.origin+int64(info.Start)).UTC()
	// Start and End are each within ±MaxTraceMillis of the first line, so
	// End − Start (up to twice that) fits a uint64 but not an int64.
	if span := uint64(info.End) - uint64(info.Start); span > MaxTraceMillis*uint64(time.Millisecond) {
		return info, fmt.Errorf("%s: the log spans %v, more than the lab can replay (%d ms); cut it into shorter logs", name, fmtSpan(span), int64(MaxTraceMillis))
	}
	info.End -= info.Start
	info.Start = 0
	info.WholeSeconds = s.whole
	info.Columns = s.Columns()
	return info, nil
}

// logStream reads an access log lazily, one line per Next.
type logStream struct {
	name      string
	in        *input
	format    string
	msec      bool // each line starts with $msec
	msecKnown bool
	line      int
	err       error
	done      bool
	scanning  bool // ScanLog's pass: times before the first line are fine

	origin    int64 // Unix ns of time 0
	hasOrigin bool
	prev      time.Duration
	back      int64
	largest   time.Duration
	whole     bool // no timestamp so far had a fraction of a second

	keys    *KeyTable
	cols    []string // KeyColumns
	slotOf  []int    // per key column: index into fields (CLF) or wanted (JSON)
	user    int      // index of the user field, -1 for none
	hasUser bool

	// combined/common: the last [time] text and its Unix seconds.
	lastTL  [32]byte
	lastTLn int
	lastTLs int64
	clf     clfRecord
	wanted  [][]byte // jsonl: time field candidates first, then key and user fields
	nTime   int      // jsonl: how many of wanted are time candidates
	timeIdx int      // jsonl: the time field chosen on line 1 (-1 before)
	vals    [][]byte
	seen    []bool
	first   []string // jsonl: the field names of the first line
	scratch []byte
}

// clfRecord holds one combined/common line's fields (slices of the line).
type clfRecord struct {
	f        [nCLF][]byte
	time     []byte
	combined bool
}

func (s *logStream) fail(format string, args ...any) (Arrival, bool) {
	s.err = fmt.Errorf("%s:%d: %s", s.name, s.line, oneLine(fmt.Sprintf(format, args...)))
	s.done = true
	return Arrival{}, false
}

// bindFields checks --key and --user against the format's fields.
func (s *logStream) bindFields(o LogOptions) error {
	fields := combinedFields
	if s.format == FormatCommon {
		fields = commonFields
	}
	index := func(flag, f string) (int, error) {
		if s.format == FormatJSONL {
			if f == "" {
				return 0, fmt.Errorf("%s is empty; name a field of the log's JSON objects, e.g. %s remote_addr", flag, flag)
			}
			s.wanted = append(s.wanted, []byte(f))
			return len(s.wanted) - 1, nil
		}
		i := slices.Index(fields, f)
		if i < 0 {
			return 0, fmt.Errorf("%s %q is not a field of the %s format; use one of %s", flag, f, s.format, strings.Join(fields, ", "))
		}
		return i, nil
	}
	if s.format == FormatJSONL {
		names := jsonTimeFields
		if o.TimeField != "" {
			names = []string{o.TimeField}
		}
		for _, n := range names {
			s.wanted = append(s.wanted, []byte(n))
		}
		s.nTime, s.timeIdx = len(names), -1
	}
	if len(o.Keys) > 0 && o.Keys[0] != "key" {
		s.cols = append(s.cols, "key")
	}
	if n := len(o.Keys) + len(s.cols); n > MaxKeyColumns {
		return fmt.Errorf("--key names %d fields; give at most %d (the first is also the key column \"key\", the one a spec's key= names by default)", len(o.Keys), MaxKeyColumns-len(s.cols))
	}
	for i, k := range o.Keys {
		if slices.Contains(o.Keys[:i], k) {
			return fmt.Errorf("--key %q is given twice; give each field once", k)
		}
		j, err := index("--key", k)
		if err != nil {
			return err
		}
		if i == 0 && len(s.cols) == 1 {
			s.slotOf = append(s.slotOf, j)
		}
		s.cols = append(s.cols, k)
		s.slotOf = append(s.slotOf, j)
	}
	if o.User != "" {
		j, err := index("--user", o.User)
		if err != nil {
			return err
		}
		s.user, s.hasUser = j, true
	}
	s.vals = make([][]byte, len(s.wanted))
	s.seen = make([]bool, len(s.wanted))
	return nil
}

// checkSeen reports a JSON --key or --user field that no line had.
func (s *logStream) checkSeen() error {
	if s.format != FormatJSONL {
		return nil
	}
	for i := s.nTime; i < len(s.wanted); i++ {
		if !s.seen[i] {
			flag := "--key"
			if s.hasUser && i == s.user {
				flag = "--user"
			}
			return fmt.Errorf("%s %q is a field of no line of %s; use one of the fields the first line has: %s", flag, s.wanted[i], s.name, strings.Join(s.first, ", "))
		}
	}
	return nil
}

// KeyColumns names the key columns: "key" (the first --key field), then
// every --key field.
func (s *logStream) KeyColumns() []string { return s.cols }

// KeyTable is the table the key and user ids point into.
func (s *logStream) KeyTable() *KeyTable { return s.keys }

// Columns says what the log's arrivals carry.
func (s *logStream) Columns() Columns { return Columns{Keys: s.cols, User: s.hasUser} }

// StepsBack returns how many lines so far were earlier than the one before
// them and the largest such step.
func (s *logStream) StepsBack() (int64, time.Duration) { return s.back, s.largest }

// Origin is the absolute time of the stream's 0.
func (s *logStream) Origin() time.Time { return time.Unix(0, s.origin).UTC() }

func (s *logStream) Err() error { return s.err }

func (s *logStream) Close() error {
	s.done = true
	if s.in != nil {
		in := s.in
		s.in = nil
		return in.Close()
	}
	return nil
}

// readLine returns the next non-blank line, without its line break.
func (s *logStream) readLine() ([]byte, bool) {
	for {
		line, err := s.in.br.ReadSlice('\n')
		if len(line) > 0 || err == nil {
			s.line++
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			s.fail("the line is longer than %d bytes; check that the file is an access log", len(line))
			return nil, false
		}
		if err != nil && !errors.Is(err, io.EOF) {
			if s.line == 0 {
				s.line = 1
			}
			s.fail("cannot read the log (%v); check the file (a .gz file must be whole)", err)
			return nil, false
		}
		if len(line) == 0 && err != nil {
			s.done = true
			return nil, false
		}
		line = bytes.TrimRight(line, "\r\n")
		if s.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) > 0 {
			return line, true
		}
	}
}

func (s *logStream) Next() (Arrival, bool) {
	if s.done {
		return Arrival{}, false
	}
	line, ok := s.readLine()
	if !ok {
		return Arrival{}, false
	}
	var abs int64
	a := Arrival{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, User: NoKey}
	if s.format == FormatJSONL {
		if !s.jsonLine(line, &abs, &a) {
			return Arrival{}, false
		}
	} else {
		rec := &s.clf
		if !s.msecKnown {
			// The first line decides whether every line starts with $msec.
			s.msec, s.msecKnown = hasMsecPrefix(line), true
		}
		if msg := s.parseCLF(line, rec); msg != "" {
			return s.fail("%s", msg)
		}
		if s.format == FormatCombined && !rec.combined {
			return s.fail("the line ends after the byte count, without the referer and user agent of the combined format; give --trace-format common")
		}
		var ok bool
		if abs, ok = s.clfTime(rec); !ok {
			return Arrival{}, false
		}
		for i, f := range s.slotOf {
			a.Keys[i] = s.internCLF(f, rec)
		}
		if s.hasUser {
			a.User = s.internCLF(s.user, rec)
		}
	}
	if !s.hasOrigin {
		s.origin, s.hasOrigin = abs, true
	}
	// abs and origin are int64 nanoseconds since 1970 of any sign, so
	// their difference may pass the int64 range: it fits a uint64 in two's
	// complement, and its sign is the comparison's.
	rel := abs - s.origin
	if (rel < 0) != (abs < s.origin) {
		rel = math.MaxInt64 // a distance past the range, either way
		if abs < s.origin {
			rel = math.MinInt64
		}
	}
	if rel < 0 && !s.scanning {
		return s.fail("this line's time is before time 0 (%s); read the log with ScanLog's origin, or put the earliest line first", time.Unix(0, s.origin).UTC().Format(time.RFC3339Nano))
	}
	if rel > MaxTraceMillis*int64(time.Millisecond) || rel < -MaxTraceMillis*int64(time.Millisecond) {
		d := uint64(abs) - uint64(s.origin)
		if abs < s.origin {
			d = uint64(s.origin) - uint64(abs)
		}
		return s.fail("this line is %s from the first, more than the lab can replay (%d ms); cut the log into shorter ones", fmtSpan(d), int64(MaxTraceMillis))
	}
	a.At = time.Duration(rel)
	a.Clock = a.At
	if s.line > 1 && a.At < s.prev {
		s.back++
		s.largest = max(s.largest, s.prev-a.At)
	}
	s.prev = a.At
	return a, true
}

func (s *logStream) internCLF(f int, rec *clfRecord) int32 {
	v := rec.f[f]
	if (f == fUser || f == fAgent || f == fReferer) && len(v) == 1 && v[0] == '-' {
		return NoKey
	}
	return s.keys.InternBytes(v)
}

// hasMsecPrefix reports whether a line starts with nginx's $msec: digits,
// one '.', digits, then a space (an IPv4 address has three dots).
func hasMsecPrefix(line []byte) bool {
	sp := bytes.IndexByte(line, ' ')
	if sp < 3 {
		return false
	}
	tok := line[:sp]
	dot := bytes.IndexByte(tok, '.')
	return dot > 0 && dot < len(tok)-1 && bytes.Count(tok, []byte{'.'}) == 1 && allDigits(string(tok[:dot])) && allDigits(string(tok[dot+1:]))
}

// parseCLF splits a combined or common line into rec. It returns "" or the
// problem, with its fix.
func (s *logStream) parseCLF(line []byte, rec *clfRecord) string {
	p := 0
	rec.time = nil
	rec.combined = false
	if s.msec {
		if !hasMsecPrefix(line) {
			tok, _, _ := bytes.Cut(line, []byte{' '})
			return fmt.Sprintf("the first field %q is not nginx's $msec (seconds with a fraction, e.g. 1700000000.123) as on the first line; start every line with it, or none", clip(string(tok)))
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return "the line has no fields after the time; each line is $msec, then the combined or common format"
		}
		rec.time = line[:sp]
		p = sp + 1
	}
	// ip, ident, user: three space-separated tokens before " [".
	tok := func(what string) ([]byte, string) {
		sp := bytes.IndexByte(line[p:], ' ')
		if sp <= 0 {
			return nil, "no " + what + " field where the format has one; check --trace-format (combined: ip - user [time] \"request\" status bytes \"referer\" \"agent\")"
		}
		v := line[p : p+sp]
		p += sp + 1
		return v, ""
	}
	var msg string
	if rec.f[fIP], msg = tok("client address"); msg != "" {
		return msg
	}
	if _, msg = tok("ident"); msg != "" {
		return msg
	}
	if rec.f[fUser], msg = tok("user"); msg != "" {
		return msg
	}
	if p >= len(line) || line[p] != '[' {
		return "no [time] after the user field; check --trace-format (combined: ip - user [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 512 \"-\" \"agent\")"
	}
	end := bytes.IndexByte(line[p:], ']')
	if end < 0 {
		return "the [time] field has no closing ']'; fix or remove the line"
	}
	tl := line[p+1 : p+end]
	p += end + 1
	if !s.msec {
		rec.time = tl
	}
	if p+1 >= len(line) || line[p] != ' ' || line[p+1] != '"' {
		return "no quoted \"request\" after the [time]; check --trace-format"
	}
	p += 2
	req, np, ok := quoted(line, p)
	if !ok {
		return "the \"request\" has no closing quote; fix or remove the line"
	}
	p = np
	// "METHOD PATH PROTOCOL"; a malformed request ("-") is its method.
	if sp := bytes.IndexByte(req, ' '); sp >= 0 {
		rec.f[fMethod] = req[:sp]
		rest := req[sp+1:]
		if sp2 := bytes.LastIndexByte(rest, ' '); sp2 >= 0 {
			rest = rest[:sp2]
		}
		rec.f[fPath] = rest
	} else {
		rec.f[fMethod], rec.f[fPath] = req, nil
	}
	if p >= len(line) || line[p] != ' ' {
		return "no status after the \"request\"; check --trace-format"
	}
	p++
	sp := bytes.IndexByte(line[p:], ' ')
	if sp <= 0 {
		return "no status and byte count after the \"request\"; check --trace-format"
	}
	rec.f[fStatus] = line[p : p+sp]
	if !allDigits(string(rec.f[fStatus])) {
		return fmt.Sprintf("status %q is not a number; check --trace-format", clip(string(rec.f[fStatus])))
	}
	p += sp + 1
	// bytes: up to a space or the end.
	if sp = bytes.IndexByte(line[p:], ' '); sp < 0 {
		sp = len(line) - p
	}
	if sp == 0 {
		return "no byte count after the status; check --trace-format"
	}
	p += sp
	rec.f[fReferer], rec.f[fAgent] = nil, nil
	if p+1 < len(line) && line[p+1] == '"' {
		ref, np, ok := quoted(line, p+2)
		if ok && np+1 < len(line) && line[np] == ' ' && line[np+1] == '"' {
			agent, _, ok2 := quoted(line, np+2)
			if ok2 {
				rec.f[fReferer], rec.f[fAgent] = ref, agent
				rec.combined = true
			}
		}
	}
	return ""
}

// quoted returns the text of a quoted field whose text starts at p (after
// the opening quote), skipping escaped quotes (\"), and the position after
// the closing quote.
func quoted(line []byte, p int) ([]byte, int, bool) {
	i := p
	for {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			return nil, 0, false
		}
		j := i + q
		bs := 0
		for k := j - 1; k >= p && line[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return line[p:j], j + 1, true
		}
		i = j + 1
	}
}

// clfTime converts the line's time to Unix nanoseconds.
func (s *logStream) clfTime(rec *clfRecord) (int64, bool) {
	if s.msec {
		ns, frac, ok := decimalNanos(rec.time, int64(time.Second))
		if !ok {
			s.fail("the first field %q is not nginx's $msec (seconds with a fraction, e.g. 1700000000.123); start every line with it, or with none", clip(string(rec.time)))
			return 0, false
		}
		if frac {
			s.whole = false
		}
		return ns, true
	}
	tl := rec.time
	if len(tl) == s.lastTLn && bytes.Equal(tl, s.lastTL[:s.lastTLn]) {
		return s.lastTLs * int64(time.Second), true
	}
	sec, ok := parseTimeLocal(tl)
	if ok && !inNanoRange(sec, 0) {
		s.fail("the time [%s] %s", clip(string(tl)), outsideNanos)
		return 0, false
	}
	if !ok {
		// Apache's %{...}t.%{msec_frac}t ([10/Oct/2000:13:55:36.123 -0700])
		// or a number ([1700000000.123], [1700000000123]).
		ns, frac, ok := parseTimeLocalFrac(tl)
		if ok && ns == outOfNanos {
			s.fail("the time [%s] %s", clip(string(tl)), outsideNanos)
			return 0, false
		}
		if !ok {
			var msg string
			if ns, frac, msg = jsonTime(tl); msg != "" || len(tl) == 0 || tl[0] < '0' || tl[0] > '9' || bytes.IndexByte(tl, '/') >= 0 {
				s.fail("the time [%s] is not [day/Mon/year:hour:minute:second zone], e.g. [10/Oct/2000:13:55:36 -0700] (or with .123 after the seconds, or seconds since 1970); fix the line", clip(string(tl)))
				return 0, false
			}
		}
		if frac {
			s.whole = false
		}
		return ns, true
	}
	if len(tl) <= len(s.lastTL) {
		s.lastTLn = copy(s.lastTL[:], tl)
		s.lastTLs = sec
	}
	return sec * int64(time.Second), true
}

// parseTimeLocalFrac parses $time_local with a fraction of a second after
// the seconds, "10/Oct/2000:13:55:36.123 -0700" (Apache's
// %{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %{%z}t), to Unix nanoseconds.
func parseTimeLocalFrac(b []byte) (ns int64, frac bool, ok bool) {
	if len(b) < 28 || b[20] != '.' {
		return 0, false, false
	}
	sp := bytes.IndexByte(b[21:], ' ')
	if sp < 1 || sp > 9 || !allDigits(string(b[21:21+sp])) {
		return 0, false, false
	}
	var whole [26]byte
	copy(whole[:20], b[:20])
	if copy(whole[20:], b[21+sp:]) != 6 || len(b[21+sp:]) != 6 {
		return 0, false, false
	}
	sec, ok := parseTimeLocal(whole[:])
	if !ok {
		return 0, false, false
	}
	f, _, _ := decimalNanos(append([]byte("0."), b[21:21+sp]...), int64(time.Second))
	if !inNanoRange(sec, f) {
		return outOfNanos, true, true
	}
	return sec*int64(time.Second) + f, true, true
}

// outOfNanos is what parseTimeLocalFrac returns, with ok, for a time the
// int64 nanoseconds cannot hold (every other time is above it).
const outOfNanos = math.MinInt64

// outsideNanos ends the error of such a time.
const outsideNanos = "is outside the years 1678 to 2262, the times since 1970 that the lab's int64 nanoseconds hold; fix the line"

// inNanoRange reports whether sec seconds and sub nanoseconds (0 ≤ sub <
// 1e9) since 1970 fit an int64 of nanoseconds (1677-09-21 to 2262-04-11),
// above outOfNanos; a $time_local year may be anything from 0000 to 9999.
func inNanoRange(sec, sub int64) bool {
	return sec > math.MinInt64/int64(time.Second) && sec <= (math.MaxInt64-sub)/int64(time.Second)
}

// fmtSpan prints a non-negative distance in nanoseconds that may pass the
// int64 range.
func fmtSpan(d uint64) string {
	if d > math.MaxInt64 {
		return "more than 292 years"
	}
	return time.Duration(d).String()
}

var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseTimeLocal parses Common Log Format's time, "10/Oct/2000:13:55:36
// -0700", to Unix seconds.
func parseTimeLocal(b []byte) (int64, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' || (b[21] != '+' && b[21] != '-') {
		return 0, false
	}
	num := func(i, n int) int64 {
		var v int64
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int64(c-'0')
		}
		return v
	}
	day, year, hh, mm, ss, zh, zm := num(0, 2), num(7, 4), num(12, 2), num(15, 2), num(18, 2), num(22, 2), num(24, 2)
	month := -1
	for i, m := range months {
		if string(b[3:6]) == m {
			month = i + 1
			break
		}
	}
	if month < 0 || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 || zh < 0 || zh > 23 || zm < 0 || zm > 59 ||
		day < 1 || day > int64(daysIn(month, year)) {
		return 0, false
	}
	off := (zh*60 + zm) * 60
	if b[21] == '-' {
		off = -off
	}
	return daysFromCivil(year, int64(month), day)*86400 + hh*3600 + mm*60 + ss - off, true
}

func daysIn(month int, year int64) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// decimalNanos parses "digits[.digits]" as a number of units (unit
// nanoseconds each, e.g. time.Second) and returns nanoseconds, rounding
// past the nanosecond half up, and whether it had a fraction.
func decimalNanos(b []byte, unit int64) (ns int64, frac bool, ok bool) {
	intPart, fr, hasDot := bytes.Cut(b, []byte{'.'})
	if len(intPart) == 0 || !allDigits(string(intPart)) || hasDot && (len(fr) == 0 || !allDigits(string(fr))) {
		return 0, false, false
	}
	limit := (math.MaxInt64 - unit) / unit // v·unit plus a fraction below unit fits
	var v int64
	for _, c := range intPart {
		d := int64(c - '0')
		if v > (limit-d)/10 {
			return 0, false, false
		}
		v = v*10 + d
	}
	ns = v * unit
	scale := unit
	for _, c := range fr {
		if scale == 1 {
			if c >= '5' {
				ns++ // round half up at the nanosecond
			}
			break
		}
		scale /= 10
		ns += int64(c-'0') * scale
	}
	return ns, hasDot, true
}
