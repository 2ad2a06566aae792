package algorithms

import (
	"strings"
	"testing"
	"time"
)

// TestReplicasDecideAsSplitRuns: N copies behind the balancer decide as
// N separate limiters, each fed the requests the balancer sent it.
func TestReplicasDecideAsSplitRuns(t *testing.T) {
	arrivals := explainArrivals()
	for _, spec := range []string{
		"token-bucket:rate=3,burst=2,replicas=3",
		"nginx-limit-req:rate=3r/s,burst=1,key=key,replicas=2,balance=hash",
		"leap-array:limit=3,replicas=4,balance=random",
		"envoy-local:max-tokens=3,tokens-per-fill=20,fill-interval=1s,enabled=50/100,replicas=2",
	} {
		t.Run(spec, func(t *testing.T) {
			l, err := New(spec, 100)
			if err != nil {
				t.Fatal(err)
			}
			p := l.(*Replicas)
			p.Reseed(11)
			if err := p.BindKeyColumns([]int{0}); err != nil {
				t.Fatal(err)
			}
			n := len(p.copies)
			// The split runs: fresh limiters of the replica's spec, seeded
			// as the wrapper seeds its copies.
			alone := make([]Limiter, n)
			for i := range alone {
				alone[i], _ = New(p.inner, 100)
				if sd, ok := alone[i].(Seeded); ok {
					sd.Reseed(11 + uint64(i+1)*0xbf58476d1ce4e5b9)
				}
				if ku, ok := alone[i].(KeyColumnUser); ok {
					ku.BindKeyColumns([]int{0})
				}
			}
			// The balancer's choices, replayed on a twin.
			twin, _ := New(spec, 100)
			tw := twin.(*Replicas)
			tw.Reseed(11)
			used := map[int]int{}
			blocks := 0
			for i, now := range arrivals {
				r := Request{Keys: [MaxKeyColumns]int32{int32(i % 5), NoKey, NoKey, NoKey}, Cost: 1}
				k := tw.pick(&r, true)
				used[k]++
				got := p.DecideRequest(now, &r)
				want := decideReq(alone[k], now, &r)
				if got != want {
					t.Fatalf("arrival %d at %v to replica %d: %+v, alone %+v", i, now, k, got, want)
				}
				if !got.Pass {
					blocks++
				}
			}
			if len(used) != n || blocks == 0 {
				t.Errorf("replicas used %v of %d, %d blocks: the case should use every replica and block", used, n, blocks)
			}
		})
	}
}

// TestReplicasRoundRobinMultipliesTheLimit: three replicas of a bucket of
// 1 pass three requests at one instant, one of them passes one.
func TestReplicasRoundRobinMultipliesTheLimit(t *testing.T) {
	one, _ := New("token-bucket:rate=1,burst=1", 1)
	three, _ := New("token-bucket:rate=1,burst=1,replicas=3", 1)
	var a, b int
	for i := 0; i < 4; i++ {
		if one.Decide(time.Second).Pass {
			a++
		}
		if three.Decide(time.Second).Pass {
			b++
		}
	}
	if a != 1 || b != 3 || three.Rate() != 1 || three.Spec() != "token-bucket:rate=1,burst=1,replicas=3,balance=rr" {
		t.Errorf("one replica passed %d, three %d; Rate %v, Spec %s", a, b, three.Rate(), three.Spec())
	}
	again, err := New(three.Spec(), 1)
	if err != nil || again.Spec() != three.Spec() {
		t.Errorf("the spec does not rebuild: %v %v", again, err)
	}
}

// TestReplicasErrors: bad parameters and limiters that cannot be
// replicated are one line each.
func TestReplicasErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"token-bucket:replicas=0":                                       "replicas must be a whole number from 1 to 1024",
		"token-bucket:replicas=2,balance=least-conn":                    `balance "least-conn" is unknown`,
		"token-bucket:balance=rr":                                       "balance= applies to replicas; add replicas=N",
		"circuit-breaker:strategy=error-ratio,threshold=0.5,replicas=2": "cannot be replicated",
		"token-bucket:rate=x,replicas=2":                                "token-bucket",
	} {
		_, err := New(spec, 10)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", spec, err, want)
		}
	}
}
