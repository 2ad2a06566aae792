package distributed_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/distributed"
)

// Spring Cloud Gateway's RedisRateLimiter refills by whole seconds of
// Redis TIME: with a rate of 2/s and a burst of 4, the tokens spent at 0
// come back two at a time, at 1 s and 2 s, not continuously.
func Example_springGateway() {
	b, err := distributed.OpenEmbedded()
	if err != nil {
		panic(err)
	}
	defer b.Close()
	s, err := distributed.Parse("redis-spring-gateway:replenish-rate=2,burst-capacity=4", 0)
	if err != nil {
		panic(err)
	}
	l, err := distributed.New(s, b, distributed.Options{})
	if err != nil {
		panic(err)
	}
	for _, ms := range []int{0, 0, 0, 0, 0, 999, 1000, 1000, 1000, 2000} {
		fmt.Printf("%4d ms: pass=%v\n", ms, l.Decide(time.Duration(ms)*time.Millisecond).Pass)
	}
	if err := l.Finish(); err != nil {
		panic(err)
	}
	f := l.Figures()
	fmt.Println("commands:", f.Commands, "keys:", f.PeakMembers)
	// Output:
	//    0 ms: pass=true
	//    0 ms: pass=true
	//    0 ms: pass=true
	//    0 ms: pass=true
	//    0 ms: pass=false
	//  999 ms: pass=false
	// 1000 ms: pass=true
	// 1000 ms: pass=true
	// 1000 ms: pass=false
	// 2000 ms: pass=true
	// commands: 10 keys: 2
}

// envoyproxy/ratelimit's windows are aligned to the Unix epoch: three
// requests just before a second's boundary and three just after all pass
// a limit of 3 per second.
func Example_envoyRatelimit() {
	b, err := distributed.OpenEmbedded()
	if err != nil {
		panic(err)
	}
	defer b.Close()
	s, err := distributed.Parse("redis-envoy-ratelimit:limit=3,unit=second", 0)
	if err != nil {
		panic(err)
	}
	l, err := distributed.New(s, b, distributed.Options{})
	if err != nil {
		panic(err)
	}
	for _, ms := range []int{990, 995, 999, 999, 1000, 1001, 1002, 1003} {
		fmt.Printf("%4d ms: pass=%v\n", ms, l.Decide(time.Duration(ms)*time.Millisecond).Pass)
	}
	if err := l.Finish(); err != nil {
		panic(err)
	}
	f := l.Figures()
	fmt.Println("commands:", f.Commands, "window keys:", f.PeakMembers)
	// Output:
	//  990 ms: pass=true
	//  995 ms: pass=true
	//  999 ms: pass=true
	//  999 ms: pass=false
	// 1000 ms: pass=true
	// 1001 ms: pass=true
	// 1002 ms: pass=true
	// 1003 ms: pass=false
	// commands: 16 window keys: 2
}
