package adaptiveconformance

import (
	"math/rand/v2"
	"sort"
	"time"
)

// event is one step of a scripted run: an arrival (done < 0) or the
// completion of arrival done.
type event struct {
	at   time.Duration
	done int
}

// script draws n arrivals with exponential gaps of mean gap and service
// times of 1..maxRT ms (whole ms, or with µs when fine is set), and
// returns every event in clock order, completions before arrivals at the
// same instant. Each admitted call completes at its arrival + its RT; the
// caller skips the completion of a blocked arrival.
func script(seed uint64, n int, gap time.Duration, maxRT int, fine bool) (evs []event, rts []time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 99))
	now := time.Duration(0)
	for i := 0; i < n; i++ {
		g := time.Duration(rng.ExpFloat64() * float64(gap))
		if !fine {
			g = g.Truncate(time.Millisecond)
		}
		now += g
		rt := time.Duration(1+rng.IntN(maxRT)) * time.Millisecond
		if fine {
			rt += time.Duration(rng.IntN(1000)) * time.Microsecond
		}
		rts = append(rts, rt)
		evs = append(evs, event{now, -1})
		evs = append(evs, event{now + rt, i})
	}
	// arrival index of each arrival event
	idx := 0
	for k := range evs {
		if evs[k].done < 0 {
			evs[k].done = -1 - idx
			idx++
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		// completions (done ≥ 0) first, by arrival; then arrivals in order
		ca, cb := evs[a].done >= 0, evs[b].done >= 0
		if ca != cb {
			return ca
		}
		if ca {
			return evs[a].done < evs[b].done
		}
		return evs[a].done > evs[b].done
	})
	return evs, rts
}

// arrival reports the arrival index of an arrival event.
func (e event) arrival() (int, bool) {
	if e.done < 0 {
		return -1 - e.done, true
	}
	return 0, false
}
