package algorithms_test

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestAegisBBRTable replays docs/algorithms.md's aegis-bbr section: with
// the CPU gate open, drop iff inFlight > 1 and inFlight > ⌊maxPASS ·
// minRT · bucketsPerSecond / 1000⌋, maxPASS counting completions.
func TestAegisBBRTable(t *testing.T) {
	ms := dms(1)
	S := algorithms.Success
	cases := []struct {
		name, spec string
		cpu        float64
		evs        []adaptiveEvent
	}{
		// At 250 ms: maxPASS = 2 (bucket 1's two completions), minRT =
		// 150, ⌊2·150·10/1000⌋ = 3: pass while 0 to 3 are in flight.
		{"doc worked example", "aegis-bbr:window=1s,buckets=10,cpu-threshold=0", 0, []adaptiveEvent{
			in(0), in(0), refused(0), // maxPASS 1, minRT 1: ⌊1·1·10/1000⌋ = 0
			done(150*ms, 0, S), done(150*ms, 1, S),
			in(250 * ms), in(250 * ms), in(250 * ms), in(250 * ms), refused(250 * ms),
		}},
		{"the CPU below the threshold opens no gate", "aegis-bbr:window=1s,buckets=10,cpu-threshold=800", 0.5, []adaptiveEvent{
			in(0), in(0), in(0), in(0), in(0),
		}},
		{"two in flight always pass", "aegis-bbr:window=1s,buckets=10,cpu-threshold=0", 1, []adaptiveEvent{
			in(0), in(0), refused(0), done(ms, 0, S), in(ms),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			replayAdaptive(t, completer(t, c.spec, algorithms.ConstSignals{Cpu: c.cpu}), c.evs)
		})
	}
}

func TestAegisBBRSpecAndErrors(t *testing.T) {
	l := mustNew(t, "aegis-bbr")
	if got, want := l.Spec(), "aegis-bbr:window=10s,buckets=100,cpu-threshold=800,version=head"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if got := mustNew(t, "aegis-bbr:version=v0.2.0").Spec(); got != "aegis-bbr:window=10s,buckets=100,cpu-threshold=800,version=v0.2.0" {
		t.Errorf("Spec() = %q", got)
	}
	if r, ok := l.(algorithms.SignalReader); !ok || r.NeedsSignals() != algorithms.SignalCPU {
		t.Errorf("aegis-bbr does not read the cpu signal")
	}
	checkErrors(t, map[string][]string{
		"aegis-bbr:version=v0.3.0": {`version "v0.3.0" is not known; allowed: head, v0.2.0`},
	})
}
