package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestTraceNamedColumns(t *testing.T) {
	data := "t_ms,ip,cost,user,route,priority,cpu,load1\n" +
		"0,10.0.0.1,,alice,/a,1,0.5,2\n" +
		"0,10.0.0.2,3,bob,/a,0,,\n" +
		"1.5,,1,,\"/b,c\",,0.25,\n" +
		"1.5, 10.0.0.1 ,2,alice,\"say \"\"hi\"\"\",1,,3.5\n"
	st := NewTraceReader(strings.NewReader(data), "t.csv")
	got, err := readAll(st)
	if err != nil {
		t.Fatal(err)
	}
	ks := st.(KeyedStream)
	if c := ks.KeyColumns(); len(c) != 2 || c[0] != "ip" || c[1] != "route" {
		t.Fatalf("KeyColumns = %v", c)
	}
	cols := StreamColumns(st)
	if !cols.User || !cols.Cost || !cols.Priority || !cols.CPU || !cols.Load1 || cols.Response || cols.Error || !cols.Has("ip") || cols.Has("key") {
		t.Fatalf("Columns = %+v", cols)
	}
	kt := ks.KeyTable()
	name := func(id int32) string { return kt.Name(id) }
	type row struct {
		at              time.Duration
		ip, route, user string
		cost            int32
		prio            bool
		cpu, load       float32
		keys2, keys3    int32
	}
	want := []row{
		{0, "10.0.0.1", "/a", "alice", 0, true, 0.5, 2, NoKey, NoKey},
		{0, "10.0.0.2", "/a", "bob", 3, false, 0.5, 2, NoKey, NoKey},
		{1500 * time.Microsecond, "", "/b,c", "", 1, false, 0.25, 2, NoKey, NoKey},
		{1500 * time.Microsecond, "10.0.0.1", `say "hi"`, "alice", 2, true, 0.25, 3.5, NoKey, NoKey},
	}
	if len(got) != len(want) {
		t.Fatalf("%d arrivals, want %d", len(got), len(want))
	}
	for i, w := range want {
		a := got[i]
		r := row{a.At, name(a.Keys[0]), name(a.Keys[1]), name(a.User), a.Cost, a.Priority, a.CPU, a.Load1, a.Keys[2], a.Keys[3]}
		if r != w || a.Clock != a.At || a.HasResponse {
			t.Errorf("arrival %d: %+v, want %+v", i, r, w)
		}
	}
	// One table for keys and users: alice is one id wherever she appears.
	if got[0].Keys[0] != got[3].Keys[0] || got[0].User != got[3].User || got[2].Keys[0] != NoKey || got[2].User != NoKey {
		t.Errorf("interning: %+v", got)
	}
	if got[0].Weight() != 1 || got[1].Weight() != 3 {
		t.Errorf("weights %d %d", got[0].Weight(), got[1].Weight())
	}
}

