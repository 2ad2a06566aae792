package simulator

import (
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// keptState is what a row holds while it runs, in events and records.
type keptState struct {
	events, modelChanges, modelAdmissions, pending, retrySlots, signalPoints int
}

func (k *keptState) max(u *chainUnit) {
	k.events = max(k.events, u.q.Len())
	if m := u.ds.model; m != nil {
		k.modelChanges = max(k.modelChanges, m.deltas.Len())
		k.modelAdmissions = max(k.modelAdmissions, len(m.adms)-m.head)
	}
	k.pending = max(k.pending, len(u.pend)-u.off)
	k.retrySlots = max(k.retrySlots, len(u.retries))
	if s := u.signals; s != nil {
		k.signalPoints = max(k.signalPoints, len(s.pts)-s.head)
	}
}

// TestRetryStormKeepsBoundedState runs the retry storm through none (the
// service never recovers and its queue grows for the whole run) for two
// lengths and checks that nothing a row keeps grows with the run: the
// events queued, the host model's changes and admissions not yet placed,
// the reorder buffer, the retry slots and the signal track. Memory is
// bounded by what is in flight (about a timeout's worth of attempts), not
// by the length of the trace or of the downstream's queue.
func TestRetryStormKeepsBoundedState(t *testing.T) {
	run := func(arrivals int) keptState {
		sc, err := scenarios.Lookup("retry-storm")
		if err != nil {
			t.Fatal(err)
		}
		sc.Duration = time.Duration(float64(arrivals) / 320 * float64(time.Second))
		src, err := sc.Stream()
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		none, _ := algorithms.New("none", 0)
		u := newChainUnit(none, sc.Downstream, false, func(*outcome) {})
		u.outRetry = func(*outcome) {}
		u.startUsers(sc.Duration)
		var k keptState
		for seq := int64(0); ; seq++ {
			a, ok := src.Next()
			if !ok {
				break
			}
			u.arrive(seq, a)
			if seq%64 == 0 {
				k.max(u)
			}
		}
		u.flush()
		if q := u.ds.free[0] - sc.Duration; q < 10*time.Second {
			t.Fatalf("%d arrivals: the service's queue is %v long at the end, want a saturated service", arrivals, q)
		}
		return k
	}
	short, long := run(40_000), run(80_000)
	t.Logf("kept at 40k arrivals %+v, at 80k %+v", short, long)
	if long.modelChanges > 8 {
		t.Errorf("the host model keeps %d changes, more than the 8 servers in service", long.modelChanges)
	}
	for _, c := range []struct {
		name        string
		short, long int
	}{
		{"events", short.events, long.events},
		{"model changes", short.modelChanges, long.modelChanges},
		{"model admissions", short.modelAdmissions, long.modelAdmissions},
		{"reorder buffer", short.pending, long.pending},
		{"retry slots", short.retrySlots, long.retrySlots},
		{"signal points", short.signalPoints, long.signalPoints},
	} {
		// Twice the arrivals: what grows with the run about doubles.
		if c.long > c.short+c.short/4+16 {
			t.Errorf("%s: %d kept at most with 40k arrivals, %d with 80k: it grows with the run", c.name, c.short, c.long)
		}
	}
}
