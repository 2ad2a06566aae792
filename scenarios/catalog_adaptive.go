package scenarios

import "time"

// The adaptive scenarios (issue 16): concurrency limits and adaptive
// protections in front of a modelled downstream, each row with its own
// copy of the service and of the clients' retries.

// adaptiveAlgorithms is what most adaptive scenarios compare: nothing in
// front, a static thread limit, the Netflix limits, Envoy's controller
// and Sentinel's system thread rule.
var adaptiveAlgorithms = []string{
	"none",
	"concurrency:limit=16",
	"aimd",
	"vegas:probe=off",
	"gradient2",
	"envoy-adaptive:interval=10s",
	"sentinel-system:max-thread=16",
}

// The retry storm's clients: 1 s timeout, 3 retries, exponential backoff
// from 100 ms with full jitter, retrying rejections, errors and timeouts.
func stormClients() *Clients {
	return &Clients{Retries: 3, RetryOnReject: true, RetryOnError: true, RetryOnTimeout: true,
		Backoff: Backoff{Base: 100 * ms, Cap: 2 * time.Second, Jitter: JitterFull}}
}

// AdaptiveScenarioNames lists the adaptive scenarios of the catalog.
var AdaptiveScenarioNames = []string{"latency-step", "overload-ramp", "cpu-slowdown", "io-slowdown", "retry-storm", "envoy-min-rtt"}

func adaptiveCatalog() []Scenario {
	algos := func(extra ...string) []string { return append(append([]string(nil), adaptiveAlgorithms...), extra...) }
	return []Scenario{
		{
			Name:        "latency-step",
			Description: "Poisson at 300/s into 64 servers whose service steps from 10 ms to 20 ms at 10 s, capacity to spare: Vegas reads the step as queueing, a static thread limit halves its throughput, Gradient2 at its defaults (at its floor, app-limited) only rises while one that grew from 4 to its own level before the step dips, then rises",
			Limit:       300, Duration: 40 * time.Second, Seed: 1,
			Phases: []Phase{{Type: PhasePoisson, Rate: 300}},
			Downstream: &Downstream{Servers: 64, Service: 10 * ms, Timeout: time.Second, Seed: 1,
				Phases: []DownstreamPhase{{From: 10 * time.Second, To: 40 * time.Second, Service: 20 * ms}}},
			// gradient2:initial=4,min=1,queue-size=1 grows to where bursts
			// reach half its limit before the step, so the step's gradient
			// (tolerance·longRtt/rtt < 1 until the long RTT catches up) can
			// lower it; the default one starts at its floor min=20.
			Algorithms: []string{"none", "concurrency:limit=4", "vegas:probe=off", "gradient2", "gradient2:initial=4,min=1,queue-size=1", "aimd", "envoy-adaptive:interval=10s"},
		},
		{
			Name:        "overload-ramp",
			Description: "Poisson ramping from 200/s to 800/s (about 0.5 to 2 times the capacity) over 40 s into processor sharing on 8 cores with contention (kappa 0.02, 20 ms of work each), 1 s timeout: goodput and latency by algorithm",
			Limit:       400, Duration: 40 * time.Second, Seed: 1,
			Phases:     []Phase{{Type: PhaseRamping, StartRate: 200, Stages: []Stage{{Target: 800, Duration: 40 * time.Second}}}},
			Downstream: &Downstream{Servers: 8, PS: true, Cores: 8, Kappa: 0.02, Service: 20 * ms, Timeout: time.Second, Seed: 1},
			Algorithms: algos(),
		},
		{
			Name:        "cpu-slowdown",
			Description: "Poisson at 300/s into 8 servers of 20 ms that slow to 50 ms of CPU from 10 s to 20 s: the CPU-gated BBRs (aegis, Sentinel's cpu rule) fire",
			Limit:       400, Duration: 40 * time.Second, Seed: 1,
			Phases: []Phase{{Type: PhasePoisson, Rate: 300}},
			Downstream: &Downstream{Servers: 8, Service: 20 * ms, Timeout: time.Second, Seed: 1,
				Phases: []DownstreamPhase{{From: 10 * time.Second, To: 20 * time.Second, Service: 50 * ms}}},
			Algorithms: []string{"none", "aegis-bbr", "sentinel-system:cpu=0.9", "sentinel-system:load=6", "sentinel-system:cpu=0.9,flavor=go,strategy=bbr", "gradient2"},
		},
		{
			Name:        "io-slowdown",
			Description: "as cpu-slowdown, but the extra 30 ms waits on I/O (io: 0.6): the CPU stays low, so the CPU-gated BBRs stay quiet while latency climbs",
			Limit:       400, Duration: 40 * time.Second, Seed: 1,
			Phases: []Phase{{Type: PhasePoisson, Rate: 300}},
			Downstream: &Downstream{Servers: 8, Service: 20 * ms, Timeout: time.Second, Seed: 1,
				Phases: []DownstreamPhase{{From: 10 * time.Second, To: 20 * time.Second, Service: 50 * ms, IOShare: 0.6, HasIO: true}}},
			Algorithms: []string{"none", "aegis-bbr", "sentinel-system:cpu=0.9", "sentinel-system:load=6", "sentinel-system:cpu=0.9,flavor=go,strategy=bbr", "gradient2"},
		},
		{
			Name:        "retry-storm",
			Description: "Poisson at 320/s (0.8 times the capacity of 8 servers of 20 ms), a slowdown to 60 ms from 10 s to 20 s, callers with a 1 s timeout and 3 retries: with nothing in front the service stays saturated after the slowdown",
			Limit:       400, Duration: 60 * time.Second, Seed: 1,
			Phases: []Phase{{Type: PhasePoisson, Rate: 320}},
			Downstream: &Downstream{Servers: 8, Service: 20 * ms, Timeout: time.Second, Seed: 1,
				Phases:  []DownstreamPhase{{From: 10 * time.Second, To: 20 * time.Second, Service: 60 * ms}},
				Clients: stormClients()},
			Algorithms: algos(),
		},
		{
			Name:        "envoy-min-rtt",
			Description: "Poisson at 300/s into 8 servers of 20 ms: Envoy's controller drops to its minimum concurrency for each minRTT window, every 10 s (jitter 0) or every 60 s ± 15%, and blocks the burst that arrives meanwhile",
			Limit:       400, Duration: 60 * time.Second, Seed: 1,
			Phases:     []Phase{{Type: PhasePoisson, Rate: 300}},
			Downstream: &Downstream{Servers: 8, Service: 20 * ms, Timeout: time.Second, Seed: 1},
			Algorithms: []string{"none", "envoy-adaptive:interval=10s,jitter=0%", "envoy-adaptive", "envoy-adaptive:interval=10s,jitter=0%,min=16,request-count=100"},
		},
	}
}
