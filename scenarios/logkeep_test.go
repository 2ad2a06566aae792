package scenarios

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/floor"
)

// keepCase is a trace and the options it is read with.
type keepCase struct {
	name string
	path string
	o    LogOptions
}

// keepCases are the traces TestKeptReplayMatchesFile replays both ways:
// the example logs of every format, generated logs and CSV traces (keys,
// users, empty cells, quoted cells, steps back, bad lines skipped), and a
// gzipped one.
func keepCases(t *testing.T) []keepCase {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := rand.New(rand.NewPCG(27, 1))
	var clf, csvKeys, csvTimes, jsonl strings.Builder
	csvKeys.WriteString("t_ms,ip,user,route\n")
	csvTimes.WriteString("t_ms\n")
	sec := 0
	for i := 0; i < 3000; i++ {
		if r.IntN(4) == 0 {
			sec += r.IntN(3)
		}
		ip := fmt.Sprintf("10.0.%d.%d", r.IntN(4), r.IntN(60))
		user := []string{"-", "alice", "bob", ""}[r.IntN(4)]
		if user == "" {
			user = "-"
		}
		fmt.Fprintf(&clf, "%s - %s [01/Dec/2024:10:%02d:%02d +0000] \"GET /r/%d HTTP/1.1\" %d 512 \"-\" \"agent %d\"\n", ip, user, sec/60%60, sec%60, r.IntN(9), 200+r.IntN(3)*100, r.IntN(5))
		if i%97 == 5 {
			clf.WriteString("this line is not a log line\n")
		}
		ms := fmt.Sprintf("%d.%03d", sec*1000+r.IntN(1000), r.IntN(1000))
		if r.IntN(50) == 0 {
			ms = "12" // a step back
		}
		cell := []string{ip, "", `"a,b"`, "x"}[r.IntN(4)]
		fmt.Fprintf(&csvKeys, "%s,%s,%s,r%d\n", ms, cell, []string{"u1", "", "u2"}[r.IntN(3)], r.IntN(7))
		fmt.Fprintf(&csvTimes, "%s\n", ms)
		fmt.Fprintf(&jsonl, `{"time": %d.%03d%03d, "remote_addr": %q, "request": "GET / HTTP/1.1", "user": %q, "up": {"addr": "10.1.1.%d"}}`+"\n", 1733050800+sec, i/10, i%10, ip, user, r.IntN(3))
		if i%101 == 7 {
			jsonl.WriteString(`{"level": "info", "msg": "not a request"}` + "\n")
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(clf.String()))
	zw.Close()
	skip := LogOptions{Keys: []string{"ip"}, BadLines: BadLinesSkip}
	return []keepCase{
		{"example combined --key ip", "examples/access.log", LogOptions{Keys: []string{"ip"}}},
		{"example combined --key ip,path --user user", "examples/access.log", LogOptions{Keys: []string{"ip", "path"}, User: "user"}},
		{"example combined --key user --user user", "examples/access.log", LogOptions{Keys: []string{"user"}, User: "user"}},
		{"example combined, no key", "examples/access.log", LogOptions{}},
		{"common", "testdata/access-common.log", LogOptions{Keys: []string{"ip"}}},
		{"msec", "testdata/access-msec.log", LogOptions{Keys: []string{"ip", "status"}}},
		{"jsonl", "testdata/access.jsonl", LogOptions{Keys: []string{"remote_addr", "upstream.addr"}, User: "user"}},
		{"apache mixed", "testdata/logs/apache-mixed.log", LogOptions{Keys: []string{"ip"}, User: "user"}},
		{"vhost", "testdata/logs/nginx-vhost.log", LogOptions{Keys: []string{"vhost", "ip"}}},
		{"xff", "testdata/logs/xff.log", LogOptions{Keys: []string{"ip", "agent"}}},
		{"truncated, skipped", "testdata/logs/truncated.log", skip},
		{"caddy", "testdata/logs/caddy.json", LogOptions{Keys: []string{"request.client_ip"}}},
		{"traefik", "testdata/logs/traefik.json", LogOptions{Keys: []string{"ClientHost"}, User: "ClientUsername"}},
		{"generated combined, bad lines skipped", write("gen.log", clf.String()), LogOptions{Keys: []string{"ip", "agent", "status"}, User: "user", BadLines: BadLinesSkip}},
		{"generated combined, gzipped", write("gen.log.gz", gz.String()), LogOptions{Keys: []string{"ip"}, User: "user", BadLines: BadLinesSkip}},
		{"generated jsonl", write("gen.jsonl", jsonl.String()), LogOptions{Keys: []string{"remote_addr", "up.addr"}, User: "user"}},
		{"generated csv with keys", write("keys.csv", csvKeys.String()), LogOptions{}},
		{"generated csv, times only", write("times.csv", csvTimes.String()), LogOptions{}},
	}
}

// drain reads a stream to its end, with each arrival's key and user names.
type drained struct {
	arrivals []Arrival
	names    []string
	err      error
	back     int64
	largest  time.Duration
	cols     Columns
	keyCols  []string
	tableLen int
}

func drainKept(t *testing.T, st Stream) drained {
	t.Helper()
	var d drained
	d.cols = StreamColumns(st)
	ks, _ := st.(KeyedStream)
	if ks != nil {
		d.keyCols = ks.KeyColumns()
	}
	name := func(id int32) string {
		if id == NoKey {
			return "<none>"
		}
		return ks.KeyTable().Name(id)
	}
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		d.arrivals = append(d.arrivals, a)
		if ks != nil {
			for _, id := range a.Keys {
				d.names = append(d.names, name(id))
			}
			d.names = append(d.names, name(a.User))
		}
	}
	d.err = st.Err()
	if sb, ok := st.(interface {
		StepsBack() (int64, time.Duration)
	}); ok {
		d.back, d.largest = sb.StepsBack()
	}
	if ks != nil {
		d.tableLen = ks.KeyTable().Len()
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestKeptReplayMatchesFile: the arrivals ScanLog keeps replay exactly as
// the file's reading gives them (times, key and user ids, their names,
// the table, the columns, the steps back, no error), ScanLog's LogInfo is
// the same with and without Keep, and Kept is taken once: a second
// OpenLog reads the file.
func TestKeptReplayMatchesFile(t *testing.T) {
	for _, c := range keepCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.path); err != nil {
				t.Skip(err)
			}
			plain, err := ScanLog(c.path, c.name, c.o)
			if err != nil {
				t.Fatal(err)
			}
			ko := c.o
			ko.Keep = true
			info, err := ScanLog(c.path, c.name, ko)
			if err != nil {
				t.Fatal(err)
			}
			if info.Kept == nil {
				t.Fatal("nothing kept")
			}
			kept := info.Kept
			info.Kept = nil
			if !reflect.DeepEqual(info, plain) {
				t.Fatalf("LogInfo with Keep\n%+v\nwithout\n%+v", info, plain)
			}
			ro := c.o
			ro.Origin = info.Origin
			want := drainKept(t, mustOpen(t, c.path, c.name, ro))
			ro.Kept = kept
			st := mustOpen(t, c.path, c.name, ro)
			if _, ok := st.(*keptStream); !ok {
				t.Fatalf("OpenLog with Kept gave a %T", st)
			}
			got := drainKept(t, st)
			if len(want.arrivals) != int(plain.N) {
				t.Fatalf("the file gives %d arrivals, ScanLog counted %d", len(want.arrivals), plain.N)
			}
			if !reflect.DeepEqual(got, want) {
				for i := range min(len(got.arrivals), len(want.arrivals)) {
					if got.arrivals[i] != want.arrivals[i] {
						t.Fatalf("arrival %d: kept %+v, file %+v", i, got.arrivals[i], want.arrivals[i])
					}
				}
				t.Fatalf("kept replay %+v\nfile replay %+v", summarize(got), summarize(want))
			}
			again := mustOpen(t, c.path, c.name, ro)
			if _, ok := again.(*keptStream); ok {
				t.Fatal("Kept was replayed twice")
			}
			if d := drainKept(t, again); !reflect.DeepEqual(d, want) {
				t.Fatalf("the second OpenLog differs from the file: %+v", summarize(d))
			}
		})
	}
}

