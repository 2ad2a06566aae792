package report

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixed is a hand-made run: every renderer's golden file is derived from it.
func fixed() *Report {
	res := &simulator.Result{
		Scenario: "boundary-burst", Limit: 500, Bin: 50 * time.Millisecond, Window: time.Second,
		Start: 0, End: 3 * time.Second,
		Algorithms: []simulator.AlgoResult{
			{Spec: "fixed-window:limit=500,window=1s", Name: "fixed-window", Rate: 500, StateBytes: 40,
				Arrived: 1000, Passed: 1000, MaxWindowPassed: 1000, WindowLimit: 500, Overshoot: 2, PeakBinPassed: 250,
				MaxWindowEnd: 1100 * time.Millisecond, HasMaxWindow: true, NsPerDecision: 8.5},
			{Spec: "leap-array:limit=500,sample-count=2,interval=1s", Name: "leap-array", Rate: 500, SampleCount: 2, StateBytes: 168,
				Arrived: 1000, Passed: 500, Blocked: 500, MaxWindowPassed: 500, WindowLimit: 500, Overshoot: 1, SmoothBound: 1.5,
				PeakBinPassed: 250, MaxWindowEnd: 950 * time.Millisecond, HasMaxWindow: true, LateAdmissions: 2},
			{Spec: "leaky-bucket:limit=500,interval=1s,max-queue=0s", Name: "leaky-bucket", Rate: 500, StateBytes: 64,
				Arrived: 1000, Passed: 350, Blocked: 650, MaxWindowPassed: 350, WindowLimit: 500, Overshoot: 0.7, PeakBinPassed: 25,
				WaitP50: 314 * time.Millisecond, WaitP99: 500 * time.Millisecond, WaitMax: 500 * time.Millisecond,
				MaxWindowEnd: 2 * time.Second, HasMaxWindow: true},
		},
	}
	return &Report{Result: res, Seed: 1, HasSeed: true,
		Warnings: []string{"leaky-bucket with max-queue=0s: Sentinel's rule loader drops such a rule and leaves the resource unlimited"},
		Notes:    []string{"the trace steps back in time 3 times, by up to 800ms"}}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s; run with -update if the change is intended\ngot:\n%s", name, path, got)
	}
}

func TestRenderersGolden(t *testing.T) {
	for _, format := range FormatNames {
		for _, wide := range []bool{false, true} {
			name := format
			if wide {
				if format == "json" || format == "csv" {
					continue // every field already
				}
				name += "-wide"
			}
			r := fixed()
			r.Wide = wide
			var b bytes.Buffer
			if err := Formats[format](&b, r); err != nil {
				t.Fatal(err)
			}
			golden(t, name, b.Bytes())
		}
	}
}

func TestJSONIsSummaryJSON(t *testing.T) {
	r := fixed()
	var got, want bytes.Buffer
	if err := JSON(&got, r); err != nil {
		t.Fatal(err)
	}
	if err := simulator.WriteSummaryJSON(&want, r.Result); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("--format json differs from summary.json")
	}
}

