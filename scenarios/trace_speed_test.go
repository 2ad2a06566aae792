package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The trace readers' fast path (millisBytes on the scanner's bytes) must
// decide exactly as parseMillis: every string it takes, parseMillis takes
// with the same duration; whatever it leaves goes to parseMillis, so its
// value or error is parseMillis's own.
func FuzzMillisBytes(f *testing.F) {
	for _, s := range []string{"0", "1000.25", "1.", ".5", "007", "7000000000000", "7000000000000.000001",
		"6999999999999.999999", "99999999999999", "1.1234567", "1e3", "-1", "+1", " 1", "1 ", "NaN", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := millisBytes([]byte(s))
		if fd, fok := fastMillis([]byte(s)); fok && (!ok || fd != d) {
			t.Fatalf("fastMillis(%q) = %v, millisBytes = %v, %v", s, fd, d, ok)
		}
		if !ok {
			return
		}
		want, err := parseMillis(s)
		if err != nil || d != want {
			t.Fatalf("millisBytes(%q) = %v, parseMillis = %v, %v", s, d, want, err)
		}
	})
}

// traceAllocs reads a whole trace of n lines (header first) and returns
// the allocations of one read.
func traceAllocs(t *testing.T, header, line string, n int) float64 {
	t.Helper()
	data := header + "\n" + strings.Repeat(line+"\n", n)
	return testing.AllocsPerRun(5, func() {
		st := NewTraceReader(strings.NewReader(data), "a.csv")
		k := 0
		for {
			if _, ok := st.Next(); !ok {
				break
			}
			k++
		}
		if st.Err() != nil || k != n {
			t.Fatalf("read %d of %d: %v", k, n, st.Err())
		}
	})
}

// Reading a good trace allocates per stream, not per line (issue 27): the
// allocations of 20,000 lines are those of 10 lines, for every layout the
// reader has (t_ms alone, the response columns, named columns with keys
// that repeat).
func TestTraceReadsWithoutAllocatingPerLine(t *testing.T) {
	for _, c := range []struct{ header, line string }{
		{"t_ms", "1000.25"},
		{"t_ms", " 1000.1234567 "}, // past six decimals: parseMillis, still no allocation per line
		{"t_ms,rt_ms", "1000.25, 20"},
		{"t_ms,rt_ms,error", "1000.25,20.5,1"},
		{"t_ms,key,cost,priority", "1000.25,alice,3,1"},
		{"t_ms,ip,user,rt_ms,error,cpu", `1000.25,"10.0.0.1",bob,20,0,0.5`},
	} {
		small := traceAllocs(t, c.header, c.line, 10)
		large := traceAllocs(t, c.header, c.line, 20000)
		if large > small {
			t.Errorf("%s / %q: %v allocations for 20,000 lines, %v for 10", c.header, c.line, large, small)
		}
	}
}

// The fast path keeps the readers' decisions: a line past six decimals is
// rounded as before, and a bad line still fails with parseMillis's words.
func TestTraceFastPathKeepsDecisions(t *testing.T) {
	got, err := readTraceNoT("t_ms\n1.0000005\n2.25\n0003\n")
	if err != nil || len(got) != 3 || got[0].At != 1000001 || got[1].At != 2250*time.Microsecond || got[2].At != 3*time.Millisecond {
		t.Fatalf("got %+v, %v", got, err)
	}
	_, err = readTraceNoT("t_ms\n1\n7000000000001\n")
	if err == nil || !strings.HasPrefix(err.Error(), `rt.csv:3: "7000000000001" is past the last time`) {
		t.Fatalf("err = %v", err)
	}
	_, err = readAll(NewTraceReader(strings.NewReader("t_ms,rt_ms\n1,2,3\n"), "r.csv"))
	if err == nil || err.Error() != "r.csv:2: 3 columns where the header t_ms,rt_ms has 2; write one arrival per line, for example 1000.5,20" {
		t.Fatalf("err = %v", err)
	}
}

// The validating passes over a keyed CSV trace (ScanLog, TraceSpan) intern
// no key: 2,000 distinct keys cost them no more allocations than 10, and
// the span they find is the replay's.
func TestTraceScanInternsNoKey(t *testing.T) {
	write := func(keys int) string {
		var b strings.Builder
		b.WriteString("t_ms,key,user\n")
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(&b, "%d.5,k%d,u%d\n", i, i%keys, i%keys)
		}
		p := filepath.Join(t.TempDir(), "k.csv")
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	few, many := write(10), write(2000)
	for name, pass := range map[string]func(p string){
		"ScanLog": func(p string) {
			info, err := ScanLog(p, "k.csv", LogOptions{})
			if err != nil || info.N != 2000 || info.End != 1999500*time.Microsecond || !info.Columns.Has("key") || !info.Columns.User {
				t.Fatalf("%+v, %v", info, err)
			}
		},
		"TraceSpan": func(p string) {
			start, end, n, err := TraceSpan(p)
			if err != nil || n != 2000 || start != 500*time.Microsecond || end != 1999500*time.Microsecond {
				t.Fatalf("%v %v %d %v", start, end, n, err)
			}
		},
	} {
		a := testing.AllocsPerRun(3, func() { pass(few) })
		b := testing.AllocsPerRun(3, func() { pass(many) })
		if b > a {
			t.Errorf("%s: %v allocations over 2,000 keys, %v over 10", name, b, a)
		}
	}
	// The replay still interns every key and user.
	st, err := OpenTrace(many)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	arr, err := readAll(st)
	if err != nil || len(arr) != 2000 || arr[1999].Keys[0] == NoKey || arr[1999].User == NoKey {
		t.Fatalf("%d arrivals, %v", len(arr), err)
	}
	if kt := st.(interface{ KeyTable() *KeyTable }).KeyTable(); kt.Len() != 4000 {
		t.Fatalf("%d keys interned, want 4000", kt.Len())
	}
}
