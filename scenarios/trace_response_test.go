package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestTraceResponseColumns(t *testing.T) {
	st := NewTraceReader(strings.NewReader("t_ms,rt_ms,error\n0,20,0\n1.5, 400.25 ,1\n2,0,0\n"), "t.csv")
	var got []Arrival
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		got = append(got, a)
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	want := []Arrival{
		{At: 0, Clock: 0, HasResponse: true, RT: 20 * time.Millisecond},
		{At: 1500 * time.Microsecond, Clock: 1500 * time.Microsecond, HasResponse: true, RT: 400250 * time.Microsecond, Failed: true},
		{At: 2 * time.Millisecond, Clock: 2 * time.Millisecond, HasResponse: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d arrivals, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("arrival %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// rt_ms alone: no errors.
	st = NewTraceReader(strings.NewReader("t_ms,rt_ms\n7,3\n"), "t.csv")
	a, ok := st.Next()
	if !ok || a != (Arrival{At: 7 * time.Millisecond, Clock: 7 * time.Millisecond, HasResponse: true, RT: 3 * time.Millisecond}) {
		t.Errorf("t_ms,rt_ms: %+v %v %v", a, ok, st.Err())
	}
}

func TestTraceResponseColumnErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"missing column", "t_ms,rt_ms,error\n0,20,0\n5,20\n", `t.csv:3: 2 columns where the header t_ms,rt_ms,error has 3`},
		{"extra column", "t_ms,rt_ms\n5,20,1\n", `t.csv:2: 3 columns where the header t_ms,rt_ms has 2`},
		{"bad rt", "t_ms,rt_ms,error\n5,abc,1\n", `t.csv:2: rt_ms: "abc" is not a decimal number`},
		{"negative rt", "t_ms,rt_ms,error\n5,-3,1\n", `t.csv:2: rt_ms: "-3" is negative`},
		{"bad error", "t_ms,rt_ms,error\n5,3,yes\n", `t.csv:2: error is "yes"; write 0`},
		{"bad t", "t_ms,rt_ms,error\nx,3,1\n", `t.csv:2: t_ms: "x" is not a decimal number`},
		{"bad header", "latency,t_ms\n5,3\n", `t.csv:1: the header is "latency,t_ms", expected t_ms`},
		// Issue 21, item 1: the fixed headers bound the call's end as the
		// named columns do; 5e12+5e12 ms would wrap the int64 nanoseconds.
		{"rt whose sum wraps", "t_ms,rt_ms,error\n5000000000000,5000000000000,1\n", `t.csv:2: rt_ms: response time "5000000000000" would end the call past 7000000000000 ms`},
		{"rt past the bound", "t_ms,rt_ms\n6999999999999,2\n", `t.csv:2: rt_ms: response time "2" would end the call past 7000000000000 ms`},
	} {
		st := NewTraceReader(strings.NewReader(tc.in), "t.csv")
		for {
			if _, ok := st.Next(); !ok {
				break
			}
		}
		err := st.Err()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", tc.name, err, tc.want)
		}
	}
}

// FuzzParseTraceResponses: traces with response columns never panic, every
// arrival carries a response with a non-negative RT, and errors are one
// line naming the file and line.
func FuzzParseTraceResponses(f *testing.F) {
	for _, seed := range []string{"t_ms,rt_ms,error\n0,20,0\n1.5,400.25,1\n", "t_ms,rt_ms\n7,3\n", "t_ms,rt_ms,error\n5,20\n", "t_ms,rt_ms,error\n5,-1,0\n", "t_ms,rt_ms,error\n5,1,2\n", "t_ms, rt_ms ,error\n1,1,1\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := NewTraceReader(strings.NewReader(string(data)), "fuzz.csv")
		for {
			a, ok := st.Next()
			if !ok {
				break
			}
			if a.At < 0 || a.At != a.Clock || a.RT < 0 || (!a.HasResponse && (a.RT != 0 || a.Failed)) {
				t.Fatalf("arrival %+v", a)
			}
		}
		if err := st.Err(); err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fuzz.csv:") || !strings.Contains(msg, "; ") {
				t.Fatalf("error not one line with a fix: %q", msg)
			}
		}
	})
}
