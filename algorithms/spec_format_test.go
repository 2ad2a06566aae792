package algorithms

import (
	"regexp"
	"strings"
	"testing"
)

// Specs print numbers in fixed notation: a limit of 1e6 reads 1000000, and
// the spec still rebuilds the same limiter.
func TestSpecNeverUsesAnExponent(t *testing.T) {
	exponent := regexp.MustCompile(`[0-9][eE][+-]?[0-9]`)
	for _, spec := range []string{
		"fixed-window:limit=1e6", "fixed-window:limit=0.00001,window=100000s",
		"leap-array:limit=1e6", "sliding-log:limit=2e6,history=1s",
		"token-bucket:rate=1e7", "token-bucket:rate=0.000015,burst=1",
		"leaky-bucket:limit=1e6", "warm-up:limit=1e6", "warm-up-rate-limiter:limit=1e6",
	} {
		l, err := New(spec, 0)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		got := l.Spec()
		if exponent.MatchString(got) {
			t.Errorf("%s prints as %s, with an exponent", spec, got)
		}
		again, err := New(got, 0)
		if err != nil || again.Spec() != got {
			t.Errorf("%s does not rebuild itself: %v", got, err)
		}
	}
	if l, _ := New("fixed-window:limit=1e6", 0); l.Spec() != "fixed-window:limit=1000000,window=1s" {
		t.Errorf("1e6 prints as %s", l.Spec())
	}
}

// Errors print the numbers they quote compactly: rate=1e300 is "1e+300" in
// the message, not 301 digits, while specs keep fixed notation.
func TestErrorsPrintHugeNumbersCompactly(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"token-bucket:rate=1e300", "rate 1e+300 is too large"},
		{"concurrency:limit=1e300,flavor=go", "got 1e+300"},
		{"aimd:backoff=1e300", "got 1e+300"},
		{"uber:rate=1e300", "got 1e+300"},
		{"gradient2:tolerance=1e-300", "got 1e-300"},
		{"leaky-bucket:limit=1e-300", "limit 1e-300 rounds to 0"},
		{"sentinel-param:count=1e300,flavor=go", "got 1e+300"},
		{"circuit-breaker:strategy=error-ratio,threshold=1e300", "got 1e+300"},
	} {
		_, err := New(c.spec, 0)
		if err == nil {
			t.Errorf("%s: no error", c.spec)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "0000000000") {
			t.Errorf("%s: %v, want it to say %q", c.spec, err, c.want)
		}
	}
}
