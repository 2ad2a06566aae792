package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// JSON-lines access logs: one JSON object per line (nginx's
// log_format escape=json, Envoy's json_format, Traefik's JSON access log,
// Caddy). Only the top-level fields named by the time field, --key and
// --user are read; a string value is the key as written, a number or true/
// false its text, null or a missing field no key.

// jsonDurationFields are the fields --time start subtracts from a
// JSON log's time when that time is not already the start: nginx's
// $request_time and Caddy's duration, both in seconds with a fraction.
var jsonDurationFields = []string{"request_time", "duration"}

// requestFieldNames are the fields that make a JSON entry a request (with
// the --key and --user fields): nginx's, Traefik's, Envoy's and Caddy's
// usual names. An entry with none of them (a proxy's debug or info line)
// is not a request, once the log's sample shows request fields at all.
var requestFieldNames = []string{"request", "request_method", "method", "RequestMethod", "RequestPath", "RequestHost",
	"path", "uri", "request_uri", "status", "response_code", "DownstreamStatus", "OriginStatus",
	"remote_addr", "ClientAddr", "ClientHost", "downstream_remote_address", "client_ip"}

// isRequestField reports whether name is one of requestFieldNames.
func isRequestField(name []byte) bool {
	switch string(name) { // no allocation: a switch on string(bytes)
	case "request", "request_method", "method", "RequestMethod", "RequestPath", "RequestHost",
		"path", "uri", "request_uri", "status", "response_code", "DownstreamStatus", "OriginStatus",
		"remote_addr", "ClientAddr", "ClientHost", "downstream_remote_address", "client_ip":
		return true
	}
	return false
}

// sampleJSON reads the sampled lines once: the time field is the first
// start field (StartUTC, start_time, StartLocal) of the first line with a
// time field, else the most precise of the others there (ties in
// jsonTimeFields order); entries without a request field are not requests
// when some sampled line has one; --time start's duration field is the
// first of jsonDurationFields a sampled line has.
func (s *logStream) sampleJSON(lines [][]byte, o LogOptions) error {
	defer func() {
		s.line = 0
		clear(s.seen)
		s.firstDone = len(lines) > 0 // the sample's first line named s.first
	}()
	parsed := false // a sampled line is a JSON object (else the first line's error says why)
	for n, line := range lines {
		s.line = min(n+1, 2) // line 1 records its field names (s.first)
		clear(s.vals)
		s.isReq = false
		if s.scanObject(line) != "" {
			continue
		}
		parsed = true
		if s.isReq {
			s.markers = true
		}
		if s.timeIdx < 0 {
			s.timeIdx = pickTimeField(s.vals[:s.nTime])
		}
		if s.startTime && s.durIdx < 0 {
			for i := s.nFields; i < len(s.wanted); i++ {
				if s.vals[i] != nil {
					s.durIdx = i
					break
				}
			}
		}
	}
	if s.timeIdx < 0 && parsed {
		s.line = 1
		if s.nTime == 1 {
			return fmt.Errorf("%s:1: the first line has no field %q; name the time field with --time-field (the line's fields: %s)", s.name, s.wanted[0], printable(strings.Join(s.first, ", ")))
		}
		return fmt.Errorf("%s:1: the first line has none of the usual time fields (%s); name it with --time-field (the line's fields: %s)", s.name, strings.Join(jsonTimeFields, ", "), printable(strings.Join(s.first, ", ")))
	}
	if s.startTime && s.timeIdx < nStartFields && o.TimeField == "" {
		s.durIdx = -1 // the time is already the request's start
	} else if s.startTime && s.durIdx < 0 {
		return fmt.Errorf("%s: --time start subtracts each request's duration from its time %q, and no line of the first %d has %s; log nginx's $request_time as request_time, or replay with --time end", s.name, s.wanted[s.timeIdx], len(lines), strings.Join(jsonDurationFields, " or "))
	}
	return nil
}

// pickTimeField chooses among the time candidates a line has (nil:
// absent): the first start field, else the most precise value.
func pickTimeField(vals [][]byte) int {
	best, bestP := -1, -1
	for i, v := range vals {
		if v == nil {
			continue
		}
		if i < nStartFields && len(vals) == len(jsonTimeFields) {
			return i
		}
		if p := timePrecision(v); p > bestP {
			best, bestP = i, p
		}
	}
	return best
}

