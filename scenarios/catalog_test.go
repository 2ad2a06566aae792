package scenarios

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// drain streams a scenario and returns its arrivals.
func drain(t *testing.T, s Scenario) []Arrival {
	t.Helper()
	st, err := s.Stream()
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	defer st.Close()
	out, err := readAll(st)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readAll reads a stream to its end.
func readAll(st Stream) ([]Arrival, error) {
	var out []Arrival
	for {
		a, ok := st.Next()
		if !ok {
			return out, st.Err()
		}
		out = append(out, a)
	}
}

func TestCatalogPins(t *testing.T) {
	tests := []struct {
		name       string
		limit      float64
		duration   time.Duration
		count      int
		first      time.Duration
		algorithms int
	}{
		{"boundary-burst", 500, 3 * time.Second, 1000, 900 * ms, 7},
		{"boundary-burst-small", 100, 3 * time.Second, 160, 800 * ms, 7},
		{"steady-overload", 100, 10 * time.Second, 2000, 0, 7},
		{"cold-start", 100, 40 * time.Second, 100 + 6000, 0, 7},
		{"adversarial", 100, 3 * time.Second, 100100, 999 * ms, 7},
		{"clock-rollback", 100, 10 * time.Second, 1500, 0, 7},
		{"poisson", 100, 60 * time.Second, -1, -1, 7},
		{"spikes", 100, 20 * time.Second, -1, -1, 7},
		{"hot-key", 10, 3 * time.Second, 3000, 500 * ms, 6},
		{"hot-key-1qps", 1, 5 * time.Second, 50000, 0, 6},
		{"hot-key-overload", 10000, 5 * time.Second, 100000, 0, 6},
		{"slow-downstream", 100, 40 * time.Second, -1, -1, 4},
		{"flapping", 100, 30 * time.Second, -1, -1, 4},
		{"priority-mix", 100, 10 * time.Second, 1500, 0, 4},
		{"redis-race", 100, 5 * time.Second, 1000, 0, 3},
		{"redis-skew", 100, 10 * time.Second, 2000, 0, 4},
		{"redis-memory", 30, 60 * time.Second, -1, -1, 3},
		{"gateway-boundary", 100, 3 * time.Second, 200, 900 * ms, 9},
		{"gateway-idle-second", 1, 20 * time.Second, 190, 900 * ms, 5},
		{"gateway-over-limit", 100, 60 * time.Second, 7200, 0, 10},
		{"latency-step", 300, 40 * time.Second, -1, -1, 7},
		{"overload-ramp", 400, 40 * time.Second, -1, -1, 7},
		{"cpu-slowdown", 400, 40 * time.Second, -1, -1, 6},
		{"io-slowdown", 400, 40 * time.Second, -1, -1, 6},
		{"retry-storm", 400, 60 * time.Second, -1, -1, 7},
		{"envoy-min-rtt", 400, 60 * time.Second, -1, -1, 4},
		{"sentinel-cluster-outage", 100, 30 * time.Second, 6000, 0, 6},
		{"layered-minute", 10, 150 * time.Second, -1, -1, 6},
		{"kong-sync", 50, 8 * time.Second, -1, -1, 5},
	}
	if len(tests) != len(Catalog())-len(keyedCatalog()) { // keyed ones: TestKeyedCatalog
		t.Fatalf("catalog has %d scenarios, test pins %d", len(Catalog()), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Limit != tc.limit || s.Duration != tc.duration || len(s.Algorithms) != tc.algorithms {
				t.Fatalf("limit %v duration %v algorithms %d; want %v %v %d", s.Limit, s.Duration, len(s.Algorithms), tc.limit, tc.duration, tc.algorithms)
			}
			if s.Description == "" || strings.Contains(s.Description, "\n") {
				t.Fatalf("description %q is not one line", s.Description)
			}
			arr := drain(t, s)
			if tc.count >= 0 && len(arr) != tc.count {
				t.Fatalf("got %d arrivals, want %d", len(arr), tc.count)
			}
			if tc.first >= 0 && arr[0].At != tc.first {
				t.Fatalf("first arrival %v, want %v", arr[0].At, tc.first)
			}
			for i, a := range arr {
				if a.At < 0 || a.At >= s.Duration || (i > 0 && a.At < arr[i-1].At) {
					t.Fatalf("arrival %d at %v out of order or outside [0, %v)", i, a.At, s.Duration)
				}
			}
		})
	}
}

