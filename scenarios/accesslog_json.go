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

// jsonLine reads one line's time into abs and its keys into a.
func (s *logStream) jsonLine(line []byte, abs *int64, a *Arrival) bool {
	for i := range s.vals {
		s.vals[i] = nil
	}
	if msg := s.scanObject(line); msg != "" {
		s.fail("%s", msg)
		return false
	}
	if s.timeIdx < 0 {
		for i := 0; i < s.nTime; i++ {
			if s.vals[i] != nil {
				s.timeIdx = i
				break
			}
		}
		if s.timeIdx < 0 {
			if s.nTime == 1 {
				s.fail("the first line has no field %q; name the time field with --time-field (the line's fields: %s)", s.wanted[0], strings.Join(s.first, ", "))
			} else {
				s.fail("the first line has none of the usual time fields (%s); name it with --time-field (the line's fields: %s)", strings.Join(jsonTimeFields, ", "), strings.Join(s.first, ", "))
			}
			return false
		}
	}
	tv := s.vals[s.timeIdx]
	if tv == nil {
		s.fail("the line has no %q field, the time of the first line; give every line its time", s.wanted[s.timeIdx])
		return false
	}
	ns, frac, msg := jsonTime(tv)
	if msg != "" {
		s.fail("%s %s; %s", s.wanted[s.timeIdx], strconv.Quote(clip(string(tv))), msg)
		return false
	}
	if frac {
		s.whole = false
	}
	*abs = ns
	for i, w := range s.slotOf {
		a.Keys[i] = s.keys.InternBytes(s.vals[w])
	}
	if s.hasUser {
		a.User = s.keys.InternBytes(s.vals[s.user])
	}
	return true
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
		if s.line == 1 {
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
		for i, w := range s.wanted {
			if s.vals[i] == nil && bytes.Equal(w, name) {
				s.vals[i] = val
				s.seen[i] = true
			}
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
