package algorithms

import (
	"testing"
	"time"
)

func keyReq(id int32) *Request {
	return &Request{Keys: [MaxKeyColumns]int32{id, NoKey, NoKey, NoKey}, Cost: 1}
}

// An adaptive limiter made per-key is a RequestCompleter whose calls are
// completed on their own key's instance: a completion frees its key's
// slot and no other.
func TestKeyedCompleterFreesItsKey(t *testing.T) {
	for _, spec := range []string{"concurrency:limit=1,key=ip", "sentinel-system:max-thread=0,key=ip", "aimd:initial=1,min=1,key=ip"} {
		t.Run(spec, func(t *testing.T) {
			l, err := New(spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			kc, ok := l.(RequestCompleter)
			if !ok {
				t.Fatalf("%T is not a RequestCompleter", l)
			}
			if _, ok := l.(Stage); !ok {
				t.Fatalf("%T is not a Stage", l)
			}
			a, b := keyReq(0), keyReq(1)
			ms := time.Millisecond
			for i := 0; i < 10; i++ {
				now := time.Duration(i) * 10 * ms
				if !kc.CheckRequest(now, a).Pass {
					t.Fatalf("call %d of key a, the one before it completed, is refused", i)
				}
				tk := kc.BeginRequest(now, now, a)
				// Key b is independent: its first call passes, its second
				// (with the first in flight) does not.
				if i == 0 {
					if !kc.CheckRequest(now, b).Pass {
						t.Fatal("key b's first call refused while only a's is in flight")
					}
					kc.BeginRequest(now, now, b)
				}
				if i == 0 && kc.CheckRequest(now, a).Pass {
					// (AIMD's limit grows after; its first limit is 1.)
					t.Fatal("a second call of key a in flight passes")
				}
				if kc.InFlight() != 2 {
					t.Fatalf("in flight %d, want 2", kc.InFlight())
				}
				kc.CompleteRequest(now+ms, tk, a, Success)
			}
			if kc.CheckRequest(time.Second, b).Pass {
				t.Fatal("key b's call never completed, yet a second passes: a's completions freed b")
			}
		})
	}
}

// A key evicted with a call in flight comes back fresh, and the late
// completion of that call does not touch the fresh state (which would
// then count −1 in flight and admit two).
func TestKeyedCompleterEvictedCompletionDropped(t *testing.T) {
	l, err := New("concurrency:limit=1,key=ip,capacity=1", 0)
	if err != nil {
		t.Fatal(err)
	}
	kc := l.(RequestCompleter)
	a, b := keyReq(0), keyReq(1)
	if !kc.CheckRequest(0, a).Pass {
		t.Fatal("first call refused")
	}
	old := kc.BeginRequest(0, 0, a)
	kc.CheckRequest(1, b) // evicts a, in flight
	kc.BeginRequest(1, 1, b)
	if !kc.CheckRequest(2, a).Pass { // evicts b; a starts fresh
		t.Fatal("a's fresh state refuses its first call")
	}
	kc.BeginRequest(2, 2, a)
	kc.CompleteRequest(3, old, a, Success) // the call begun before the eviction
	if kc.CheckRequest(4, a).Pass {
		t.Fatal("the evicted call's completion freed a's fresh slot: two calls of a in flight")
	}
	if kc.InFlight() != 2 {
		t.Fatalf("in flight %d, want 2 (b's and a's second)", kc.InFlight())
	}
}

// TestKeyedConcurrencyNominal: a per-key concurrency limit's nominal is
// its N calls in flight (window 0), and a key is over once it offered a
// call with N of its own in flight: key 0 calls three times at once under
// limit=2 (over, refused), key 1 twice (at the limit, never over).
func TestKeyedConcurrencyNominal(t *testing.T) {
	l, err := New("concurrency:limit=2,key=ip", 0)
	if err != nil {
		t.Fatal(err)
	}
	kc := l.(*KeyedCompleter)
	if lim, w := kc.KeyNominal(); lim != 2 || w != 0 {
		t.Errorf("KeyNominal %v per %v, want 2 calls in flight (window 0)", lim, w)
	}
	want := []bool{true, true, false}
	for i, w := range want {
		if d := kc.DecideRequest(0, keyReq(0)); d.Pass != w {
			t.Errorf("key 0, call %d: pass %v, want %v", i, d.Pass, w)
		}
	}
	for i := range 2 {
		if !kc.DecideRequest(0, keyReq(1)).Pass {
			t.Errorf("key 1, call %d refused", i)
		}
	}
	if !kc.KeyOver(0) || kc.KeyOver(1) || kc.KeyOver(2) {
		t.Errorf("KeyOver(0, 1, 2) = %v, %v, %v; want true, false, false", kc.KeyOver(0), kc.KeyOver(1), kc.KeyOver(2))
	}
	// In a chain, the per-key view is the stage's.
	c, err := New("concurrency:limit=2,key=ip+leap-array:limit=100", 0)
	if err != nil {
		t.Fatal(err)
	}
	rep := KeyReporterOf(c)
	if lim, w := rep.KeyNominal(); lim != 2 || w != 0 {
		t.Errorf("chain: KeyNominal %v per %v, want 2 per 0", lim, w)
	}
	if _, ok := rep.(KeyOverReporter); !ok {
		t.Errorf("chain's per-key view %T does not report KeyOver", rep)
	}
}
