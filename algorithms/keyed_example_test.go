package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// nginx's limit_req on one key, on the virtual clock: rate=2r/s, burst=1.
func ExampleNginxLimitReq() {
	l, _ := algorithms.New("nginx-limit-req:rate=2r/s,burst=1", 0)
	rl := l.(algorithms.RequestLimiter)
	r := algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{0, algorithms.NoKey, algorithms.NoKey, algorithms.NoKey}, Cost: 1}
	for _, ms := range []int{0, 100, 200, 600} {
		d := rl.DecideRequest(time.Duration(ms)*time.Millisecond, &r)
		fmt.Printf("%4d ms: pass=%v wait=%v\n", ms, d.Pass, d.Wait)
	}
	// Output:
	//    0 ms: pass=true wait=0s
	//  100 ms: pass=true wait=400ms
	//  200 ms: pass=false wait=0s
	//  600 ms: pass=true wait=400ms
}

// Sentinel's hot-parameter rule on one value: count=2 per second, tokens
// refilled only after more than a whole second.
func ExampleSentinelParam() {
	l, _ := algorithms.New("sentinel-param:count=2", 0)
	rl := l.(algorithms.RequestLimiter)
	r := algorithms.Request{Keys: [algorithms.MaxKeyColumns]int32{0, algorithms.NoKey, algorithms.NoKey, algorithms.NoKey}, Cost: 1}
	for _, ms := range []int{0, 10, 20, 1000, 1001} {
		fmt.Printf("%4d ms: pass=%v\n", ms, rl.DecideRequest(time.Duration(ms)*time.Millisecond, &r).Pass)
	}
	// Output:
	//    0 ms: pass=true
	//   10 ms: pass=true
	//   20 ms: pass=false
	// 1000 ms: pass=false
	// 1001 ms: pass=true
}
