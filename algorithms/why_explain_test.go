package algorithms

import (
	"strings"
	"testing"
	"time"
)

// explainSpecs are one spec per family that explains its decisions, each
// set so that a few hundred arrivals within seconds both pass and block.
var explainSpecs = []string{
	"token-bucket:rate=20,burst=5",
	"leap-array:limit=20,sample-count=2,interval=1s",
	"leap-array:limit=7.5,sample-count=10,interval=1s",
	"nginx-limit-req:rate=20r/s,burst=3,key=key",
	"nginx-limit-req:rate=20r/s,burst=3,delay=1,key=key",
	"guava-bursty:rate=20,timeout=100ms",
	"guava-warming-up:rate=20,warm-up=1s,timeout=100ms",
	"haproxy:limit=20,period=1s",
	"resilience4j:limit-for-period=5,refresh-period=250ms,timeout=100ms",
	"traefik:average=20,burst=3",
	"leaky-bucket:limit=20,max-queue=100ms",
	"token-bucket:rate=10,burst=3,replicas=2",
	"leap-array:limit=10,replicas=3,balance=random",
	"leaky-bucket:limit=3000,max-queue=1ms",
	"leaky-bucket:limit=300,max-queue=20ms",
	"envoy-local:max-tokens=3,tokens-per-fill=20,fill-interval=1s",
	"envoy-local:max-tokens=3,tokens-per-fill=2,fill-interval=100ms,mode=timer",
	"envoy-local:max-tokens=3,tokens-per-fill=20,fill-interval=1s,enabled=50/100,enforced=0.5",
	"traefik:average=1,period=1m,burst=1",
}

// explainArrivals are irregular instants with bursts, idle gaps and two
// steps of the clock backwards.
func explainArrivals() []time.Duration {
	r := splitmix64{s: 7}
	var out []time.Duration
	t := time.Duration(0)
	for i := 0; i < 600; i++ {
		switch r.next() % 10 {
		case 0:
			t += time.Duration(r.next()%2000) * time.Millisecond // idle
		case 1:
			// burst: same instant
		default:
			t += time.Duration(r.next()%60_000_000) * time.Nanosecond
		}
		if i == 200 || i == 400 {
			t -= 300 * time.Millisecond
		}
		out = append(out, t)
	}
	return out
}

// TestExplainChangesNothingAndAgrees holds every Explainer to its
// contract: asking Explain before and after each decision changes no
// decision (a twin never asked decides the same), and the verdict and
// wait it states are the ones the limiter then returns.
func TestExplainChangesNothingAndAgrees(t *testing.T) {
	for _, spec := range explainSpecs {
		t.Run(spec, func(t *testing.T) {
			asked, err := New(spec, 100)
			if err != nil {
				t.Fatal(err)
			}
			twin, _ := New(spec, 100)
			ex, ok := asked.(Explainer)
			if !ok {
				t.Fatalf("%T is not an Explainer", asked)
			}
			if ku, ok := asked.(KeyColumnUser); ok {
				ku.BindKeyColumns([]int{0})
				twin.(KeyColumnUser).BindKeyColumns([]int{0})
			}
			passes, blocks := 0, 0
			for i, now := range explainArrivals() {
				r := Request{Keys: [MaxKeyColumns]int32{int32(i % 2), NoKey, NoKey, NoKey}, Cost: 1}
				e := ex.Explain(now, &r)
				if e.State == "" || e.Math == "" || e.Rule == "" {
					t.Fatalf("arrival %d at %v: an empty line in %+v", i, now, e)
				}
				ex.Explain(now, &r)
				d := decideReq(asked, now, &r)
				ex.Explain(now, &r)
				w := decideReq(twin, now, &r)
				if d != w {
					t.Fatalf("arrival %d at %v: explained limiter decided %+v, the twin never asked %+v", i, now, d, w)
				}
				if e.Pass != d.Pass || (d.Pass && e.Wait != d.Wait) {
					t.Fatalf("arrival %d at %v: Explain says pass=%v wait=%v (%s), Decide says %+v", i, now, e.Pass, e.Wait, e.Math, d)
				}
				if wantV := verdict(d.Pass); !strings.Contains(e.Math, wantV) && !strings.Contains(e.Math, map[bool]string{true: "pass", false: "deny"}[d.Pass]) {
					t.Fatalf("arrival %d: Math %q does not end in its verdict %s", i, e.Math, wantV)
				}
				if d.Pass {
					passes++
				} else {
					blocks++
				}
			}
			if passes == 0 || blocks == 0 {
				t.Fatalf("the arrivals should both pass and block: %d passes, %d blocks", passes, blocks)
			}
		})
	}
}