// The CSV holds every field of summary.json, in its order, for every
// limiter; null reads as an empty cell.
func TestCSVHoldsEverySummaryField(t *testing.T) {
	r := fixed()
	// An evented row and a Redis row bring their own fields.
	r.Result.Algorithms[0].Chain = &simulator.ChainResult{Responses: true, Breaker: "circuit-breaker:strategy=error-count,threshold=5"}
	r.Result.Algorithms[1].Redis = &simulator.RedisFigures{Commands: 3, PeakMembers: 2, PeakBytes: -1}
	r.Result.Algorithms[0].Cluster = &simulator.ClusterFigures{Fallbacks: 2, ShouldWait: 1, InstancePassed: []int64{1, 1}}
	r.Result.Algorithms[1].KongSync = &simulator.KongSyncFigures{Reads: 3, Syncs: 1, SyncEvals: 2, Realtime: 9, Beyond: 1}
	r.Result.Algorithms[0].Priority = &simulator.PriorityResult{Arrived: 3, Passed: 2, WaitedForNextWindow: 1}
	r.Result.Algorithms[0].Keys = &simulator.KeyResult{HasUsers: true, KeysHurt: 1, Stats: simulator.KeyStatsOf([]simulator.KeyStat{{Requests: 1, Rejected: 1}})}
	var b bytes.Buffer
	if err := CSV(&b, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(r.Result.Algorithms) {
		t.Fatalf("%d records, want a header and %d rows", len(recs), len(r.Result.Algorithms))
	}
	_, js, err := summaryOf(r.Result)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range append(SummaryFields(), "algorithm", "name", "scenario", "duration_ms") {
		if key == "pass_pct" {
			continue
		}
		if !strings.Contains(string(js), `"`+key+`"`) {
			t.Fatalf("summary.json lacks %q", key)
		}
		found := false
		for _, h := range recs[0] {
			found = found || h == key
		}
		if !found {
			t.Errorf("CSV header %v lacks %q", recs[0], key)
		}
	}
	col := func(name string) int {
		for i, h := range recs[0] {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	if recs[1][col("smooth_bound")] != "" || recs[2][col("smooth_bound")] != "1.500000" {
		t.Errorf("smooth_bound cells %q, %q", recs[1][col("smooth_bound")], recs[2][col("smooth_bound")])
	}
	if recs[3][col("algorithm")] != "leaky-bucket:limit=500,interval=1s,max-queue=0s" || recs[3][col("scenario")] != "boundary-burst" {
		t.Errorf("row 3: %v", recs[3])
	}
	// An object (priority) is one line of compact JSON.
	if p := recs[1][col("priority")]; !strings.HasPrefix(p, `{"arrived":3,"passed":2,`) || strings.Contains(p, "\n") {
		t.Errorf("priority cell %q", p)
	}
}

// The table fits the width it is given, dropping its last default columns
// if it must and saying which.
func TestTableFitsItsWidth(t *testing.T) {
	for _, w := range []int{60, 80, 100, 120} {
		r := fixed()
		r.Width = w
		var b bytes.Buffer
		if err := Table(&b, r); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > w && !strings.Contains(line, ":limit=") {
				t.Errorf("width %d: line of %d columns: %q", w, n, line)
			}
		}
		if w < 90 && !strings.Contains(b.String(), "hidden to fit") {
			t.Errorf("width %d: no note of the hidden columns:\n%s", w, b.String())
		}
		if !strings.Contains(b.String(), "≥500") || strings.Contains(b.String(), "ns/decision") {
			t.Errorf("width %d: lower bound or ns/decision wrong:\n%s", w, b.String())
		}
	}
}

func TestLabels(t *testing.T) {
	res := &simulator.Result{Algorithms: []simulator.AlgoResult{
		{Spec: "leap-array:limit=100,sample-count=2,interval=1s", Name: "leap-array", SampleCount: 2},
		{Spec: "leap-array:limit=100,sample-count=10,interval=1s", Name: "leap-array", SampleCount: 10},
		{Spec: "leap-array:limit=100,sample-count=2,interval=2s", Name: "leap-array", SampleCount: 2},
		{Spec: "fixed-window:limit=100,window=1s", Name: "fixed-window"},
		{Spec: "fixed-window:limit=50,window=1s", Name: "fixed-window"},
		{Spec: "sliding-log:limit=100,window=1s,history=10s", Name: "sliding-log"},
	}}
	want := []string{"leap-array N=2 interval=1s", "leap-array N=10", "leap-array N=2 interval=2s",
		"fixed-window limit=100", "fixed-window limit=50", "sliding-log"}
	got := Labels(res)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// Chains are named by every stage, and a parameter only some rows give
// (check-to-add) tells them apart instead of a "#2".
func TestLabelsChainsAndMissingKeys(t *testing.T) {
	res := &simulator.Result{Algorithms: []simulator.AlgoResult{
		{Spec: "leap-array:limit=100,sample-count=2,interval=1s", Name: "leap-array", SampleCount: 2},
		{Spec: "leaky-bucket:limit=100,interval=1s,max-queue=500ms", Name: "leaky-bucket"},
		{Spec: "leap-array:limit=100,sample-count=2,interval=1s+circuit-breaker:strategy=slow-ratio,max-rt=200ms", Name: "leap-array"},
		{Spec: "leaky-bucket:limit=100,interval=1s,max-queue=500ms+circuit-breaker:strategy=slow-ratio,max-rt=200ms", Name: "leaky-bucket"},
		{Spec: "leaky-bucket:limit=100,interval=1s,max-queue=500ms+circuit-breaker:strategy=slow-ratio,max-rt=100ms", Name: "leaky-bucket"},
		{Spec: "sliding-log:limit=10,window=1s,history=10s", Name: "sliding-log"},
		{Spec: "sliding-log:limit=10,window=1s,history=10s,check-to-add=1ms", Name: "sliding-log"},
		{Spec: "sliding-log:limit=10,window=1s,history=10s,check-to-add=1ms", Name: "sliding-log"},
		{Spec: "circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=5,stat-interval=1s,recovery=1s", Name: "circuit-breaker"},
		{Spec: "circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=20,stat-interval=5s,recovery=1s", Name: "circuit-breaker"},
	}}
	want := []string{"leap-array N=2", "leaky-bucket", "leap-array N=2+circuit-breaker",
		"leaky-bucket+circuit-breaker max-rt=200ms", "leaky-bucket+circuit-breaker max-rt=100ms",
		"sliding-log", "sliding-log check-to-add=1ms", "sliding-log check-to-add=1ms #2",
		// "circuit-breaker min-requests=20,stat-interval=5s" is too long a name.
		"circuit-breaker #1", "circuit-breaker #2"}
	got := Labels(res)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestThresholds(t *testing.T) {
	r := fixed()
	var ts []Threshold
	for _, s := range []string{"overshoot>1.05", "pass_pct < 60", "smooth_bound>=1.5", "late_admissions!=0", "wait_p99_ms==500", "max_window_passed>=500", "leaky-bucket.passed<400", "fixed-window.passed<400"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		ts = append(ts, th)
	}
	got, err := Check(r.Result, ts)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range got {
		lines = append(lines, c.Label+" "+c.Threshold.Field+" "+c.Value)
	}
	want := []string{
		"fixed-window overshoot 2.000000",
		"fixed-window max_window_passed 1000",
		"leap-array N=2 pass_pct 50.0000",
		"leap-array N=2 smooth_bound 1.500000",
		"leap-array N=2 late_admissions 2",
		"leap-array N=2 max_window_passed ≥500",
		"leaky-bucket pass_pct 35.0000",
		"leaky-bucket wait_p99_ms 500",
		"leaky-bucket passed 350",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("crossings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if _, err := ParseThreshold("leap-aray.overshoot>1", "fixed-window", "leap-array"); err == nil ||
		err.Error() != `--fail-if "leap-aray.overshoot>1": no algorithm is named "leap-aray" (did you mean "leap-array"?); names: fixed-window, leap-array` {
		t.Errorf("unknown name: %v", err)
	}
	for _, bad := range []struct{ in, want string }{
		{"overshot>1.05", `unknown field "overshot" (did you mean "overshoot"?); fields: rate, arrived, passed`},
		{"overshoot=>1", "is not [NAME.]FIELD OP NUMBER"},
		{"overshoot>abc", `"abc" is not a number`},
		{"algorithm==x", `unknown field "algorithm"`},
	} {
		_, err := ParseThreshold(bad.in)
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", bad.in, err, bad.want)
		}
	}
}

func TestParseSummaryKeepsOrder(t *testing.T) {
	s, err := ParseSummary([]byte(`{"b": 1, "algorithms": [{"z": null, "a": "x", "m": [1, 2]}], "a": {"k": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Top) != 2 || s.Top[0].Key != "b" || s.Top[1].Key != "a" || len(s.Algorithms) != 1 {
		t.Fatalf("%+v", s)
	}
	a := s.Algorithms[0]
	if a[0].Key != "z" || !a[0].isNull() || a[1].text() != "x" || string(a[2].Raw) != "[1, 2]" {
		t.Errorf("%+v", a)
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"overshoot>1.05", "pass_pct<60", " a == 1 ", "x>=", ">1"} {
		f.Add(s)
	}
	fields := SummaryFields()
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		known := false
		for _, k := range fields {
			known = known || k == th.Field
		}
		if !known || th.Value != th.Value {
			t.Fatalf("%q parsed to %+v", s, th)
		}
	})
}

// NAME. matches a limiter by any of its stages, not only the first one a
// chain is named after; CheckNames refuses a NAME no limiter has.
func TestThresholdMatchesEveryStage(t *testing.T) {
	chain := "leap-array:limit=100,sample-count=2,interval=1s+circuit-breaker:strategy=slow-ratio,max-rt=200ms"
	for _, tc := range []struct {
		cond, spec string
		want       bool
	}{
		{"overshoot>1", chain, true},
		{"leap-array.overshoot>1", chain, true},
		{"circuit-breaker.breaker_opens>0", chain, true},
		{"circuit-breaker.breaker_opens>0", "circuit-breaker:strategy=error-count", true},
		{"circuit-breaker.breaker_opens>0", "leap-array:limit=100", false},
		{"leaky-bucket.passed>0", "guava-bursty:rate=3e+08+circuit-breaker:strategy=error-count", false},
		{"guava-bursty.passed>0", "guava-bursty:rate=3e+08+circuit-breaker:strategy=error-count", true},
	} {
		th, err := ParseThreshold(tc.cond)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.Matches(tc.spec); got != tc.want {
			t.Errorf("%s on %s: %v, want %v", tc.cond, tc.spec, got, tc.want)
		}
		err = CheckNames([]string{tc.spec}, []Threshold{th})
		if (err == nil) != tc.want {
			t.Errorf("CheckNames(%s, %s) = %v", tc.spec, tc.cond, err)
		}
	}
}

// The terminal's numbers and durations stay short at the extremes, and a
// compact spec reads back to the same numbers.
func TestCompactNumbers(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{500, "500"}, {12.5, "12.5"}, {0.001, "0.001"}, {1000000, "1000000"}, {0, "0"},
		{1e300, "1e+300"}, {1e21, "1e+21"}, {1e-7, "1e-07"}, {-2.5e-300, "-2.5e-300"},
	} {
		if got := Number(tc.x); got != tc.want {
			t.Errorf("Number(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	for _, tc := range []struct{ d, want string }{
		{"0s", "0s"}, {"5ms", "5ms"}, {"50ms", "50ms"}, {"250us", "0.25ms"}, {"1.3s", "1.3s"}, {"3s", "3s"}, {"-5ms", "-5ms"}, {"21556.81459s", "21556.81459s"},
	} {
		d, _ := time.ParseDuration(tc.d)
		if got := Duration(d); got != tc.want {
			t.Errorf("Duration(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
	big := "1" + strings.Repeat("0", 300)
	for _, tc := range []struct{ spec, want string }{
		{"guava-bursty:rate=" + big + ",max-burst=1s,timeout=0s", "guava-bursty:rate=1e+300,max-burst=1s,timeout=0s"},
		{"token-bucket:rate=" + big + ",burst=1+circuit-breaker:strategy=error-count,threshold=3", "token-bucket:rate=1e+300,burst=1+circuit-breaker:strategy=error-count,threshold=3"},
		{"guava-bursty:rate=0.0000001", "guava-bursty:rate=1e-07"},
		{"leap-array:limit=100,sample-count=2,interval=1s", "leap-array:limit=100,sample-count=2,interval=1s"},
		{"nginx-limit-req:rate=2r/s,burst=1", "nginx-limit-req:rate=2r/s,burst=1"},
	} {
		if got := CompactSpec(tc.spec); got != tc.want {
			t.Errorf("CompactSpec(%.60s) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// A table whose words are longer than the columns could be still fits,
// its words broken; a wrapped text breaks a spec longer than a line.
func TestNarrowTextBreaksLongWords(t *testing.T) {
	var b strings.Builder
	rows := [][]string{{"warm-up-rate-limiter", "limit=limit,warm-up=10s", "Sentinel WarmUpRateLimiterController; RateLimiter.create(rate)"}}
	if err := WriteTextTable(&b, []string{"algorithm", "parameters", "reference"}, rows, 50); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if width(line) > 50 {
			t.Errorf("a line of %d columns:\n%s", width(line), b.String())
		}
	}
	if !strings.Contains(b.String(), "WarmUpRate") {
		t.Errorf("the word is lost:\n%s", b.String())
	}
	b.Reset()
	WriteWrapped(&b, "for example leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5).", 30)
	if got, want := b.String(), "for example\nleap-array+circuit-\nbreaker:strategy=error-ratio,\nthreshold=0.5).\n"; got != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", got, want)
	}
}

// The top keys' line says which keys its share is about: with 5 keys, 1%
// is one key, 20% of them, not "the top 1%".
func TestTopKeysShareNamesItsKeys(t *testing.T) {
	for _, c := range []struct {
		distinct int64
		want     string
	}{
		{5, "; the top key (1 of 5) took 75.0% of them:"},
		{100, "; the top key (1 of 100) took 75.0% of them:"},
		{300, "; the top 1% of keys (3 of 300) took 100.0% of them:"},
		{101, "; the top 1% of keys (2 of 101, rounded up) took 100.0% of them:"},
	} {
		r := fixed()
		stats := make([]simulator.KeyStat, c.distinct)
		stats[0] = simulator.KeyStat{Requests: 9, Rejected: 3, Over: true}
		stats[1] = simulator.KeyStat{Requests: 2, Rejected: 1, Over: true}
		r.Result.Algorithms[0].Keys = &simulator.KeyResult{DistinctKeys: c.distinct, Stats: simulator.KeyStatsOf(stats)}
		var b strings.Builder
		if err := WriteTopKeys(&b, r.Result, func(id int32) string { return strconv.Itoa(int(id)) }, 10, 200); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) || strings.Contains(c.want, "1%") != strings.Contains(b.String(), "1%") {
			t.Errorf("%d keys:\n%s\nwant %q", c.distinct, b.String(), c.want)
		}
	}
}
