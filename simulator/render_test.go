package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedResult is a small hand-made Result for the golden files.
func fixedResult() *Result {
	return &Result{
		Scenario: "boundary-burst",
		Limit:    100,
		Bin:      50 * time.Millisecond,
		Window:   time.Second,
		Start:    0,
		End:      150 * time.Millisecond,
		Algorithms: []AlgoResult{
			{
				Spec: "fixed-window:limit=100,window=1s", Name: "fixed-window", Rate: 100, StateBytes: 16,
				Arrived: 30, Passed: 25, Blocked: 5,
				MaxWindowPassed: 25, WindowLimit: 100, Overshoot: 0.25, PeakBinPassed: 20,
				Bins:          []Bin{{Arrived: 20, Passed: 20}, {Arrived: 10, Passed: 5, Blocked: 5}, {}},
				NsPerDecision: 12.5, // must not reach summary.json
			},
			{
				Spec: "leap-array:limit=100,sample-count=3,interval=1s", Name: "leap-array", Rate: 100,
				SampleCount: 3, StateBytes: 96,
				Arrived: 30, Passed: 30, MaxWindowPassed: 30, WindowLimit: 100, Overshoot: 0.3,
				SmoothBound: 1 + 1.0/3, PeakBinPassed: 20, MaxWindowEnd: 100 * time.Millisecond, HasMaxWindow: true,
				Bins: []Bin{{Arrived: 20, Passed: 20}, {Arrived: 10, Passed: 10}, {}},
			},
			{
				Spec: "leaky-bucket:limit=100,max-queue=500ms", Name: "leaky-bucket", Rate: 100, StateBytes: 8,
				Arrived: 30, Passed: 3, Blocked: 27, MaxWindowPassed: 3, WindowLimit: 100, Overshoot: 0.03,
				PeakBinPassed: 2, WaitP50: 10 * time.Millisecond, WaitP99: 20 * time.Millisecond, WaitMax: 20 * time.Millisecond,
				Bins: []Bin{
					{Arrived: 20, Passed: 1, Blocked: 18},
					{Arrived: 10, Passed: 2, Blocked: 9, WaitSum: 30 * time.Millisecond, WaitMax: 20 * time.Millisecond},
					{Passed: 0},
				},
			},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./simulator -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenSeriesCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSeriesCSV(&b, fixedResult()); err != nil {
		t.Fatal(err)
	}
	golden(t, "series.csv.golden", b.Bytes())
	if lines := strings.Count(b.String(), "\n"); lines != 1+3*3 {
		t.Errorf("%d lines", lines)
	}
}

func TestGoldenSummaryJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, fixedResult()); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.json.golden", b.Bytes())
	if strings.Contains(b.String(), "ns_per_decision") {
		t.Error("summary.json holds ns_per_decision")
	}
	var v map[string]any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	algos := v["algorithms"].([]any)
	if algos[0].(map[string]any)["smooth_bound"] != nil {
		t.Error("smooth_bound of fixed-window is not null")
	}
	if got := algos[1].(map[string]any)["smooth_bound"]; got != 1.333333 {
		t.Errorf("smooth_bound of leap-array = %v", got)
	}
}

func TestSeriesFractionalBinStart(t *testing.T) {
	r := fixedResult()
	r.Bin = 2500 * time.Microsecond
	r.Algorithms = r.Algorithms[:1]
	var b bytes.Buffer
	if err := WriteSeriesCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	want := SeriesHeader +
		"\"fixed-window:limit=100,window=1s\",0,20,20,0,0.000000,0\n" +
		"\"fixed-window:limit=100,window=1s\",2.5,10,5,5,0.000000,0\n" +
		"\"fixed-window:limit=100,window=1s\",5,0,0,0,0.000000,0\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTuneCSVAndTables(t *testing.T) {
	tr := &TuneResult{
		Scenario: "smooth", Limit: 100, Interval: time.Second, Window: time.Second, Bin: 50 * time.Millisecond,
		Rows: []TuneRow{
			{SampleCount: 2, Bucket: 500 * time.Millisecond, Arrived: 300, Passed: 150, PassedPct: 50,
				MaxWindowPassed: 150, Overshoot: 1.5, SmoothBound: 1.5, PeakBinPassed: 30, StateBytes: 64, NsPerDecision: 21.25},
			{SampleCount: 7, Skipped: "sample count 7 does not divide the interval of 1000 ms, as Sentinel requires."},
		},
	}
	var b bytes.Buffer
	if err := WriteTuneCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	want := TuneHeader + "2,500,150,50.000000,150,1.500000,1.500000,30,64,21.2\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	h, rows := TuneTable(tr)
	if len(rows) != 1 || len(rows[0]) != len(h) || rows[0][0] != "2" || rows[0][6] != "1.500" || h[6] != "smooth bound" {
		t.Errorf("tune table %v %v", h, rows)
	}
	h, rows = SummaryTable(fixedResult())
	if len(rows) != 3 || rows[1][8] != "1.333" || rows[0][8] != "-" || h[8] != "smooth bound" {
		t.Errorf("summary table %v %v", h, rows)
	}
	for _, r := range rows {
		if len(r) != len(h) {
			t.Errorf("row %v has %d cells for %d columns", r, len(r), len(h))
		}
	}
}

func TestTuneRunsEachDivisorAndSkipsTheRest(t *testing.T) {
	var built []string
	build := func(spec string, limit float64) (algorithms.Limiter, error) {
		built = append(built, spec)
		return &alternate{}, nil
	}
	opened := 0
	var src *sliceStream
	open := func() (scenarios.Stream, error) {
		opened++
		src = &sliceStream{arr: randomArrivals(3, 1000, time.Second)}
		return src, nil
	}
	tr, err := tune(context.Background(), open, 100, time.Second, []int{2, 7, 10}, cfgFor(time.Second), build)
	if err != nil {
		t.Fatal(err)
	}
	if opened != 1 || !src.closed {
		t.Errorf("opened %d times, closed %v", opened, src.closed)
	}
	wantSpecs := []string{"leap-array:limit=100,sample-count=2,interval=1s", "leap-array:limit=100,sample-count=10,interval=1s"}
	if strings.Join(built, " ") != strings.Join(wantSpecs, " ") {
		t.Errorf("built %v", built)
	}
	if len(tr.Rows) != 3 || tr.Rows[1].Skipped == "" || tr.Rows[0].Skipped != "" {
		t.Fatalf("rows %+v", tr.Rows)
	}
	r := tr.Rows[2]
	if r.SampleCount != 10 || r.Bucket != 100*time.Millisecond || r.Passed != 500 || r.PassedPct != 50 ||
		r.SmoothBound != 1.1 || r.Arrived != 1000 {
		t.Errorf("row %+v", r)
	}
	if tr.Limit != 100 || tr.Interval != time.Second || tr.Window != time.Second {
		t.Errorf("%+v", tr)
	}
}
