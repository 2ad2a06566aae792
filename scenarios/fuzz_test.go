package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func FuzzParseTrace(f *testing.F) {
	for _, seed := range []string{"t_ms\n0\n1.5\n", "t_ms\n1000.25\n999\n", "", "t_ms\n\n", "t_ms\n-1\n", "t_ms\n1e3\n", "t_ms\n0.0000005\n", "100\n", "t_ms\r\n1\r\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := NewTraceReader(strings.NewReader(string(data)), "fuzz.csv")
		n := 0
		for {
			a, ok := st.Next()
			if !ok {
				break
			}
			n++
			if a.At < 0 || a.At != a.Clock {
				t.Fatalf("arrival %+v", a)
			}
		}
		if _, ok := st.Next(); ok {
			t.Fatal("arrival after the end")
		}
		if err := st.Err(); err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fuzz.csv:") || !strings.Contains(msg, "; ") {
				t.Fatalf("error not one line with a fix: %q", msg)
			}
		}
		// An exact round trip: every integer nanosecond count printed as
		// milliseconds with six decimals parses back to itself.
		if n > 0 && st.Err() == nil {
			st2 := NewTraceReader(strings.NewReader(string(data)), "fuzz.csv")
			var b strings.Builder
			b.WriteString("t_ms\n")
			var want []time.Duration
			for {
				a, ok := st2.Next()
				if !ok {
					break
				}
				want = append(want, a.At)
				ns := int64(a.At)
				b.WriteString(strings.TrimSpace(formatMillis(ns)) + "\n")
			}
			got, err := readTraceNoT(b.String())
			if err != nil || len(got) != len(want) {
				t.Fatalf("round trip: %v (%d vs %d)", err, len(got), len(want))
			}
			for i := range got {
				if got[i].At != want[i] {
					t.Fatalf("round trip %d: %v vs %v", i, got[i].At, want[i])
				}
			}
		}
	})
}

// formatMillis prints nanoseconds as decimal milliseconds.
func formatMillis(ns int64) string {
	return fmt.Sprintf("%d.%06d", ns/1e6, ns%1e6)
}

func readTraceNoT(data string) ([]Arrival, error) {
	return readAll(NewTraceReader(strings.NewReader(data), "rt.csv"))
}

func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("examples/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, seed := range []string{
		"limit: 10\nduration: 1s\nphases: [{type: constant, rate: 5}]\n",
		"limit: 10\nphases: [{type: burst, count: 3, from: 1s, to: 2s, every: 1s, until: 5s}]\n",
		"limit: 1e9\nduration: 1h\nphases: [{type: poisson, rate: 1e9}]\n",
		"limit: 3\nphases: [{type: ramping, stages: [{target: 9, duration: 2s}, {target: 0, duration: 1s}]}]\n",
		"limit: 3\nduration: 2s\nphases: [{type: constant, rate: 1}, {type: clock-step, at: 1s, offset: -1s}]\n",
		"limit: [\n", "", "- a\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fuzz.yaml") {
				t.Fatalf("error not one line naming the file: %q", msg)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid scenario: %v", err)
		}
		st, err := s.Stream()
		if err != nil {
			t.Fatal(err)
		}
		steps := clockSteps(s.Phases)
		var prev Arrival
		for i := 0; i < 2000; i++ {
			a, ok := st.Next()
			if !ok {
				break
			}
			if a.At < prev.At || a.At < 0 || a.At >= s.Duration {
				t.Fatalf("arrival %d at %v after %v (duration %v)", i, a.At, prev.At, s.Duration)
			}
			off := time.Duration(0)
			for _, c := range steps {
				if c.at <= a.At {
					off += c.offset
				}
			}
			if a.Clock != a.At+off {
				t.Fatalf("arrival %d: clock %v, want %v", i, a.Clock, a.At+off)
			}
			prev = a
		}
	})
}
