package algorithms_test

import (
	"strings"
	"testing"
	"time"
)

// every lists n instants step apart from start.
func every(n int, start, step time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = start + time.Duration(i)*step
	}
	return out
}

// TestHAProxyTable replays docs/algorithms.md's haproxy section: a
// freq_ctr that counts every request, the denied ones too, read as
// ⌊(prev·remain + curr·period)/period⌋, a pass iff that rate ≤ limit.
func TestHAProxyTable(t *testing.T) {
	cases := []struct {
		name, spec, want string
		ats              []time.Duration
	}{
		// The eleventh (5 s) reads 11; its denials keep the rate near 20.
		{"2 a second: ten pass, then nothing", "haproxy:limit=10,period=10s",
			strings.Repeat("+", 10) + strings.Repeat(".", 30), every(40, 0, 500*time.Millisecond)},
		// At 10 s the new period starts with the whole previous one:
		// (10·10000 + 1·10000)/10000 = 11 > 10; then 10·9000/10000 + 2 = 11…
		{"exactly 1 a second: ten pass, nothing after 10 s", "haproxy:limit=10,period=10s",
			strings.Repeat("+", 10) + strings.Repeat(".", 20), every(30, 0, time.Second)},
		{"0.9 a second: nothing is denied", "haproxy:limit=10,period=10s",
			strings.Repeat("+", 40), every(40, 0, dms(10000.0/9))},
		{"the window starts at the first request, not at a wall-clock edge", "haproxy:limit=2,period=1s",
			"++.", at(700, 1000, 1600)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pattern(mustNew(t, c.spec), c.ats); got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.spec, got, c.want)
			}
		})
	}
}

func TestHAProxySpec(t *testing.T) {
	l := mustNew(t, "haproxy:limit=10")
	if got, want := l.Spec(), "haproxy:limit=10,period=10s,expire=0s"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
}