// timePrecision is the number of decimal digits of a second a time value
// carries: a number's fraction plus 3, 6 or 9 for milliseconds,
// microseconds or nanoseconds (by magnitude, as jsonTime reads it), or an
// RFC 3339 or $time_local string's digits after the seconds' '.'.
func timePrecision(v []byte) int {
	ip, fr, dot := bytes.Cut(v, []byte{'.'})
	if allDigits(string(ip)) && len(ip) > 0 {
		p := 0
		switch n := len(bytes.TrimLeft(ip, "0")); {
		case n > 17:
			p = 9
		case n > 14:
			p = 6
		case n > 11:
			p = 3
		}
		if dot {
			p += len(fr)
		}
		return p
	}
	if !dot {
		return 0
	}
	n := 0
	for n < len(fr) && fr[n] >= '0' && fr[n] <= '9' {
		n++
	}
	return n
}

// durationName is where --time start reads each request's duration.
func (s *logStream) durationName() string {
	switch {
	case !s.startTime:
		return ""
	case s.format != FormatJSONL:
		return "the last field ($request_time)"
	case s.durIdx < 0:
		return ""
	}
	return string(s.wanted[s.durIdx])
}

// jsonLine reads one line's time into abs and its keys into a.
func (s *logStream) jsonLine(line []byte, abs *int64, a *Arrival) (int, string) {
	clear(s.vals)
	s.isReq = false
	if msg := s.scanObject(line); msg != "" {
		return lineBad, msg
	}
	if s.markers && !s.isReq {
		return lineNotRequest, ""
	}
	if s.timeIdx < 0 { // no sampled line was a JSON object
		if s.timeIdx = pickTimeField(s.vals[:s.nTime]); s.timeIdx < 0 {
			if s.nTime == 1 {
				s.fail("no line has the field %q; name the time field with --time-field (this line's fields: %s)", s.wanted[0], printable(strings.Join(s.first, ", ")))
			} else {
				s.fail("no line has any of the usual time fields (%s); name it with --time-field (this line's fields: %s)", strings.Join(jsonTimeFields, ", "), printable(strings.Join(s.first, ", ")))
			}
			return lineBad, ""
		}
	}
	tv := s.vals[s.timeIdx]
	if tv == nil {
		return lineBad, fmt.Sprintf("the line has no %q field, the log's time field; give every line its time", s.wanted[s.timeIdx])
	}
	ns, frac, msg := jsonTime(tv)
	if msg != "" {
		return lineBad, fmt.Sprintf("%s %s; %s", s.wanted[s.timeIdx], strconv.Quote(clip(string(tv))), msg)
	}
	if frac {
		s.whole = false
	}
	if s.durIdx >= 0 {
		dv := s.vals[s.durIdx]
		d, _, ok := decimalNanos(dv, int64(time.Second))
		if !ok {
			return lineBad, fmt.Sprintf("the line has no %s in seconds (got %q), which --time start subtracts from its time; log it on every line, or replay with --time end", s.wanted[s.durIdx], clip(string(dv)))
		}
		ns -= d
	}
	*abs = ns
	if !s.scanning || s.keeping { // ScanLog's pass keeps no key unless it keeps the arrivals (see ScanLog)
		for i, w := range s.slotOf {
			a.Keys[i] = s.keys.InternBytes(s.vals[w])
		}
		if s.hasUser {
			a.User = s.keys.InternBytes(s.vals[s.user])
		}
	}
	shift := s.keyShift()
	for i := range s.empty {
		if v := s.vals[s.slotOf[i+shift]]; len(v) == 0 || len(v) == 1 && v[0] == '-' {
			s.empty[i]++
		}
	}
	return lineOK, ""
}

