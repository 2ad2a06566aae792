package scenarios

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// replayLog reads a log as a run does (ScanLog, then OpenLog at its
// origin) and returns its info and one "t_ms key1 key2 ... | user" line
// per arrival, keys in --key order ("" shown as ∅).
func replayLog(t *testing.T, path string, o LogOptions) (LogInfo, []string) {
	t.Helper()
	info, err := ScanLog(path, filepath.Base(path), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Origin = info.Origin
	st, err := OpenLog(path, filepath.Base(path), o)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ks := st.(KeyedStream)
	shift := len(ks.KeyColumns()) - len(o.Keys)
	var out []string
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		parts := []string{fmtMillis(a.At)}
		for i := range o.Keys {
			n := ks.KeyTable().Name(a.Keys[i+shift])
			if n == "" {
				n = "∅"
			}
			parts = append(parts, n)
		}
		if o.User != "" {
			parts = append(parts, "|", ks.KeyTable().Name(a.User))
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if int64(len(out)) != info.N {
		t.Fatalf("ScanLog counted %d arrivals, the stream gave %d", info.N, len(out))
	}
	return info, out
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("arrivals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const logs = "testdata/logs/"

// nginx's "$host $remote_addr - ..." and Apache's vhost_combined
// "%v:%p %h %l %u %t ...": the first field is the virtual host (--key
// vhost), the second the client.
func TestLogVhostPrefix(t *testing.T) {
	info, got := replayLog(t, logs+"nginx-vhost.log", LogOptions{Keys: []string{"ip", "vhost"}, User: "user"})
	if info.Format != FormatCombined || !info.WholeSeconds {
		t.Errorf("info %+v", info)
	}
	wantLines(t, got,
		"0 203.0.113.7 api.example.com | ",
		"0 198.51.100.23 www.example.com | alice",
		"1000 203.0.113.7 api.example.com | ",
		"1000 192.0.2.10 www.example.com:443 | ",
		"2000 203.0.113.7 api.example.com | ")
}

// An X-Forwarded-For list logged in place of the address: the first
// element, the client, is the ip; a line without a list is as usual.
func TestLogForwardedForList(t *testing.T) {
	_, got := replayLog(t, logs+"xff.log", LogOptions{Keys: []string{"ip", "agent"}})
	wantLines(t, got,
		"0 203.0.113.7 okhttp/4.12.0",
		"0 198.51.100.23 okhttp/4.12.0",
		"1000 10.0.0.9 kube-probe/1.30",
		"1000 203.0.113.7 okhttp/4.12.0")
}

// Apache's log with common and combined lines mixed (two LogFormats on
// one file): auto says combined, and a common line has no agent.
func TestLogMixedCommonCombined(t *testing.T) {
	info, got := replayLog(t, logs+"apache-mixed.log", LogOptions{Keys: []string{"ip", "agent"}, User: "user"})
	if info.Format != FormatCombined {
		t.Errorf("format %s", info.Format)
	}
	wantLines(t, got,
		"0 192.0.2.10 ∅ | ",
		"0 192.0.2.10 Mozilla/5.0 (Windows NT 10.0; Win64; x64) | ",
		"1000 198.51.100.23 ∅ | frank",
		"2000 198.51.100.23 Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) | frank")
	// An explicit common format reads the same lines, agent-less.
	if _, err := ScanLog(logs+"apache-mixed.log", "m", LogOptions{Format: FormatCommon, Keys: []string{"ip"}}); err != nil {
		t.Error(err)
	}
}

// Auto detection reads many lines: a first line that is not a log line
// does not decide the format, and a common first line does not hide the
// combined lines after it.
func TestDetectFormatSample(t *testing.T) {
	mixed, _ := os.ReadFile(logs + "apache-mixed.log")
	vhost, _ := os.ReadFile(logs + "nginx-vhost.log")
	for _, tc := range []struct{ sample, want string }{
		{string(mixed), FormatCombined},
		{"192.0.2.10 - - [01/Dec/2024:11:00:00 +0100] \"GET / HTTP/1.1\" 200 2326\n", FormatCommon},
		{"garbage\n" + string(vhost), FormatCombined},
		{string(vhost), FormatCombined},
		{"t_ms,key\n1,a\n", FormatCSV},
		{"\n\n{\"ts\": 1}\n", FormatJSONL},
		{"hello\nworld\n", ""},
		{"# caddy log\n{\"ts\": 1}\n{\"ts\": 2}\n", FormatJSONL},
		{"# two\n# comments\n{\"ts\": 2}\n", ""},
		{"", ""},
	} {
		if got := DetectFormat([]byte(tc.sample)); got != tc.want {
			t.Errorf("DetectFormat(%.40q) = %q, want %q", tc.sample, got, tc.want)
		}
	}
}

// A last line cut mid-field (no line break) is a bad line: an error
// naming it and --bad-lines, or skipped and counted.
func TestLogTruncatedLastLine(t *testing.T) {
	_, err := ScanLog(logs+"truncated.log", "truncated.log", LogOptions{Keys: []string{"ip"}})
	if err == nil || !strings.HasPrefix(err.Error(), "truncated.log:3: the last line has no line break and does not parse, so it was cut (") ||
		!strings.HasSuffix(err.Error(), "; or skip and count such lines with --bad-lines skip") {
		t.Fatalf("%v", err)
	}
	info, got := replayLog(t, logs+"truncated.log", LogOptions{Keys: []string{"ip"}, BadLines: BadLinesSkip})
	wantLines(t, got, "0 203.0.113.7", "1000 192.0.2.10")
	if info.BadLines != 1 || len(info.FirstBad) != 1 || !strings.HasPrefix(info.FirstBad[0], "truncated.log:3: the last line has no line break") {
		t.Errorf("bad lines %d %q", info.BadLines, info.FirstBad)
	}
}

// --bad-lines skip counts every bad line and names the first five, with
// the line number and the reason; the good lines replay as without them.
func TestLogSkipBadLines(t *testing.T) {
	good := `203.0.113.7 - - [01/Dec/2024:10:00:00 +0000] "GET /a HTTP/1.1" 200 5 "-" "curl"`
	var b strings.Builder
	for i := 0; i < 8; i++ {
		b.WriteString(good + "\n")
		fmt.Fprintf(&b, "junk line %d\n", i)
	}
	b.WriteString(strings.Repeat("x", logBuffer+10) + "\n") // longer than the buffer
	b.WriteString(good + "\n")
	p := writeTemp(t, "bad.log", b.String())
	info, got := replayLog(t, p, LogOptions{Keys: []string{"ip"}, BadLines: BadLinesSkip})
	if len(got) != 9 || info.BadLines != 9 {
		t.Fatalf("%d arrivals, %d bad", len(got), info.BadLines)
	}
	want := []string{"bad.log:2: no [time]", "bad.log:4: no [time]", "bad.log:6: no [time]", "bad.log:8: no [time]", "bad.log:10: no [time]"}
	if len(info.FirstBad) != MaxFirstBad {
		t.Fatalf("FirstBad %q", info.FirstBad)
	}
	for i, w := range want {
		if !strings.HasPrefix(info.FirstBad[i], w) {
			t.Errorf("FirstBad[%d] = %q, want %s...", i, info.FirstBad[i], w)
		}
	}
	if _, err := ScanLog(p, "bad.log", LogOptions{Keys: []string{"ip"}}); err == nil || !strings.HasPrefix(err.Error(), "bad.log:2: no [time]") {
		t.Errorf("fail: %v", err)
	}
	// Every line bad: an error, not an empty run.
	p = writeTemp(t, "junk.log", "one [x\ntwo [y\n")
	if _, err := ScanLog(p, "junk.log", LogOptions{Format: FormatCombined, BadLines: BadLinesSkip}); err == nil || !strings.Contains(err.Error(), "every line was skipped as bad (2; the first: junk.log:1: ") {
		t.Errorf("all bad: %v", err)
	}
	if _, err := ScanLog(p, "junk.log", LogOptions{Format: FormatCombined, BadLines: "ignore"}); err == nil || !strings.Contains(err.Error(), `--bad-lines "ignore" is unknown; use fail`) {
		t.Errorf("unknown policy: %v", err)
	}
}

// A gzip file cut short is an error whatever --bad-lines says: the lines
// are not bad, the file is.
func TestLogGzipTail(t *testing.T) {
	data, _ := os.ReadFile(logs + "nginx-vhost.log")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(bytes.Repeat(data, 50))
	zw.Close()
	cut := buf.Bytes()[:buf.Len()-12]
	p := filepath.Join(t.TempDir(), "cut.log.gz")
	os.WriteFile(p, cut, 0o600)
	for _, policy := range []string{BadLinesFail, BadLinesSkip} {
		_, err := ScanLog(p, "cut.log.gz", LogOptions{BadLines: policy, Sort: true})
		if err == nil || !strings.Contains(err.Error(), "cannot read the log (unexpected EOF); check the file (a .gz file must be whole)") {
			t.Errorf("%s: %v", policy, err)
		}
	}
}

// Two servers' logs concatenated: without --sort the first line that
// steps back is an error naming it, the line before and --sort; with it
// the arrivals come in time order, equal times in line order.
func TestLogMergedOutOfOrder(t *testing.T) {
	_, err := ScanLog(logs+"merged.log", "merged.log", LogOptions{Keys: []string{"ip"}})
	want := "merged.log:4: this line's time (2024-12-01T10:00:00.25Z) is 760ms before line 3's (2024-12-01T10:00:01.01Z): the log is not in time order (merged logs, or a slow request logged after later ones); replay it in time order with --sort"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	info, got := replayLog(t, logs+"merged.log", LogOptions{Keys: []string{"ip", "path"}, Sort: true})
	if !info.Sorted || info.OutOfOrder != 1 || info.End != 890*time.Millisecond {
		t.Errorf("info %+v", info)
	}
	wantLines(t, got,
		"0 203.0.113.7 /v1/items",
		"130 192.0.2.10 /v1/items",
		"360 203.0.113.7 /v1/items",
		"360 192.0.2.10 /v1/orders",
		"780 192.0.2.10 /v1/items",
		"890 203.0.113.7 /v1/items")
}

// --sort spills runs to temporary files when the log is larger than its
// chunk, merges them in time order with equal times in line order, and
// removes its files on Close, also when the stream stops early.
func TestLogSortSpills(t *testing.T) {
	defer func(n int) { sortChunk = n }(sortChunk)
	sortChunk = 3
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var b strings.Builder
	// 20 lines whose times go 5, 4, 3, 2, 1 s in blocks of four, each
	// block's keys k0..k3 at one time.
	for blk := 0; blk < 5; blk++ {
		for k := 0; k < 4; k++ {
			fmt.Fprintf(&b, `{"time": %d, "k": "b%dk%d"}`+"\n", 1700000005-blk, blk, k)
		}
	}
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o600)
	_, got := replayLog(t, p, LogOptions{Keys: []string{"k"}, Sort: true})
	var want []string
	for blk := 4; blk >= 0; blk-- {
		for k := 0; k < 4; k++ {
			want = append(want, fmt.Sprintf("%d b%dk%d", (4-blk)*1000, blk, k))
		}
	}
	wantLines(t, got, want...)
	// Stop after two arrivals: Close removes the runs.
	info, err := ScanLog(p, "s.jsonl", LogOptions{Keys: []string{"k"}, Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenLog(p, "s.jsonl", LogOptions{Keys: []string{"k"}, Sort: true, Origin: info.Origin})
	if err != nil {
		t.Fatal(err)
	}
	st.Next()
	st.Next()
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Errorf("while sorting, %s holds %d entries, want the one run directory", tmp, len(ents))
	}
	st.Close()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("after Close, %s still holds %v", tmp, ents)
	}
}

// Traefik's JSON access log: the time is StartUTC (nanoseconds), not the
// whole-second time of the log entry (pkg/middlewares/accesslog/logdata.go).
func TestLogTraefikStartUTC(t *testing.T) {
	info, got := replayLog(t, logs+"traefik.json", LogOptions{Keys: []string{"ClientHost", "RequestPath"}})
	if info.TimeField != "StartUTC" || info.WholeSeconds {
		t.Errorf("info %+v", info)
	}
	if want := time.Date(2024, 12, 1, 10, 0, 0, 120431207, time.UTC); !info.Origin.Equal(want) {
		t.Errorf("origin %v", info.Origin)
	}
	wantLines(t, got,
		"0 203.0.113.7 /v1/items",
		"381.573404 192.0.2.10 /v1/orders",
		"882.718793 203.0.113.7 /v1/items")
}

// Envoy's access log in JSON (json_format with %START_TIME%): start_time
// is each request's start; lines are written when requests end, so a
// quick request after a slow one steps back and needs --sort. The
// x_forwarded_for list gives its first address.
func TestLogEnvoyStartTime(t *testing.T) {
	o := LogOptions{Keys: []string{"x_forwarded_for", "path"}}
	if _, err := ScanLog(logs+"envoy.json", "envoy.json", o); err == nil || !strings.HasPrefix(err.Error(), "envoy.json:2: this line's time (2024-12-01T10:00:00.075Z) is 45ms before line 1's") {
		t.Fatalf("%v", err)
	}
	o.Sort = true
	info, got := replayLog(t, logs+"envoy.json", o)
	if info.TimeField != "start_time" {
		t.Errorf("time field %q", info.TimeField)
	}
	wantLines(t, got,
		"0 198.51.100.23 /v1/orders",
		"45 203.0.113.7 /v1/items",
		"926 203.0.113.7 /v1/items")
}

// Caddy's JSON log: ts (float seconds), the client under
// request.client_ip, headers as arrays (the first element, and the first
// address of an X-Forwarded-For list); entries of other loggers (tls,
// reverse_proxy debug lines) are not requests, skipped and counted
// (modules/caddyhttp/marshalers.go, LoggableHTTPRequest).
func TestLogCaddyNested(t *testing.T) {
	o := LogOptions{Keys: []string{"request.client_ip", "request.headers.X-Forwarded-For", "request.headers.User-Agent"}}
	info, got := replayLog(t, logs+"caddy.json", o)
	if info.TimeField != "ts" || info.NonRequests != 2 || info.N != 3 {
		t.Errorf("info %+v", info)
	}
	wantLines(t, got,
		"0 203.0.113.7 203.0.113.7 curl/8.5.0",
		"381.5731 192.0.2.10 192.0.2.10 okhttp/4.12.0",
		"882.7185 203.0.113.7 203.0.113.7 curl/8.5.0")
	// A dotted path that names no field is an error listing the fields.
	if _, err := ScanLog(logs+"caddy.json", "caddy.json", LogOptions{Keys: []string{"request.clientip"}}); err == nil || !strings.HasPrefix(err.Error(), `--key "request.clientip" is a field of no line of caddy.json`) {
		t.Errorf("%v", err)
	}
}

// A JSON log without any request field (only times and a custom key)
// keeps every line: the non-request rule needs request fields in the
// sample.
func TestLogNoRequestFieldsKeepsLines(t *testing.T) {
	p := writeTemp(t, "plain.jsonl", `{"t": 1700000000.5, "k": "a"}`+"\n"+`{"t": 1700000001, "other": 1}`+"\n")
	info, got := replayLog(t, p, LogOptions{TimeField: "t"})
	if info.NonRequests != 0 || len(got) != 2 {
		t.Errorf("%+v %v", info, got)
	}
}

// --time start: nginx's $time_local/$msec is written when the request
// ends; the arrival is that time minus $request_time (the last field of
// a text line, request_time in JSON), replayed in time order.
func TestLogTimeStart(t *testing.T) {
	info, got := replayLog(t, logs+"nginx-rt.log", LogOptions{Keys: []string{"ip", "path"}, Time: TimeStart})
	if !info.Sorted || info.Duration != "the last field ($request_time)" || !info.Origin.Equal(time.Date(2024, 12, 1, 9, 59, 59, 100e6, time.UTC)) {
		t.Errorf("info %+v", info)
	}
	wantLines(t, got,
		"0 192.0.2.10 /v1/report",
		"900 203.0.113.7 /v1/items",
		"1200 203.0.113.7 /v1/items",
		"1900 198.51.100.23 /")
	_, end := replayLog(t, logs+"nginx-rt.log", LogOptions{Keys: []string{"ip"}})
	wantLines(t, end, "0 203.0.113.7", "50 192.0.2.10", "60 203.0.113.7", "750 198.51.100.23")

	info, got = replayLog(t, logs+"nginx-rt.jsonl", LogOptions{Keys: []string{"remote_addr"}, Time: TimeStart})
	if info.TimeField != "msec" || info.Duration != "request_time" {
		t.Errorf("info %+v", info)
	}
	wantLines(t, got, "0 192.0.2.10", "900 203.0.113.7", "1900 198.51.100.23")

	// Without $request_time: one line naming the fix.
	if _, err := ScanLog(logs+"nginx-vhost.log", "v.log", LogOptions{Time: TimeStart}); err == nil || !strings.HasPrefix(err.Error(), "v.log:1: no $request_time (seconds, e.g. 0.125) at the end of the line") {
		t.Errorf("%v", err)
	}
	// A common line's last field is its byte count, not a duration.
	p := writeTemp(t, "c.log", "1.2.3.4 - - [01/Dec/2024:10:00:05 +0000] \"GET / HTTP/1.1\" 200 5\n")
	if _, err := ScanLog(p, "c.log", LogOptions{Time: TimeStart}); err == nil || !strings.HasPrefix(err.Error(), "c.log:1: no $request_time") {
		t.Errorf("common: %v", err)
	}
	p = writeTemp(t, "c.log", "1.2.3.4 - - [01/Dec/2024:10:00:05 +0000] \"GET / HTTP/1.1\" 200 5 0.5\n")
	if info, err := ScanLog(p, "c.log", LogOptions{Time: TimeStart}); err != nil || !info.Origin.Equal(time.Date(2024, 12, 1, 10, 0, 4, 5e8, time.UTC)) {
		t.Errorf("common with $request_time: %+v %v", info, err)
	}
	// A start field is already the start.
	info, _ = replayLog(t, logs+"traefik.json", LogOptions{Time: TimeStart})
	if info.Duration != "" || info.TimeField != "StartUTC" {
		t.Errorf("traefik %+v", info)
	}
	if _, err := ScanLog(logs+"caddy.json", "c", LogOptions{Time: "begin"}); err == nil || !strings.Contains(err.Error(), `--time "begin" is unknown`) {
		t.Errorf("%v", err)
	}
}

// A --key field empty or "-" on a line is counted per field, for the
// run's warning.
func TestLogEmptyKeys(t *testing.T) {
	info, _ := replayLog(t, logs+"nginx-vhost.log", LogOptions{Keys: []string{"user", "ip", "referer"}})
	if fmt.Sprint(info.Empty) != "[4 0 3]" {
		t.Errorf("empty %v", info.Empty)
	}
	info, _ = replayLog(t, logs+"caddy.json", LogOptions{Keys: []string{"user_id"}})
	if fmt.Sprint(info.Empty) != "[3]" {
		t.Errorf("json empty %v", info.Empty)
	}
}

// The time field of a JSON log without a start field is the most precise
// one on the first line that has one.
func TestPickTimeField(t *testing.T) {
	for _, tc := range []struct {
		line, want string
	}{
		{`{"time": "2024-12-01T10:00:00Z", "msec": "1733047200.250"}`, "msec"},
		{`{"time": 1733047200.125, "timestamp": 1733047200250}`, "time"},
		{`{"time": 1733047200, "timestamp": 1733047200250}`, "timestamp"},
		{`{"ts": 1733047200.1, "StartLocal": "2024-12-01T11:00:00+01:00"}`, "StartLocal"},
		{`{"time_local": "01/Dec/2024:10:00:00 +0000", "@timestamp": "2024-12-01T10:00:00.5Z"}`, "@timestamp"},
	} {
		p := writeTemp(t, "p.jsonl", tc.line+"\n")
		info, err := ScanLog(p, "p", LogOptions{})
		if err != nil || info.TimeField != tc.want {
			t.Errorf("%s: %q %v, want %s", tc.line, info.TimeField, err, tc.want)
		}
	}
}

// FuzzDetectFormat: detection never panics, and a combined or common
// answer means a line of the sample parses as one.
func FuzzDetectFormat(f *testing.F) {
	for _, name := range []string{"nginx-vhost.log", "xff.log", "apache-mixed.log", "truncated.log", "caddy.json"} {
		data, _ := os.ReadFile(logs + name)
		f.Add(data)
	}
	f.Add([]byte("a, b c - - [x] \"GET /\" 200 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := DetectFormat(data)
		if got != FormatCombined && got != FormatCommon {
			return
		}
		lines := sampleOf(data)
		s := &logStream{msec: hasMsecPrefix(lines[0])}
		var rec clfRecord
		for _, l := range lines {
			if s.parseCLF(l, &rec) == "" {
				if len(rec.f[fIP]) == 0 || bytes.ContainsAny(rec.f[fIP], ", ") {
					t.Fatalf("line %q: ip %q is not one address", l, rec.f[fIP])
				}
				return
			}
		}
		t.Fatalf("DetectFormat = %s, but no sampled line parses", got)
	})
}

// FuzzJSONPath: a dotted path into a JSON object finds what
// encoding/json finds there, for string values.
func FuzzJSONPath(f *testing.F) {
	f.Add(`{"request": {"client_ip": "203.0.113.7", "headers": {"X": ["a", "b"]}}}`, "request.client_ip")
	f.Add(`{"a": {"b": {"c": "d\"e"}}, "x": 1}`, "a.b.c")
	f.Add(`{"a": [{"b": 1}], "a.b": "z"}`, "a.b")
	f.Fuzz(func(t *testing.T, obj, path string) {
		var m map[string]any
		if json.Unmarshal([]byte(obj), &m) != nil || path == "" || !utf8.ValidString(obj) {
			return // invalid UTF-8 stays as its bytes here, where encoding/json writes U+FFFD
		}
		segs := bytes.Split([]byte(path), []byte{'.'})
		got, found := lookupPath([]byte(obj), segs)
		var cur any = m
		for _, s := range segs {
			mm, ok := cur.(map[string]any)
			if !ok {
				return // encoding/json would need the whole path to be objects
			}
			if cur, ok = mm[string(s)]; !ok {
				if found {
					t.Fatalf("%s in %s: found %q where encoding/json has nothing", path, obj, got)
				}
				return
			}
		}
		str, ok := cur.(string)
		if !ok || hasDupKeys(obj) {
			return
		}
		if !found || string(decodeValue(got)) != str {
			t.Fatalf("%s in %s: %q (found %v), encoding/json %q", path, obj, decodeValue(got), found, str)
		}
	})
}

// hasDupKeys is a rough check for a repeated key, where the first (ours)
// and the last (encoding/json's) value differ.
func hasDupKeys(obj string) bool {
	dec := json.NewDecoder(strings.NewReader(obj))
	seen := map[string]bool{}
	depth := 0
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
				expectKey = append(expectKey, v == '{')
			} else {
				depth--
				expectKey = expectKey[:len(expectKey)-1]
			}
			continue
		case string:
			if len(expectKey) > 0 && expectKey[len(expectKey)-1] && dec.More() {
				key := fmt.Sprint(depth, v)
				if seen[key] {
					return true
				}
				seen[key] = true
			}
		}
	}
}

