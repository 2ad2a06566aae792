package simulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

func cfgFor(end time.Duration) Config {
	c := DefaultConfig()
	c.Scenario, c.Limit, c.End = "test", 10, end
	return c
}

func randomArrivals(seed uint64, n int, span time.Duration) []scenarios.Arrival {
	rng := rand.New(rand.NewPCG(seed, 7))
	ts := make([]time.Duration, n)
	for i := range ts {
		ts[i] = time.Duration(rng.Int64N(int64(span)))
	}
	slices.Sort(ts)
	return at(ts...)
}

func TestBinsSumToTotals(t *testing.T) {
	// More than one batch, so batching and the pool are exercised.
	arr := randomArrivals(1, 3*batchSize+17, 3*time.Second)
	lims := []algorithms.Limiter{&alternate{}, &queue{wait: 130 * time.Millisecond}, &alternate{}}
	r, err := Run(context.Background(), &sliceStream{arr: arr}, lims, cfgFor(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Algorithms) != 3 {
		t.Fatalf("%d results", len(r.Algorithms))
	}
	for _, a := range r.Algorithms {
		var sum Bin
		for _, b := range a.Bins {
			sum.Arrived += b.Arrived
			sum.Passed += b.Passed
			sum.Blocked += b.Blocked
		}
		if a.Arrived != int64(len(arr)) || sum.Arrived != a.Arrived || sum.Passed != a.Passed ||
			sum.Blocked != a.Blocked || a.Passed+a.Blocked != a.Arrived {
			t.Errorf("%s: totals %d/%d/%d, bins %d/%d/%d", a.Spec, a.Arrived, a.Passed, a.Blocked,
				sum.Arrived, sum.Passed, sum.Blocked)
		}
		if len(a.Bins) != len(r.Algorithms[0].Bins) {
			t.Errorf("%s: %d bins, first algorithm has %d", a.Spec, len(a.Bins), len(r.Algorithms[0].Bins))
		}
	}
	// alternate passes the odd-numbered arrivals.
	if got, want := r.Algorithms[0].Passed, int64((len(arr)+1)/2); got != want {
		t.Errorf("alternate passed %d, want %d", got, want)
	}
	if r.Algorithms[0].Spec != r.Algorithms[2].Spec || r.Algorithms[0].Passed != r.Algorithms[2].Passed {
		t.Error("two identical limiters disagree")
	}
}

func TestPassLandsInAdmissionBin(t *testing.T) {
	// Arrivals at 10 ms and 960 ms; a 130 ms queue admits them at 140 ms
	// (bin 2) and 1090 ms (bin 21, past End = 1 s: the tail).
	lims := []algorithms.Limiter{&queue{wait: 130 * time.Millisecond}}
	r, err := Run(context.Background(), &sliceStream{arr: at(10*time.Millisecond, 960*time.Millisecond)}, lims, cfgFor(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	a := r.Algorithms[0]
	if len(a.Bins) != 22 {
		t.Fatalf("%d bins, want 22 (20 plus the tail)", len(a.Bins))
	}
	want := map[int]Bin{
		0:  {Arrived: 1},
		2:  {Passed: 1, WaitSum: 130 * time.Millisecond, WaitMax: 130 * time.Millisecond},
		19: {Arrived: 1},
		21: {Passed: 1, WaitSum: 130 * time.Millisecond, WaitMax: 130 * time.Millisecond},
	}
	for i, b := range a.Bins {
		if b != want[i] {
			t.Errorf("bin %d = %+v, want %+v", i, b, want[i])
		}
	}
	if r.End != time.Second {
		t.Errorf("End = %v, want 1s (the tail does not move End)", r.End)
	}
	if a.WaitP50 != 130*time.Millisecond || a.WaitMax != 130*time.Millisecond {
		t.Errorf("waits %v %v", a.WaitP50, a.WaitMax)
	}
}

func TestBinsExtendForArrivalsOutsideStartEnd(t *testing.T) {
	cfg := cfgFor(100 * time.Millisecond)
	r, err := Run(context.Background(), &sliceStream{arr: at(-70*time.Millisecond, 0, 230*time.Millisecond)},
		[]algorithms.Limiter{&alternate{}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Start != -100*time.Millisecond || r.End != 250*time.Millisecond {
		t.Fatalf("Start, End = %v, %v; want -100ms, 250ms", r.Start, r.End)
	}
	var got []int64
	for _, b := range r.Algorithms[0].Bins {
		got = append(got, b.Arrived)
	}
	if want := []int64{1, 0, 1, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Fatalf("arrivals per bin %v, want %v", got, want)
	}
}

func TestLimitersSeeClockAndBinsUseTrueTime(t *testing.T) {
	s := &scripted{ds: []algorithms.Decision{{Pass: true}, {Pass: true}}}
	arr := []scenarios.Arrival{{At: 10 * time.Millisecond, Clock: 5 * time.Second}, {At: 60 * time.Millisecond, Clock: -time.Second}}
	r, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{s}, cfgFor(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.seen, []time.Duration{5 * time.Second, -time.Second}) {
		t.Errorf("limiter saw %v", s.seen)
	}
	if b := r.Algorithms[0].Bins; len(b) != 2 || b[0].Passed != 1 || b[1].Passed != 1 {
		t.Errorf("bins %+v", b)
	}
}

func TestMaxWindowPassedThroughRun(t *testing.T) {
	arr := randomArrivals(5, 2000, 4*time.Second)
	cfg := cfgFor(4 * time.Second)
	cfg.Window = 300 * time.Millisecond
	// A wait that varies makes admission times go backwards now and then.
	waits := []time.Duration{0, 40 * time.Millisecond, 7 * time.Millisecond, 0, 250 * time.Millisecond}
	s := &scripted{}
	var adm []int64
	for i, a := range arr {
		d := algorithms.Decision{Pass: i%3 != 0, Wait: waits[i%len(waits)]}
		if !d.Pass {
			d.Wait = 0
		}
		s.ds = append(s.ds, d)
		if d.Pass {
			adm = append(adm, int64(a.At+d.Wait))
		}
	}
	cfg.Reorder = time.Second
	r, err := Run(context.Background(), &sliceStream{arr: arr}, []algorithms.Limiter{s}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Algorithms[0]
	if want := bruteMax(adm, int64(cfg.Window)); a.MaxWindowPassed != want || a.LateAdmissions != 0 {
		t.Fatalf("MaxWindowPassed %d (late %d), brute force %d", a.MaxWindowPassed, a.LateAdmissions, want)
	}
	if a.WindowLimit != 5*0.3 || a.Overshoot != float64(a.MaxWindowPassed)/1.5 {
		t.Errorf("WindowLimit %v Overshoot %v", a.WindowLimit, a.Overshoot)
	}
	var peak int64
	for _, b := range a.Bins {
		peak = max(peak, b.Passed)
	}
	if a.PeakBinPassed != peak || peak == 0 {
		t.Errorf("PeakBinPassed %d, bins say %d", a.PeakBinPassed, peak)
	}
}

func TestSmoothBoundOnlyForSampleCount(t *testing.T) {
	r, err := Run(context.Background(), &sliceStream{arr: at(0)},
		[]algorithms.Limiter{&alternate{}, &queue{}}, cfgFor(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// alternate: N = 2 → the ratio 1 + 1/2, to compare with the overshoot.
	if a := r.Algorithms[0]; a.SampleCount != 2 || a.SmoothBound != 1.5 || a.Name != "alternate" {
		t.Errorf("alternate: %+v", a)
	}
	if q := r.Algorithms[1]; q.SampleCount != 0 || q.SmoothBound != 0 || q.Name != "queue" {
		t.Errorf("queue: %+v", q)
	}
}

func TestDecisionRows(t *testing.T) {
	var bufs [2]bytes.Buffer
	cfg := cfgFor(time.Second)
	cfg.Decisions = func(i int) io.Writer { return &bufs[i] }
	lims := []algorithms.Limiter{&alternate{}, &queue{wait: 3 * time.Millisecond}}
	arr := []scenarios.Arrival{{At: 1, Clock: 1}, {At: 2, Clock: 1500}, {At: 3, Clock: 3}}
	if _, err := Run(context.Background(), &sliceStream{arr: arr}, lims, cfg); err != nil {
		t.Fatal(err)
	}
	want0 := "alternate,0,1,pass,0,,,,0\nalternate,1,1500,block,0,flow,,,0\nalternate,2,3,pass,0,,,,0\n"
	if bufs[0].String() != want0 {
		t.Errorf("alternate rows:\n%s\nwant:\n%s", bufs[0].String(), want0)
	}
	want1 := `"queue:wait=3ms,x=1",0,1,pass,3000000,,,,0` + "\n" +
		`"queue:wait=3ms,x=1",1,1500,pass,3000000,,,,0` + "\n" +
		`"queue:wait=3ms,x=1",2,3,pass,3000000,,,,0` + "\n"
	if bufs[1].String() != want1 {
		t.Errorf("queue rows:\n%s\nwant:\n%s", bufs[1].String(), want1)
	}
}

func TestDecisionRowsSeqAcrossBatches(t *testing.T) {
	var buf bytes.Buffer
	cfg := cfgFor(time.Second)
	cfg.Decisions = func(int) io.Writer { return &buf }
	n := 2*batchSize + 5
	if _, err := Run(context.Background(), &sliceStream{arr: randomArrivals(9, n, time.Second)},
		[]algorithms.Limiter{&alternate{}}, cfg); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d rows, want %d", len(lines), n)
	}
	for i, l := range lines {
		if f := strings.Split(l, ","); f[1] != fmt.Sprint(i) {
			t.Fatalf("row %d has seq %s", i, f[1])
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestDecisionWriteErrorIsReturned(t *testing.T) {
	cfg := cfgFor(time.Second)
	cfg.Decisions = func(int) io.Writer { return failWriter{} }
	_, err := Run(context.Background(), &sliceStream{arr: randomArrivals(2, 5000, time.Second)},
		[]algorithms.Limiter{&alternate{}}, cfg)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamErrorIsReturned(t *testing.T) {
	want := errors.New("trace.csv line 3: bad timestamp")
	_, err := Run(context.Background(), &sliceStream{arr: at(1, 2), err: want},
		[]algorithms.Limiter{&alternate{}}, cfgFor(time.Second))
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
}

func TestCancellationStopsAnEndlessRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := cfgFor(time.Second)
	var once sync.Once
	cfg.Progress = func(done int64) {
		if done >= 300_000 {
			once.Do(cancel)
		}
	}
	// The stream never ends: only the cancellation can return (a Run that
	// ignored it would run into go test's -timeout, not a deadline of our
	// own that a busy machine could miss).
	_, err := Run(ctx, &endless{step: time.Microsecond}, []algorithms.Limiter{&alternate{}, &queue{}}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestAlreadyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, &endless{step: 1}, []algorithms.Limiter{&alternate{}}, cfgFor(time.Second))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestPanickingLimiterIsAnError(t *testing.T) {
	_, err := Run(context.Background(), &sliceStream{arr: at(1, 2, 3, 4)},
		[]algorithms.Limiter{&alternate{}, &panicky{}}, cfgFor(time.Second))
	if err == nil || !strings.Contains(err.Error(), "panicky panicked") {
		t.Fatalf("err = %v", err)
	}
}

func TestProgress(t *testing.T) {
	cfg := cfgFor(time.Second)
	var calls []int64
	cfg.Progress = func(d int64) { calls = append(calls, d) }
	n := 250_000
	if _, err := Run(context.Background(), &sliceStream{arr: randomArrivals(4, n, time.Second)},
		[]algorithms.Limiter{&alternate{}}, cfg); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || calls[len(calls)-1] != int64(n) {
		t.Fatalf("progress calls %v", calls)
	}
	for i := 1; i < len(calls)-1; i++ {
		if calls[i]-calls[i-1] < ProgressEvery {
			t.Fatalf("progress calls too close: %v", calls)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Bin = 0 }, "--bin must be positive, got 0s"},
		{func(c *Config) { c.Window = -time.Second }, "--window must be positive, got -1s"},
	} {
		cfg := cfgFor(time.Second)
		tc.mod(&cfg)
		_, err := Run(context.Background(), &sliceStream{}, []algorithms.Limiter{&alternate{}}, cfg)
		if err == nil || err.Error() != tc.want {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	if _, err := Run(context.Background(), &sliceStream{}, nil, cfgFor(time.Second)); err == nil {
		t.Error("no limiters: no error")
	}
}

func TestEmptyStream(t *testing.T) {
	r, err := Run(context.Background(), &sliceStream{}, []algorithms.Limiter{&alternate{}}, cfgFor(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Algorithms[0]; a.Arrived != 0 || len(a.Bins) != 20 || a.MaxWindowPassed != 0 {
		t.Fatalf("%+v", a)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	render := func() string {
		arr := randomArrivals(11, 20000, 2*time.Second)
		r, err := Run(context.Background(), &sliceStream{arr: arr},
			[]algorithms.Limiter{&alternate{}, &queue{wait: 3 * time.Millisecond}}, cfgFor(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WriteSeriesCSV(&b, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteSummaryJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if a, b := render(), render(); a != b {
		t.Fatal("two identical runs rendered differently")
	}
}
