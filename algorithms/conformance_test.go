package algorithms

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// constructors is every limiter under test, as spec strings with a few
// parameter variants; every one must survive every trace in traces.
var constructors = []string{
	"fixed-window:limit=10",
	"fixed-window:limit=2.5,window=250ms",
	"leap-array:limit=10",
	"leap-array:limit=10,sample-count=1000",
	"leap-array:limit=0.5,sample-count=3,interval=3s",
	"leap-array:limit=10,occupy-timeout=0s",
	"leap-array:limit=3,sample-count=4,interval=1s,occupy-timeout=250ms",
	"sliding-log:limit=10",
	"sliding-log:limit=3,window=100ms,history=0s",
	"token-bucket:limit=10",
	"token-bucket:rate=0.7,burst=3",
	"leaky-bucket:limit=10",
	"leaky-bucket:limit=7,max-queue=0s",
	"leaky-bucket:limit=3000,interval=100ms,max-queue=2s",
	"warm-up:limit=10",
	"warm-up:limit=1,warm-up=1s,cold-factor=2",
	"warm-up:limit=10,occupy-timeout=100ms",
	"warm-up-rate-limiter:limit=10",
	"warm-up-rate-limiter:limit=1000,warm-up=3s,max-queue=20ms",
	"guava-bursty:rate=10",
	"guava-bursty:rate=0.7,max-burst=3s,timeout=2s",
	"guava-bursty:rate=1000,timeout=inf",
	"guava-warming-up:rate=10,warm-up=4s",
	"guava-warming-up:rate=2,warm-up=1500ms,cold-factor=2.5,timeout=300ms",
	"guava-warming-up:rate=500,warm-up=0s,timeout=inf",
	"uber:rate=10",
	"uber:rate=1000,slack=0",
	"sliding-window-counter:limit=10",
	"sliding-window-counter:limit=2.5,window=250ms",
	"seed-ring:limit=10",
	"seed-ring:limit=3,window=1s,buckets=7",
	"decaying-window:limit=10",
	"decaying-window:limit=2.5,window=200ms,buckets=4,decay=50ms",
	"leap-array:limit=10,flavor=go",
	"leap-array:limit=5,sample-count=100,interval=500ms,flavor=go",
	"leaky-bucket:limit=10,flavor=go",
	"leaky-bucket:limit=3,interval=100ms,max-queue=0s,flavor=go",
	"leaky-bucket:limit=0.7,flavor=go",
	"warm-up:limit=10,flavor=go",
	"warm-up:limit=100,warm-up=3s,cold-factor=4,sample-count=10,interval=2s,flavor=go",
	"warm-up-rate-limiter:limit=10,flavor=go",
	"warm-up-rate-limiter:limit=1000,warm-up=3s,max-queue=20ms,sample-count=4,interval=200ms,flavor=go",
	"fixed-window:limit=10,check-to-add=1ms",
	"leap-array:limit=10,sample-count=10,check-to-add=5ms",
	"sliding-log:limit=3,window=100ms,history=0s,check-to-add=20ms",
	"warm-up:limit=10,check-to-add=300us",
	"circuit-breaker:strategy=slow-ratio,max-rt=100ms",
	"circuit-breaker:strategy=error-count,threshold=0,min-requests=1,stat-interval=250ms,recovery=1s",
	"leap-array:limit=10+circuit-breaker:strategy=error-ratio,threshold=0.5",
	// the gateway family
	"envoy-local:max-tokens=10",
	"envoy-local:max-tokens=5,tokens-per-fill=2,fill-interval=300ms",
	"envoy-local:max-tokens=10,fill-interval=50ms,mode=timer",
	"envoy-local:max-tokens=3,tokens-per-fill=1,fill-interval=130ms,mode=timer,phase=70ms",
	"traefik:average=10",
	"traefik:average=3,period=2s,burst=5",
	"traefik:average=1000,burst=50",
	"haproxy:limit=10",
	"haproxy:limit=3,period=999ms,expire=1500ms",
	"kong:second=10",
	"kong:second=5,minute=20,policy=redis",
	"kong:minute=7,hour=100,day=1000,month=5000,year=9000",
	"resilience4j",
	"resilience4j:limit-for-period=10,refresh-period=1s,timeout=0s",
	"resilience4j:limit-for-period=3,refresh-period=250ms,timeout=600ms",
	"bucket4j:capacity=10,refill-tokens=10",
	"bucket4j:capacity=5,refill-tokens=3,refill-period=700ms,refill=intervally",
	"bucket4j:capacity=7,refill-tokens=2,refill-period=333us,clock=nanos",
}

