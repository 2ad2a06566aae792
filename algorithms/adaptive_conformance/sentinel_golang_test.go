package adaptiveconformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	sentinel "github.com/alibaba/sentinel-golang/api"
	sbase "github.com/alibaba/sentinel-golang/core/base"
	"github.com/alibaba/sentinel-golang/core/config"
	"github.com/alibaba/sentinel-golang/core/isolation"
	"github.com/alibaba/sentinel-golang/core/system"
	"github.com/alibaba/sentinel-golang/core/system_metric"
	"github.com/alibaba/sentinel-golang/util"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

var clock *util.MockClock

// TestMain starts sentinel-golang on a mock clock without its system
// collectors (the signals are set by the tests), its logs in a temporary
// directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sentinel-golang-conformance")
	if err != nil {
		panic(err)
	}
	conf := config.NewDefaultConfig()
	conf.Sentinel.Log.Dir = dir
	conf.Sentinel.Stat.System.CollectIntervalMs = 0
	conf.Sentinel.Stat.System.CollectLoadIntervalMs = 0
	conf.Sentinel.Stat.System.CollectCpuIntervalMs = 0
	conf.Sentinel.Stat.System.CollectMemoryIntervalMs = 0
	conf.Sentinel.UseCacheTime = false
	clock = util.NewMockClock()
	util.SetClock(clock)
	util.SetTickerCreator(util.NewMockTickerCreator())
	if err := sentinel.InitWithConfig(conf); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// align moves the mock clock past every bucket of earlier runs, to a
// whole second, which is virtual time 0 of the next run; it returns that
// instant.
func align() time.Duration {
	clock.Sleep(30 * time.Second)
	now := time.Duration(clock.CurrentTimeNano())
	clock.Sleep(time.Second - now%time.Second)
	return time.Duration(clock.CurrentTimeNano())
}

// stepTo advances the mock clock to virtual time t of a run started at
// base.
func stepTo(t0, t time.Duration) {
	if d := t0 + t - time.Duration(clock.CurrentTimeNano()); d > 0 {
		clock.Sleep(d)
	}
}

func TestIsolationMatchesSentinelGolang(t *testing.T) {
	total, blocked := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		n := uint32(1 + seed%5)
		res := fmt.Sprintf("iso-%d", seed)
		if _, err := isolation.LoadRules([]*isolation.Rule{{Resource: res, MetricType: isolation.Concurrency, Threshold: n}}); err != nil {
			t.Fatal(err)
		}
		lab, err := algorithms.New(fmt.Sprintf("concurrency:limit=%d,flavor=go", n), 0)
		if err != nil {
			t.Fatal(err)
		}
		c := lab.(algorithms.Completer)
		evs, _ := script(seed, 400, 3*time.Millisecond, 20, false)
		t0 := align()
		entries := map[int]*sbase.SentinelEntry{}
		tickets := map[int]algorithms.Ticket{}
		for _, ev := range evs {
			stepTo(t0, ev.at)
			if i, ok := ev.arrival(); ok {
				e, b := sentinel.Entry(res, sentinel.WithTrafficType(sbase.Inbound))
				want := b == nil
				got := c.Check(ev.at).Pass
				total++
				if got != want {
					t.Fatalf("seed %d arrival %d at %v: lab pass=%v, sentinel-golang pass=%v", seed, i, ev.at, got, want)
				}
				if want {
					entries[i] = e
					tickets[i] = c.Begin(ev.at, ev.at)
				} else {
					blocked++
				}
				continue
			}
			if e, ok := entries[ev.done]; ok {
				e.Exit()
				c.Complete(ev.at, tickets[ev.done], algorithms.Success)
				delete(entries, ev.done)
			}
		}
	}
	if blocked == 0 {
		t.Fatal("no arrival was blocked: the comparison proves nothing")
	}
	t.Logf("%d decisions, %d blocked, identical", total, blocked)
}

