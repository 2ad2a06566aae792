package algorithms_test

import (
	"testing"
	"time"
)

// TestKongTable replays docs/algorithms.md's kong section: UTC calendar
// windows on whole seconds, a pass iff limit − usage > 0 for every
// configured unit; policy=local counts passes only, policy=redis counts
// every request (usage() runs INCR before it checks).
func TestKongTable(t *testing.T) {
	// Three requests a second for four seconds, then one at 60 s.
	var ats []time.Duration
	for s := range 4 {
		ats = append(ats, at(float64(1000*s), float64(1000*s+300), float64(1000*s+600))...)
	}
	ats = append(ats, dms(60000))
	cases := []struct {
		name, spec, want string
		ats              []time.Duration
	}{
		{"local: one a second until the minute's three are spent", "kong:second=1,minute=3", "+..+..+....." + "+", ats},
		{"redis: the rejections spend the minute in the first second", "kong:second=1,minute=3,policy=redis", "+..........." + "+", ats},
		{"a second window is [k, k+1) s", "kong:second=2", "++.++", at(0, 999, 999.999, 1000, 1999)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pattern(mustNew(t, c.spec), c.ats); got != c.want {
				t.Errorf("%s: %s, want %s", c.spec, got, c.want)
			}
		})
	}
}

func TestKongSpecAndErrors(t *testing.T) {
	l := mustNew(t, "kong:minute=5000,second=100")
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
	// summary.json's rate is the strictest limit per its length: 5000/60.
	if got, want := l.Rate(), 5000.0/60; got != want {
		t.Errorf("Rate() = %v, want %v", got, want)
	}
	checkErrors(t, map[string][]string{
		"kong":                         {"kong"},
		"kong:second=1,policy=cluster": {"policy"},
	})
}
