package simulator

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// Every number field listed is in summary.json (with late admissions), and
// every number in summary.json is listed.
func TestSummaryNumberFields(t *testing.T) {
	r := fixedResult()
	r.Algorithms[0].LateAdmissions = 1
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
	fields := SummaryNumberFields()
	a := v.Algorithms[0]
	for _, f := range fields {
		if _, ok := a[f]; !ok {
			t.Errorf("%s listed but not in summary.json", f)
		}
	}
	for k, x := range a {
		_, isNum := x.(float64)
		if isNum != slices.Contains(fields, k) && x != nil {
			t.Errorf("%s (%v) listed: %v", k, x, slices.Contains(fields, k))
		}
	}
	if !slices.Contains(fields, "overshoot") || slices.Contains(fields, "algorithm") {
		t.Errorf("fields %v", fields)
	}
}