func TestTraceNamedResponseColumns(t *testing.T) {
	st := NewTraceReader(strings.NewReader("t_ms,error,key,rt_ms\n5,1,k,20\n6,0,,0.5\n"), "t.csv")
	got, err := readAll(st)
	if err != nil {
		t.Fatal(err)
	}
	want := []Arrival{
		{At: 5 * time.Millisecond, Clock: 5 * time.Millisecond, HasResponse: true, Failed: true, RT: 20 * time.Millisecond, Keys: [4]int32{0, NoKey, NoKey, NoKey}, User: NoKey},
		{At: 6 * time.Millisecond, Clock: 6 * time.Millisecond, HasResponse: true, RT: 500 * time.Microsecond, Keys: [4]int32{NoKey, NoKey, NoKey, NoKey}, User: NoKey},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("arrival %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if c := StreamColumns(st); !c.Response || !c.Error || len(c.Keys) != 1 {
		t.Errorf("Columns %+v", c)
	}
}

// The classic headers keep their columns and say they have no keys.
func TestTraceClassicHeadersHaveNoKeys(t *testing.T) {
	for _, h := range []string{"t_ms\n1\n", "t_ms,rt_ms\n1,2\n", "t_ms,rt_ms,error\n1,2,0\n"} {
		st := NewTraceReader(strings.NewReader(h), "t.csv")
		a, ok := st.Next()
		if !ok {
			t.Fatalf("%q: %v", h, st.Err())
		}
		if st.(KeyedStream).KeyColumns() != nil {
			t.Errorf("%q has key columns", h)
		}
		c := StreamColumns(st)
		if len(c.Keys) != 0 || c.User || c.Cost || c.Priority || c.CPU || c.Load1 || c.Response != a.HasResponse {
			t.Errorf("%q: Columns %+v", h, c)
		}
	}
}

func TestTraceNamedColumnErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"five keys", "t_ms,a,b,c,d,e\n", "t.csv:1: the header has 5 key columns (a, b, c, d, e); the lab carries at most 4"},
		{"four keys fine, then a bad row", "t_ms,a,b,c,d\n1,2\n", "t.csv:2: 2 columns where the header t_ms,a,b,c,d has 5"},
		{"duplicate", "t_ms,key,cost,key\n", `t.csv:1: column "key" appears twice in the header (columns 2 and 4)`},
		{"t_ms twice", "t_ms,t_ms\n", `t.csv:1: column "t_ms" appears twice`},
		{"empty name", "t_ms,,key\n", "t.csv:1: column 2 of the header has no name"},
		{"bad name", "t_ms,a b\n", `t.csv:1: column name "a b" has the character ' '`},
		{"error without rt", "t_ms,key,error\n", "t.csv:1: the header has an error column but no rt_ms"},
		{"too many cells", "t_ms,key\n1,a,b\n", "t.csv:2: 3 columns where the header t_ms,key has 2"},
		{"bad quote", "t_ms,key\n1,\"a\n", "t.csv:2: column 2 has an unterminated or misplaced quote"},
		{"text after quote", "t_ms,key\n1,\"a\"b\n", "t.csv:2: column 2 has an unterminated or misplaced quote"},
		{"bad t", "t_ms,key\nx,a\n", `t.csv:2: t_ms: "x" is not a decimal number`},
		{"negative t", "t_ms,key\n-1,a\n", `t.csv:2: t_ms: "-1" is negative`},
		{"blank", "t_ms,key\n1,a\n\n2,b\n", "t.csv:3: blank line"},
		{"cost 0", "t_ms,cost\n1,0\n", `t.csv:2: cost is "0"; write a whole number of requests, 1 or more`},
		{"cost fraction", "t_ms,cost\n1,1.5\n", `t.csv:2: cost is "1.5"`},
		{"cost huge", "t_ms,cost\n1,99999999999\n", `t.csv:2: cost is "99999999999"`},
		{"priority 2", "t_ms,priority\n1,2\n", `t.csv:2: priority is "2"; write 1`},
		{"cpu above 1", "t_ms,cpu\n1,1.5\n", `t.csv:2: cpu is "1.5"; write the CPU utilisation as a number from 0 to 1`},
		{"cpu NaN", "t_ms,cpu\n1,NaN\n", `t.csv:2: cpu is "NaN"`},
		{"load negative", "t_ms,load1\n1,-1\n", `t.csv:2: load1 is "-1"`},
		{"load inf", "t_ms,load1\n1,+Inf\n", `t.csv:2: load1 is "+Inf"`},
		{"error 2", "t_ms,rt_ms,error,key\n1,2,2,a\n", `t.csv:2: error is "2"; write 0`},
		// Issue 21, item 9: an rt_ms error speaks of the response time.
		{"negative rt", "t_ms,key,rt_ms\n1,a,-3\n", `t.csv:2: rt_ms: "-3" is negative; a response time is 0 or more milliseconds`},
		{"empty rt", "t_ms,key,rt_ms\n1,a,\n", `t.csv:2: rt_ms: empty response time`},
		{"bad rt", "t_ms,key,rt_ms\n1,a,abc\n", `t.csv:2: rt_ms: "abc" is not a decimal number`},
		// Issue 21, item 1: the call's end must stay a replayable time.
		{"rt past the bound", "t_ms,key,rt_ms\n6999999999999,a,2\n", `t.csv:2: rt_ms: response time "2" would end the call past 7000000000000 ms`},
		{"rt far past", "t_ms,key,rt_ms\n1,a,99999999999999999999999\n", `t.csv:2: rt_ms: response time "99999999999999999999999" would end the call past`},
		{"rt past int64", "t_ms,key,rt_ms\n7000000000000,a,9223372036854.775807\n", `t.csv:2: rt_ms: response time "9223372036854.775807" would end the call past`},
		// t and rt each in range, but t+rt past the int64 range: the sum
		// must not wrap into a time before the bound.
		{"rt whose sum wraps", "t_ms,key,rt_ms\n5000000000000,a,5000000000000\n", `t.csv:2: rt_ms: response time "5000000000000" would end the call past 7000000000000 ms`},
		{"rt whose sum wraps, slow path", "t_ms,key,rt_ms\n7000000000000,a,7000000000000.0000001\n", `t.csv:2: rt_ms: response time "7000000000000.0000001" would end the call past`},
	} {
		st := NewTraceReader(strings.NewReader(tc.in), "t.csv")
		_, err := readAll(st)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "; ") {
			t.Errorf("%s: %v, want one line with a fix starting %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(tc.name, "rt") && strings.Contains(err.Error(), "shift the trace") {
			t.Errorf("%s: an rt_ms error uses the timestamp wording: %v", tc.name, err)
		}
	}
}

