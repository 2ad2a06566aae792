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
//
// The second before the bar shows is counted on a clock the test moves
// (10 ms per update), so "nothing before a second" holds on any machine;
// the arrivals done follow the real time since the run started, as the
// bar's own rate does, and the test ends on an event (the bar wrote a
// rate), not after a set time.
func TestProgressFirstRate(t *testing.T) {
	var errOut bytes.Buffer
	p := newProgress(&IOStreams{ErrOut: &errOut, ErrTTY: true}, false, 10_000_000)
	start := time.Now()
	fake := start
	p.now, p.start = func() time.Time { return fake }, fake
	rate := regexp.MustCompile(`(\d+) arrivals/s`)
	var done int64
	for i := 0; !rate.MatchString(errOut.String()); i++ {
		if i == 100_000 {
			t.Fatalf("no rate after %d updates: %q", i, errOut.String())
		}
		done = int64(time.Since(start).Seconds() * 100_000)
		p.update(done)
		if fake.Sub(start) < showAfter && errOut.Len() > 0 {
			t.Fatalf("the bar showed before a second (%v): %q", fake.Sub(start), errOut.String())
		}
		fake = fake.Add(10 * time.Millisecond)
		time.Sleep(time.Millisecond) // let the bar's own clock move on
	}
	out := errOut.String()
	p.finish()
	for _, r := range rate.FindAllStringSubmatch(out, -1) {
		if n, _ := strconv.ParseFloat(r[1], 64); n < 20_000 || n > 500_000 {
			t.Errorf("rate %s arrivals/s, want about 100000: %q", r[1], out)
		}
	}
}
