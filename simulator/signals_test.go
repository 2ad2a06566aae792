package simulator

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// TestLaggingHostModelMatchesEveryChange drives two copies of a FIFO
// downstream with the same admissions: one whose host model keeps every
// request's two changes on its heap, one whose model replays the
// admissions on its copy of the servers (the default). After every step
// both must have applied the same changes in the same order: the same
// CPU sum (a float, so the order counts), tasks, load and the same last
// signal point. Service and I/O phases make ends overtake each other and
// CPU shares inexact; overload makes the queue grow; a clock that steps
// back makes the lagging model fall back to keeping every change.
func TestLaggingHostModelMatchesEveryChange(t *testing.T) {
	ms := time.Millisecond
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			cfg := &scenarios.Downstream{Servers: 1 + rng.IntN(6), Service: time.Duration(1+rng.IntN(30)) * ms,
				IOShare: []float64{0, 0.3, 0.7}[rng.IntN(3)], Seed: seed}
			if rng.IntN(2) == 0 {
				cfg.Timeout = time.Duration(20+rng.IntN(200)) * ms
			}
			for p := 0; p < 3; p++ {
				from := time.Duration(rng.IntN(4000)) * ms
				cfg.Phases = append(cfg.Phases, scenarios.DownstreamPhase{From: from, To: from + time.Duration(1+rng.IntN(2000))*ms,
					Service: time.Duration(rng.IntN(60)) * ms, IOShare: rng.Float64(), HasIO: rng.IntN(2) == 0})
			}
			var every, lagging *downstream
			var tracks [2]*signalTrack
			for i, d := range []**downstream{&every, &lagging} {
				*d = newDownstream(cfg)
				tracks[i] = &signalTrack{}
				newHostModel(cfg.Servers, tracks[i]).attach(*d)
			}
			every.model.lag = nil
			// A step back makes a start earlier than the last one when a
			// second server is idle.
			stepBack := seed%4 == 0 && cfg.Servers > 1
			now := time.Duration(0)
			for i := 0; i < 4000; i++ {
				// Bursts, gaps and overload (mean gap under the service).
				switch r := rng.IntN(10); {
				case r < 3:
				case r < 9:
					// On a ms grid, so that starts and ends tie.
					now += time.Duration(rng.ExpFloat64() * float64(cfg.Service) / float64(2*cfg.Servers)).Truncate(ms)
				default:
					now += time.Duration(rng.IntN(300)) * ms
				}
				if stepBack && i == 2000 {
					now += 1000 * time.Second // the queue drains
				}
				if stepBack && i == 2001 {
					now -= time.Second // a start before the last one
				}
				for _, d := range []*downstream{every, lagging} {
					d.model.advance(now)
				}
				e1, f1, o1 := every.serve(int64(i), now)
				e2, f2, o2 := lagging.serve(int64(i), now)
				if e1 != e2 || f1 != f2 || o1 != o2 {
					t.Fatalf("admission %d: serve %v %v %v and %v %v %v", i, e1, f1, o1, e2, f2, o2)
				}
				a, b := every.model, lagging.model
				if a.busy != b.busy || a.tasks != b.tasks || a.avenrun != b.avenrun || a.at != b.at {
					t.Fatalf("admission %d at %v: busy %v/%v tasks %d/%d avenrun %d/%d at %v/%v",
						i, now, a.busy, b.busy, a.tasks, b.tasks, a.avenrun, b.avenrun, a.at, b.at)
				}
				p1, ok1 := tracks[0].at(now)
				p2, ok2 := tracks[1].at(now)
				if p1 != p2 || ok1 != ok2 {
					t.Fatalf("admission %d: signal %+v and %+v", i, p1, p2)
				}
				if !stepBack && b.lag == nil {
					t.Fatalf("admission %d: the model stopped lagging without a step back", i)
				}
			}
			if stepBack && lagging.model.lag != nil {
				t.Fatal("a step back did not stop the lagging")
			}
			if !stepBack && lagging.model.deltas.Len() > cfg.Servers {
				t.Fatalf("%d changes queued, more than the %d servers in service", lagging.model.deltas.Len(), cfg.Servers)
			}
		})
	}
}
