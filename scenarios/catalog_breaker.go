package scenarios

import "time"

// The breaker scenarios: a limiter alone, and a limiter with a breaker, in
// front of a modelled downstream (each row has its own copy).

const slowBreaker = "circuit-breaker:strategy=slow-ratio,max-rt=200ms,threshold=0.5,min-requests=5,recovery=5s"

func slowDownstream() Scenario {
	return Scenario{
		Name:        "slow-downstream",
		Description: "Poisson at 0.8 times the limit into 8 servers of 20 ms that slow to 400 ms from 10 s to 20 s (1 s timeout): limiters alone and with a slow-ratio breaker",
		Limit:       100, Duration: 40 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhasePoisson, Rate: 80},
		},
		Downstream: &Downstream{Servers: 8, Service: 20 * ms, Timeout: time.Second, Seed: 1,
			Phases: []DownstreamPhase{{From: 10 * time.Second, To: 20 * time.Second, Service: 400 * ms}}},
		Algorithms: []string{
			"leap-array",
			"leaky-bucket",
			"leap-array+" + slowBreaker,
			"leaky-bucket+" + slowBreaker,
		},
	}
}

func flapping() Scenario {
	var phases []DownstreamPhase
	for i := 0; i < 10; i++ {
		errs := 0.4
		if i%2 == 1 {
			errs = 0.6
		}
		from := time.Duration(i) * 3 * time.Second
		phases = append(phases, DownstreamPhase{From: from, To: from + 3*time.Second, Service: 20 * ms, Errors: errs})
	}
	return Scenario{
		Name:        "flapping",
		Description: "Poisson at half the limit into a downstream whose errors swing between 40% and 60% every 3 s: how often an error-ratio breaker at 0.5 flips",
		Limit:       100, Duration: 30 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhasePoisson, Rate: 50},
		},
		Downstream: &Downstream{Servers: 8, Service: 20 * ms, Timeout: time.Second, Seed: 1, Phases: phases},
		Algorithms: []string{
			"circuit-breaker:strategy=error-ratio,threshold=0.5,recovery=1s",
			"circuit-breaker:strategy=error-ratio,threshold=0.5,min-requests=20,stat-interval=5s,recovery=1s",
			"circuit-breaker:strategy=error-ratio,threshold=0.5,recovery=10s",
			"leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5,recovery=1s",
		},
	}
}
