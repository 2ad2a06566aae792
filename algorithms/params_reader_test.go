package algorithms

import (
	"errors"
	"testing"
	"time"
)

// TestReaderKeepsTheFirstError holds the parameter reader's contract: the
// values of the reads that parse, and, of those that do not, the error of
// the first one in read order, whatever comes after it.
func TestReaderKeepsTheFirstError(t *testing.T) {
	params := []param{
		p("limit", "", "", kindFloat),
		p("window", "1s", "", kindDuration),
		p("sample-count", "2", "", kindInt),
		p("flavor", "java", "", kindString),
	}
	newArgs := func(raw map[string]string, limit float64) *args {
		return &args{name: "demo", raw: raw, defaultLimit: limit, params: params}
	}
	cases := []struct {
		name   string
		raw    map[string]string
		limit  float64
		want   string // the first error, "" for none
		lim    float64
		window time.Duration
		n      int
	}{
		{name: "defaults and the scenario's limit", limit: 100, lim: 100, window: time.Second, n: 2},
		{name: "given values", raw: map[string]string{"limit": "2.5", "window": "250ms", "sample-count": "4"}, lim: 2.5, window: 250 * time.Millisecond, n: 4},
		{name: "the first of two bad reads", raw: map[string]string{"limit": "ten", "sample-count": "x"},
			want: `demo: limit "ten" is not a number (for example limit=100 or limit=2.5)`, window: time.Second},
		{name: "a bad read after good ones", raw: map[string]string{"limit": "5", "window": "soon", "sample-count": "x"},
			want: `demo: window "soon" is not a duration (use Go syntax, for example window=500ms or window=1s)`, lim: 5},
		{name: "no limit and none from the scenario", raw: map[string]string{"window": "soon"},
			want: "demo needs a limit: add limit=N to the spec (for example demo:limit=100) or pass --limit", n: 2},
		{name: "flavor read last", raw: map[string]string{"flavor": "rust"}, limit: 1,
			want: `demo: flavor "rust" is not known; allowed: java (Alibaba Sentinel 1.8, the default), go (sentinel-golang)`, lim: 1, window: time.Second, n: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.raw == nil {
				tc.raw = map[string]string{}
			}
			r := newArgs(tc.raw, tc.limit).reader()
			lim, window, n := r.float("limit"), r.duration("window"), r.int("sample-count")
			r.goFlavor()
			got := ""
			if err := r.err(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("err = %q, want %q", got, tc.want)
			}
			if lim != tc.lim || window != tc.window || n != tc.n {
				t.Errorf("values = %v, %v, %d; want %v, %v, %d", lim, window, n, tc.lim, tc.window, tc.n)
			}
		})
	}
}

// TestReaderFail keeps a constructor's own check only when no read failed
// before it, and ignores nil.
func TestReaderFail(t *testing.T) {
	own, later := errors.New("own check"), errors.New("later check")
	r := (&args{name: "demo", raw: map[string]string{}}).reader()
	r.fail(nil)
	if r.err() != nil {
		t.Fatalf("fail(nil) kept %v", r.err())
	}
	r.fail(own)
	r.fail(later)
	if r.err() != own {
		t.Errorf("err = %v, want the first: %v", r.err(), own)
	}
}
