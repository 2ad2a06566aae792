package algorithms_test

import (
	"testing"
	"time"
)

// TestBucket4jTable replays docs/algorithms.md's bucket4j section: a
// greedy refill keeps the fraction of a token as a rounding error, an
// intervally refill adds tokens only at creation + k·period, and a
// refused request stores nothing.
func TestBucket4jTable(t *testing.T) {
	cases := []struct {
		name, spec, want string
		ats              []time.Duration
	}{
		// At 150 ms one token has come and half of one is kept; at 200 ms
		// the kept half and the new half make one.
		{"doc worked example: greedy", "bucket4j:capacity=10,refill-tokens=10", "++++++++++." + "+." + "+.",
			append(times(11, 0), at(150, 150, 200, 200)...)},
		{"intervally: nothing before 1 s, then all five", "bucket4j:capacity=5,refill-tokens=5,refill=intervally", "+++++" + ".." + "+++++.",
			append(append(times(5, 0), at(500, 999)...), times(6, dms(1000))...)},
		{"clock=millis reads whole milliseconds", "bucket4j:capacity=1,refill-tokens=1,refill-period=10ms", "+.+",
			at(0, 9.999, 10)},
		{"clock=nanos does not floor", "bucket4j:capacity=1,refill-tokens=1,refill-period=10ms,clock=nanos", "+.+",
			at(0, 9.999999, 10)},
		{"clock back: a time before the last refill refills nothing", "bucket4j:capacity=1,refill-tokens=1,refill-period=1s", "+..+",
			at(5000, 1000, 5999, 6000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pattern(mustNew(t, c.spec), c.ats); got != c.want {
				t.Errorf("%s: %s, want %s", c.spec, got, c.want)
			}
		})
	}
}

func TestBucket4jSpec(t *testing.T) {
	l := mustNew(t, "bucket4j:capacity=10,refill-tokens=5")
	if got, want := l.Spec(), "bucket4j:capacity=10,refill-tokens=5,refill-period=1s,refill=greedy,clock=millis"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
}
