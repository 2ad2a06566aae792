// Package aegisconf is the harness that compares the lab's aegis-bbr with
// go-kratos/aegis ratelimit/bbr decision for decision, CPU gate included.
// It does not import aegis, so that the v0.2.0 test (../aegis_test.go)
// and a check of aegis's master run outside the repository (the module
// proxy serves no later version, and no copy of aegis is committed) run
// the same scripts against the version their module requires.
//
// Each run happens inside a testing/synctest bubble: the reference is
// created at the bubble's start (virtual 0), each event sleeps to its
// instant and each admitted call's DoneFunc runs at its completion.
// aegis's CPU is the global gCPU, fed by cpuproc from the real host, so
// InjectCPU replaces the limiter's unexported cpu getter with one that
// returns an EMA the harness advances on aegis's schedule with cpuproc's
// own step, from the same scripted cpu series the lab reads through its
// Signals.
package aegisconf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// Ref is one aegis limiter, created inside the bubble.
type Ref struct {
	// Allow is BBR.Allow: done is the DoneFunc when ok.
	Allow func() (done func(), ok bool)
	// Stat is BBR.Stat, for failure messages only (it refreshes the
	// caches, so calling it between decisions would change them).
	Stat func() string
}

// Case is one configuration.
type Case struct {
	Window    time.Duration
	Buckets   int
	Threshold int64         // per mille
	Gap       time.Duration // mean gap between arrivals in a busy phase
	MaxRT     int           // longest service time, ms
}

// InjectCPU sets the unexported field cpu (cpuGetter, func() int64) of
// lim, a *bbr.BBR, to get.
func InjectCPU(lim any, get func() int64) {
	f := reflect.ValueOf(lim).Elem().FieldByName("cpu")
	if !f.IsValid() || f.Kind() != reflect.Func {
		panic(fmt.Sprintf("aegisconf: %T has no cpu getter field", lim))
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(get))
}

// emaStep is cpuproc's update, ratelimit/bbr/bbr.go lines 46-48 (the same
// in v0.2.0 and at e0742c6):
//
//	stat.Usage = min(stat.Usage, 1000)
//	prevCPU := atomic.LoadInt64(&gCPU)
//	curCPU := int64(float64(prevCPU)*decay + float64(stat.Usage)*(1.0-decay))
//
// with decay = 0.95 (line 16). usage is internal/cpu's per mille reading,
// here ⌊cpu·1000⌋ of the scripted utilisation, as the lab defines it.
func emaStep(prev int64, cpu float64) int64 {
	const decay = 0.95
	usage := uint64(0)
	if cpu > 0 {
		usage = uint64(math.Floor(cpu * 1000))
	}
	usage = min(usage, 1000)
	return int64(float64(prev)*decay + float64(usage)*(1.0-decay))
}

// cpuSteps is a scripted cpu column: value v[i] holds from at[i] on.
type cpuSteps struct {
	at []time.Duration
	v  []float64
}

