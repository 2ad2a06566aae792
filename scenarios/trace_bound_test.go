package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestTraceAcceptsTheLastTime(t *testing.T) {
	got, err := readTrace(t, "t_ms\n6999999999999.999999\n7000000000000\n7000000000000.000000\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{MaxTraceMillis*time.Millisecond - 1, MaxTraceMillis * time.Millisecond, MaxTraceMillis * time.Millisecond}
	equalTimes(t, times(got), want)
}

func TestTraceCountsStepsBack(t *testing.T) {
	st := NewTraceReader(strings.NewReader("t_ms\n5\n3\n3\n10\n2\n2.5\n"), "t.csv")
	for {
		if _, ok := st.Next(); !ok {
			break
		}
	}
	if st.Err() != nil {
		t.Fatal(st.Err())
	}
	n, largest := st.(interface {
		StepsBack() (int64, time.Duration)
	}).StepsBack()
	// 5→3 and 10→2 step back; 3→3 and 2→2.5 do not.
	if n != 2 || largest != 8*time.Millisecond {
		t.Errorf("StepsBack = %d, %v; want 2, 8ms", n, largest)
	}
}