func decideReq(l Limiter, now time.Duration, r *Request) Decision {
	if rl, ok := l.(RequestLimiter); ok {
		return rl.DecideRequest(now, r)
	}
	return l.Decide(now)
}

// The worked examples of docs/questions.md, one request each, exactly.
func TestExplainWorkedExamples(t *testing.T) {
	tests := []struct {
		spec  string
		at    []time.Duration // earlier arrivals, decided
		now   time.Duration
		state string
		math  string
	}{
		{"nginx-limit-req:rate=6000r/m,key=key", []time.Duration{0}, 5 * time.Millisecond,
			`key #0: excess=0.000 last=0ms`,
			`ms = 5ms − 0ms = 5; excess = max(0, 0 − 100000·5/1000 + 1000) = 500 milli-requests > burst 0 → reject (503, "limiting requests, excess: 0.500 by zone")`},
		{"leap-array:limit=10,sample-count=2,interval=1s", []time.Duration{700 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond, 1100 * time.Millisecond, 1100 * time.Millisecond}, 1100 * time.Millisecond,
			`t=1100ms in bucket [1000ms,1500ms); buckets counted at t: [500ms,1000ms)=3 [1000ms,1500ms)=2`,
			`pass = 5; passQps = 5 / 1s = 5; (int) 5 + 1 = 6 ≤ count 10 → pass`},
		{"token-bucket:rate=10,burst=1", []time.Duration{0}, 50 * time.Millisecond,
			`tokens=0 at last=0ms`,
			`advance: 0 + (50ms − 0ms)·10/s = 0.5; tokens − 1 = -0.5 < 0: the next token is 50ms away → reject (Allow does not wait)`},
		{"haproxy:limit=1,period=1s", []time.Duration{0, 600 * time.Millisecond}, 1200 * time.Millisecond,
			`period from 0ms: curr_ctr=2 prev_ctr=0`,
			`count this request: period from 1000ms, curr_ctr=1 prev_ctr=2; rate = 2·800/1000 + 1 = 2 (integer division); 2 gt 1 → yes: deny`},
		{"resilience4j:limit-for-period=2,refresh-period=1s,timeout=0s", []time.Duration{900 * time.Millisecond, 950 * time.Millisecond}, time.Second,
			`cycle=0 [0ms, 1000ms) permissions=0`,
			`currentCycle = 1000000000ns / 1000000000ns = 1; new cycle: permissions = min(0 + 1·2, 2) = 2; 2 ≥ 1 permit(s) → pass, 1 left`},
	}
	for _, tt := range tests {
		l, err := New(tt.spec, 100)
		if err != nil {
			t.Fatal(err)
		}
		if ku, ok := l.(KeyColumnUser); ok {
			ku.BindKeyColumns([]int{0})
		}
		r := Request{Keys: [MaxKeyColumns]int32{0, NoKey, NoKey, NoKey}, Cost: 1}
		for _, at := range tt.at {
			decideReq(l, at, &r)
		}
		e := l.(Explainer).Explain(tt.now, &r)
		if e.State != tt.state || e.Math != tt.math {
			t.Errorf("%s at %v:\n state %s\n  want %s\n math  %s\n  want %s", tt.spec, tt.now, e.State, tt.state, e.Math, tt.math)
		}
	}
}