// traces is the shared table.
func traces() map[string][]time.Duration {
	rng := rand.New(rand.NewPCG(42, 42))
	var flood []time.Duration
	for i := 0; i < 100; i++ {
		flood = append(flood, 999*ms)
	}
	for k := 1000; k < 1100; k++ {
		for i := 0; i < 20; i++ {
			flood = append(flood, time.Duration(k)*ms)
		}
	}
	return map[string][]time.Duration{
		"empty":          nil,
		"single":         {0},
		"one instant":    spread(1, 0, 1)[:0:0],
		"same instant":   concat(make([]time.Duration, 50)),
		"boundary burst": concat(spread(50, 900*ms, 1000*ms), spread(50, 1000*ms, 1100*ms)),
		"adversarial":    flood,
		"poisson 3x":     poissonTrace(rng, 30, 30*time.Second),
		"clock rollback": concat(spread(100, 0, 5*time.Second), spread(100, 4200*ms, 9200*ms)),
		"before zero":    {-5 * time.Second, -1, 0, -3 * time.Hour, 1},
		"huge jump":      {0, 1, 100 * 24 * time.Hour, 100*24*time.Hour + 1, 2},
		"jumpy":          jumpyTrace(rng, 5000, false),
		"jumpy ms":       jumpyTrace(rng, 5000, true),
	}
}

func TestConformance(t *testing.T) {
	for _, spec := range constructors {
		for name, trace := range traces() {
			t.Run(spec+"/"+name, func(t *testing.T) {
				a, b := mustNew(t, spec, 0), mustNew(t, spec, 0)
				again := mustNew(t, a.Spec(), 0)
				_, breaker := a.(*CircuitBreaker) // a breaker limits no rate
				if (a.Rate() <= 0 && !breaker) || a.StateBytes() <= 0 {
					t.Fatalf("Rate %v StateBytes %d, want both positive", a.Rate(), a.StateBytes())
				}
				maxWait := maxQueue(a)
				for i, at := range trace {
					d := a.Decide(at)
					if d2, d3 := b.Decide(at), again.Decide(at); d2 != d || d3 != d {
						t.Fatalf("arrival %d: %+v, a twin decided %+v, one built from its Spec %+v", i, d, d2, d3)
					}
					if !d.Pass && d.Wait != 0 {
						t.Fatalf("arrival %d: a block with wait %v", i, d.Wait)
					}
					if d.Wait < 0 || d.Wait > maxWait {
						t.Fatalf("arrival %d: wait %v outside [0, %v]", i, d.Wait, maxWait)
					}
				}
			})
		}
	}
}

func maxQueue(l Limiter) time.Duration {
	switch l := l.(type) {
	case *Throttling:
		return l.cfg.MaxQueue
	case *WarmUpRateLimiter:
		return l.cfg.MaxQueue
	case *GuavaBursty:
		return l.g.maxWait()
	case *GuavaWarmingUp:
		return l.g.maxWait()
	case *Uber:
		return math.MaxInt64 // every Take passes and sleeps as long as it must
	case *GoThrottling:
		return l.cfg.MaxQueue
	case *GoWarmUpRateLimiter:
		return l.cfg.MaxQueue
	case *Traefik:
		return l.cfg.maxDelay
	case *Resilience4j:
		return l.cfg.Timeout
	}
	return 0
}

// TestNoAllocationPerDecision checks steady-state decisions allocate
// nothing, and that state does not grow with the length of the trace.
func TestNoAllocationPerDecision(t *testing.T) {
	trace := poissonTrace(rand.New(rand.NewPCG(1, 1)), 300, 100*time.Second)
	for _, spec := range constructors {
		l := mustNew(t, spec, 0)
		i := 0
		next := func() {
			at := trace[i%len(trace)] + time.Duration(i/len(trace))*100*time.Second
			l.Decide(at)
			i++
		}
		for range len(trace) {
			next()
		}
		size := l.StateBytes()
		if allocs := testing.AllocsPerRun(len(trace), next); allocs != 0 {
			t.Errorf("%s: %v allocations per decision, want 0", spec, allocs)
		}
		if l.StateBytes() != size {
			t.Errorf("%s: state grew from %d to %d bytes on a longer trace", spec, size, l.StateBytes())
		}
	}
}

// benchTrace is one Poisson trace at 3x the limit.
const benchLimit = 1000

var benchTrace = poissonTrace(rand.New(rand.NewPCG(7, 7)), 3*benchLimit, 100*time.Second)

func benchAt(i int) time.Duration {
	n := len(benchTrace)
	return benchTrace[i%n] + time.Duration(i/n)*100*time.Second
}

