package distributed

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// randomSpec draws a spec of every built-in kind with a random model.
func randomSpec(r *rand.Rand) string {
	limit := 1 + r.IntN(20)
	window := []string{"1s", "200ms", "500ms", "7ms", "2s"}[r.IntN(5)]
	var spec string
	switch r.IntN(10) {
	case 0:
		spec = fmt.Sprintf("redis-fixed-window:limit=%d,window=%s", limit, window)
	case 1:
		spec = fmt.Sprintf("redis-sliding-log:limit=%d,window=%s,atomic=%t,count=%s", limit, window,
			r.IntN(2) == 0, []string{"passed", "all"}[r.IntN(2)])
	case 2:
		spec = fmt.Sprintf("redis-bucketed:limit=%d,window=1s,buckets=%d", limit, []int{1, 2, 5, 10, 50}[r.IntN(5)])
	case 3:
		spec = fmt.Sprintf("redis-gcra:rate=%d,burst=%d,period=%s", limit, 1+r.IntN(2*limit), window)
	case 4, 5:
		spec = fmt.Sprintf("redis-spring-gateway:replenish-rate=%d,burst-capacity=%d,requested-tokens=%d",
			limit, 1+r.IntN(3*limit), 1+r.IntN(3))
	case 6, 7:
		spec = fmt.Sprintf("redis-envoy-ratelimit:limit=%d,unit=%s,stop-increment-over-limit=%t,local-cache=%t,shadow-mode=%t",
			limit, []string{"second", "second", "minute"}[r.IntN(3)], r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(5) == 0)
	default:
		spec = fmt.Sprintf("redis-cell:max-burst=%d,count=%d,period=%s", r.IntN(2*limit), limit, []string{"1s", "2s", "60s"}[r.IntN(3)])
	}
	return spec + fmt.Sprintf(",instances=%d,rtt=%s,skew=%s,clock=%s",
		1+r.IntN(5), []string{"0s", "1ms", "3ms", "7500us", "1001us"}[r.IntN(5)],
		[]string{"0s", "50ms", "3ms", "333us"}[r.IntN(4)], []string{"instance", "redis"}[r.IntN(2)])
}

// run replays trace through spec on b, one by one or in random batches.
func run(t testing.TB, spec string, b *Backend, trace []time.Duration, r *rand.Rand) ([]algorithms.Decision, Figures) {
	t.Helper()
	l := mustNew(t, spec, b)
	out := make([]algorithms.Decision, len(trace))
	if r == nil {
		for i, at := range trace {
			out[i] = l.Decide(at)
		}
	} else {
		for lo := 0; lo < len(trace); {
			hi := min(len(trace), lo+1+r.IntN(300))
			l.DecideBatch(trace[lo:hi], out[lo:hi])
			lo = hi
		}
	}
	if err := l.Finish(); err != nil {
		t.Fatalf("%s on %s: %v", spec, b.Name(), err)
	}
	f := l.Figures()
	f.PeakBytes, f.HasBytes = 0, false // measured on a real server only
	return out, f
}

// The embedded native default, the embedded Lua and a real server (when
// RATELIMIT_LAB_REDIS_URL is set) make the same decisions and reach the
// same figures on fuzzed specs and traces.
func TestBackendsAgree(t *testing.T) {
	bs := backends(t)
	r := rand.New(rand.NewPCG(17, 17))
	rounds := long(60, 30)
	if testing.Short() {
		rounds = 20
	}
	// Without EnvSoak, every spec but a third of the arrivals over the
	// same spans.
	n := func() int { return long(200+r.IntN(400), 70+r.IntN(130)) }
	for round := range rounds {
		spec := randomSpec(r)
		trace := nsTrace(r, n(), time.Duration(1+r.IntN(4))*time.Second)
		if round%2 == 0 {
			trace = wholeMsTrace(r, n(), 3*time.Second)
		}
		compareBackends(t, bs, spec, trace, round%3 == 0)
	}
}

func compareBackends(t *testing.T, bs map[string]*Backend, spec string, trace []time.Duration, batched bool) {
	t.Helper()
	want, wantF := run(t, spec, bs["native"], trace, nil)
	for name, b := range bs {
		var r *rand.Rand
		if batched {
			r = rand.New(rand.NewPCG(uint64(len(trace)), 1))
		}
		got, gotF := run(t, spec, b, trace, r)
		for i := range trace {
			if got[i] != want[i] {
				t.Fatalf("%s: arrival %d at %v: %s says %+v, native %+v", spec, i, trace[i], name, got[i], want[i])
			}
		}
		if gotF != wantF {
			t.Fatalf("%s: figures on %s %+v, native %+v", spec, name, gotF, wantF)
		}
	}
}

// FuzzBackends: any trace through any built-in spec decides the same on
// every backend.
func FuzzBackends(f *testing.F) {
	f.Add(uint64(1), []byte{0, 1, 2, 3, 200, 0, 0, 0, 5, 9})
	f.Add(uint64(7), []byte{255, 255, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add(uint64(42), []byte("a fuzzed trace of gaps in ms"))
	bs := backends(f)
	f.Fuzz(func(t *testing.T, seed uint64, gaps []byte) {
		if len(gaps) > 2000 {
			gaps = gaps[:2000]
		}
		spec := randomSpec(rand.New(rand.NewPCG(seed, 3)))
		trace := make([]time.Duration, len(gaps))
		at := time.Duration(0)
		for i, g := range gaps {
			at += time.Duration(g) * time.Duration(g) * 37 * time.Microsecond
			trace[i] = at
		}
		compareBackends(t, bs, spec, trace, seed%2 == 1)
	})
}