// The fields an error lists are the first line's, once (the sample and
// the read both see line 1).
func TestLogFirstFieldsOnce(t *testing.T) {
	p := writeTemp(t, "f.jsonl", `{"time": 1, "ip": "a"}`+"\n")
	_, err := ScanLog(p, "f.jsonl", LogOptions{Keys: []string{"host"}})
	if err == nil || err.Error() != `--key "host" is a field of no line of f.jsonl; use one of the fields the first line has: time, ip` {
		t.Errorf("%v", err)
	}
}

// Text from the log in a message is escaped when it is not printable.
func TestLogMessagesEscaped(t *testing.T) {
	p := writeTemp(t, "e.log", "1.2.3.4 - - [\x1b[2J] \"GET / HTTP/1.1\" 200 5\n")
	_, err := ScanLog(p, "e.log", LogOptions{Format: FormatCommon})
	if err == nil || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `the time [\x1b[2J] is not`) {
		t.Errorf("%q", err)
	}
	p = writeTemp(t, "e.jsonl", "{\"\\u001b[2J\": 1}\n")
	_, err = ScanLog(p, "e.jsonl", LogOptions{})
	if err == nil || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("%q", err)
	}
}

// A done context stops ScanLog's pass and the sort's read with its error.
func TestLogContextStops(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, `{"time": %d, "ip": "a"}`+"\n", 1700000000+i%7)
	}
	p := writeTemp(t, "c.jsonl", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ScanLog(p, "c", LogOptions{Sort: true, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("scan: %v", err)
	}
	info, err := ScanLog(p, "c", LogOptions{Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenLog(p, "c", LogOptions{Sort: true, Context: ctx, Origin: info.Origin})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.Next(); ok || !errors.Is(st.Err(), context.Canceled) {
		t.Errorf("sort: %v %v", ok, st.Err())
	}
}
