package algorithms_test

import (
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestFormatDuration: one unit where one fits exactly, so specs stay
// short ("1s", "500ms", "60s", "1500us").
func TestFormatDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{time.Second, "1s"},
		{time.Minute, "60s"},
		{90 * time.Minute, "5400s"},
		{500 * time.Millisecond, "500ms"},
		{1500 * time.Millisecond, "1500ms"},
		{1500 * time.Microsecond, "1500us"},
		{time.Nanosecond, "1ns"},
		{1001 * time.Nanosecond, "1001ns"},
		{-2 * time.Second, "-2s"},
		{-time.Millisecond, "-1ms"},
	}
	for _, c := range cases {
		if got := algorithms.FormatDuration(c.d); got != c.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", c.d, got, c.want)
		}
		if c.d != 0 {
			if back, err := time.ParseDuration(c.want); err != nil || back != c.d {
				t.Errorf("%q parses back as %v, %v", c.want, back, err)
			}
		}
	}
}

// TestParamsNumbersInSpecs: a spec prints numbers exactly, in fixed
// notation (1000000, never 1e+06), and errors print very large or very
// small ones with an exponent.
func TestParamsNumbersInSpecs(t *testing.T) {
	for spec, want := range map[string]string{
		"fixed-window:limit=1000000": "fixed-window:limit=1000000,window=1s",
		"fixed-window:limit=1e3":     "fixed-window:limit=1000,window=1s",
		"fixed-window:limit=0.1":     "fixed-window:limit=0.1,window=1s",
		"fixed-window:limit=12.5":    "fixed-window:limit=12.5,window=1s",
	} {
		if got := mustNew(t, spec).Spec(); got != want {
			t.Errorf("New(%q).Spec() = %q, want %q", spec, got, want)
		}
	}
	checkErrors(t, map[string][]string{
		"fixed-window:limit=0":           {"fixed-window: limit must be a positive number, got 0 (for example limit=100)"},
		"fixed-window:limit=-12.5":       {"got -12.5 "},
		"fixed-window:limit=-1e300":      {"got -1e+300 "},
		"fixed-window:limit=-0.00000025": {"got -2.5e-07 "},
		"fixed-window:limit=NaN":         {`limit "NaN" is not a number`},
		"fixed-window:limit=Inf":         {`limit "Inf" is not a number`},
	})
}

// TestParamsBounds: every millisecond and second interval of the Sentinel
// limiters says both of its bounds, and a sample count that does not
// divide the interval names the nearest divisors.
func TestParamsBounds(t *testing.T) {
	checkErrors(t, map[string][]string{
		"leap-array:limit=1,interval=1500us":             {"leap-array: interval must be whole milliseconds from 1ms to 2147483647ms (596h31m23.647s), got 1.5ms (Sentinel counts it in an int of ms)"},
		"leap-array:limit=1,interval=0s":                 {"from 1ms to 2147483647ms", "got 0s"},
		"warm-up:limit=1,occupy-timeout=-1ms":            {"occupy-timeout must be whole milliseconds from 0ms to 2147483647ms"},
		"leap-array:limit=1,occupy-timeout=-1ms":         {"occupy-timeout must be whole milliseconds, 0 or more, got -1ms"},
		"warm-up:limit=1,warm-up=1500ms":                 {"warm-up: warm-up must be whole seconds from 1s to 2147483647s (596523h14m7s), got 1.5s (for example warm-up=10s; Sentinel's warmUpPeriodInSec is an int)"},
		"leap-array:limit=1,sample-count=3":              {"leap-array: sample-count 3 does not divide interval 1s, and Sentinel requires the interval to be evenly divided; pick a divisor of 1000 such as 2 or 4"},
		"leap-array:limit=1,sample-count=7":              {"such as 5 or 8"},
		"leap-array:limit=1,sample-count=2,interval=7ms": {"pick a divisor of 7 such as 1 or 7"},
		"leap-array:limit=1,sample-count=2000":           {"pick a divisor of 1000 such as 1000"},
		"leap-array:limit=1,sample-count=-1":             {"sample-count must be at least 1, got -1"},
	})
	for _, spec := range []string{"leap-array:limit=1,interval=2147483647ms,sample-count=1", "leap-array:limit=1,occupy-timeout=0s", "warm-up:limit=1,warm-up=1s"} {
		if msg := newErr(spec, 0); msg != "" {
			t.Errorf("New(%q): %s; the bound is inclusive", spec, msg)
		}
	}
}