func TestBoundaryBurstTimes(t *testing.T) {
	s, _ := Lookup("boundary-burst")
	arr := drain(t, s)
	for i, a := range arr {
		want := 900*ms + time.Duration(i)*200*time.Microsecond
		if a.At != want || a.Clock != a.At {
			t.Fatalf("arrival %d at %v (clock %v), want %v", i, a.At, a.Clock, want)
		}
	}
}

func TestAdversarialTimes(t *testing.T) {
	s, _ := Lookup("adversarial")
	arr := drain(t, s)
	for i, a := range arr[:100] {
		if a.At != 999*ms {
			t.Fatalf("arrival %d at %v, want 999ms", i, a.At)
		}
	}
	for i, a := range arr[100:] {
		want := 1000*ms + time.Duration(i/100)*ms
		if a.At != want {
			t.Fatalf("flood arrival %d at %v, want %v", i, a.At, want)
		}
	}
	want := []string{"fixed-window", "leap-array:sample-count=2", "leap-array:sample-count=10", "leap-array:sample-count=1000", "sliding-log", "token-bucket", "leaky-bucket"}
	if strings.Join(s.Algorithms, " ") != strings.Join(want, " ") {
		t.Fatalf("algorithms %v, want %v", s.Algorithms, want)
	}
}

func TestClockRollback(t *testing.T) {
	s, _ := Lookup("clock-rollback")
	arr := drain(t, s)
	for i, a := range arr {
		want := a.At
		if a.At >= 5*time.Second {
			want -= 800 * ms
		}
		if a.Clock != want {
			t.Fatalf("arrival %d at %v has clock %v, want %v", i, a.At, a.Clock, want)
		}
		if want := time.Duration((int64(i)*1e9*2 + 150) / 300); a.At != want {
			t.Fatalf("arrival %d at %v, want %v", i, a.At, want)
		}
	}
	if arr[750].At != 5*time.Second || arr[750].Clock != 4200*ms {
		t.Fatalf("arrival 750: %+v, want At 5s Clock 4.2s", arr[750])
	}
}

func TestColdStartStaircase(t *testing.T) {
	s, _ := Lookup("cold-start")
	arr := drain(t, s)
	var before, after int
	for _, a := range arr {
		if a.At < 10*time.Second {
			before++
		} else {
			after++
		}
	}
	if before != 100 || after != 6000 {
		t.Fatalf("%d arrivals before 10 s and %d after, want 100 and 6000", before, after)
	}
	if arr[100].At != 10*time.Second || arr[101].At != 10*time.Second+5*ms {
		t.Fatalf("second phase starts %v, %v", arr[100].At, arr[101].At)
	}
}

func TestSpikes(t *testing.T) {
	s, _ := Lookup("spikes")
	arr := drain(t, s)
	// Each spike puts 100 arrivals in [1s+2k s, 1s+2k s+50ms).
	for k := 0; k < 10; k++ {
		from := time.Second + time.Duration(k)*2*time.Second
		n := 0
		for _, a := range arr {
			if a.At >= from && a.At < from+50*ms {
				n++
			}
		}
		if n < 100 || n > 110 {
			t.Errorf("spike %d has %d arrivals, want 100 plus a few background", k, n)
		}
	}
	// Background Poisson at 50/s for 20 s, plus 10 spikes of 100.
	if len(arr) < 1000+900 || len(arr) > 1000+1100 {
		t.Fatalf("got %d arrivals, want about 2000", len(arr))
	}
}

func TestWithLimitScales(t *testing.T) {
	tests := []struct {
		name  string
		limit float64
		count int
	}{
		{"boundary-burst", 1000, 2000},
		{"boundary-burst", 50, 100},
		{"boundary-burst-small", 10, 16},
		{"boundary-burst-small", 33, 2 * 26}, // 80·0.33 = 26.4 → 26
		{"steady-overload", 1000, 20000},
		{"adversarial", 10, 10010},
		{"clock-rollback", 10, 150},
	}
	for _, tc := range tests {
		s, _ := Lookup(tc.name)
		w := s.WithLimit(tc.limit)
		if w.Limit != tc.limit {
			t.Fatalf("%s: limit %v", tc.name, w.Limit)
		}
		if got := len(drain(t, w)); got != tc.count {
			t.Errorf("%s at %v: %d arrivals, want %d", tc.name, tc.limit, got, tc.count)
		}
		if got := len(drain(t, s)); got != len(drain(t, Must(Lookup(tc.name)))) {
			t.Errorf("%s: WithLimit changed the original (%d)", tc.name, got)
		}
	}
	p, _ := Lookup("poisson")
	if r := p.WithLimit(100000).Phases[0].Rate; r != 150000 {
		t.Fatalf("poisson at limit 100000 has rate %v, want 150000", r)
	}
	if got := p.WithLimit(-1).Validate(); got == nil {
		t.Fatal("negative limit validated")
	}
}

