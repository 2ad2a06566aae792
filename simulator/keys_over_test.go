package simulator

import (
	"math/rand/v2"
	"testing"
	"time"
)

// overModel is the straightforward reading of overTracker's definition:
// every id's last m times (a request of cost c counts c times), and an id
// is over when the time m arrivals back is less than w before the new one.
type overModel struct {
	m     int
	w     int64
	times map[int32][]int64
	over  map[int32]bool
}

func (o *overModel) add(id int32, t int64, c int32) bool {
	if o.m < 0 {
		return false
	}
	if o.over[id] {
		return true
	}
	for range c {
		ts := o.times[id]
		if len(ts) >= o.m && (o.m == 0 || t-ts[len(ts)-o.m] < o.w) {
			o.over[id] = true
			return true
		}
		o.times[id] = append(ts, t)
	}
	return false
}

// The tracker, which keeps only each id's current window in a pooled
// ring, tells over exactly when the model does, at every request, on
// random traces: ids from hot to cold, costs above one, ties in time,
// limits from 0 to 40 and windows shorter and longer than the gaps.
func TestOverTrackerMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 6))
	traces := 300
	if testing.Short() {
		traces = 60
	}
	for tr := 0; tr < traces; tr++ {
		limits := []float64{0, 0.5, 1, 2, 3, 4, 5, 7, 9, 10, 17, 40, -1}
		limit := limits[r.IntN(len(limits))]
		w := time.Duration(1+r.IntN(50)) * time.Millisecond
		o := newOverTracker(limit, w)
		m := &overModel{m: int(o.m), w: int64(w), times: map[int32][]int64{}, over: map[int32]bool{}}
		ids := 1 + r.IntN(40)
		wins := make([]overKey, ids+2)
		now := int64(0)
		quantum := int64(1) // half the traces in whole milliseconds: gaps of exactly the window
		if tr%2 == 0 {
			quantum = int64(time.Millisecond)
		}
		for i := 0; i < 2000; i++ {
			switch r.IntN(4) {
			case 0: // a tie
			case 1: // whole milliseconds: gaps of exactly the window
				now += int64(r.IntN(3)) * int64(time.Millisecond)
			default:
				now += int64(r.ExpFloat64()*float64(w)/float64(1+r.IntN(20))) / quantum * quantum
			}
			id := int32(r.IntN(ids))
			if r.IntN(3) == 0 {
				id = int32(r.IntN(1 + ids/8)) // hot ids
			}
			c := int32(1)
			if r.IntN(10) == 0 {
				c = int32(1 + r.IntN(6))
			}
			got, want := o.add(&wins[id], time.Duration(now), c), m.add(id, now, c)
			if got != want {
				t.Fatalf("trace %d (limit %v, window %v), request %d: id %d at %d cost %d: over %v, the model says %v", tr, limit, w, i, id, now, c, got, want)
			}
		}
		for id := int32(0); id < int32(ids)+2; id++ {
			if got, want := wins[id].n < 0, m.over[id]; got != want {
				t.Fatalf("trace %d: id %d over %v at the end, the model says %v", tr, id, got, want)
			}
		}
	}
}
