package adaptiveconformance

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-kratos/aegis/ratelimit"
	"github.com/go-kratos/aegis/ratelimit/bbr"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestAegisBBRMatchesV020 drives aegis v0.2.0's BBR inside a synctest
// bubble: the limiter is created at the bubble's start (virtual 0), each
// event sleeps to its instant, and each admitted call's DoneFunc runs at
// its completion. aegis's CPU EMA is a global fed by a goroutine outside
// the bubble from the real host, so the comparison pins the CPU gate
// open (cpu-threshold=0: the EMA, ≥ 0, is never below it); the EMA and the
// cooldown are checked by the lab's unit tests against the source.
func TestAegisBBRMatchesV020(t *testing.T) {
	total, dropped := 0, 0
	for _, tc := range []struct {
		window  time.Duration
		buckets int
		gap     time.Duration
		maxRT   int
	}{
		{time.Second, 10, 2 * time.Millisecond, 30},
		{10 * time.Second, 100, time.Millisecond, 60},
		{2 * time.Second, 20, 500 * time.Microsecond, 15},
		{time.Second, 100, 3 * time.Millisecond, 8},
	} {
		for seed := uint64(1); seed <= 4; seed++ {
			evs, _ := script(seed, 3000, tc.gap, tc.maxRT, true)
			synctest.Test(t, func(t *testing.T) {
				ref := bbr.NewLimiter(bbr.WithWindow(tc.window), bbr.WithBucket(tc.buckets), bbr.WithCPUThreshold(0))
				lab, err := algorithms.New("aegis-bbr:version=v0.2.0,cpu-threshold=0,window="+algorithms.FormatDuration(tc.window)+",buckets="+itoa(tc.buckets), 0)
				if err != nil {
					t.Fatal(err)
				}
				lab.(algorithms.SignalReader).BindSignals(algorithms.ConstSignals{})
				c := lab.(algorithms.Completer)
				start := time.Now()
				dones := map[int]ratelimit.DoneFunc{}
				tickets := map[int]algorithms.Ticket{}
				for _, ev := range evs {
					if d := ev.at - time.Since(start); d > 0 {
						time.Sleep(d)
					}
					if i, ok := ev.arrival(); ok {
						done, err := ref.Allow()
						want := err == nil
						got := c.Check(ev.at).Pass
						total++
						if got != want {
							t.Fatalf("window %v buckets %d seed %d arrival %d at %v: lab pass=%v, aegis pass=%v (%+v)", tc.window, tc.buckets, seed, i, ev.at, got, want, ref.Stat())
						}
						if want {
							dones[i] = done
							tickets[i] = c.Begin(ev.at, ev.at)
						} else {
							dropped++
						}
						continue
					}
					if done, ok := dones[ev.done]; ok {
						done(ratelimit.DoneInfo{})
						c.Complete(ev.at, tickets[ev.done], algorithms.Success)
						delete(dones, ev.done)
					}
				}
			})
		}
	}
	if dropped == 0 {
		t.Fatal("nothing was dropped")
	}
	t.Logf("%d decisions, %d dropped, identical", total, dropped)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
