package algorithms_test

import (
	"testing"
	"time"
)

// TestGuavaBurstyTable replays docs/algorithms.md's guava-bursty section
// (Guava 33's SmoothBursty with tryAcquire(1, timeout)): the next caller
// pays for the current one, idle time is stored up to rate·max-burst
// permits, and a new limiter stores none.
func TestGuavaBurstyTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"Guava's documentation: acquire() at 0, 0 and 200 ms", "guava-bursty:rate=5,timeout=inf", []arrival{
			pass(0), passAfter(0, dms(200)), passAfter(dms(200), dms(200)),
		}},
		{"timeout=0: the ticket must have come", "guava-bursty:rate=5", []arrival{
			pass(0), block(0), block(dms(199.999)), pass(dms(200)),
		}},
		{"2 s idle stores 5 permits: 6 pass at one instant", "guava-bursty:rate=5",
			script(repeat(6, pass(dms(2000))), one(block(dms(2000))))},
		{"max-burst=2s stores 10 permits", "guava-bursty:rate=5,max-burst=2s",
			script(repeat(11, pass(dms(5000))), one(block(dms(5000))))},
		{"a timeout lets a request wait for its ticket", "guava-bursty:rate=5,timeout=200ms", []arrival{
			pass(0), passAfter(0, dms(200)), block(0), block(dms(199)), passAfter(dms(200), dms(200)),
		}},
		{"waits are whole µs: stable interval 333333.33 µs", "guava-bursty:rate=3,timeout=inf", []arrival{
			pass(0), passAfter(0, 333333*time.Microsecond), passAfter(0, 666666*time.Microsecond),
		}},
		{"clock back with timeout=0: refused, nothing changes", "guava-bursty:rate=5", []arrival{
			pass(0), pass(dms(200)), // no idle time: nothing stored, next ticket 400
			block(dms(100)), block(dms(399)), pass(dms(400)),
		}},
		{"clock back with acquire(): the wait includes the step", "guava-bursty:rate=5,timeout=inf", []arrival{
			pass(0), pass(dms(200)), passAfter(dms(100), dms(300)), pass(dms(600)), passAfter(dms(600), dms(200)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestGuavaBurstySpecAndErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"guava-bursty:rate=5":                            "guava-bursty:rate=5,max-burst=1s,timeout=0s",
		"guava-bursty:rate=0.5,max-burst=3s,timeout=inf": "guava-bursty:rate=0.5,max-burst=3s,timeout=inf",
	} {
		l := mustNew(t, spec)
		if got := l.Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
		if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
			t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
		}
	}
	checkErrors(t, map[string][]string{
		"guava-bursty:rate=0":  {"rate"},
		"guava-bursty:rate=-1": {"rate"},
	})
}
