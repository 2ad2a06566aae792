package scenarios

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
// vhost is the virtual host a line may start with (Apache's
// vhost_combined "%v:%p %h ...", nginx's "$host $remote_addr ..."): empty
// on a line without it.
var (
	combinedFields = []string{"ip", "user", "method", "path", "status", "vhost", "agent", "referer"}
	commonFields   = combinedFields[:6]
)

const (
	fIP = iota
	fUser
	fMethod
	fPath
	fStatus
	fVhost
	fAgent
	fReferer
	nCLF
)

// jsonTimeFields are the fields a JSON-lines log's time is looked for in
// when --time-field is not given. The first nStartFields name the
// request's start (Traefik's StartUTC and StartLocal, Envoy's start_time,
// %START_TIME%) and win when present; among the others the most precise
// on the sampled line wins, ties in this order (see pickTimeField).
var jsonTimeFields = []string{"StartUTC", "start_time", "StartLocal", "time", "timestamp", "ts", "@timestamp", "msec", "time_iso8601", "time_local", "date"}

const nStartFields = 3

// Bad-line policies (--bad-lines) and time modes (--time).
const (
	BadLinesFail = "fail"
	BadLinesSkip = "skip"
	TimeEnd      = "end"
	TimeStart    = "start"
)

// MaxFirstBad is how many skipped lines LogInfo.FirstBad names.
const MaxFirstBad = 5

// sampleLines is how many non-blank lines auto detection and the choice
// of a JSON log's time field read (within the first logBuffer bytes).
const sampleLines = 200

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
	// BadLines is BadLinesFail ("" too: a line that does not parse is an
	// error naming it) or BadLinesSkip (skipped and counted).
	BadLines string
	// Sort replays the lines in time order (equal times in line order)
	// through a bounded external sort; without it a line earlier than the
	// one before is an error naming it.
	Sort bool
	// Time is TimeEnd ("" too: the time the log wrote) or TimeStart: the
	// logged time minus the request's duration ($request_time), for logs
	// written when a request ends. TimeStart implies Sort.
	Time string
	// Context, when set, stops ScanLog's pass and Sort's reading of the
	// whole log (checked every few thousand lines) once it is done: its
	// error is the stream's.
	Context context.Context
	// Keep has ScanLog keep the arrivals it reads (LogInfo.Kept) when the
	// trace is small enough (see Kept).
	Keep bool
	// Kept, from ScanLog, has OpenLog replay those arrivals instead of
	// reading the file, the first time it is called.
	Kept *Kept
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
	// BadLines counts the lines skipped under BadLinesSkip; FirstBad names
	// the first MaxFirstBad of them ("file:line: reason").
	BadLines int64
	FirstBad []string
	// NonRequests counts a JSON log's entries that are not requests (no
	// request field, see isRequestField), skipped.
	NonRequests int64
	// TimeField is the JSON field the times were read from.
	TimeField string
	// Duration names where TimeStart read each request's duration ("" for
	// TimeEnd, or when the time field is already the start).
	Duration string
	// Sorted is set when the lines are replayed in time order (Sort);
	// OutOfOrder then counts the lines earlier than the one before them.
	Sorted     bool
	OutOfOrder int64
	// Empty counts, per --key field in order, the requests whose value is
	// empty, absent or "-".
	Empty []int64
	// Kept holds the arrivals read, for OpenLog (LogOptions.Kept), when
	// LogOptions.Keep asked for them and they were kept; nil otherwise.
	Kept *Kept
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
		// Inflated on a goroutine of its own (gunzip.go), beside the parsing.
		agz := newAsyncGunzip(gz)
		in.closer = append(in.closer, agz)
		in.br = bufio.NewReaderSize(agz, logBuffer)
	}
	return in, nil
}

// DetectFormat tells a trace's format from a sample of its first lines
// (one line or many): "" when it is none of them. The first non-blank line
// decides CSV (the header t_ms) and JSON lines ('{'), and so do most
// sampled lines starting with '{' (a log whose first line is junk or
// cut); otherwise the sample
// is a combined or common log when any of its lines parses as one, and
// combined when any parsed line has the referer and user agent (a log may
// mix both shapes, as Apache's may). A line starting with nginx's $msec
// makes every line start with it (the first line decides).
func DetectFormat(sample []byte) string {
	lines := sampleOf(sample)
	if len(lines) == 0 {
		return ""
	}
	first := bytes.TrimSpace(lines[0])
	switch {
	case bytes.HasPrefix(first, []byte(TraceHeader)):
		return FormatCSV
	case len(first) > 0 && first[0] == '{':
		return FormatJSONL
	}
	objects := 0
	for _, l := range lines {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] == '{' {
			objects++
		}
	}
	if 2*objects > len(lines) {
		return FormatJSONL // most lines are objects: the others are bad lines
	}
	s := &logStream{}
	s.msec = hasMsecPrefix(lines[0])
	var rec clfRecord
	format := ""
	for _, l := range lines {
		if s.parseCLF(l, &rec) != "" {
			continue
		}
		if rec.combined {
			return FormatCombined
		}
		format = FormatCommon
	}
	return format
}

