package registry_test

import (
	"context"
	"fmt"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/registry"
)

// Two specs of two families built through the one registry: an in-memory
// chain and a Redis limiter on the embedded backend the Env opens for it.
func ExampleNew() {
	env, err := registry.NewEnv(context.Background(), "", distributed.DefaultTimeout, 0)
	if err != nil {
		panic(err)
	}
	defer env.Close()
	for _, s := range []string{"fixed-window:limit=2+circuit-breaker:strategy=error-count,threshold=5", "redis-gcra:rate=2"} {
		l, err := registry.New(s, 0, env)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s (redis: %v)\n", l.Spec(), registry.Caps(s).Has(algorithms.CapRedis))
	}
	fmt.Println("backend opened:", env.Opened())
	// Output:
	// fixed-window:limit=2,window=1s+circuit-breaker:strategy=error-count,threshold=5,min-requests=5,stat-interval=1s,recovery=10s (redis: false)
	// redis-gcra:rate=2,burst=2,period=1s,instances=1,skew=0s,rtt=0s,clock=instance (redis: true)
	// backend opened: true
}

// Check validates a spec as New would, without opening anything.
func ExampleCheck() {
	fmt.Println(registry.Check("leap-array:sample-count=4", 100))
	fmt.Println(registry.Check("leap-array:sample-count=3", 100))
	fmt.Println(registry.Check("redis-fixed-window", 2.5))
	// Output:
	// <nil>
	// leap-array: sample-count 3 does not divide interval 1s, and Sentinel requires the interval to be evenly divided; pick a divisor of 1000 such as 2 or 4
	// redis-fixed-window: limit must be a positive whole number, got 2.5 (the scenario's limit): Redis counts whole requests (for example limit=100)
}
