package simulator

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// A row without a rate (a circuit breaker alone) has no limit to overshoot:
// its table cells read "-", not "0.0" and "0.000".
func TestSummaryTableRowWithoutRate(t *testing.T) {
	r := &Result{Window: DefaultWindow, Bin: DefaultBin, Algorithms: []AlgoResult{
		{Spec: "circuit-breaker:strategy=error-count,threshold=5", Name: "circuit-breaker", Arrived: 10, Passed: 7, MaxWindowPassed: 7},
		{Spec: "fixed-window:limit=5,window=1s", Name: "fixed-window", Rate: 5, Arrived: 10, Passed: 5, MaxWindowPassed: 5, WindowLimit: 5, Overshoot: 1},
	}}
	header, rows := SummaryTable(r)
	li, oi := slices.Index(header, "limit/1s"), slices.Index(header, "overshoot")
	if li < 0 || oi < 0 {
		t.Fatalf("header %v", header)
	}
	if rows[0][li] != "-" || rows[0][oi] != "-" || rows[0][slices.Index(header, "max/1s")] != "7" {
		t.Errorf("breaker row: %v", rows[0])
	}
	if rows[1][li] != "5.0" || rows[1][oi] != "1.000" {
		t.Errorf("fixed-window row: %v", rows[1])
	}
}

// In summary.json the same row has null window_limit and overshoot (a
// --fail-if on overshoot skips it), numbers for the limiter beside it.
func TestSummaryJSONRowWithoutRate(t *testing.T) {
	r := &Result{Window: DefaultWindow, Bin: DefaultBin, Algorithms: []AlgoResult{
		{Spec: "circuit-breaker:strategy=error-count,threshold=5", Name: "circuit-breaker", Arrived: 10, Passed: 7, MaxWindowPassed: 7},
		{Spec: "fixed-window:limit=5,window=1s", Name: "fixed-window", Rate: 5, Arrived: 10, Passed: 5, MaxWindowPassed: 5, WindowLimit: 5, Overshoot: 1},
	}}
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Algorithms []map[string]any `json:"algorithms"`
	}
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	a, f := v.Algorithms[0], v.Algorithms[1]
	if a["overshoot"] != nil || a["window_limit"] != nil || a["max_window_passed"] != 7.0 {
		t.Errorf("breaker alone: %v", a)
	}
	if f["overshoot"] != 1.0 || f["window_limit"] != 5.0 {
		t.Errorf("fixed-window: %v", f)
	}
}