// scanObject scans one JSON object and fills s.vals for the wanted fields
// (nil when absent, empty for null). It returns "" or the problem.
func (s *logStream) scanObject(b []byte) string {
	p := skipWS(b, 0)
	if p >= len(b) || b[p] != '{' {
		return "the line is not a JSON object; write one object per line, e.g. {\"time\": 1700000000.123, \"ip\": \"10.0.0.1\"}"
	}
	p = skipWS(b, p+1)
	if p < len(b) && b[p] == '}' {
		return s.trailing(b, p+1)
	}
	for {
		if p >= len(b) || b[p] != '"' {
			return "a field name is not a quoted string; check the JSON on this line"
		}
		name, np, esc, ok := jsonString(b, p+1)
		if !ok {
			return "a field name has no closing quote; check the JSON on this line"
		}
		if esc {
			var u string
			if json.Unmarshal(b[p:np], &u) != nil {
				return "a field name has a bad escape; check the JSON on this line"
			}
			name = []byte(u)
		}
		if s.line == 1 && !s.firstDone {
			s.first = append(s.first, string(name))
		}
		p = skipWS(b, np)
		if p >= len(b) || b[p] != ':' {
			return fmt.Sprintf("no ':' after the field name %q; check the JSON on this line", clip(string(name)))
		}
		p = skipWS(b, p+1)
		if p >= len(b) {
			return fmt.Sprintf("field %q has no value; check the JSON on this line", clip(string(name)))
		}
		var val []byte
		switch c := b[p]; {
		case c == '"':
			v, np, esc, ok := jsonString(b, p+1)
			if !ok {
				return fmt.Sprintf("the value of %q has no closing quote; check the JSON on this line", clip(string(name)))
			}
			if esc {
				var u string
				if json.Unmarshal(b[p:np], &u) != nil {
					return fmt.Sprintf("the value of %q has a bad escape; check the JSON on this line", clip(string(name)))
				}
				v = []byte(u)
			}
			val, p = v, np
		case c == '{' || c == '[':
			np, ok := skipNested(b, p)
			if !ok {
				return fmt.Sprintf("the value of %q is not closed; check the JSON on this line", clip(string(name)))
			}
			val, p = b[p:np], np
		default:
			e := p
			for e < len(b) && b[e] != ',' && b[e] != '}' && b[e] != ' ' && b[e] != '\t' {
				e++
			}
			val = b[p:e]
			if string(val) == "null" {
				val = b[p:p]
			} else if len(val) == 0 {
				return fmt.Sprintf("field %q has no value; check the JSON on this line", clip(string(name)))
			}
			p = e
		}
		if !s.isReq && isRequestField(name) {
			s.isReq = true
		}
		for i, w := range s.wanted {
			if s.vals[i] != nil {
				continue
			}
			v, found := val, bytes.Equal(w, name)
			if found && len(v) > 0 && v[0] == '[' && b[p-1] == ']' {
				v = decodeValue(v) // an array's first element
			} else if !found && len(s.wpath[i]) > 1 && len(val) > 0 && val[0] == '{' && b[p-1] == '}' && bytes.Equal(s.wpath[i][0], name) {
				if v, found = lookupPath(val, s.wpath[i][1:]); found {
					v = decodeValue(v)
				}
			}
			if !found {
				continue
			}
			if i >= s.nTime && i < s.nFields {
				s.isReq = true
				if isForwardedFor(s.wpath[i][len(s.wpath[i])-1]) {
					v = firstAddress(v)
				}
			}
			s.vals[i] = v
			s.seen[i] = true
		}
		p = skipWS(b, p)
		if p < len(b) && b[p] == ',' {
			p = skipWS(b, p+1)
			continue
		}
		if p < len(b) && b[p] == '}' {
			return s.trailing(b, p+1)
		}
		return "expected ',' or '}' after a value; check the JSON on this line (one object per line)"
	}
}

func (s *logStream) trailing(b []byte, p int) string {
	if skipWS(b, p) != len(b) {
		return "text after the JSON object; write one object per line"
	}
	return ""
}

func skipWS(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\r') {
		p++
	}
	return p
}

// jsonString returns a JSON string's raw text starting at p (after the
// opening quote), the position after the closing quote, and whether it has
// escapes.
func jsonString(b []byte, p int) ([]byte, int, bool, bool) {
	esc := false
	for i := p; i < len(b); i++ {
		switch b[i] {
		case '\\':
			esc = true
			i++
		case '"':
			return b[p:i], i + 1, esc, true
		}
	}
	return nil, 0, false, false
}

// lookupPath finds the value at path (field names, outermost first) in
// the JSON object obj, decoded as decodeValue does.
func lookupPath(obj []byte, path [][]byte) ([]byte, bool) {
	p := skipWS(obj, 0)
	if p >= len(obj) || obj[p] != '{' {
		return nil, false
	}
	p = skipWS(obj, p+1)
	for p < len(obj) && obj[p] == '"' {
		name, np, esc, ok := jsonString(obj, p+1)
		if !ok {
			return nil, false
		}
		if esc {
			var u string
			if json.Unmarshal(obj[p:np], &u) != nil {
				return nil, false
			}
			name = []byte(u)
		}
		p = skipWS(obj, np)
		if p >= len(obj) || obj[p] != ':' {
			return nil, false
		}
		p = skipWS(obj, p+1)
		ve, ok := valueEnd(obj, p)
		if !ok {
			return nil, false
		}
		if bytes.Equal(name, path[0]) {
			if len(path) == 1 {
				return obj[p:ve], true
			}
			return lookupPath(obj[p:ve], path[1:])
		}
		p = skipWS(obj, ve)
		if p < len(obj) && obj[p] == ',' {
			p = skipWS(obj, p+1)
		}
	}
	return nil, false
}

// valueEnd is the end of the JSON value starting at p.
func valueEnd(b []byte, p int) (int, bool) {
	if p >= len(b) {
		return 0, false
	}
	switch b[p] {
	case '"':
		_, np, _, ok := jsonString(b, p+1)
		return np, ok
	case '{', '[':
		return skipNested(b, p)
	}
	e := p
	for e < len(b) && b[e] != ',' && b[e] != '}' && b[e] != ']' && b[e] != ' ' && b[e] != '\t' {
		e++
	}
	return e, e > p
}