// sampleOf splits the first sampleLines non-blank lines of b, without
// line breaks or a byte-order mark. A last line without a line break is
// left out when earlier lines exist (it may be cut by the sample's end).
func sampleOf(b []byte) [][]byte {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var lines [][]byte
	for len(b) > 0 && len(lines) < sampleLines {
		line := b
		i := bytes.IndexByte(b, '\n')
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
			if len(lines) > 0 {
				break
			}
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
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

// peekSample is the start of the input (up to logBuffer bytes), not
// consumed.
func peekSample(br *bufio.Reader) []byte {
	b, _ := br.Peek(logBuffer)
	return b
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
	if k := o.Kept.take(); k != nil {
		return k, nil
	}
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
	sample := peekSample(in.br)
	if format == FormatAuto {
		format = DetectFormat(sample)
		switch {
		case format != "":
		case bytes.ContainsAny(first, "[\"{"):
			what := "line"
			if n := len(sampleOf(sample)); n > 1 {
				what = fmt.Sprintf("%d lines", n)
			}
			return nil, fmt.Errorf("%s:1: cannot tell the trace's format from its first %s (the first is %q); give --trace-format csv, combined, common or jsonl", name, what, clip(string(first)))
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
		case o.Sort:
			return nil, errors.New("--sort applies to access logs; a CSV trace's steps back are clock steps for the limiters (sort the file by t_ms to replay it in order)")
		case o.Time == TimeStart:
			return nil, errors.New("--time start applies to access logs; a CSV trace's t_ms is each request's arrival")
		}
		t := newTrace(in.br, name)
		t.closer = in
		return t, nil
	}
	if o.TimeField != "" && format != FormatJSONL {
		return nil, fmt.Errorf("--time-field applies to JSON-lines logs; the %s format's time is its [time] field (or $msec first)", format)
	}
	switch o.BadLines {
	case "", BadLinesFail, BadLinesSkip:
	default:
		return nil, fmt.Errorf("--bad-lines %q is unknown; use fail (a line that does not parse stops the run) or skip (skipped and counted)", o.BadLines)
	}
	switch o.Time {
	case "", TimeEnd, TimeStart:
	default:
		return nil, fmt.Errorf("--time %q is unknown; use end (the time the log wrote) or start (that time minus the request's duration, $request_time)", o.Time)
	}
	s := &logStream{name: name, in: in, format: format, keys: NewKeyTable(), user: -1, whole: true,
		skipBad: o.BadLines == BadLinesSkip, startTime: o.Time == TimeStart, allowBack: o.Sort || o.Time == TimeStart, ctx: o.Context}
	if !o.Origin.IsZero() {
		s.origin, s.hasOrigin = o.Origin.UnixNano(), true
	}
	if err := s.bindFields(o); err != nil {
		return nil, err
	}
	lines := sampleOf(sample)
	if format != FormatJSONL && len(lines) > 0 {
		// The first line decides whether every line starts with $msec.
		s.msec = hasMsecPrefix(lines[0])
	}
	if format == FormatJSONL {
		if err := s.sampleJSON(lines, o); err != nil {
			return nil, err
		}
	}
	if s.allowBack {
		return newSortedLog(s), nil
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
	keep := o.Keep
	o.Keep, o.Kept = false, nil
	st, err := OpenLog(path, name, o)
	if err != nil {
		return LogInfo{}, err
	}
	defer st.Close()
	info := LogInfo{}
	if t, ok := st.(*traceStream); ok {
		t.scanning = true // the pass interns no key, as for logs below
		var k *Kept
		if keep {
			k = t.keeper(path, name, o)
		}
		info.Format = FormatCSV
		info.Start, info.End, info.N, err = spanKeep(t, k, &t.keeping)
		if err == nil && info.N == 0 {
			err = fmt.Errorf("%s: the trace has no timestamps after the header; add one per line, in milliseconds", name)
		}
		info.Columns = t.Columns()
		if err == nil && t.keeping {
			info.Kept = k
		}
		return info, err
	}
	s, _ := st.(*logStream)
	if so, ok := st.(*sortedLog); ok {
		s = so.logStream // the scan needs no order, only the span
		info.Sorted = true
	}
	// The pass interns no key: its stream is closed at the end and
	// LogInfo holds no key, so the replay's stream interns them, once.
	// Interning every key twice was a third of a per-address log's
	// replay (issue 27). The empty counts read the fields themselves.
	// With Keep (and a log that is not sorted nor too large), it interns
	// them and keeps the arrivals for the replay instead (see Kept).
	s.scanning = true
	var k *Kept
	if keep && !info.Sorted {
		k = s.keeper(path, name, o)
	}
	info.Format = s.format
	info.Start, info.End, info.N, err = spanKeep(s, k, &s.keeping)
	if err != nil {
		return info, err
	}
	if info.N == 0 && s.nBad > 0 {
		return info, fmt.Errorf("%s: every line was skipped as bad (%d; the first: %s); check --trace-format", name, s.nBad, s.firstBad[0])
	}
	if info.N == 0 && s.nonRequests > 0 {
		return info, fmt.Errorf("%s: none of the log's %d entries is a request (none has a request field such as %s); check that it is an access log, or name its key with --key", name, s.nonRequests, strings.Join(requestFieldNames[:4], ", "))
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
	if s.keeping {
		// The replay's 0 is the earliest line: its times are the pass's
		// minus Start.
		k.shift, k.origin = info.Start, info.Origin.UnixNano()
		info.Kept = k
	}
	info.End -= info.Start
	info.Start = 0
	info.WholeSeconds = s.whole
	info.Columns = s.Columns()
	info.BadLines, info.FirstBad = s.nBad, s.firstBad
	info.NonRequests = s.nonRequests
	if s.format == FormatJSONL {
		info.TimeField = string(s.wanted[s.timeIdx])
	}
	info.Duration = s.durationName()
	info.Empty = s.empty
	info.OutOfOrder = s.back
	return info, nil
}

// keeper returns a Kept for the log's pass, and has the pass intern its
// keys, or nil when the log is likely too large to keep.
func (s *logStream) keeper(path, name string, o LogOptions) *Kept {
	if n := estimateLines(path, peekSample(s.in.br)); n < 0 || n > keepLines {
		return nil
	}
	k := &Kept{table: s.keys, cols: s.Columns(), keyCols: s.KeyColumns(), log: true, slots: len(s.slotOf), user: s.hasUser}
	for i := range k.src {
		k.src[i] = -1
	}
	// A column that reads the same field as an earlier one holds the same
	// id on every line (the first --key field is also the column key).
	for i, f := range s.slotOf {
		for j := 0; j < i; j++ {
			if s.slotOf[j] == f {
				k.src[i] = int8(j)
				break
			}
		}
	}
	if s.hasUser {
		for j, f := range s.slotOf {
			if f == s.user {
				k.src[MaxKeyColumns] = int8(j)
				break
			}
		}
	}
	k.reopen = func() (Stream, error) { return OpenLog(path, name, o) }
	s.keeping = true
	return k
}

// spanKeep is span, keeping every arrival in k (when not nil) while
// *keeping holds; once k is full it stops keeping (and the stream stops
// interning: *keeping is the stream's flag).
func spanKeep(st Stream, k *Kept, keeping *bool) (start, end time.Duration, n int64, err error) {
	if k == nil {
		*keeping = false
	}
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		if n == 0 || a.At < start {
			start = a.At
		}
		if n == 0 || a.At > end {
			end = a.At
		}
		n++
		if *keeping && !k.add(&a) {
			*keeping = false
			k.chunks = nil
		}
	}
	return start, end, n, st.Err()
}

// logStream reads an access log lazily, one line per Next.
type logStream struct {
	name      string
	in        *input
	format    string
	msec      bool // each line starts with $msec
	line      int
	err       error
	done      bool
	scanning  bool // ScanLog's pass: times before the first line are fine
	keeping   bool // ScanLog's pass keeps the arrivals: it interns the keys
	skipBad   bool // --bad-lines skip
	startTime bool // --time start
	allowBack bool // lines may step back (a sortedLog reads this stream)
	noNL      bool // the line read has no line break (the file's last)
	ctx       context.Context

	nBad        int64
	firstBad    []string
	nonRequests int64
	empty       []int64 // per --key field: lines whose value is empty or "-"
	prevLine    int     // the line number of the previous arrival
	prevAbs     int64
	markers     bool       // jsonl: the sample has request fields, so entries without one are not requests
	durIdx      int        // jsonl: index in wanted of the duration field (--time start), -1
	wpath       [][][]byte // jsonl: wanted split at its dots
	nFields     int        // jsonl: wanted[nTime:nFields] are the --key and --user fields
	isReq       bool       // jsonl: the line has a request field
	firstDone   bool       // jsonl: first holds the first line's fields

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
	rest     []byte // what follows the byte count, or the user agent
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
	s.empty = make([]int64, len(o.Keys))
	s.durIdx = -1
	if s.format == FormatJSONL {
		s.nFields = len(s.wanted)
		if s.startTime {
			for _, d := range jsonDurationFields {
				s.wanted = append(s.wanted, []byte(d))
			}
		}
		for _, w := range s.wanted {
			s.wpath = append(s.wpath, bytes.Split(w, []byte{'.'}))
		}
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
	for i := s.nTime; i < s.nFields; i++ {
		if !s.seen[i] {
			flag := "--key"
			if s.hasUser && i == s.user {
				flag = "--user"
			}
			return fmt.Errorf("%s %q is a field of no line of %s; use one of the fields the first line has: %s", flag, s.wanted[i], s.name, printable(strings.Join(s.first, ", ")))
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

// readLine returns the next non-blank line, without its line break. A
// line longer than the buffer is an error, or under --bad-lines skip a
// bad line read through to its end.
func (s *logStream) readLine() ([]byte, bool) {
	for {
		line, err := s.in.br.ReadSlice('\n')
		if len(line) > 0 || err == nil {
			s.line++
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			n := len(line)
			if !s.skipBad {
				s.fail("the line is longer than %d bytes; check that the file is an access log (or skip such lines with --bad-lines skip)", n)
				return nil, false
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = s.in.br.ReadSlice('\n')
				n += len(line)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				s.fail("cannot read the log (%v); check the file (a .gz file must be whole)", err)
				return nil, false
			}
			s.noNL = false
			s.bad(fmt.Sprintf("the line is longer than %d bytes", logBuffer))
			continue
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
		s.noNL = err != nil
		line = bytes.TrimRight(line, "\r\n")
		if s.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) > 0 {
			return line, true
		}
	}
}

// bad handles a line that does not parse: under --bad-lines skip it is
// counted (the first MaxFirstBad named) and bad returns true; otherwise
// the stream fails with msg and the option. A last line without a line
// break that does not parse was cut (the log was copied while written).
func (s *logStream) bad(msg string) bool {
	if s.noNL {
		msg = "the last line has no line break and does not parse, so it was cut (" + msg + ")"
	}
	if !s.skipBad {
		s.fail("%s; or skip and count such lines with --bad-lines skip", msg)
		return false
	}
	s.nBad++
	if len(s.firstBad) < MaxFirstBad {
		s.firstBad = append(s.firstBad, fmt.Sprintf("%s:%d: %s", s.name, s.line, oneLine(msg)))
	}
	return true
}

// Line verdicts of parseLine.
const (
	lineOK = iota
	lineBad
	lineNotRequest
)

// parseLine reads one line into a and its absolute time into abs.
func (s *logStream) parseLine(line []byte, abs *int64, a *Arrival) (int, string) {
	if s.format == FormatJSONL {
		return s.jsonLine(line, abs, a)
	}
	rec := &s.clf
	if msg := s.parseCLF(line, rec); msg != "" {
		return lineBad, msg
	}
	ns, msg := s.clfTime(rec)
	if msg != "" {
		return lineBad, msg
	}
	if s.startTime {
		rt, ok := trailingSeconds(rec.rest) // after the byte count (common) or the agent: never the byte count
		if !ok {
			return lineBad, "no $request_time (seconds, e.g. 0.125) at the end of the line, which --time start subtracts; append $request_time to the log_format, or replay with --time end"
		}
		ns -= rt
	}
	*abs = ns
	if !s.scanning || s.keeping { // ScanLog's pass keeps no key unless it keeps the arrivals (see its interning note)
		for i, f := range s.slotOf {
			a.Keys[i] = s.internCLF(f, rec)
		}
		if s.hasUser {
			a.User = s.internCLF(s.user, rec)
		}
	}
	for i := range s.empty {
		if v := rec.f[s.slotOf[i+s.keyShift()]]; len(v) == 0 || len(v) == 1 && v[0] == '-' {
			s.empty[i]++
		}
	}
	return lineOK, ""
}

// keyShift is 1 when the column "key" is added before the --key fields.
func (s *logStream) keyShift() int { return len(s.cols) - len(s.empty) }

// trailingSeconds reads the line's last field as seconds with a fraction
// (nginx's $request_time, "0.125"; Apache's %T is whole seconds) and
// returns nanoseconds.
func trailingSeconds(line []byte) (int64, bool) {
	line = bytes.TrimRight(line, " \t")
	sp := bytes.LastIndexAny(line, " \t")
	if sp < 0 {
		return 0, false // no field after the format's last
	}
	tok := line[sp+1:]
	if len(tok) > 0 && tok[0] == '"' && tok[len(tok)-1] == '"' && len(tok) > 2 {
		tok = tok[1 : len(tok)-1]
	}
	ns, _, ok := decimalNanos(tok, int64(time.Second))
	return ns, ok && sp >= 0
}

func (s *logStream) Next() (Arrival, bool) {
	var abs int64
	var a Arrival
	for {
		if s.done {
			return Arrival{}, false
		}
		line, ok := s.readLine()
		if !ok {
			return Arrival{}, false
		}
		if s.line&8191 == 0 && s.stopped() {
			return Arrival{}, false
		}
		a = Arrival{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, User: NoKey}
		verdict, msg := s.parseLine(line, &abs, &a)
		if s.done {
			return Arrival{}, false // a fatal error of the stream
		}
		if verdict == lineOK {
			break
		}
		if verdict == lineNotRequest {
			s.nonRequests++
			continue
		}
		if !s.bad(msg) {
			return Arrival{}, false
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
	if s.prevLine > 0 && a.At < s.prev {
		if !s.allowBack {
			return s.fail("this line's time (%s) is %v before line %d's (%s): the log is not in time order (merged logs, or a slow request logged after later ones); replay it in time order with --sort",
				fmtAbs(abs), s.prev-a.At, s.prevLine, fmtAbs(s.prevAbs))
		}
		s.back++
		s.largest = max(s.largest, s.prev-a.At)
	}
	s.prev, s.prevLine, s.prevAbs = a.At, s.line, abs
	return a, true
}

// fmtAbs prints Unix nanoseconds as an RFC 3339 time.
func fmtAbs(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

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
	// [vhost] address ident user, space-separated, before " [". The
	// address may be a list ("203.0.113.7, 10.0.0.1", an X-Forwarded-For
	// header logged in its place): its first element, the client, is the
	// ip. Another field before it is the virtual host (Apache's
	// vhost_combined "%v:%p", nginx's "$host").
	// The [time] is the first '[' after a space; a '[' inside a field
	// (an escape sequence in an address) does not start it.
	br := -1
	for q := p; ; {
		i := bytes.IndexByte(line[q:], '[')
		if i < 0 {
			break
		}
		if q+i > p && line[q+i-1] == ' ' {
			br = q + i - p
			break
		}
		q += i + 1
	}
	if br <= 0 {
		return "no [time] after the client address, ident and user fields; check --trace-format (combined: ip - user [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 512 \"-\" \"agent\")"
	}
	head := line[p : p+br]
	if len(head) == 0 || head[len(head)-1] != ' ' {
		return "no client address, ident and user before the [time]; check --trace-format (combined: ip - user [time] \"request\" status bytes \"referer\" \"agent\")"
	}
	// Up to 8 tokens, as [start, end) pairs; a token ending in ',' joins
	// the next into one address list.
	var tk [8][2]int
	n := 0
	for i := 0; i < len(head); {
		if head[i] == ' ' {
			i++
			continue
		}
		j := len(head)
		if e := bytes.IndexByte(head[i:], ' '); e >= 0 {
			j = i + e
		}
		if n > 0 && head[tk[n-1][1]-1] == ',' {
			tk[n-1][1] = j
		} else {
			if n == len(tk) {
				return "too many fields before the [time] (at most a virtual host, the client address, ident and user); check --trace-format"
			}
			tk[n] = [2]int{i, j}
			n++
		}
		i = j
	}
	switch {
	case n < 3:
		return "no client address, ident and user before the [time]; check --trace-format (combined: ip - user [time] \"request\" status bytes \"referer\" \"agent\")"
	case n > 4:
		return fmt.Sprintf("%d fields before the [time], where the format has [vhost] address ident user; check --trace-format", n)
	}
	rec.f[fVhost] = nil
	if n == 4 {
		rec.f[fVhost] = head[tk[0][0]:tk[0][1]]
	}
	addr := head[tk[n-3][0]:tk[n-3][1]]
	for c, b := range addr { // an address list: its first element
		if b == ',' {
			addr = bytes.TrimSpace(addr[:c])
			break
		}
	}
	if len(addr) == 0 {
		return "the client address list starts with ','; check --trace-format"
	}
	rec.f[fIP] = addr
	rec.f[fUser] = head[tk[n-1][0]:tk[n-1][1]]
	p += br
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
	rec.rest = line[p:]
	if p+1 < len(line) && line[p+1] == '"' {
		// A quote after the byte count starts the combined format's
		// referer and user agent: both must be closed (a line cut in the
		// middle of them is bad, not a common line).
		ref, np, ok := quoted(line, p+2)
		if !ok || np+1 >= len(line) || line[np] != ' ' || line[np+1] != '"' {
			return "the referer after the byte count is not followed by a quoted user agent; fix or remove the line"
		}
		agent, end, ok := quoted(line, np+2)
		if !ok {
			return "the user agent has no closing quote; fix or remove the line"
		}
		rec.f[fReferer], rec.f[fAgent] = ref, agent
		rec.combined = true
		rec.rest = line[end:]
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

// clfTime converts the line's time to Unix nanoseconds, or says what is
// wrong.
func (s *logStream) clfTime(rec *clfRecord) (int64, string) {
	if s.msec {
		ns, frac, ok := decimalNanos(rec.time, int64(time.Second))
		if !ok {
			return 0, fmt.Sprintf("the first field %q is not nginx's $msec (seconds with a fraction, e.g. 1700000000.123); start every line with it, or with none", clip(string(rec.time)))
		}
		if frac {
			s.whole = false
		}
		return ns, ""
	}
	tl := rec.time
	if len(tl) == s.lastTLn && bytes.Equal(tl, s.lastTL[:s.lastTLn]) {
		return s.lastTLs * int64(time.Second), ""
	}
	sec, ok := parseTimeLocal(tl)
	if ok && !inNanoRange(sec, 0) {
		return 0, fmt.Sprintf("the time [%s] %s", printable(clip(string(tl))), outsideNanos)
	}
	if !ok {
		// Apache's %{...}t.%{msec_frac}t ([10/Oct/2000:13:55:36.123 -0700])
		// or a number ([1700000000.123], [1700000000123]).
		ns, frac, ok := parseTimeLocalFrac(tl)
		if ok && ns == outOfNanos {
			return 0, fmt.Sprintf("the time [%s] %s", printable(clip(string(tl))), outsideNanos)
		}
		if !ok {
			var msg string
			if ns, frac, msg = jsonTime(tl); msg != "" || len(tl) == 0 || tl[0] < '0' || tl[0] > '9' || bytes.IndexByte(tl, '/') >= 0 {
				return 0, fmt.Sprintf("the time [%s] is not [day/Mon/year:hour:minute:second zone], e.g. [10/Oct/2000:13:55:36 -0700] (or with .123 after the seconds, or seconds since 1970); fix the line", printable(clip(string(tl))))
			}
		}
		if frac {
			s.whole = false
		}
		return ns, ""
	}
	if len(tl) <= len(s.lastTL) {
		s.lastTLn = copy(s.lastTL[:], tl)
		s.lastTLs = sec
	}
	return sec * int64(time.Second), ""
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
	// "0." and the fraction's 1 to 9 digits, on the stack: appending to a
	// []byte("0.") allocated once per line.
	var fb [11]byte
	fb[0], fb[1] = '0', '.'
	n := copy(fb[2:], b[21:21+sp])
	f, _, _ := decimalNanos(fb[:2+n], int64(time.Second))
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

// printable is s when every rune is printable (strconv.IsPrint), else s
// quoted with Go's escapes and without its outer quotes: text from a log
// in a message cannot move the terminal's cursor or clear its screen.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// stopped reports, during ScanLog's pass or a sort's read, whether the
// context is done, and then ends the stream with its error.
func (s *logStream) stopped() bool {
	if s.ctx == nil || !s.scanning && !s.allowBack {
		return false
	}
	if err := s.ctx.Err(); err != nil {
		s.err, s.done = err, true
		return true
	}
	return false
}
