package distributed

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An empty, blank or comment-only script is refused where the file is read
// (an empty one used to fail mid-run as "NOSCRIPT No matching script").
func TestParseEmptyScript(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"empty.lua", "", "is empty"},
		{"blank.lua", " \n\t\r\n", "is empty"},
		{"comments.lua", "-- a comment\n--[[ and a\nblock ]]\n", "holds only comments"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Parse("redis-script:limit=10,file="+path, 0)
		if err == nil || !strings.Contains(err.Error(), "file "+path+" "+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line saying it %s", c.name, err, c.want)
		}
	}
}

func TestParseBadInput(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"redis-sliding-log:limit=10,atomc=false", `unknown parameter "atomc" (did you mean "atomic"?)`},
		{"redis-fixed-window:limit=10,instances=0", "instances must be a positive whole number, got 0 (for example instances=4)"},
		{"redis-bucketed:limit=10,buckets=0", "buckets must be a positive whole number, got 0 (for example buckets=60)"},
		{"redis-sliding-log:limit=10+circuit-breaker:strategy=error-count,threshold=5", "a redis-* limiter cannot be part of a chain A+B"},
		{"redis-fixed-window:limit=10,rtt=-1ms", "rtt must be between 0 and 1h0m0s, got -1ms"},
		{"redis-fixed-window:limit=10,skew=-50ms", "skew must be between 0 and 1h0m0s, got -50ms"},
		{"redis-sliding-log:limit=2.5", "limit must be a positive whole number, got 2.5"},
		{"redis-gcra:rate=2.5", "rate must be a positive whole number, got 2.5"},
		{"redis-bucketed:limit=10,buckets=7", "buckets 7 does not divide window 1s into whole milliseconds"},
		{"redis-bucketed:limit=10,window=1500us", "window must be whole milliseconds"},
		{"redis-script:limit=10,file=testdata/missing.lua", "cannot read file testdata/missing.lua"},
		{"redis-script:limit=10,file=testdata/notlua.lua", "file testdata/notlua.lua is not Lua"},
		{"redis-script:limit=10", "file is required"},
		{"redis-sliding-log:limit=10,clock=ntp", `clock "ntp" is not one of instance, redis`},
		{"redis-sliding-log:limit=10,count=some", `count "some" is not one of passed, all`},
		{"redis-sliding-log", "needs a limit"},
		{"redis-slidinglog:limit=1", `unknown algorithm "redis-slidinglog" (did you mean "redis-sliding-log"?)`},
		{"redis-envoy-ratelimit:limit=10,unit=fortnight", `unit "fortnight" is not one of second, minute, hour, day, week, month, year`},
		{"redis-envoy-ratelimit:limit=5000000000", "limit must be at most 4294967295 (requests_per_unit is a uint32)"},
		{"redis-cell:count=10,period=1500ms", "period must be whole seconds between 1s and 24h"},
		{"redis-cell:count=10,max-burst=-1", "max-burst must be a whole number from 0"},
		{"redis-cell:count=2000000", "more than one per microsecond"},
		{"redis-spring-gateway:replenish-rate=0", "replenish-rate must be a positive whole number"},
		{"redis-spring-gateway:replenish-rate=5,requested-tokens=1.5", "requested-tokens must be a positive whole number"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec, 0)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.spec, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q, want one line containing %q", c.spec, err, c.want)
		}
	}
	if _, err := Parse("redis-sliding-log", 2.5); err == nil || !strings.Contains(err.Error(), "(the scenario's limit)") {
		t.Errorf("a fractional scenario limit: %v", err)
	}
}

