package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// The bar appears after a second, and its first rate is over the run's
// elapsed time: about 100 000 arrivals/s here, never every arrival so far
// over the microseconds since the bar appeared.
func TestProgressFirstRate(t *testing.T) {
	var errOut bytes.Buffer
	p := newProgress(&IOStreams{ErrOut: &errOut, ErrTTY: true}, false, 10_000_000)
	start := time.Now()
	var done int64
	for time.Since(start) < 1300*time.Millisecond {
		done = int64(time.Since(start).Seconds() * 100_000)
		p.update(done)
		if time.Since(start) < 900*time.Millisecond && errOut.Len() > 0 {
			t.Fatalf("the bar showed before a second: %q", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := errOut.String()
	p.finish()
	m := regexp.MustCompile(`(\d+) arrivals/s`).FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no rate after %d arrivals in 1.3 s: %q", done, out)
	}
	for _, r := range m {
		if n, _ := strconv.ParseFloat(r[1], 64); n < 20_000 || n > 500_000 {
			t.Errorf("rate %s arrivals/s, want about 100000: %q", r[1], out)
		}
	}
}
