package distributed_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/distributed"
)

// Seed 002's §4.2: two instances, 2 ms round trips, ZCARD and ZADD a
// round trip apart. The arrivals at 20 ms and 21 ms both read a count of
// 2 before either ZADD lands, so four requests pass a limit of 3.
func Example() {
	b, err := distributed.OpenEmbedded()
	if err != nil {
		panic(err)
	}
	defer b.Close()
	s, err := distributed.Parse("redis-sliding-log:limit=3,instances=2,rtt=2ms,atomic=false", 0)
	if err != nil {
		panic(err)
	}
	l, err := distributed.New(s, b, distributed.Options{})
	if err != nil {
		panic(err)
	}
	for _, ms := range []int{0, 10, 20, 21, 22} {
		d := l.Decide(time.Duration(ms) * time.Millisecond)
		fmt.Printf("%2d ms: pass=%v wait=%v\n", ms, d.Pass, d.Wait)
	}
	if err := l.Finish(); err != nil {
		panic(err)
	}
	f := l.Figures()
	fmt.Println("commands:", f.Commands, "peak members:", f.PeakMembers)
	// Output:
	//  0 ms: pass=true wait=4ms
	// 10 ms: pass=true wait=4ms
	// 20 ms: pass=true wait=4ms
	// 21 ms: pass=true wait=4ms
	// 22 ms: pass=false wait=0s
	// commands: 18 peak members: 4
}