func TestTraceNamedRTAtTheBound(t *testing.T) {
	got, err := readAll(NewTraceReader(strings.NewReader("t_ms,key,rt_ms\n6999999999999,a,1\n0,a,7000000000000\n"), "t.csv"))
	if err != nil || len(got) != 2 || got[0].RT != time.Millisecond || got[1].RT != MaxTraceMillis*time.Millisecond {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestTraceNamedStepsBack(t *testing.T) {
	st := NewTraceReader(strings.NewReader("t_ms,key\n5,a\n3,a\n3,b\n"), "t.csv")
	if _, err := readAll(st); err != nil {
		t.Fatal(err)
	}
	n, largest := st.(interface{ StepsBack() (int64, time.Duration) }).StepsBack()
	if n != 1 || largest != 2*time.Millisecond {
		t.Errorf("StepsBack %d %v", n, largest)
	}
}

// fastMillis agrees with parseMillis wherever it accepts.
func TestFastMillisAgrees(t *testing.T) {
	for _, s := range []string{"0", "1", "1.5", "0.000001", "1000.25", "7000000000000", "6999999999999.999999", "007.5", "123456789.123456"} {
		d, ok := fastMillis([]byte(s))
		want, err := parseMillis(s)
		if !ok || err != nil || d != want {
			t.Errorf("%s: fast %v %v, parseMillis %v %v", s, d, ok, want, err)
		}
	}
	for _, s := range []string{"", ".5", "1.", "1.1234567", "7000000000000.000001", "99999999999999", "1e3", "-1", "+1", " 1"} {
		if _, ok := fastMillis([]byte(s)); ok {
			t.Errorf("%q: fast path accepted it", s)
		}
	}
}

// FuzzParseTraceColumns: traces with named columns never panic; every
// arrival's keys are NoKey or ids of the table, costs and signals are in
// range, and errors are one line naming the file and line with a fix.
func FuzzParseTraceColumns(f *testing.F) {
	for _, seed := range []string{
		"t_ms,key,cost\n0,a,2\n1,,\n",
		"t_ms,ip,route,user,priority,cpu,load1\n0,1.2.3.4,/a,u,1,0.5,2\n0,\"x,y\",,,0,,\n",
		"t_ms,error,rt_ms,key\n1,1,20,k\n",
		"t_ms,a,b,c,d,e\n",
		"t_ms,key\n1,\"a\"\"b\"\n2,\"unterminated\n",
		"t_ms,key,rt_ms\n6999999999999,a,2\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := NewTraceReader(strings.NewReader(string(data)), "fuzz.csv")
		ks := st.(KeyedStream)
		for {
			a, ok := st.Next()
			if !ok {
				break
			}
			n := int32(ks.KeyTable().Len())
			for i, k := range a.Keys {
				if i >= len(ks.KeyColumns()) && ks.KeyColumns() != nil && k != NoKey {
					t.Fatalf("key slot %d set beyond the columns: %+v", i, a)
				}
				if ks.KeyColumns() != nil && (k < NoKey || k >= n) {
					t.Fatalf("key id %d out of the table (%d)", k, n)
				}
			}
			if a.At < 0 || a.At != a.Clock || a.RT < 0 || a.Cost < 0 || a.CPU < 0 || a.CPU > 1 || a.Load1 < 0 ||
				a.At+a.RT > MaxTraceMillis*time.Millisecond {
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

// The columns are known before the first arrival is read, and reading
// them does not lose the first arrival.
func TestTraceColumnsBeforeNext(t *testing.T) {
	st := NewTraceReader(strings.NewReader("t_ms,ip,user\n5,a,u\n"), "t.csv")
	if c := st.(KeyedStream).KeyColumns(); len(c) != 1 || c[0] != "ip" || !StreamColumns(st).User {
		t.Fatalf("columns before Next: %v %+v", c, StreamColumns(st))
	}
	got, err := readAll(st)
	if err != nil || len(got) != 1 || got[0].At != 5*time.Millisecond {
		t.Fatalf("%+v %v", got, err)
	}
	bad := NewTraceReader(strings.NewReader("t_ms,a,a\n5,1,2\n"), "t.csv")
	if c := bad.(KeyedStream).KeyColumns(); c != nil {
		t.Fatalf("bad header has columns %v", c)
	}
	if _, ok := bad.Next(); ok || bad.Err() == nil || !strings.HasPrefix(bad.Err().Error(), "t.csv:1: column \"a\" appears twice") {
		t.Fatalf("bad header: %v", bad.Err())
	}
	empty := NewTraceReader(strings.NewReader(""), "t.csv")
	empty.(KeyedStream).KeyColumns()
	if _, ok := empty.Next(); ok || empty.Err() == nil || !strings.Contains(empty.Err().Error(), "the trace is empty") {
		t.Fatalf("empty: %v", empty.Err())
	}
}

// BenchmarkParseKeyedCSV reads a trace with a key, a user and a cost
// column (10,000 keys) and reports lines per second.
func BenchmarkParseKeyedCSV(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("t_ms,key,user,cost\n")
	const lines = 200_000
	for i := 0; i < lines; i++ {
		sb.WriteString(fmtMillis(time.Duration(i) * 50 * time.Microsecond))
		sb.WriteString(",10.0.")
		sb.WriteString(strings.Repeat("1", 1+i%3))
		sb.WriteString(".")
		sb.WriteString(fmtMillis(time.Duration(i%10000) * time.Millisecond))
		sb.WriteString(",u")
		sb.WriteString(fmtMillis(time.Duration(i%200) * time.Millisecond))
		sb.WriteString(",1\n")
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var n int64
	for i := 0; i < b.N; i++ {
		st := NewTraceReader(strings.NewReader(data), "bench.csv")
		for {
			if _, ok := st.Next(); !ok {
				break
			}
			n++
		}
		if err := st.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
}
