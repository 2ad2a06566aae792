package eventq

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestPopsInKeyOrder(t *testing.T) {
	// With the lane, mostly rising keys (a timeout after each arrival)
	// mixed with earlier ones (retries) go both ways.
	for _, c := range []struct {
		name         string
		lane, rising bool
	}{{"heap", false, false}, {"lane", true, false}, {"lane rising", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var q Queue[int]
			if c.lane {
				q.UseLane()
			}
			var ref []Key // what is queued, in no order
			popMin := func() Key {
				m := 0
				for i, k := range ref {
					if k.Less(ref[m]) {
						m = i
					}
				}
				k := ref[m]
				ref = slices.Delete(ref, m, m+1)
				return k
			}
			for i := 0; i < 5000; i++ {
				k := Key{At: time.Duration(rng.IntN(50)), Class: rng.IntN(3), Seq: int64(rng.IntN(20)), Round: rng.IntN(2)}
				if c.rising && rng.IntN(4) != 0 {
					k.At += time.Duration(i)
				}
				ref = append(ref, k)
				q.Push(k, i)
				if rng.IntN(3) == 0 {
					top, _, _ := q.Peek()
					before := q.Before(top)
					got, _ := q.Pop()
					if want := popMin(); got != want || top != want || before {
						t.Fatalf("Peek %v, Pop %v, want %v (Before its own key %v)", top, got, want, before)
					}
				}
				if q.Len() != len(ref) {
					t.Fatalf("Len %d, want %d", q.Len(), len(ref))
				}
			}
			for q.Len() > 0 {
				if got, want := func() Key { k, _ := q.Pop(); return k }(), popMin(); got != want {
					t.Fatalf("Pop %v, want %v", got, want)
				}
			}
			if len(ref) != 0 {
				t.Fatalf("%d events lost", len(ref))
			}
			if c.lane && c.rising && cap(q.lane) == 0 {
				t.Fatal("the lane was never used")
			}
		})
	}
}

func TestOrderKey(t *testing.T) {
	// At equal times: class, then arrival number, then round.
	a := Key{At: 5, Class: 0, Seq: 9, Round: 1}
	b := Key{At: 5, Class: 1, Seq: 0, Round: 0}
	c := Key{At: 5, Class: 1, Seq: 1, Round: 0}
	d := Key{At: 5, Class: 1, Seq: 1, Round: 1}
	e := Key{At: 6}
	ks := []Key{e, d, c, b, a}
	var q Queue[string]
	for _, k := range ks {
		q.Push(k, "")
	}
	for _, want := range []Key{a, b, c, d, e} {
		if got, _ := q.Pop(); got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if q.Before(Key{At: 100}) {
		t.Fatal("an empty queue has nothing before anything")
	}
}
