package scenarios

import (
	"math"
	"testing"
	"time"
)

// collect drains a stream into its true times.
func collect(t *testing.T, st Stream) []time.Duration {
	t.Helper()
	arrivals, err := readAll(st)
	if err != nil {
		t.Fatalf("stream error: %v", err)
	}
	out := make([]time.Duration, len(arrivals))
	for i, a := range arrivals {
		out[i] = a.At
	}
	return out
}

func msList(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

func equalTimes(t *testing.T, got, want []time.Duration) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d arrivals %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("arrival %d at %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

func TestGeneratorsExactTimes(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		st   Stream
		want []time.Duration
	}{
		{"burst 5 over [900ms,1000ms)", Burst(900*ms, 1000*ms, 5), msList(900, 920, 940, 960, 980)},
		{"burst 3 over [0,1ns) floors", Burst(0, 1, 3), []time.Duration{0, 0, 0}},
		{"burst 4 at one instant", Burst(999*ms, 999*ms, 4), msList(999, 999, 999, 999)},
		{"burst 3 over 100ns", Burst(0, 100, 3), []time.Duration{0, 33, 66}},
		{"burst of none", Burst(0, s, 0), nil},
		{"constant 10/s for 1s", Constant(0, s, 10), msList(0, 100, 200, 300, 400, 500, 600, 700, 800, 900)},
		{"constant 3/s rounds to the nanosecond", Constant(0, s, 3), []time.Duration{0, 333333333, 666666667}},
		{"constant 2.5/s from 1s", Constant(s, 2*s, 2.5), msList(1000, 1400, 1800, 2200, 2600)},
		{"constant 1.5/s (float path)", Constant(0, 2*s, 1.5), []time.Duration{0, 666666667, 1333333333}},
		{"ramp flat 4/s", Ramp(0, 4, Stage{Target: 4, Duration: s}), msList(0, 250, 500, 750)},
		{"ramp down 10 to 0 over 2s", Ramp(0, 10, Stage{Target: 0, Duration: 2 * s}), rampDown()},
		{"idle", Idle(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			equalTimes(t, collect(t, tc.st), tc.want)
		})
	}
}

// rampDown is the exact solution of 10τ − 2.5τ² = k for k = 0..9.
func rampDown() []time.Duration {
	var out []time.Duration
	for k := 0.0; k < 10; k++ {
		tau := 2 - math.Sqrt(4-0.4*k)
		out = append(out, time.Duration(math.Round(tau*1e9)))
	}
	return out
}

func TestRampSquareRootTimes(t *testing.T) {
	// From 0 to 10/s over 2 s: the integral is 2.5·t², so the k-th arrival
	// is at sqrt(k/2.5) s, for k = 0 … 9 (k = 10 would be at 2 s, the end).
	got := collect(t, Ramp(0, 0, Stage{Target: 10, Duration: 2 * time.Second}))
	if len(got) != 10 {
		t.Fatalf("got %d arrivals, want 10: %v", len(got), got)
	}
	for k, at := range got {
		want := math.Sqrt(float64(k)/2.5) * 1e9
		if math.Abs(float64(at)-want) > 1 {
			t.Errorf("arrival %d at %v, want %.1f ns", k, at, want)
		}
	}
	// The same ramp over several stages keeps counting across them.
	got = collect(t, Ramp(time.Second, 0, Stage{Target: 10, Duration: 2 * time.Second}, Stage{Target: 10, Duration: time.Second}))
	if len(got) != 20 {
		t.Fatalf("two stages: got %d arrivals, want 10+10", len(got))
	}
	for k, at := range got[10:] {
		want := 3*time.Second + time.Duration(k)*100*ms
		if at != want {
			t.Errorf("hold stage arrival %d at %v, want %v", k, at, want)
		}
	}
}

func TestConstantHasNoDrift(t *testing.T) {
	// 7 per second for a day: the last arrival is still exactly where k/rate
	// puts it.
	st := Constant(0, 24*time.Hour, 7)
	var n int64
	var last time.Duration
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		if a.At < last {
			t.Fatalf("out of order at %d", n)
		}
		last = a.At
		n++
	}
	if n != 7*86400 {
		t.Fatalf("got %d arrivals, want %d", n, 7*86400)
	}
	k := n - 1
	want := time.Duration((k*1e9 + 3) / 7) // round(k·1e9/7)
	if last != want {
		t.Fatalf("last arrival %v, want %v", last, want)
	}
}

func TestGeneratorErrors(t *testing.T) {
	for name, st := range map[string]Stream{
		"zero rate":      Constant(0, time.Second, 0),
		"NaN rate":       Poisson(0, time.Second, math.NaN(), 1),
		"negative start": Constant(-time.Second, time.Second, 5),
		"backwards":      Burst(time.Second, 0, 5),
		"no stages":      Ramp(0, 5),
	} {
		if _, ok := st.Next(); ok {
			t.Errorf("%s: got an arrival", name)
		}
		if st.Err() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestPoissonDeterministicAndSeeded(t *testing.T) {
	a := collect(t, Poisson(0, 10*time.Second, 100, 42))
	b := collect(t, Poisson(0, 10*time.Second, 100, 42))
	c := collect(t, Poisson(0, 10*time.Second, 100, 43))
	equalTimes(t, a, b)
	if len(a) == len(c) && a[0] == c[0] {
		t.Fatal("seeds 42 and 43 gave the same arrivals")
	}
	for i := 1; i < len(a); i++ {
		if a[i] < a[i-1] || a[i] >= 10*time.Second || a[i] < 0 {
			t.Fatalf("arrival %d at %v out of order or range", i, a[i])
		}
	}
}