func TestSpecRoundTrip(t *testing.T) {
	for _, spec := range []string{
		"redis-fixed-window:limit=100,window=1s,instances=1,skew=0s,rtt=0s,clock=instance",
		"redis-sliding-log:limit=7,window=250ms,atomic=false,count=all,instances=3,skew=50ms,rtt=1500us,clock=redis",
		"redis-bucketed:limit=60,window=60s,buckets=60,instances=1,skew=0s,rtt=0s,clock=instance",
		"redis-gcra:rate=10,burst=3,period=1s,instances=2,skew=0s,rtt=2ms,clock=instance",
		"redis-script:file=testdata/seed.lua,limit=5,window=1s,instances=1,skew=0s,rtt=0s,clock=instance",
		"redis-spring-gateway:replenish-rate=10,burst-capacity=20,requested-tokens=1,instances=1,skew=0s,rtt=0s,clock=redis",
		"redis-envoy-ratelimit:limit=100,unit=minute,stop-increment-over-limit=false,local-cache=true,shadow-mode=false,instances=4,skew=0s,rtt=1ms,clock=instance",
		"redis-cell:max-burst=5,count=10,period=60s,instances=1,skew=0s,rtt=0s,clock=instance,key=user",
	} {
		s, err := Parse(spec, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != spec {
			t.Errorf("%s: canonical form %s", spec, s.String())
		}
	}
	if s := mustParse(t, "redis-gcra:rate=7"); s.Burst != 7 {
		t.Errorf("burst default: %d, want ceil(rate) = 7", s.Burst)
	}
}

func TestOffsetsAndEpoch(t *testing.T) {
	s := mustParse(t, "redis-fixed-window:limit=1,instances=3,skew=50ms")
	want := []time.Duration{-50 * time.Millisecond, 0, 50 * time.Millisecond}
	for k, o := range s.Offsets() {
		if o != want[k] {
			t.Errorf("offset %d: %v, want %v", k, o, want[k])
		}
	}
	s = mustParse(t, "redis-fixed-window:limit=1,instances=4,skew=1ns")
	// −1 + ⌊2k/3⌋: −1, −1, 0, 1
	for k, w := range []time.Duration{-1, -1, 0, 1} {
		if o := s.Offsets()[k]; o != w {
			t.Errorf("skew=1ns offset %d: %v, want %v", k, o, w)
		}
	}
	for spec, want := range map[string]int64{
		"redis-fixed-window:limit=1":                  1_600_000_000_000,
		"redis-fixed-window:limit=1,window=7s":        1_600_000_003_000, // multiple of 7000
		"redis-gcra:rate=1,period=1500ms":             1_600_000_002_000, // multiple of 3000
		"redis-sliding-log:limit=1,window=700ms":      1_600_000_003_000, // multiple of 7000
		"redis-bucketed:limit=1,window=60s,buckets=6": 1_600_000_020_000, // multiple of 60000
	} {
		if got := mustParse(t, spec).EpochMs(); got != want {
			t.Errorf("%s: epoch %d, want %d", spec, got, want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		l := mustNew(t, "redis-sliding-log:limit=5", b)
		l.Decide(time.Second)
		l.Decide(900 * time.Millisecond)
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), "the clock steps back at arrival 1") {
			t.Errorf("clock step: %v", err)
		}
		for file, want := range map[string]string{
			"testdata/returns2.lua": "the script returned 2, not 1 (pass) or 0 (block)",
			"testdata/errors.lua":   "testdata/errors.lua failed on",
		} {
			l := mustNew(t, "redis-script:limit=5,file="+file, b)
			l.Decide(0)
			if err := l.Err(); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line containing %q", file, err, want)
			}
		}
	})
}

// Every spec variant: a twin decides the same, one rebuilt from Spec()
// too; blocks never wait and passes wait one round trip (two for the
// non-atomic sliding log).
func TestConformance(t *testing.T) {
	specs := []string{
		"redis-fixed-window:limit=5,window=100ms,instances=3,rtt=2ms,skew=10ms",
		"redis-sliding-log:limit=5,atomic=false,count=all,instances=2,rtt=3ms,clock=redis",
		"redis-sliding-log:limit=5,count=all,rtt=1ms",
		"redis-bucketed:limit=5,window=500ms,buckets=5,instances=4,skew=5ms",
		"redis-gcra:rate=5,burst=2,instances=2,rtt=2ms,clock=redis",
		"redis-script:file=testdata/seed.lua,limit=5,instances=2,rtt=1ms",
	}
	b := backends(t)["native"]
	trace := nsTrace(rand.New(rand.NewPCG(5, 5)), 200, 2*time.Second)
	for _, spec := range specs {
		a, twin := mustNew(t, spec, b), mustNew(t, spec, b)
		again := mustNew(t, a.Spec(), b)
		if again.Spec() != a.Spec() || a.Rate() <= 0 || a.StateBytes() <= 0 {
			t.Fatalf("%s: Spec %q rebuilds as %q; Rate %v StateBytes %d", spec, a.Spec(), again.Spec(), a.Rate(), a.StateBytes())
		}
		s := mustParse(t, spec)
		for i, at := range trace {
			d := a.Decide(at)
			if d2, d3 := twin.Decide(at), again.Decide(at); d2 != d || d3 != d {
				t.Fatalf("%s: arrival %d: %+v, twin %+v, rebuilt %+v", spec, i, d, d2, d3)
			}
			want := s.RTT
			if s.Kind == SlidingLog && !s.Atomic {
				want = 2 * s.RTT
			}
			if !d.Pass && d.Wait != 0 || d.Pass && d.Wait != want {
				t.Fatalf("%s: arrival %d: %+v", spec, i, d)
			}
		}
		for _, l := range []*Limiter{a, twin, again} {
			if err := l.Finish(); err != nil {
				t.Fatal(err)
			}
		}
		if a.Figures() != twin.Figures() {
			t.Errorf("%s: figures %+v vs twin %+v", spec, a.Figures(), twin.Figures())
		}
		if keys := b.mini.Keys(); len(keys) != 0 {
			t.Errorf("%s: keys left after Finish: %v", spec, keys)
		}
	}
}
