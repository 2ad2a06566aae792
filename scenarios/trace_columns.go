package scenarios

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Named columns of a trace. A header that starts with t_ms and names other
// columns in any order (t_ms,key,cost or t_ms,ip,route,user,rt_ms,error)
// gives each arrival:
//
//   - rt_ms: the response time of a pass (decimal milliseconds, as t_ms);
//     error (0 or 1) needs rt_ms beside it.
//   - cost: how many whole requests the line stands for, 1 or more
//     (empty: 1).
//   - user: the identity behind a shared key (interned into Arrival.User).
//   - priority: 0 or 1 (empty: 0), Sentinel's prioritized entry.
//   - cpu (0 to 1) and load1 (0 or more): the signals adaptive limiters
//     sample; each value holds from its line on, and an empty cell keeps
//     the value before it (0 before the first).
//   - any other name is a key column (key, ip, route, user_id, ...), at
//     most MaxKeyColumns of them, interned into Arrival.Keys in header
//     order; an empty cell is NoKey.
//
// A cell may be quoted as in RFC 4180 ("a,b" or "say ""hi"""), without
// line breaks; spaces around a cell are trimmed outside quotes. The headers
// t_ms, t_ms,rt_ms and t_ms,rt_ms,error keep their own reader (see
// trace_response.go).

// column kinds.
const (
	colKey uint8 = iota
	colRT
	colError
	colCost
	colUser
	colPriority
	colCPU
	colLoad1
)

// namedColumns are the columns of a header with names.
type namedColumns struct {
	header string  // as written, spaces removed, for errors
	kind   []uint8 // per column after t_ms
	slot   []int8  // key slot for colKey
	cols   Columns
}

var namedKinds = map[string]uint8{
	"rt_ms": colRT, "error": colError, "cost": colCost, "user": colUser,
	"priority": colPriority, "cpu": colCPU, "load1": colLoad1,
}

// parseNamedHeader reads a header whose first column is t_ms and that is
// not one of the fixed response headers. ok is false when the first column
// is not t_ms (the caller reports that with the classic wording).
func parseNamedHeader(h string) (nc *namedColumns, ok bool, err error) {
	names := strings.Split(h, ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
		if n := names[i]; len(n) >= 2 && n[0] == '"' && n[len(n)-1] == '"' {
			names[i] = n[1 : len(n)-1]
		}
	}
	if len(names) < 2 || names[0] != TraceHeader {
		return nil, false, nil
	}
	nc = &namedColumns{header: strings.Join(names, ",")}
	seen := map[string]int{TraceHeader: 1}
	for i, n := range names[1:] {
		col := i + 2
		if n == "" {
			return nil, true, fmt.Errorf("column %d of the header has no name; name every column: rt_ms, error, cost, user, priority, cpu, load1, or a key column such as key or ip", col)
		}
		if j, dup := seen[n]; dup {
			return nil, true, fmt.Errorf("column %q appears twice in the header (columns %d and %d); keep one", n, j, col)
		}
		seen[n] = col
		for k := 0; k < len(n); k++ {
			c := n[k]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
				return nil, true, fmt.Errorf("column name %q has the character %q; name columns with letters, digits, '_', '-' or '.'", clip(n), c)
			}
		}
		kind, known := namedKinds[n]
		if !known {
			kind = colKey
		}
		nc.kind = append(nc.kind, kind)
		nc.slot = append(nc.slot, int8(len(nc.cols.Keys)))
		switch kind {
		case colKey:
			nc.cols.Keys = append(nc.cols.Keys, n)
		case colRT:
			nc.cols.Response = true
		case colError:
			nc.cols.Error = true
		case colCost:
			nc.cols.Cost = true
		case colUser:
			nc.cols.User = true
		case colPriority:
			nc.cols.Priority = true
		case colCPU:
			nc.cols.CPU = true
		case colLoad1:
			nc.cols.Load1 = true
		}
	}
	if nc.cols.Error && !nc.cols.Response {
		return nil, true, fmt.Errorf("the header has an error column but no rt_ms; add rt_ms, the response time after which the call succeeded or failed")
	}
	if k := nc.cols.Keys; len(k) > MaxKeyColumns {
		return nil, true, fmt.Errorf("the header has %d key columns (%s); the lab carries at most %d, so drop the ones no limiter names (known columns: rt_ms, error, cost, user, priority, cpu, load1)", len(k), strings.Join(k, ", "), MaxKeyColumns)
	}
	return nc, true, nil
}

// KeyColumns names the trace's key columns in header order (nil: none).
func (t *traceStream) KeyColumns() []string {
	t.header()
	if t.named == nil {
		return nil
	}
	return t.named.cols.Keys
}

