package lab

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// layered-minute, run with --window 1m, shows what its description says:
// the 12-bucket ring passes the second burst, the ring holding its edge
// bucket keeps it, the two minute counters behind a ring of ten keep a few,
// and the sliding log holds 600.
func TestLayeredMinuteScenario(t *testing.T) {
	opts := DefaultOptions()
	opts.Source = Source{Scenario: "layered-minute"}
	opts.Window = time.Minute
	ctx := context.Background()
	plan, err := NewPlan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	res, err := plan.Replay(ctx, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"hierarchical:limit=600,window=60s,layers=5s*12":       917,
		"hierarchical:limit=600,window=60s,layers=5s*13":       623,
		"hierarchical:limit=600,window=60s,layers=6s*10":       902,
		"hierarchical:limit=600,window=60s,layers=6s*10+60s*2": 894,
		"sliding-window-counter:limit=600,window=60s":          778,
		"sliding-log:limit=600,window=60s,history=10s":         600,
	}
	if len(res.Algorithms) != len(want) {
		t.Fatalf("%d rows, want %d", len(res.Algorithms), len(want))
	}
	for _, a := range res.Algorithms {
		if w, ok := want[a.Spec]; !ok || a.MaxWindowPassed != w {
			t.Errorf("%s: %d passes in the busiest minute, want %d", a.Spec, a.MaxWindowPassed, w)
		}
	}
}

func TestLayerSpecs(t *testing.T) {
	rows, skipped := layerSpecs(600, time.Minute, []int{4, 7, 10})
	var got []string
	for _, r := range rows {
		got = append(got, r.Kind+" "+r.Spec[strings.LastIndex(r.Spec, ":")+1:])
	}
	want := []string{
		"counter limit=600,window=60s",
		"ring limit=600,window=60s,layers=15s*4",
		"ring+edge limit=600,window=60s,layers=15s*5",
		"layered limit=600,window=60s,layers=15s*4+60s*2",
		"ring limit=600,window=60s,layers=6s*10",
		"ring+edge limit=600,window=60s,layers=6s*11",
		"layered limit=600,window=60s,layers=6s*10+60s*2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "n=7") {
		t.Fatalf("skipped %v, want n=7", skipped)
	}
}

// tune --layers on adversarial: every kind passes twice the limit (the
// bound's worst case), so a target of 1.2 is reached by none.
func TestLayersTuneAdversarial(t *testing.T) {
	opts := DefaultTuneOptions()
	opts.Source = Source{Scenario: "adversarial"}
	opts.SampleCounts = []int{10}
	opts.Out = t.TempDir()
	opts.Target, opts.TargetSet = 1.2, true
	ctx := context.Background()
	plan, err := NewLayersTunePlan(ctx, opts, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	tune, err := plan.Execute(ctx, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range tune.Rows {
		got[r.Kind] = r.MaxWindowPassed
	}
	want := map[string]int64{"counter": 199, "ring": 200, "ring+edge": 198, "layered": 199}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: max window %d, want %d", k, got[k], w)
		}
	}
	var out bytes.Buffer
	if err := tune.WriteSummary(&out, 100); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "100ms*10+1s*2") {
		t.Errorf("summary lacks the layered row:\n%s", out.String())
	}
	var terr *ThresholdError
	if err := tune.WriteTarget(&out, 100); err == nil || !asThreshold(err, &terr) {
		t.Fatalf("target 1.2: %v, want a ThresholdError", err)
	}
}

func asThreshold(err error, t **ThresholdError) bool {
	e, ok := err.(*ThresholdError)
	*t = e
	return ok
}
