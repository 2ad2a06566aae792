package distributed

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// keyedRun replays trace with key ids through spec (with key=user) on b.
func keyedRun(t *testing.T, spec string, b *Backend, trace []time.Duration, keys []int32) ([]algorithms.Decision, Figures) {
	t.Helper()
	l := mustNew(t, spec, b)
	if err := l.BindKeyColumns([]int{2}); err != nil {
		t.Fatal(err)
	}
	out := make([]algorithms.Decision, len(trace))
	for lo := 0; lo < len(trace); {
		hi := min(len(trace), lo+1+int(trace[lo]%257))
		l.DecideBatchKeys(trace[lo:hi], keys[lo:hi], out[lo:hi])
		lo = hi
	}
	if err := l.Finish(); err != nil {
		t.Fatalf("%s on %s: %v", spec, b.Name(), err)
	}
	if keys := keysLeft(t, l); len(keys) != 0 {
		t.Errorf("%s on %s: keys left after Finish: %v", spec, b.Name(), keys)
	}
	f := l.Figures()
	f.PeakBytes, f.HasBytes = 0, false
	return out, f
}

// key=COLUMN: on one instance each key is a limiter of its own (its
// arrivals decide as they would alone through the unkeyed spec), an
// empty key meets the kind's rule (EmptyKeyPolicy), and the three backends agree on the
// decisions and figures of the keyed run.
func TestPerKey(t *testing.T) {
	bs := backends(t)
	r := rand.New(rand.NewPCG(31, 3))
	for range 24 {
		spec := randomSpec(r)
		// One instance: instance numbers count every key's arrivals, so
		// only then is a key's sub-trace a run of its own.
		spec = regexp.MustCompile(`instances=\d+`).ReplaceAllString(spec, "instances=1")
		// Without EnvSoak, a third of the arrivals over the same span.
		trace := nsTrace(r, long(300+r.IntN(300), 100+r.IntN(100)), 3*time.Second)
		keys := make([]int32, len(trace))
		nkeys := 1 + r.IntN(5)
		for i := range keys {
			keys[i] = int32(r.IntN(nkeys+1)) - 1 // -1: an empty key
		}
		keyed := spec + ",key=user"
		want, wantF := keyedRun(t, keyed, bs["native"], trace, keys)
		for name, b := range bs {
			got, gotF := keyedRun(t, keyed, b, trace, keys)
			for i := range trace {
				if got[i] != want[i] {
					t.Fatalf("%s: arrival %d (key %d) at %v: %s says %+v, native %+v", keyed, i, keys[i], trace[i], name, got[i], want[i])
				}
			}
			if gotF != wantF {
				t.Fatalf("%s: figures on %s %+v, native %+v", keyed, name, gotF, wantF)
			}
		}
		for k := int32(-1); k < int32(nkeys); k++ {
			var sub []time.Duration
			var idx []int
			for i := range trace {
				if keys[i] == k {
					sub, idx = append(sub, trace[i]), append(idx, i)
				}
			}
			alone, _ := run(t, spec, bs["native"], sub, nil)
			for j, i := range idx {
				w := alone[j]
				if k < 0 {
					// An empty key: the kind's rule (EmptyKeyPolicy); shared
					// is one more key, deciding as it would alone.
					switch mustParse(t, spec).EmptyKeyPolicy() {
					case algorithms.EmptyKeyPass:
						w = algorithms.Decision{Pass: true}
					case algorithms.EmptyKeyReject:
						w = algorithms.Decision{}
					}
				}
				if want[i] != w {
					t.Fatalf("%s: key %d's arrival %d at %v: keyed %+v, alone %+v", keyed, k, i, trace[i], want[i], w)
				}
			}
		}
	}
}

func TestPerKeyNeedsItsColumn(t *testing.T) {
	b := backends(t)["native"]
	l := mustNew(t, "redis-fixed-window:limit=3,key=user", b)
	if got := l.KeyColumns(); len(got) != 1 || got[0] != "user" {
		t.Fatalf("KeyColumns %v", got)
	}
	l.Decide(0)
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), `key=user but the run gave it no key column`) {
		t.Errorf("unbound key column: %v", err)
	}
	if s := mustParse(t, "redis-gcra:rate=3,key=route"); !strings.HasSuffix(s.String(), ",key=route") {
		t.Errorf("canonical %s", s.String())
	}
}

// TestPerKeyEmptyKey pins each redis-* kind's rule for an empty key:
// Spring Cloud Gateway refuses it (denyEmptyKey, its default) or lets it
// through (deny-empty-key=false); envoyproxy/ratelimit is not asked (no
// descriptor); the other scripts key the empty value like any other, one
// shared key.
func TestPerKeyEmptyKey(t *testing.T) {
	b := backends(t)["native"]
	trace := []time.Duration{0, 0, 0, 0}
	keys := []int32{-1, -1, 0, -1}
	pass, block := algorithms.Decision{Pass: true}, algorithms.Decision{}
	for spec, want := range map[string][]algorithms.Decision{
		"redis-spring-gateway:replenish-rate=1,key=user":                      {block, block, pass, block},
		"redis-spring-gateway:replenish-rate=1,deny-empty-key=false,key=user": {pass, pass, pass, pass},
		"redis-envoy-ratelimit:limit=1,key=user":                              {pass, pass, pass, pass},
		"redis-fixed-window:limit=1,key=user":                                 {pass, block, pass, block},
		"redis-gcra:rate=1,burst=1,key=user":                                  {pass, block, pass, block},
		"redis-cell:count=1,max-burst=0,key=user":                             {pass, block, pass, block},
	} {
		got, _ := keyedRun(t, spec, b, trace, keys)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: arrival %d (key %d): %+v, want %+v", spec, i, keys[i], got[i], want[i])
			}
		}
	}
	for spec, want := range map[string]string{
		"redis-spring-gateway:replenish-rate=1,deny-empty-key=false,key=user": ",deny-empty-key=false,",
		"redis-spring-gateway:replenish-rate=1,empty-key-status=429,key=user": ",empty-key-status=429,",
	} {
		if s := mustParse(t, spec).String(); !strings.Contains(s, want) {
			t.Errorf("canonical %s lacks %s", s, want)
		}
	}
	if _, err := Parse("redis-spring-gateway:replenish-rate=1,empty-key-status=99", 0); err == nil || !strings.Contains(err.Error(), "empty-key-status must be an HTTP status from 100 to 599") {
		t.Errorf("empty-key-status=99: %v", err)
	}
}
