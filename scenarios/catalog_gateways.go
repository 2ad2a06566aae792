package scenarios

import "time"

// The gateway scenarios: each shows one gateway limiter's surprise beside
// the others and beside Sentinel's leap-array and x/time/rate's
// token-bucket, on the same arrivals. Every gateway row is configured for
// the scenario's limit.

// gatewayRows are the gateway limiters at 100 requests a second.
var gatewayRows = []string{
	"leap-array",
	"token-bucket",
	"envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s",
	"envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s,mode=timer",
	"traefik:average=100,burst=100",
	"haproxy:limit=100,period=1s",
	"kong:second=100",
	"resilience4j:limit-for-period=100,refresh-period=1s,timeout=0s",
	"bucket4j:capacity=100,refill-tokens=100",
}

func gatewayBoundary() Scenario {
	return Scenario{
		Name:        "gateway-boundary",
		Description: "100 requests in the 100 ms before t = 1 s and 100 in the 100 ms after, limit 100/s: which gateways pass twice the limit across a window or refill edge",
		Limit:       100, Duration: 3 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhaseBurst, Start: 900 * ms, Duration: 100 * ms, Count: 100},
			{Type: PhaseBurst, Start: 1000 * ms, Duration: 100 * ms, Count: 100},
		},
		Algorithms: append([]string(nil), gatewayRows...),
	}
}

func gatewayIdleSecond() Scenario {
	return Scenario{
		Name:        "gateway-idle-second",
		Description: "bursts of 10 within 10 ms at 0.9 s and 2.0 s of every 2 s, limit 1/s with a burst of 10: Traefik's bucket expires after a pause just over a second and comes back full",
		Limit:       1, Duration: 20 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhaseBurst, Start: 900 * ms, Duration: 10 * ms, Count: 10, Every: 2 * time.Second, Until: 20 * time.Second},
			{Type: PhaseBurst, Start: 2000 * ms, Duration: 10 * ms, Count: 10, Every: 2 * time.Second, Until: 20 * time.Second},
		},
		Algorithms: []string{
			"token-bucket:rate=1,burst=10",
			"traefik:average=1,burst=10",
			"envoy-local:max-tokens=10,tokens-per-fill=1,fill-interval=1s",
			"bucket4j:capacity=10,refill-tokens=1",
			"leap-array",
		},
	}
}

func gatewayOverLimit() Scenario {
	return Scenario{
		Name:        "gateway-over-limit",
		Description: "evenly spaced traffic at 1.2 times the limit for 60 s: HAProxy counts its denials and passes nothing after the first second; Kong's redis policy counts rejections into the minute",
		Limit:       100, Duration: 60 * time.Second, Seed: 1,
		Phases: []Phase{
			{Type: PhaseConstant, Rate: 120},
		},
		Algorithms: []string{
			"leap-array",
			"token-bucket",
			"envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s",
			"traefik:average=100,burst=100",
			"haproxy:limit=100,period=1s",
			"haproxy:limit=1000,period=10s",
			"kong:second=100,minute=5000",
			"kong:second=100,minute=5000,policy=redis",
			"resilience4j:limit-for-period=100,refresh-period=1s,timeout=0s",
			"bucket4j:capacity=100,refill-tokens=100",
		},
	}
}
