package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// The boundary burst of the seed articles: 500 requests in the last 100 ms
// of a second and 500 in the first 100 ms of the next, at a limit of
// 500/s. The fixed window lets all 1000 through; Sentinel's sliding window
// with two 500 ms buckets lets 500 through.
func Example() {
	for _, spec := range []string{"fixed-window", "leap-array:sample-count=2"} {
		l, err := algorithms.New(spec, 500)
		if err != nil {
			panic(err)
		}
		passed := 0
		for i := 0; i < 1000; i++ {
			now := 900*time.Millisecond + time.Duration(i)*200*time.Microsecond
			if l.Decide(now).Pass {
				passed++
			}
		}
		fmt.Printf("%s: %d of 1000 passed\n", l.Spec(), passed)
	}
	// Output:
	// fixed-window:limit=500,window=1s: 1000 of 1000 passed
	// leap-array:limit=500,sample-count=2,interval=1s: 500 of 1000 passed
}

// Throttling spaces passes 100 ms apart at 10/s and queues up to 500 ms.
func ExampleNew_throttling() {
	l, _ := algorithms.New("leaky-bucket:limit=10,max-queue=500ms", 0)
	for i := 0; i < 7; i++ {
		d := l.Decide(0)
		fmt.Println(d.Pass, d.Wait)
	}
	// Output:
	// true 0s
	// true 100ms
	// true 200ms
	// true 300ms
	// true 400ms
	// true 500ms
	// false 0s
}