func (s cpuSteps) CPU(t time.Duration) float64 {
	i := sort.Search(len(s.at), func(i int) bool { return s.at[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return s.v[i]
}

func (s cpuSteps) Load1(time.Duration) float64 { return 0 }

// cpuScript draws steps over dur around threshold thr (per mille): a
// warm-up at 100% (the EMA starts at 0), then segments of mean 1.2 s near
// the threshold (±12%), at 100%, at the mirror of 100% below it, at 0 or
// anywhere; a fifth of the steps fall on aegis's 500 ms sampling grid.
func cpuScript(rng *rand.Rand, dur time.Duration, thr int64) cpuSteps {
	th := math.Min(float64(thr)/1000, 0.99)
	s := cpuSteps{at: []time.Duration{0}, v: []float64{1}}
	// at 100% the EMA reaches th after about k samples
	k := math.Log(1-th)/math.Log(0.95) + float64(rng.IntN(11)-5)
	now := time.Duration(math.Max(0, k) * float64(500*time.Millisecond))
	for now < dur {
		var v float64
		switch p := rng.Float64(); {
		case p < 0.55:
			v = th + (rng.Float64()-0.5)*0.24
		case p < 0.7:
			v = 1
		case p < 0.85:
			v = 2*th - 1
		case p < 0.92:
			v = 0
		default:
			v = rng.Float64()
		}
		v = math.Max(0, math.Min(1, v))
		if rng.IntN(5) == 0 {
			now = now.Truncate(500 * time.Millisecond)
			if now <= s.at[len(s.at)-1] {
				now += 500 * time.Millisecond
			}
		}
		s.at = append(s.at, now)
		s.v = append(s.v, v)
		now += time.Millisecond + time.Duration(rng.ExpFloat64()*float64(1200*time.Millisecond))
	}
	return s
}

// event is an arrival (done < 0, arrival −1−done) or the completion of
// arrival done.
type event struct {
	at   time.Duration
	done int
}

// arrivals draws calls over dur in phases of mean 2 s: busy phases with
// exponential gaps of mean gap × ½, 1, 2 or 4, bursts of up to 20 calls at
// one instant, and idle phases of 0.5 to 3 s (a fifth of them). Service
// times are 1..maxRT ms with µs, one in twenty under 1 ms (0 ms for
// v0.2.0's truncation, 1 ms for head's ceiling). Completions come before
// arrivals at one instant, by arrival; arrivals in order.
func arrivals(rng *rand.Rand, dur, gap time.Duration, maxRT int) []event {
	var evs []event
	n := 0
	add := func(at time.Duration) {
		rt := time.Duration(1+rng.IntN(maxRT))*time.Millisecond + time.Duration(rng.IntN(1000))*time.Microsecond
		if rng.IntN(20) == 0 {
			rt = time.Duration(rng.IntN(1000)) * time.Microsecond
		}
		evs = append(evs, event{at, -1 - n}, event{at + rt, n})
		n++
	}
	now := time.Duration(0)
	for now < dur {
		end := now + time.Duration(rng.ExpFloat64()*float64(2*time.Second))
		if rng.IntN(5) == 0 {
			now += 500*time.Millisecond + time.Duration(rng.IntN(2500))*time.Millisecond
			continue
		}
		g := float64(gap) * []float64{0.5, 1, 2, 4}[rng.IntN(4)]
		for now < end && now < dur {
			if rng.IntN(200) == 0 {
				for k := rng.IntN(20); k >= 0; k-- {
					add(now)
				}
			} else {
				add(now)
			}
			now += time.Duration(rng.ExpFloat64() * g)
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		ca, cb := evs[a].done >= 0, evs[b].done >= 0
		if ca != cb {
			return ca
		}
		if ca {
			return evs[a].done < evs[b].done
		}
		return evs[a].done > evs[b].done
	})
	return evs
}

// Counts sums what the runs compared.
type Counts struct {
	Decisions int
	Dropped   int
	// Gated: decisions with the EMA below the threshold; CooldownDrops:
	// drops among them (within 1 s of an episode's first drop);
	// GateDrops: drops with the EMA at or above it.
	Gated, CooldownDrops, GateDrops int
	// Crossings: samples where the EMA crossed the threshold.
	Crossings int
}

func (c Counts) String() string {
	return fmt.Sprintf("%d decisions, %d dropped (%d with the EMA at or above the threshold, %d in the 1 s cooldown below it), %d decisions below the threshold, %d threshold crossings of the EMA",
		c.Decisions, c.Dropped, c.GateDrops, c.CooldownDrops, c.Gated, c.Crossings)
}

// Run runs seeds scripts of dur for each case, the reference from newRef
// (called inside the bubble; it must InjectCPU the getter it is given)
// and the lab's aegis-bbr with version, both on the same cpu series, and
// fails at the first decision that differs.
func Run(t *testing.T, version string, cases []Case, seeds int, dur time.Duration,
	newRef func(c Case, cpu func() int64) Ref) Counts {
	var tot Counts
	for _, c := range cases {
		for seed := 1; seed <= seeds; seed++ {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(c.Threshold)*1_000_003+uint64(c.Buckets)))
			cpus := cpuScript(rng, dur, c.Threshold)
			evs := arrivals(rng, dur, c.Gap, c.MaxRT)
			synctest.Test(t, func(t *testing.T) {
				var ema int64
				next := time.Duration(0) // next EMA sample, the first at 0
				ref := newRef(c, func() int64 { return ema })
				spec := fmt.Sprintf("aegis-bbr:version=%s,cpu-threshold=%d,window=%s,buckets=%d",
					version, c.Threshold, algorithms.FormatDuration(c.Window), c.Buckets)
				l, err := algorithms.New(spec, 0)
				if err != nil {
					t.Fatal(err)
				}
				l.(algorithms.SignalReader).BindSignals(cpus)
				lab := l.(algorithms.Completer)
				labCPU := l.(interface{ CPU(time.Duration) int64 })
				start := time.Now()
				dones := map[int]func(){}
				tickets := map[int]algorithms.Ticket{}
				for _, ev := range evs {
					if d := ev.at - time.Since(start); d > 0 {
						time.Sleep(d)
					}
					for next <= ev.at {
						was := ema >= c.Threshold
						ema = emaStep(ema, cpus.CPU(next))
						if (ema >= c.Threshold) != was {
							tot.Crossings++
						}
						next += 500 * time.Millisecond
					}
					if ev.done >= 0 {
						if done, ok := dones[ev.done]; ok {
							done()
							lab.Complete(ev.at, tickets[ev.done], algorithms.Success)
							delete(dones, ev.done)
						}
						continue
					}
					i := -1 - ev.done
					done, want := ref.Allow()
					got := lab.Check(ev.at).Pass
					if lc := labCPU.CPU(ev.at); lc != ema {
						t.Fatalf("%s seed %d arrival %d at %v: lab CPU EMA %d, aegis's %d", spec, seed, i, ev.at, lc, ema)
					}
					if got != want {
						t.Fatalf("%s seed %d arrival %d at %v: lab pass=%v, aegis pass=%v (EMA %d, cpu %.3f, lab in flight %d, limit %v; aegis %s)",
							spec, seed, i, ev.at, got, want, ema, cpus.CPU(ev.at), lab.InFlight(), lab.CurrentLimit(ev.at), ref.Stat())
					}
					tot.Decisions++
					below := ema < c.Threshold
					if below {
						tot.Gated++
					}
					if want {
						dones[i] = done
						tickets[i] = lab.Begin(ev.at, ev.at)
						continue
					}
					tot.Dropped++
					if below {
						tot.CooldownDrops++
					} else {
						tot.GateDrops++
					}
				}
			})
		}
	}
	return tot
}
