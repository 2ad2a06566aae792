package algorithms_test

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestSentinelSystemTable replays docs/algorithms.md's sentinel-system
// section: the rules checked in order on the inbound node (2 buckets ×
// 500 ms), with each flavor's comparison.
func TestSentinelSystemTable(t *testing.T) {
	ms := dms(1)
	S := algorithms.Success
	cases := []struct {
		name, spec string
		sig        algorithms.Signals
		evs        []adaptiveEvent
	}{
		// One success with RT 100: maxSuccessQps = 1·2 = 2, minRt = 100,
		// estimate 2·100/1000 = 0.2. 200 ms: 0 threads; 201 ms: 1 > 1 is
		// false; 202 ms: 2 > 1 and 2 > 0.2.
		{"doc worked example: load=1 with load1 = 2", "sentinel-system:load=1", algorithms.ConstSignals{Load: 2}, []adaptiveEvent{
			in(0), done(100*ms, 0, S), in(200 * ms), in(201 * ms), refused(202 * ms),
		}},
		{"load below the threshold never blocks", "sentinel-system:load=1", algorithms.ConstSignals{Load: 0.5}, []adaptiveEvent{
			in(0), in(0), in(0), in(0),
		}},
		{"qps: passQps + 1 > qps blocks", "sentinel-system:qps=2", nil, []adaptiveEvent{
			in(0), in(0), refused(0), refused(999 * ms), in(1000 * ms),
		}},
		{"qps, go: blocks unless passQps < qps", "sentinel-system:qps=2,flavor=go", nil, []adaptiveEvent{
			in(0), in(0), refused(0),
		}},
		{"max-thread: Java admits N+1", "sentinel-system:max-thread=1", nil, []adaptiveEvent{
			in(0), in(0), refused(0), done(ms, 0, S), in(ms),
		}},
		{"max-thread: Go admits N", "sentinel-system:max-thread=1,flavor=go", nil, []adaptiveEvent{
			in(0), refused(0), done(ms, 0, S), in(ms),
		}},
		// sentinel-golang's TriggerCount is a float64: concurrency < 2.5
		// passes at 0, 1 and 2 in flight, so 3 are admitted.
		{"max-thread fractional, go: n < 2.5 admits 3", "sentinel-system:max-thread=2.5,flavor=go", nil, []adaptiveEvent{
			in(0), in(0), in(0), refused(0), done(ms, 0, S), in(ms),
		}},
		// avgRT is BaseStatNode.AvgRT, an integer division: 29 < 29.5
		// passes (a threshold truncated to 29 would block), 30 blocks.
		{"avg-rt fractional, go: an average of 29 ms passes 29.5", "sentinel-system:avg-rt=29.5,flavor=go", nil, []adaptiveEvent{
			in(0), done(29*ms, 0, S), in(40 * ms),
		}},
		{"avg-rt fractional, go: an average of 30 ms blocks at 29.5", "sentinel-system:avg-rt=29.5,flavor=go", nil, []adaptiveEvent{
			in(0), done(30*ms, 0, S), refused(40 * ms),
		}},
		{"avg-rt: rtSum/successes > avgRt blocks, 0 without successes", "sentinel-system:avg-rt=50", nil, []adaptiveEvent{
			in(0), in(0), done(100*ms, 0, S), refused(150 * ms),
		}},
		{"avg-rt at the threshold passes", "sentinel-system:avg-rt=50", nil, []adaptiveEvent{
			in(0), done(50*ms, 0, S), in(60 * ms),
		}},
		{"cpu: above the threshold blocks, no BBR in Java", "sentinel-system:cpu=0.5", algorithms.ConstSignals{Cpu: 0.6}, []adaptiveEvent{
			refused(0), refused(500 * ms),
		}},
		{"cpu: at the threshold passes", "sentinel-system:cpu=0.5", algorithms.ConstSignals{Cpu: 0.5}, []adaptiveEvent{
			in(0), in(0),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replayAdaptive(t, completer(t, c.spec, c.sig), c.evs) })
	}
}

func TestSentinelSystemSignalsAndErrors(t *testing.T) {
	for spec, want := range map[string]algorithms.Signal{
		"sentinel-system:qps=10":         0,
		"sentinel-system:load=1":         algorithms.SignalLoad1,
		"sentinel-system:cpu=0.8":        algorithms.SignalCPU,
		"sentinel-system:cpu=0.8,load=2": algorithms.SignalCPU | algorithms.SignalLoad1,
	} {
		r, ok := mustNew(t, spec).(algorithms.SignalReader)
		if !ok {
			t.Fatalf("%s is not a SignalReader", spec)
		}
		if got := r.NeedsSignals(); got != want {
			t.Errorf("%s: NeedsSignals() = %v, want %v", spec, got, want)
		}
	}
	checkErrors(t, map[string][]string{
		"sentinel-system:qps=-1": {"qps must not be negative, got -1"},
	})
}

// Java's SystemRule keeps maxThread and avgRt in longs: a fraction is
// refused with flavor=java and kept with flavor=go, where Spec writes it
// back as given.
func TestSentinelSystemFractionalThresholds(t *testing.T) {
	for _, spec := range []string{"sentinel-system:avg-rt=29.5", "sentinel-system:max-thread=2.5,flavor=java"} {
		if _, err := algorithms.New(spec, 0); err == nil {
			t.Errorf("%s: no error, want the whole-number refusal", spec)
		}
	}
	l, err := algorithms.New("sentinel-system:avg-rt=29.5,max-thread=2.5,flavor=go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Spec(), "sentinel-system:max-thread=2.5,avg-rt=29.5,flavor=go,strategy=none"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
}