// Must unwraps a Lookup in tests.
func Must(s Scenario, err error) Scenario {
	if err != nil {
		panic(err)
	}
	return s
}

func TestWithDurationAndSeed(t *testing.T) {
	s := Must(Lookup("steady-overload")).WithDuration(60 * time.Second)
	if n := len(drain(t, s)); n != 12000 {
		t.Fatalf("60 s of steady-overload: %d arrivals, want 12000", n)
	}
	b := Must(Lookup("boundary-burst")).WithDuration(time.Second)
	if n := len(drain(t, b)); n != 500 {
		t.Fatalf("boundary-burst cut at 1 s: %d arrivals, want 500", n)
	}
	p := Must(Lookup("poisson"))
	a1, a2 := drain(t, p), drain(t, p.WithSeed(2))
	if a1[0] == a2[0] {
		t.Fatal("WithSeed(2) gave the same first arrival as seed 1")
	}
}

// Two streams of the same scenario give the same arrivals. They are read
// in step, so the catalog's millions of arrivals are never held at once.
func TestDeterminism(t *testing.T) {
	for _, s := range Catalog() {
		open := func() Stream {
			st, err := s.Stream()
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
		x, y := open(), open()
		for i := 0; ; i++ {
			a, okA := x.Next()
			b, okB := y.Next()
			if okA != okB {
				t.Fatalf("%s: one stream ends at arrival %d, the other does not", s.Name, i)
			}
			if !okA {
				break
			}
			if a != b {
				t.Fatalf("%s: arrival %d differs: %v vs %v", s.Name, i, a, b)
			}
		}
		if err := x.Err(); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := y.Err(); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
}

func TestAddingAPhaseKeepsOtherPhases(t *testing.T) {
	base := Scenario{Name: "x", Limit: 10, Duration: 10 * time.Second, Seed: 5,
		Phases: []Phase{{Type: PhasePoisson, Rate: 20}}}
	more := base.clone()
	more.Phases = append(more.Phases, Phase{Type: PhasePoisson, Rate: 3, Start: 20 * time.Second})
	equalArrivals(t, drain(t, base), drain(t, more))
}

func equalArrivals(t *testing.T, a, b []Arrival) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d arrivals", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("arrival %d: %v vs %v", i, a[i], b[i])
		}
	}
}

func TestMergeIsStableAndOrdered(t *testing.T) {
	// Overlapping phases merge by time; at a tie the earlier phase's
	// arrival comes first (checked through the merge's pending source).
	s := Scenario{Name: "ties", Limit: 1, Duration: time.Second, Phases: []Phase{
		{Type: PhaseConstant, Rate: 10},
		{Type: PhaseBurst, Start: 500 * ms, Count: 3},
		{Type: PhaseConstant, Rate: 4, Start: 100 * ms},
	}}
	st, _ := s.Stream()
	m := st.(*mergeStream)
	var times []time.Duration
	var srcs []int
	for len(m.heap) > 0 {
		src := m.heap[0].src
		a, ok := m.Next()
		if !ok {
			break
		}
		times = append(times, a.At)
		srcs = append(srcs, src)
	}
	want := msList(0, 100, 100, 200, 300, 350, 400, 500, 500, 500, 500, 600, 600, 700, 800, 850, 900)
	equalTimes(t, times, want)
	wantSrc := []int{0, 0, 2, 0, 0, 2, 0, 0, 1, 1, 1, 0, 2, 0, 0, 2, 0}
	for i := range srcs {
		if srcs[i] != wantSrc[i] {
			t.Fatalf("sources %v, want %v", srcs, wantSrc)
		}
	}
}