// BenchmarkDecide reports ns/decision for every limiter over the same
// Poisson trace at 3x the limit, with x/time/rate's own AllowN as the
// yardstick.
func BenchmarkDecide(b *testing.B) {
	for _, bc := range []struct{ name, spec string }{
		{"fixed-window", "fixed-window"},
		{"leap-array/sample-count=2", "leap-array:sample-count=2"},
		{"leap-array/sample-count=100", "leap-array:sample-count=100"},
		{"leap-array/sample-count=1000", "leap-array:sample-count=1000"},
		{"sliding-log", "sliding-log"},
		{"token-bucket", "token-bucket"},
		{"leaky-bucket", "leaky-bucket"},
		{"warm-up", "warm-up"},
		{"warm-up-rate-limiter", "warm-up-rate-limiter"},
		{"guava-bursty", "guava-bursty"},
		{"guava-warming-up", "guava-warming-up:warm-up=10s"},
		{"uber", "uber"},
		{"sliding-window-counter", "sliding-window-counter"},
		{"seed-ring", "seed-ring"},
		{"decaying-window", "decaying-window"},
		{"leap-array-go/sample-count=2", "leap-array:sample-count=2,flavor=go"},
		{"leap-array-go/sample-count=1000", "leap-array:sample-count=1000,flavor=go"},
		{"leaky-bucket-go", "leaky-bucket:flavor=go"},
		{"warm-up-go", "warm-up:flavor=go"},
		{"warm-up-rate-limiter-go", "warm-up-rate-limiter:flavor=go"},
		{"envoy-local", "envoy-local:tokens-per-fill=1000"},
		{"envoy-local-timer", "envoy-local:tokens-per-fill=50,fill-interval=50ms,mode=timer"},
		{"traefik", "traefik:burst=1000"},
		{"haproxy", "haproxy:period=1s"},
		{"kong", "kong"},
		{"kong-redis-3-units", "kong:second=1000,minute=50000,day=1000000,policy=redis"},
		{"resilience4j", "resilience4j:limit-for-period=1000,refresh-period=1s,timeout=0s"},
		{"bucket4j", "bucket4j"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := mustNew(b, bc.spec, benchLimit)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.Decide(benchAt(i))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
			b.ReportMetric(float64(l.StateBytes()), "state-bytes")
		})
	}
	b.Run("x-time-rate", func(b *testing.B) {
		l := rate.NewLimiter(benchLimit, benchLimit)
		epoch := time.Unix(1_600_000_000, 0)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			l.AllowN(epoch.Add(benchAt(i)), 1)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
	})
}

// FuzzNew feeds the spec parser arbitrary strings: it must never panic,
// and every spec it accepts must round-trip through its canonical form.
func FuzzNew(f *testing.F) {
	for _, s := range constructors {
		f.Add(s, 100.0)
	}
	f.Add("leap-array:sample-count=3", 10.0)
	f.Add("leap-array:occupy-timeout=250ms,interval=500ms", 10.0)
	f.Add("token-bucket:limit=1e308", 0.0)
	f.Add(":,=,", -1.0)
	f.Fuzz(func(t *testing.T, spec string, limit float64) {
		l, err := New(spec, limit)
		if err != nil {
			if l != nil {
				t.Fatalf("New(%q) returned a limiter and an error", spec)
			}
			return
		}
		again, err := New(l.Spec(), 0)
		if err != nil {
			t.Fatalf("canonical spec %q of %q does not parse: %v", l.Spec(), spec, err)
		}
		if again.Spec() != l.Spec() {
			t.Fatalf("spec %q re-parses as %q", l.Spec(), again.Spec())
		}
		l.Decide(0)
	})
}

// TestStageSplit checks, for every limiter, that Decide is Check followed
// by Record at the admission, once the clock reaches it: a twin driven
// through Check/Record (with the admissions applied in time order before
// each later arrival, as warm-up-rate-limiter does) decides the same.
func TestStageSplit(t *testing.T) {
	for _, spec := range constructors {
		for name, trace := range traces() {
			a, err := New(spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := New(spec, 0)
			if _, chain := b.(*Chain); chain {
				continue // chains are made of stages; the simulator drives them
			}
			st, ok := b.(Stage)
			if !ok {
				t.Fatalf("%s does not implement Stage", spec)
			}
			var pending []time.Duration // admission times, non-decreasing for queueing limiters
			for i, now := range trace {
				for len(pending) > 0 && floorMsDur(pending[0]) <= floorMsDur(now) {
					st.Record(pending[0])
					pending = pending[1:]
				}
				want := a.Decide(now)
				got := st.Check(now)
				if got != want {
					t.Fatalf("%s on %s, arrival %d at %v: Check gives %+v, Decide %+v", spec, name, i, now, got, want)
				}
				if got.Pass {
					if got.Wait > 0 {
						pending = append(pending, now+got.Wait)
					} else {
						st.Record(now)
					}
				}
			}
		}
	}
}

func floorMsDur(d time.Duration) int64 { return floorMs(d) }
