package lab

import (
	"strings"
	"testing"
)

// An alias --algo takes (sliding-window, throttling) names the same
// limiter in --fail-if: the threshold holds the registry name, so it
// tests the rows whose spec is that limiter; an unknown name is still
// refused with the nearest name.
func TestFailIfTakesAliases(t *testing.T) {
	for _, c := range []struct{ in, name, spec string }{
		{"sliding-window.overshoot>0", "leap-array", "leap-array:limit=10,sample-count=2,interval=1s"},
		{"throttling.pass_pct<50", "leaky-bucket", "leaky-bucket:limit=10,interval=1s,max-queue=500ms"},
		{"throttling.pass_pct<50", "leaky-bucket", "token-bucket:limit=1+leaky-bucket:limit=10"},
		{"leap-array.overshoot>0", "leap-array", "leap-array:limit=10"},
	} {
		th, err := ParseFailIf(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if th.Name != c.name || !th.Matches(c.spec) {
			t.Errorf("%s: name %q, matches %s: %v; want %q, true", c.in, th.Name, c.spec, th.Matches(c.spec), c.name)
		}
	}
	if _, err := ParseFailIf("sliding-windw.overshoot>0"); err == nil || !strings.Contains(err.Error(), `did you mean "sliding-window"`) {
		t.Errorf("a misspelt alias: %v", err)
	}
}
