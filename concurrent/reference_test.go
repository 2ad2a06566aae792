package concurrent

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestAloneTheyAreTheLabsLimiters drives each implementation from one
// goroutine with a clock that reads a scripted instant (both readings of a
// SentinelRing call see the same one) and checks every decision against the
// lab's virtual-clock limiter with the same parameters: with nothing
// running concurrently there is no race, so the designs must agree with
// their references exactly.
func TestAloneTheyAreTheLabsLimiters(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 30 {
		limit := []int{1, 3, 10}[trial%3]
		n := []int{1, 2, 5, 10}[trial%4]
		var now int64
		clock := func() int64 { return now }
		c := Config{Limit: limit, Window: time.Second, SampleCount: n, Clock: clock}
		for _, tc := range []struct {
			l    Limiter
			spec string
		}{
			{NewSentinelRing(c), fmt.Sprintf("leap-array:limit=%d,sample-count=%d,interval=1s", limit, n)},
			{NewMutexRing(c), fmt.Sprintf("leap-array:limit=%d,sample-count=%d,interval=1s", limit, n)},
			{NewAtomicFixedWindow(c), fmt.Sprintf("fixed-window:limit=%d,window=1s", limit)},
			{NewXRate(c), fmt.Sprintf("token-bucket:rate=%d,burst=1", limit)},
		} {
			ref, err := algorithms.New(tc.spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			now = 0
			for i := range 3000 {
				switch rng.IntN(10) {
				case 0:
					now += rng.Int64N(int64(3 * time.Second))
				case 1:
					now = now - now%int64(100*time.Millisecond) + int64(100*time.Millisecond)
				case 2: // same instant
				default:
					now += rng.Int64N(int64(5 * time.Millisecond))
				}
				got, at := tc.l.Allow()
				want := ref.Decide(time.Duration(now)).Pass
				if got != want {
					t.Fatalf("trial %d %s, call %d at %v: pass=%v, the lab's limiter says %v", trial, tc.spec, i, time.Duration(now), got, want)
				}
				if got && at != now {
					t.Fatalf("%s: pass recorded at %d, clock read %d", tc.spec, at, now)
				}
			}
		}
	}
}
