package simulator

import (
	"testing"
	"time"
)

// A maximum that is only a lower bound reads "≥" in both tables, and so
// does the overshoot computed from it.
func TestTablesMarkLowerBounds(t *testing.T) {
	r := fixedResult()
	r.Algorithms[0].LateAdmissions = 3
	h, rows := SummaryTable(r)
	cell := func(row []string, name string) string {
		for i, x := range h {
			if x == name {
				return row[i]
			}
		}
		t.Fatalf("no column %q in %v", name, h)
		return ""
	}
	if got := cell(rows[0], "max/1s"); got != "≥25" {
		t.Errorf("max/1s with late admissions = %q, want ≥25", got)
	}
	if got := cell(rows[0], "overshoot"); got != "≥0.250" {
		t.Errorf("overshoot with late admissions = %q, want ≥0.250", got)
	}
	if got := cell(rows[1], "max/1s"); got != "30" {
		t.Errorf("exact max/1s = %q, want 30", got)
	}
	tr := &TuneResult{Window: r.Window, Bin: r.Bin, Rows: []TuneRow{{SampleCount: 2, MaxWindowPassed: 102, Overshoot: 1.02, LateAdmissions: 1}}}
	_, trows := TuneTable(tr)
	if trows[0][4] != "≥102" || trows[0][5] != "≥1.020" {
		t.Errorf("tune row %v lacks the lower-bound marks", trows[0])
	}
}

func TestLeapArraySpecHasNoExponent(t *testing.T) {
	if got := LeapArraySpec(1e6, 10, time.Second); got != "leap-array:limit=1000000,sample-count=10,interval=1s" {
		t.Errorf("LeapArraySpec(1e6, ...) = %s", got)
	}
}