func TestSystemMatchesSentinelGolang(t *testing.T) {
	cases := []struct {
		spec  string
		rules []*system.Rule
	}{
		{"sentinel-system:max-thread=4,flavor=go", []*system.Rule{{MetricType: system.Concurrency, TriggerCount: 4}}},
		{"sentinel-system:qps=60,flavor=go", []*system.Rule{{MetricType: system.InboundQPS, TriggerCount: 60}}},
		{"sentinel-system:avg-rt=12,flavor=go", []*system.Rule{{MetricType: system.AvgRT, TriggerCount: 12}}},
		// Float thresholds (issue 33): concurrency < 3.5, avgRT < 12.5.
		{"sentinel-system:max-thread=3.5,flavor=go", []*system.Rule{{MetricType: system.Concurrency, TriggerCount: 3.5}}},
		{"sentinel-system:avg-rt=12.5,flavor=go", []*system.Rule{{MetricType: system.AvgRT, TriggerCount: 12.5}}},
		{"sentinel-system:load=1,flavor=go,strategy=bbr", []*system.Rule{{MetricType: system.Load, TriggerCount: 1, Strategy: system.BBR}}},
		{"sentinel-system:load=1,flavor=go", []*system.Rule{{MetricType: system.Load, TriggerCount: 1, Strategy: system.NoAdaptive}}},
		{"sentinel-system:cpu=0.5,flavor=go,strategy=bbr", []*system.Rule{{MetricType: system.CpuUsage, TriggerCount: 0.5, Strategy: system.BBR}}},
		{"sentinel-system:qps=80,max-thread=6,avg-rt=15,load=1.5,flavor=go,strategy=bbr", []*system.Rule{
			{MetricType: system.InboundQPS, TriggerCount: 80}, {MetricType: system.Concurrency, TriggerCount: 6},
			{MetricType: system.AvgRT, TriggerCount: 15}, {MetricType: system.Load, TriggerCount: 1.5, Strategy: system.BBR}}},
	}
	total, blocked := 0, 0
	for ci, tc := range cases {
		if _, err := system.LoadRules(tc.rules); err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			lab, err := algorithms.New(tc.spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			c := lab.(algorithms.Completer)
			sig := newScriptedSignals(seed)
			lab.(algorithms.SignalReader).BindSignals(sig)
			evs, _ := script(seed*7+uint64(ci), 600, 8*time.Millisecond, 40, false)
			t0 := align()
			entries := map[int]*sbase.SentinelEntry{}
			tickets := map[int]algorithms.Ticket{}
			nextSample := time.Duration(0)
			for _, ev := range evs {
				stepTo(t0, ev.at)
				// SystemStatusListener's schedule: 0, 1 s, 2 s, …
				for nextSample <= ev.at {
					system_metric.SetSystemLoad(sig.Load1(nextSample))
					system_metric.SetSystemCpuUsage(sig.CPU(nextSample))
					nextSample += time.Second
				}
				if i, ok := ev.arrival(); ok {
					e, b := sentinel.Entry("sys", sentinel.WithTrafficType(sbase.Inbound))
					want := b == nil
					got := c.Check(ev.at).Pass
					total++
					if got != want {
						t.Fatalf("%s seed %d arrival %d at %v: lab pass=%v, sentinel-golang pass=%v (%v)", tc.spec, seed, i, ev.at, got, want, b)
					}
					if want {
						entries[i] = e
						tickets[i] = c.Begin(ev.at, ev.at)
					} else {
						blocked++
					}
					continue
				}
				if e, ok := entries[ev.done]; ok {
					e.Exit()
					c.Complete(ev.at, tickets[ev.done], algorithms.Success)
					delete(entries, ev.done)
				}
			}
		}
	}
	system.ClearRules()
	if blocked == 0 {
		t.Fatal("no arrival was blocked")
	}
	t.Logf("%d decisions, %d blocked, identical", total, blocked)
}

// scriptedSignals changes load1 and cpu at random whole 300 ms steps.
type scriptedSignals struct {
	at         []time.Duration
	load, cpus []float64
}

func newScriptedSignals(seed uint64) *scriptedSignals {
	rng := rand.New(rand.NewPCG(seed, 5))
	s := &scriptedSignals{}
	for t := time.Duration(0); t < 60*time.Second; t += 300 * time.Millisecond {
		s.at = append(s.at, t)
		s.load = append(s.load, 2*rng.Float64())
		s.cpus = append(s.cpus, rng.Float64())
	}
	return s
}

func (s *scriptedSignals) idx(t time.Duration) int {
	i := 0
	for i+1 < len(s.at) && s.at[i+1] <= t {
		i++
	}
	return i
}

func (s *scriptedSignals) CPU(t time.Duration) float64   { return s.cpus[s.idx(t)] }
func (s *scriptedSignals) Load1(t time.Duration) float64 { return s.load[s.idx(t)] }
