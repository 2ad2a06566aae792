package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Field is one key of summary.json with its value as written.
type Field struct {
	Key string
	Raw json.RawMessage
}

func (f Field) isNull() bool   { return string(f.Raw) == "null" }
func (f Field) isNumber() bool { _, err := strconv.ParseFloat(string(f.Raw), 64); return err == nil }

// text is the value as a CSV or table cell: a string unquoted, null empty,
// anything else as written.
func (f Field) text() string {
	if f.isNull() {
		return ""
	}
	var s string
	if json.Unmarshal(f.Raw, &s) == nil {
		return s
	}
	if r := f.Raw; len(r) > 0 && (r[0] == '{' || r[0] == '[') {
		// An object (summary.json's priority) on one line.
		var b bytes.Buffer
		if json.Compact(&b, r) == nil {
			return b.String()
		}
	}
	return string(f.Raw)
}

// Summary is summary.json read back with its keys in file order, so that
// every renderer shows every field, including ones added later, in the
// order the file has them.
type Summary struct {
	// Top holds the run-level fields (scenario, limit, ...), without
	// "algorithms".
	Top []Field
	// Algorithms holds each limiter's fields.
	Algorithms [][]Field
}

// ParseSummary reads a summary.json document.
func ParseSummary(b []byte) (*Summary, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	s := &Summary{}
	top, err := readObject(dec, func(key string) (bool, error) {
		if key != "algorithms" {
			return false, nil
		}
		if err := expectDelim(dec, '['); err != nil {
			return true, err
		}
		for dec.More() {
			fields, err := readObject(dec, nil)
			if err != nil {
				return true, err
			}
			s.Algorithms = append(s.Algorithms, fields)
		}
		return true, expectDelim(dec, ']')
	})
	s.Top = top
	return s, err
}

// readObject reads one JSON object's fields in order; special, if not nil,
// may consume a key's value itself (returning true).
func readObject(dec *json.Decoder, special func(string) (bool, error)) ([]Field, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var fields []Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("summary: expected a key, got %v", tok)
		}
		if special != nil {
			done, err := special(key)
			if err != nil {
				return nil, err
			}
			if done {
				continue
			}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		fields = append(fields, Field{Key: key, Raw: raw})
	}
	return fields, expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("summary: expected %v, got %v", want, tok)
	}
	return nil
}

// summaryOf renders the result as summary.json and reads it back.
func summaryOf(res *simulator.Result) (*Summary, []byte, error) {
	var b bytes.Buffer
	if err := simulator.WriteSummaryJSON(&b, res); err != nil {
		return nil, nil, err
	}
	s, err := ParseSummary(b.Bytes())
	return s, b.Bytes(), err
}

// JSON writes summary.json's content.
func JSON(w io.Writer, r *Report) error {
	return simulator.WriteSummaryJSON(w, r.Result)
}

// CSV writes one row per limiter: the run-level fields of summary.json
// (scenario, limit, ...) repeated on every row, then every field of the
// limiters, in the file's order (a field only some limiters have, such as
// late_admissions, is empty for the others). null is an empty cell.
func CSV(w io.Writer, r *Report) error {
	s, _, err := summaryOf(r.Result)
	if err != nil {
		return err
	}
	if len(s.Algorithms) == 0 {
		return errors.New("no algorithms to report")
	}
	var keys []string // the limiters' keys, in order of first appearance
	seen := map[string]bool{}
	for _, fields := range s.Algorithms {
		for i, f := range fields {
			if !seen[f.Key] {
				seen[f.Key] = true
				// After the key written before it, so the file's order holds.
				at := len(keys)
				if i > 0 {
					for k, key := range keys {
						if key == fields[i-1].Key {
							at = k + 1
						}
					}
				}
				keys = append(keys[:at], append([]string{f.Key}, keys[at:]...)...)
			}
		}
	}
	var top []Field
	var header []string
	for _, f := range s.Top {
		if !seen[f.Key] {
			top = append(top, f)
			header = append(header, f.Key)
		}
	}
	header = append(header, keys...)
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, fields := range s.Algorithms {
		row := make([]string, 0, len(header))
		for _, f := range top {
			row = append(row, f.text())
		}
		byKey := map[string]string{}
		for _, f := range fields {
			byKey[f.Key] = f.text()
		}
		for _, k := range keys {
			row = append(row, byKey[k])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