func TestPoissonMeanRate(t *testing.T) {
	s := Must(Lookup("poisson")).WithDuration(2000 * time.Second)
	st, _ := s.Stream()
	var n int64
	for {
		if _, ok := st.Next(); !ok {
			break
		}
		n++
	}
	// 150/s for 2000 s: mean 300000, standard deviation sqrt(300000) ≈ 548.
	if mean := 300000.0; math.Abs(float64(n)-mean) > 5*math.Sqrt(mean) {
		t.Fatalf("%d arrivals, want 300000 ± %.0f", n, 5*math.Sqrt(mean))
	}
}

func TestStreamIsLazy(t *testing.T) {
	// Next allocates nothing, so memory stays flat however long the run.
	s := Must(Lookup("spikes")).WithDuration(MaxTime)
	s.Phases = append(s.Phases, Phase{Type: PhaseConstant, Rate: 7}, Phase{Type: PhaseClockStep, Start: time.Hour, Offset: -time.Second})
	st, _ := s.Stream()
	if allocs := testing.AllocsPerRun(100000, func() { st.Next() }); allocs != 0 {
		t.Fatalf("Next allocates %v times per call", allocs)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 2_000_000; i++ {
		st.Next()
	}
	runtime.ReadMemStats(&after)
	if grown := int64(after.TotalAlloc) - int64(before.TotalAlloc); grown > 64<<10 {
		t.Fatalf("2M arrivals allocated %d bytes", grown)
	}
}

func TestLookupSuggests(t *testing.T) {
	tests := []struct{ in, want string }{
		{"boundry-burst", `unknown scenario "boundry-burst": did you mean "boundary-burst"? (run 'ratelimit-lab list' to see all)`},
		{"posson", `unknown scenario "posson": did you mean "poisson"? (run 'ratelimit-lab list' to see all)`},
		{"clock-rollbak", `unknown scenario "clock-rollbak": did you mean "clock-rollback"? (run 'ratelimit-lab list' to see all)`},
		{"Spikes", `unknown scenario "Spikes": did you mean "spikes"? (run 'ratelimit-lab list' to see all)`},
		{"zzzzzzzzzzzzzzzz", `unknown scenario "zzzzzzzzzzzzzzzz" (run 'ratelimit-lab list' to see all)`},
	}
	for _, tc := range tests {
		_, err := Lookup(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Lookup(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
	for _, name := range Names() {
		if _, err := Lookup(name); err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	ok := Scenario{Name: "v", Limit: 10, Duration: time.Second, Phases: []Phase{{Type: PhaseConstant, Rate: 5}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(*Scenario)
		want   string
	}{
		{"zero limit", func(s *Scenario) { s.Limit = 0 }, "limit"},
		{"NaN limit", func(s *Scenario) { s.Limit = math.NaN() }, "limit"},
		{"no duration", func(s *Scenario) { s.Duration = 0 }, "duration"},
		{"no phases", func(s *Scenario) { s.Phases = nil }, "no phases"},
		{"bad type", func(s *Scenario) { s.Phases[0].Type = "constnt" }, `did you mean "constant"`},
		{"zero rate", func(s *Scenario) { s.Phases[0].Rate = 0 }, "rate"},
		{"huge rate", func(s *Scenario) { s.Phases[0].Rate = 1e10 }, "per second"},
		{"negative start", func(s *Scenario) { s.Phases[0].Start = -1 }, "negative"},
		{"overlapping repeats", func(s *Scenario) {
			s.Phases[0] = Phase{Type: PhaseBurst, Count: 5, Duration: time.Second, Every: ms}
		}, "overlap"},
		{"clock before zero", func(s *Scenario) {
			s.Phases = append(s.Phases, Phase{Type: PhaseClockStep, Start: 100 * ms, Offset: -time.Second})
		}, "before the start"},
		{"bad spec syntax", func(s *Scenario) { s.Algorithms = []string{"leap-array:sample-count"} }, `parameter "sample-count" is not key=value`},
	}
	for _, tc := range tests {
		s := ok.clone()
		tc.mutate(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Validate() = %v, want one line mentioning %q", tc.name, err, tc.want)
		}
		if _, err := s.Stream(); err == nil {
			t.Errorf("%s: Stream accepted an invalid scenario", tc.name)
		}
	}
	// A misspelt limiter is the families' to find: with their checker,
	// Validate names the nearest name.
	bad := ok.clone()
	bad.Algorithms = []string{"leap-aray"}
	if err := engineLoader.Validate(bad); err == nil || !strings.Contains(err.Error(), "leap-array") {
		t.Errorf("bad algorithm: Validate() = %v, want one line mentioning leap-array", err)
	}
}