// KeyTable is the table the arrivals' key and user ids point into.
func (t *traceStream) KeyTable() *KeyTable { return t.keys }

// header reads the header now if nothing has been read yet.
func (t *traceStream) header() {
	if t.line == 0 && !t.done {
		t.readHeader()
	}
}

// Columns says what the trace's arrivals carry. Like KeyColumns, it reads
// the header if Next has not yet (a bad header then leaves Err set and no
// columns).
func (t *traceStream) Columns() Columns {
	t.header()
	if t.named != nil {
		return t.named.cols
	}
	return Columns{Response: t.cols >= 2, Error: t.cols == 3}
}

// cell splits the next comma-separated cell off line at pos. It returns the
// cell with spaces trimmed (unquoted, "" unescaped into t.scratch when
// needed), the position after its comma (len(line)+1 after the last) and
// false on an unterminated or malformed quote.
func (t *traceStream) cell(line []byte, pos int) ([]byte, int, bool) {
	i := pos
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i < len(line) && line[i] == '"' {
		t.scratch = t.scratch[:0]
		j := i + 1
		for {
			q := bytes.IndexByte(line[j:], '"')
			if q < 0 {
				return nil, 0, false
			}
			t.scratch = append(t.scratch, line[j:j+q]...)
			j += q + 1
			if j < len(line) && line[j] == '"' {
				t.scratch = append(t.scratch, '"')
				j++
				continue
			}
			break
		}
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j < len(line) && line[j] != ',' {
			return nil, 0, false
		}
		return t.scratch, j + 1, true
	}
	end := bytes.IndexByte(line[pos:], ',')
	next := pos + end + 1
	if end < 0 {
		end = len(line) - pos
		next = len(line) + 1
	}
	return bytes.TrimSpace(line[pos : pos+end]), next, true
}

// namedLine parses one line of a trace with named columns.
func (t *traceStream) namedLine(line []byte) (Arrival, bool) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return t.fail("blank line; remove it (one arrival per line; only a final newline may follow the last)")
	}
	nc := t.named
	want := len(nc.kind) + 1
	a := Arrival{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, User: NoKey, HasResponse: nc.cols.Response}
	pos := 0
	for col := 0; col < want; col++ {
		if pos > len(line) {
			return t.fail("%d columns where the header %s has %d; write one value per column, empty where unknown", col, nc.header, want)
		}
		c, next, ok := t.cell(line, pos)
		if !ok {
			return t.fail("column %d has an unterminated or misplaced quote; quote a whole cell, as \"a,b\", and double a quote inside it", col+1)
		}
		pos = next
		if col == 0 {
			d, err := cellMillis(c)
			if err != nil {
				return t.fail("t_ms: %v", err)
			}
			a.At, a.Clock = d, d
			continue
		}
		k := nc.kind[col-1]
		switch k {
		case colKey:
			if !t.scanning || t.keeping {
				a.Keys[nc.slot[col-1]] = t.keys.InternBytes(c)
			}
		case colUser:
			if !t.scanning || t.keeping {
				a.User = t.keys.InternBytes(c)
			}
		case colRT:
			rt, err := cellRT(c, a.At)
			if err != nil {
				return t.fail("rt_ms: %v", err)
			}
			a.RT = rt
		case colError:
			switch string(c) {
			case "0":
			case "1":
				a.Failed = true
			default:
				return t.fail("error is %q; write 0 (the call succeeded) or 1 (it failed)", clip(string(c)))
			}
		case colPriority:
			switch string(c) {
			case "", "0":
			case "1":
				a.Priority = true
			default:
				return t.fail("priority is %q; write 1 for a prioritized request, 0 or nothing for a normal one", clip(string(c)))
			}
		case colCost:
			if len(c) == 0 {
				break
			}
			n, err := strconv.ParseInt(string(c), 10, 32)
			if err != nil || n < 1 || c[0] == '+' {
				return t.fail("cost is %q; write a whole number of requests, 1 or more (empty means 1)", clip(string(c)))
			}
			a.Cost = int32(n)
		case colCPU, colLoad1:
			if len(c) == 0 {
				break
			}
			v, err := strconv.ParseFloat(string(c), 32)
			if k == colCPU {
				if err != nil || !(v >= 0 && v <= 1) {
					return t.fail("cpu is %q; write the CPU utilisation as a number from 0 to 1, e.g. 0.85 (empty keeps the value before)", clip(string(c)))
				}
				t.cpu = float32(v)
			} else {
				if err != nil || !(v >= 0) || math.IsInf(v, 0) {
					return t.fail("load1 is %q; write the one-minute load average as a number of 0 or more, e.g. 3.5 (empty keeps the value before)", clip(string(c)))
				}
				t.load1 = float32(v)
			}
		}
	}
	if pos <= len(line) {
		n := want + 1 + bytes.Count(line[pos:], []byte{','})
		return t.fail("%d columns where the header %s has %d; write one value per column (quote a value that holds a comma)", n, nc.header, want)
	}
	a.CPU, a.Load1 = t.cpu, t.load1
	if t.line > 2 && a.At < t.prev {
		t.back++
		t.largest = max(t.largest, t.prev-a.At)
	}
	t.prev = a.At
	return a, true
}