func summarize(d drained) string {
	return fmt.Sprintf("%d arrivals, err %v, back %d/%v, cols %+v, keyCols %q, table %d", len(d.arrivals), d.err, d.back, d.largest, d.cols, d.keyCols, d.tableLen)
}

func mustOpen(t *testing.T, path, name string, o LogOptions) Stream {
	t.Helper()
	st, err := OpenLog(path, name, o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestKeptReadFile: a kept stream told to read its file before its first
// arrival gives what the file's stream gives, with a fresh table that
// takes a key interned from outside (key=*) at the same id.
func TestKeptReadFile(t *testing.T) {
	for _, c := range keepCases(t)[:2] {
		o := c.o
		o.Keep = true
		info, err := ScanLog(c.path, c.name, o)
		if err != nil || info.Kept == nil {
			t.Fatal(err, info.Kept)
		}
		o = c.o
		o.Origin = info.Origin
		file := mustOpen(t, c.path, c.name, o)
		o.Kept = info.Kept
		kept := mustOpen(t, c.path, c.name, o).(*keptStream)
		if err := kept.ReadFile(); err != nil {
			t.Fatal(err)
		}
		for _, st := range []Stream{file, kept} {
			st.Next()
			st.(KeyedStream).KeyTable().Intern("*")
		}
		if a, b := drainKept(t, kept), drainKept(t, file); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: after ReadFile %s, the file %s", c.name, summarize(a), summarize(b))
		}
	}
	// After its first arrival it refuses.
	c := keepCases(t)[0]
	o := c.o
	o.Keep = true
	info, _ := ScanLog(c.path, c.name, o)
	o.Keep, o.Kept, o.Origin = false, info.Kept, info.Origin
	st := mustOpen(t, c.path, c.name, o).(*keptStream)
	defer st.Close()
	st.Next()
	if err := st.ReadFile(); err == nil {
		t.Fatal("ReadFile after the first arrival did not fail")
	}
}

// TestKeptBounds: nothing is kept past keepMax bytes nor for a trace
// estimated above keepLines lines, nor for sorted logs or CSV columns
// beyond keys and user; the LogInfo stays the same.
func TestKeptBounds(t *testing.T) {
	cases := keepCases(t)
	gen := cases[13] // the generated combined log, 3,000 lines
	check := func(what string, c keepCase) {
		t.Helper()
		o := c.o
		plain, err := ScanLog(c.path, c.name, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Keep = true
		info, err := ScanLog(c.path, c.name, o)
		if err != nil {
			t.Fatal(err)
		}
		if info.Kept != nil {
			t.Errorf("%s: kept", what)
		}
		if !reflect.DeepEqual(info, plain) {
			t.Errorf("%s: LogInfo\n%+v\nwithout Keep\n%+v", what, info, plain)
		}
	}
	func() {
		defer func(m int) { keepMax = m }(keepMax)
		keepMax = keepChunk // one chunk: 3,000 lines fit; 300,000 would not
		o := gen.o
		o.Keep = true
		if info, err := ScanLog(gen.path, gen.name, o); err != nil || info.Kept == nil {
			t.Fatalf("one chunk: %v, kept %v", err, info.Kept != nil)
		}
		keepMax = 0
		check("keepMax 0", gen)
	}()
	func() {
		defer func(n int64) { keepLines = n }(keepLines)
		keepLines = 1000
		check("keepLines 1000", gen)
		check("keepLines 1000, gzipped", cases[14])
	}()
	sorted := gen
	sorted.o.Sort = true
	check("--sort", sorted)
	check("t_ms,rt_ms,error", keepCase{"calls", "examples/calls.csv", LogOptions{}})
	dir := t.TempDir()
	p := filepath.Join(dir, "cost.csv")
	os.WriteFile(p, []byte("t_ms,key,cost\n1,a,2\n2,b,\n"), 0o644)
	check("a cost column", keepCase{"cost", p, LogOptions{}})
}

// TestEstimateLines: the estimate scales the file's size (a gzipped
// file's by its trailer) by the sample's mean line length.
func TestEstimateLines(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("0123456789\n", 1000) // 11 bytes a line
	p := filepath.Join(dir, "t")
	os.WriteFile(p, []byte(text), 0o644)
	if n := estimateLines(p, []byte(text[:1100])); n < 990 || n > 1010 {
		t.Errorf("plain: %d lines, want about 1000", n)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	os.WriteFile(p+".gz", gz.Bytes(), 0o644)
	if n := estimateLines(p+".gz", []byte(text[:1100])); n < 990 || n > 1010 {
		t.Errorf("gzipped: %d lines, want about 1000", n)
	}
	if n := estimateLines(filepath.Join(dir, "none"), nil); n != -1 {
		t.Errorf("a missing file: %d, want -1", n)
	}
}

// FuzzKeptReplay: for any file, ScanLog with Keep says what it says
// without (the same LogInfo or the same error), and when it keeps the
// arrivals their replay is the file's replay.
func FuzzKeptReplay(f *testing.F) {
	for _, s := range []string{
		"t_ms,key,user\n1,a,u\n2,,\n1.5,\"b,c\",u\n",
		"t_ms\n3\n1\n2.0000005\n",
		"t_ms,ip,cost\n1,a,2\n",
		`203.0.113.7 - bob [01/Dec/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "a"` + "\n" + `192.0.2.1 - - [01/Dec/2024:10:00:01 +0000] "GET /x HTTP/1.1" 404 5 "-" "-"` + "\n",
		"1733047200.120 203.0.113.7 - - [01/Dec/2024:10:00:00 +0000] \"GET / HTTP/1.1\" 200 5\n",
		`{"time": 1733050800.039, "remote_addr": "203.0.113.7", "request": "GET / HTTP/1.1", "user": null}` + "\n" + `{"msg": "x"}` + "\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, opt uint8) {
		p := filepath.Join(dir, "trace")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var o LogOptions
		if opt&1 != 0 {
			o.BadLines = BadLinesSkip
		}
		switch opt >> 1 & 3 {
		case 1:
			o.Keys = []string{"ip"}
		case 2:
			o.Keys, o.User = []string{"remote_addr", "user"}, "user"
		case 3:
			o.Keys, o.User = []string{"ip", "agent"}, "user"
		}
		plain, perr := ScanLog(p, "trace", o)
		ko := o
		ko.Keep = true
		info, err := ScanLog(p, "trace", ko)
		kept := info.Kept
		info.Kept = nil
		if fmt.Sprint(err) != fmt.Sprint(perr) || !reflect.DeepEqual(info, plain) {
			t.Fatalf("with Keep: %+v, %v; without: %+v, %v", info, err, plain, perr)
		}
		if err != nil || kept == nil {
			return
		}
		o.Origin = info.Origin
		st, err := OpenLog(p, "trace", o)
		if err != nil {
			t.Fatal(err)
		}
		want := drainKept(t, st)
		o.Kept = kept
		st, err = OpenLog(p, "trace", o)
		if err != nil {
			t.Fatal(err)
		}
		if got := drainKept(t, st); !reflect.DeepEqual(got, want) {
			t.Fatalf("kept replay %s\nfile replay %s", summarize(got), summarize(want))
		}
	})
}

// Keeping allocates per stream, per new key and per 1 MiB block of kept
// bytes, never per line: ScanLog with Keep over 20,000 lines of 10
// addresses allocates what it does over 1,000 (one block holds both), and
// the kept replay allocates nothing per arrival.
func TestKeptWithoutAllocatingPerLine(t *testing.T) {
	o := LogOptions{Keys: []string{"ip"}, User: "user", Keep: true}
	scan := func(p string) float64 {
		return testing.AllocsPerRun(3, func() {
			if info, err := ScanLog(p, "access.log", o); err != nil || info.Kept == nil {
				t.Fatal(err, info.Kept)
			}
		})
	}
	small, large := writeCombined(t, 1000, 10), writeCombined(t, 20000, 10)
	if a, b := scan(small), scan(large); b > a {
		t.Errorf("ScanLog with Keep: %v allocations for 20,000 lines, %v for 1,000", b, a)
	}
	info, err := ScanLog(large, "access.log", o)
	if err != nil {
		t.Fatal(err)
	}
	st := mustOpen(t, large, "access.log", LogOptions{Kept: info.Kept}).(*keptStream)
	n := 0
	if allocs := testing.AllocsPerRun(19000, func() {
		if _, ok := st.Next(); ok {
			n++
		}
	}); allocs != 0 {
		t.Errorf("the kept replay allocates %v per arrival", allocs)
	}
	if n < 19000 {
		t.Fatalf("%d arrivals replayed", n)
	}
}

// TestKeptGivenBackAfterAPeek: a kept stream closed after a peek at its
// first arrivals (as a --rules run checks the columns) gives its arrivals
// back, and the next OpenLog replays them all; one closed after letting go
// of a block, or drained, does not.
func TestKeptGivenBackAfterAPeek(t *testing.T) {
	defer func(m int) { keepMax = m }(keepMax)
	keepMax = 64 * keepChunk
	var buf bytes.Buffer
	if err := floor.WriteCombined(&buf, 400_000); err != nil { // about 4 bytes a line: two blocks or more
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	o := LogOptions{Keys: []string{"ip"}, Keep: true}
	info, err := ScanLog(p, "access.log", o)
	if err != nil || info.Kept == nil {
		t.Fatal(err, info.Kept)
	}
	if len(info.Kept.chunks) < 2 {
		t.Fatalf("%d blocks; the test needs two or more", len(info.Kept.chunks))
	}
	ro := LogOptions{Keys: []string{"ip"}, Origin: info.Origin, Kept: info.Kept}
	want := drainKept(t, mustOpen(t, p, "access.log", LogOptions{Keys: []string{"ip"}, Origin: info.Origin}))
	peek := mustOpen(t, p, "access.log", ro)
	peek.Next()
	peek.Next()
	peek.Close()
	st := mustOpen(t, p, "access.log", ro)
	if _, ok := st.(*keptStream); !ok {
		t.Fatal("a peeked stream did not give its arrivals back")
	}
	// Read past the first block, then close: nothing is given back.
	for !st.(*keptStream).released {
		if _, ok := st.Next(); !ok {
			t.Fatal("no block was let go before the end")
		}
	}
	st.Close()
	again := mustOpen(t, p, "access.log", ro)
	if _, ok := again.(*keptStream); ok {
		t.Fatal("a stream that let go of a block gave its arrivals back")
	}
	again.Close()
	// The replay after a peek is whole.
	info, _ = ScanLog(p, "access.log", o)
	ro.Kept = info.Kept
	peek = mustOpen(t, p, "access.log", ro)
	peek.Next()
	peek.Close()
	if got := drainKept(t, mustOpen(t, p, "access.log", ro)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a peek: %s, the file %s", summarize(got), summarize(want))
	}
}
