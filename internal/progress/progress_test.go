package progress

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeBar is a bar on a terminal 100 columns wide whose clock the test
// moves.
func fakeBar(expected int64, approx float64) (*Bar, *bytes.Buffer, *time.Time) {
	var errOut bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(&errOut, true, 100, expected, approx)
	p.now = func() time.Time { return clock }
	p.start = clock
	return p, &errOut, &clock
}

// frames splits what the bar wrote into its frames (each starts with \r).
func frames(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\r") {
		if f = strings.TrimRight(f, " "); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Nothing shows before a second; then, with the run's size known, every
// frame has the total, the percentage, the bar, a rate over the elapsed
// time and the ETA, all exact on the fake clock: 10 000 arrivals per
// 100 ms of a run of 1 000 000.
func TestProgressTotalPercentageETA(t *testing.T) {
	p, errOut, clock := fakeBar(1_000_000, 1_000_000)
	var done int64
	for i := 0; i < 30; i++ {
		*clock = clock.Add(100 * time.Millisecond)
		done += 10_000
		p.Update(done)
		if i < 9 && errOut.Len() > 0 {
			t.Fatalf("the bar showed at %v: %q", time.Duration(i+1)*100*time.Millisecond, errOut.String())
		}
	}
	fs := frames(errOut.String())
	if len(fs) != 21 {
		t.Fatalf("%d frames, want 21 (1 s to 3 s, one per 100 ms): %q", len(fs), fs)
	}
	// At 1 s: 100 000 of 1 000 000, 100k/s, 9 s left.
	if want := "arrivals 100.0k / 1.00M   10%  [##                  ]  100.0k/s  ETA 9s"; fs[0] != want {
		t.Errorf("first frame\n got %q\nwant %q", fs[0], want)
	}
	if want := "arrivals 300.0k / 1.00M   30%  [######              ]  100.0k/s  ETA 7s"; fs[20] != want {
		t.Errorf("last frame\n got %q\nwant %q", fs[20], want)
	}
	p.Finish()
	if !strings.HasSuffix(errOut.String(), "\r"+strings.Repeat(" ", len(fs[20]))+"\r") {
		t.Errorf("finish does not clear the line: %q", errOut.String())
	}
}

// The rate is worked out anew for every frame: when the run slows down,
// successive frames show different rates (the old bar repeated one), and
// frames come no faster than one per 100 ms however often it is updated.
func TestProgressRateDoesNotRepeat(t *testing.T) {
	p, errOut, clock := fakeBar(0, 0) // a trace of unknown size
	var done int64
	for i := 0; i < 400; i++ {
		*clock = clock.Add(10 * time.Millisecond)
		if i < 200 {
			done += 1000
		} else {
			done += 100 // ten times slower from 2 s
		}
		p.Update(done)
	}
	fs := frames(errOut.String())
	if len(fs) != 31 {
		t.Fatalf("%d frames, want 31 (1 s to 4 s): %q", len(fs), fs)
	}
	rate := regexp.MustCompile(`  (\S+)/s$`)
	var rates []string
	for _, f := range fs {
		if strings.Contains(f, "%") || strings.Contains(f, "ETA") || strings.Contains(f, " / ") {
			t.Fatalf("a total, percentage or ETA without a known size: %q", f)
		}
		m := rate.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("no rate in %q", f)
		}
		rates = append(rates, m[1])
	}
	if rates[0] != "100.0k" || rates[len(rates)-1] != "55.0k" {
		t.Errorf("rates %v: want 100.0k at 1 s, 55.0k at 4 s", rates)
	}
	for i := 11; i < len(rates); i++ {
		if rates[i] == rates[i-1] {
			t.Errorf("frames %d and %d repeat the rate %s while it falls: %v", i-1, i, rates[i], rates)
		}
	}
}

// A Poisson scenario's size is a mean: its total reads "~", and the bar
// never passes 100% when the run has more arrivals than the mean.
func TestProgressApproximateTotal(t *testing.T) {
	p, errOut, clock := fakeBar(0, 1000)
	*clock = clock.Add(2 * time.Second)
	p.Update(1100)
	if f := frames(errOut.String()); len(f) != 1 || !strings.HasPrefix(f[0], "arrivals 1100 / ~1000  100%  [####################]") || !strings.HasSuffix(f[0], "ETA 0s") {
		t.Errorf("frames %q", f)
	}
	// Off a terminal, or --quiet: nothing.
	var buf bytes.Buffer
	q := New(&buf, false, 0, 10, 10)
	q.now = func() time.Time { return time.Now().Add(time.Hour) }
	q.Update(5)
	q.Finish()
	if buf.Len() != 0 {
		t.Errorf("off a terminal: %q", buf.String())
	}
}