// cellMillis parses a t_ms cell: plain decimal digits on the fast path,
// anything else through parseMillis (and its errors).
func cellMillis(c []byte) (time.Duration, error) {
	if d, ok := millisBytes(c); ok {
		return d, nil
	}
	return parseMillis(string(c))
}

// fastMillis parses up to 13 digits, then optionally '.' and 1 to 6
// digits, at most MaxTraceMillis; false for anything else.
func fastMillis(c []byte) (time.Duration, bool) {
	if dot := bytes.IndexByte(c, '.'); dot >= 0 && len(c)-dot-1 > 6 {
		return 0, false
	}
	return millisBytes(c)
}

// millisBytes parses up to 13 digits, then optionally '.' and 1 or more
// digits (past the sixth rounded to the nearest nanosecond, halves up, as
// parseMillis does), at most MaxTraceMillis; false for anything else.
// It reads the bytes where they are and builds no error, so the t_ms
// readers call it first and parseMillis only for what it leaves
// (FuzzMillisBytes checks that both agree on what it takes).
func millisBytes(c []byte) (time.Duration, bool) {
	var ms int64
	i := 0
	for ; i < len(c) && c[i] >= '0' && c[i] <= '9'; i++ {
		ms = ms*10 + int64(c[i]-'0')
		if i >= 13 {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	var sub int64
	if i < len(c) {
		if c[i] != '.' || len(c)-i-1 < 1 {
			return 0, false
		}
		scale := int64(100000)
		for k, b := range c[i+1:] {
			if b < '0' || b > '9' {
				return 0, false
			}
			switch {
			case k < 6:
				sub += int64(b-'0') * scale
				scale /= 10
			case k == 6 && b >= '5':
				sub++ // round half up on the seventh decimal
			}
		}
	}
	if ms > MaxTraceMillis || ms == MaxTraceMillis && sub > 0 {
		return 0, false
	}
	return time.Duration(ms*int64(time.Millisecond) + sub), true
}

// cellRT parses an rt_ms cell for an arrival at t: a response time of 0 or
// more milliseconds whose end, t + rt, is still a time the lab can replay.
// Its errors speak of the response time, not of timestamps.
func cellRT(c []byte, t time.Duration) (time.Duration, error) {
	if rt, ok := fastMillis(c); ok && rt <= MaxTraceMillis*time.Millisecond-t {
		return rt, nil // the happy path: no string, no quoting
	}
	s := string(c)
	q := strconv.Quote(clip(s))
	if s == "" {
		return 0, fmt.Errorf("empty response time; write the milliseconds the call took, such as 20 or 20.5")
	}
	if s[0] == '-' && s != "-" && !strings.ContainsAny(strings.ToLower(s), "in") {
		return 0, fmt.Errorf("%s is negative; a response time is 0 or more milliseconds", q)
	}
	rt, ok := fastMillis(c)
	if !ok {
		ip, _, _ := strings.Cut(strings.TrimLeft(s, "0"), ".")
		if allDigits(ip) && len(ip) > 13 {
			return 0, rtTooLong(q, t)
		}
		var err error
		if rt, err = parseMillis(s); err != nil {
			if strings.Contains(err.Error(), "past the last time") {
				return 0, rtTooLong(q, t)
			}
			return 0, err
		}
	}
	// Compare rt with the room left after t, not t+rt with the bound: both
	// may be up to MaxTraceMillis, and their sum would wrap past the int64
	// range before the comparison could see it.
	if rt > MaxTraceMillis*time.Millisecond-t {
		return 0, rtTooLong(q, t)
	}
	return rt, nil
}

func rtTooLong(q string, t time.Duration) error {
	return fmt.Errorf("response time %s would end the call past %d ms, the last time the lab can replay (the limiters' nanosecond clocks would wrap); the call starts at %s ms, so its rt_ms can be at most %s", q, int64(MaxTraceMillis), fmtMillis(t), fmtMillis(MaxTraceMillis*time.Millisecond-t))
}

// fmtMillis prints a duration as decimal milliseconds, without trailing
// zeros.
func fmtMillis(d time.Duration) string {
	s := fmt.Sprintf("%d.%06d", d/time.Millisecond, d%time.Millisecond)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
