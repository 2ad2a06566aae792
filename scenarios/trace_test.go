package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readTrace(t *testing.T, data string) ([]Arrival, error) {
	t.Helper()
	return readAll(NewTraceReader(strings.NewReader(data), "t.csv"))
}

func TestTraceGood(t *testing.T) {
	tests := []struct {
		name, data string
		want       []time.Duration
	}{
		{"simple", "t_ms\n0\n100\n250\n", msList(0, 100, 250)},
		{"no final newline", "t_ms\n5\n6", msList(5, 6)},
		{"header only", "t_ms\n", nil},
		{"CRLF and BOM", "\ufefft_ms\r\n1\r\n2\r\n", msList(1, 2)},
		{"decimals exact", "t_ms\n0.1\n1000.25\n0.000001\n", []time.Duration{100000, 1000250000, 1}},
		{"backwards", "t_ms\n1000\n200\n200\n1500\n", msList(1000, 200, 200, 1500)},
		{"rounding past 6 decimals", "t_ms\n0.0000004\n0.0000005\n1.9999999\n", []time.Duration{0, 1, 2 * time.Millisecond}},
		{"leading zeros and spaces", "t_ms\n  007.5 \n", []time.Duration{7500 * time.Microsecond}},
		{"largest", "t_ms\n7000000000000\n", []time.Duration{MaxTraceMillis * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readTrace(t, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range got {
				if a.At != a.Clock {
					t.Fatalf("At %v != Clock %v", a.At, a.Clock)
				}
			}
			equalTimes(t, times(got), tc.want)
		})
	}
}

func TestTraceErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty file", "", "t.csv:1: the trace is empty"},
		{"missing header", "100\n200\n", `t.csv:1: the first line is "100", not the header t_ms; add a first line t_ms`},
		{"wrong header", "time\n100\n", `t.csv:1: the header is "time", expected t_ms`},
		{"t_ms not first", "user,t_ms\n1\n", `t.csv:1: the header is "user,t_ms"`},
		{"non-numeric", "t_ms\n1\nabc\n", `t.csv:3: "abc" is not a decimal number of milliseconds`},
		{"blank line in the middle", "t_ms\n1\n\n2\n", "t.csv:3: blank line"},
		{"two trailing newlines", "t_ms\n1\n\n", "t.csv:3: blank line"},
		{"NaN", "t_ms\nNaN\n", `t.csv:2: "NaN" is not a time`},
		{"Inf", "t_ms\n+Inf\n", `t.csv:2: "+Inf" is not a time`},
		{"negative", "t_ms\n5\n-5\n", `t.csv:3: "-5" is negative`},
		{"exponent", "t_ms\n1e3\n", `t.csv:2: "1e3" uses an exponent`},
		{"plus sign", "t_ms\n+5\n", `t.csv:2: "+5" is not a decimal number`},
		{"two dots", "t_ms\n1.2.3\n", `t.csv:2: "1.2.3" is not a decimal number`},
		{"bare dot", "t_ms\n.5\n", `t.csv:2: ".5" is not a decimal number`},
		{"two columns", "t_ms\n1,2\n", `t.csv:2: "1,2" has more than one column`},
		{"too large", "t_ms\n9223372036854.775808\n", "t.csv:2: \"9223372036854.775808\" is past the last time the lab can replay, 7000000000000 ms"},
		{"far too large", "t_ms\n99999999999999999999999\n", "is past the last time"},
		{"just past the bound", "t_ms\n7000000000000.000001\n", "is past the last time"},
		{"near the int64 range", "t_ms\n9223372036853\n9223372036854.775807\n", "t.csv:2: \"9223372036853\" is past"},
		{"long line", "t_ms\n" + strings.Repeat("1", 70000) + "\n", "t.csv:2: the line is longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readTrace(t, tc.data)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "; ") {
				t.Fatalf("error %q, want one line with a fix containing %q", msg, tc.want)
			}
		})
	}
}

func TestTraceStopsAtError(t *testing.T) {
	st := NewTraceReader(strings.NewReader("t_ms\n1\nx\n3\n"), "t.csv")
	if a, ok := st.Next(); !ok || a.At != time.Millisecond {
		t.Fatalf("first arrival %v %v", a, ok)
	}
	for i := 0; i < 3; i++ {
		if _, ok := st.Next(); ok {
			t.Fatal("arrival after an error")
		}
	}
	if st.Err() == nil {
		t.Fatal("no error")
	}
}

func TestOpenTraceAndSpan(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("t_ms\n500\n100.5\n2000\n1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start, end, n, err := TraceSpan(good)
	if err != nil || start != 100500*time.Microsecond || end != 2*time.Second || n != 4 {
		t.Fatalf("TraceSpan = %v %v %d %v", start, end, n, err)
	}
	st, err := OpenTrace(good)
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	equalTimes(t, got, msList(500, 100.5, 2000, 1000))

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("t_ms\n1\n2\noops\n"), 0o600)
	if _, _, _, err := TraceSpan(bad); err == nil || err.Error() != bad+`:4: "oops" is not a decimal number of milliseconds; write digits with at most one '.', e.g. 1000.25` {
		t.Fatalf("TraceSpan(bad) = %v", err)
	}
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, []byte("t_ms\n"), 0o600)
	if _, _, _, err := TraceSpan(empty); err == nil || !strings.Contains(err.Error(), "no timestamps") {
		t.Fatalf("TraceSpan(empty) = %v", err)
	}
	if _, err := OpenTrace(filepath.Join(dir, "none.csv")); err == nil || !strings.Contains(err.Error(), "none.csv: cannot open the trace") {
		t.Fatalf("OpenTrace(missing) = %v", err)
	}
}