// decodeValue turns a raw JSON value into a key: a string's text (escapes
// decoded), an array's first element (nothing for an empty array), null
// nothing, anything else as written. Present values are never nil.
func decodeValue(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return raw[:0:0]
	}
	switch raw[0] {
	case '"':
		v, _, esc, ok := jsonString(raw, 1)
		if !ok {
			return raw
		}
		if esc {
			var u string
			if json.Unmarshal(raw, &u) != nil {
				return raw
			}
			return []byte(u)
		}
		return v
	case '[':
		p := skipWS(raw, 1)
		if p >= len(raw) || raw[p] == ']' {
			return raw[:0]
		}
		e, ok := valueEnd(raw, p)
		if !ok {
			return raw
		}
		return decodeValue(raw[p:e])
	}
	if string(raw) == "null" {
		return raw[:0]
	}
	return raw
}

// isForwardedFor reports whether a field name is an X-Forwarded-For
// header (X-Forwarded-For, x_forwarded_for, http_x_forwarded_for, ...),
// whose value is a list "client, proxy1, proxy2".
func isForwardedFor(name []byte) bool {
	const h = "forwarded-for"
	if len(name) < len(h) {
		return false
	}
	tail := name[len(name)-len(h):]
	for i := range h {
		c := tail[i] | 0x20
		if tail[i] == '_' {
			c = '-'
		}
		if c != h[i] {
			return false
		}
	}
	return true
}

// firstAddress is the first element of an address list "a, b, c".
func firstAddress(v []byte) []byte {
	if c := bytes.IndexByte(v, ','); c >= 0 {
		return bytes.TrimSpace(v[:c])
	}
	return v
}

// skipNested skips a JSON object or array starting at p.
func skipNested(b []byte, p int) (int, bool) {
	depth := 0
	for i := p; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"':
			_, np, _, ok := jsonString(b, i+1)
			if !ok {
				return 0, false
			}
			i = np - 1
		}
	}
	return 0, false
}

// jsonTime converts a JSON time value to Unix nanoseconds: a number (or a
// numeric string) by its magnitude (below 1e11 seconds, below 1e14
// milliseconds, below 1e17 microseconds, else nanoseconds), an RFC 3339
// string, or a $time_local string. frac reports a fraction of a second;
// msg is "" or the fix.
func jsonTime(v []byte) (ns int64, frac bool, msg string) {
	if len(v) == 0 {
		return 0, false, "the time is empty; give every line its time"
	}
	if v[0] >= '0' && v[0] <= '9' {
		if bytes.ContainsAny(v, "eE") && !bytes.ContainsAny(v, "-:T") {
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || f < 0 || f > 1e19 {
				return 0, false, "write the time as seconds since 1970 (1700000000.123), milliseconds, or an RFC 3339 string"
			}
			v = []byte(strconv.FormatFloat(f, 'f', -1, 64))
		}
		if ip, _, _ := bytes.Cut(v, []byte{'.'}); allDigits(string(ip)) {
			unit := int64(time.Second)
			switch n := len(bytes.TrimLeft(ip, "0")); {
			case n > 17:
				unit = 1
			case n > 14:
				unit = int64(time.Microsecond)
			case n > 11:
				unit = int64(time.Millisecond)
			}
			ns, hasFrac, ok := decimalNanos(v, unit)
			if !ok {
				return 0, false, "write the time as seconds since 1970 (1700000000.123), milliseconds (1700000000123), or an RFC 3339 string"
			}
			return ns, hasFrac || unit < int64(time.Second), ""
		}
		if t, err := time.Parse(time.RFC3339Nano, string(v)); err == nil {
			if !inNanoRange(t.Unix(), int64(t.Nanosecond())) {
				return 0, false, "the time " + outsideNanos
			}
			return t.UnixNano(), t.Nanosecond() != 0 || bytes.IndexByte(v, '.') >= 0, ""
		}
		if sec, ok := parseTimeLocal(v); ok {
			if !inNanoRange(sec, 0) {
				return 0, false, "the time " + outsideNanos
			}
			return sec * int64(time.Second), false, ""
		}
		if ns, _, ok := parseTimeLocalFrac(v); ok {
			if ns == outOfNanos {
				return 0, false, "the time " + outsideNanos
			}
			return ns, true, ""
		}
	}
	if v[0] == '-' {
		return 0, false, "the time is negative; write seconds since 1970, or an RFC 3339 string"
	}
	return 0, false, "write the time as an RFC 3339 string (2024-01-02T03:04:05.123Z), a $time_local string, or a number of seconds (or ms) since 1970"
}
