package scenarios

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkPoissonStream measures one merged arrival of the poisson
// catalog scenario at limit 100000 (Poisson at 150,000/s).
func BenchmarkPoissonStream(b *testing.B) {
	s := Must(Lookup("poisson")).WithLimit(100000).WithDuration(MaxTime)
	st, err := s.Stream()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := st.Next(); !ok {
			b.Fatal("stream ended")
		}
	}
}

// BenchmarkTraceReader measures parsing one trace line.
func BenchmarkTraceReader(b *testing.B) {
	line := "1000.25\n"
	data := "t_ms\n" + strings.Repeat(line, 4096)
	b.SetBytes(int64(len(line)))
	var n int
	for b.Loop() {
		if n%4096 == 0 {
			b.StopTimer()
			st := NewTraceReader(strings.NewReader(data), "b.csv")
			b.StartTimer()
			benchTrace = st
		}
		if a, ok := benchTrace.Next(); !ok || a.At != 1000250*time.Microsecond {
			b.Fatal("bad trace")
		}
		n++
	}
}

var benchTrace Stream
