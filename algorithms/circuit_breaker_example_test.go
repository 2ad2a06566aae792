package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// A slow-ratio breaker: five slow calls open it, the request at opening +
// recovery is the probe, and the probe's fast answer closes it.
func ExampleCircuitBreaker() {
	l, _ := algorithms.New("circuit-breaker:strategy=slow-ratio,max-rt=100ms,recovery=1s", 0)
	b := l.(*algorithms.CircuitBreaker)
	ms := time.Millisecond
	for i := 0; i < 5; i++ {
		b.Check(time.Duration(i) * ms)
		b.Complete(time.Duration(i)*ms, time.Duration(i)*ms+200*ms, false)
	}
	fmt.Println(b.State(), b.Check(1203*ms).Pass)
	fmt.Println(b.Check(1204*ms).Pass, b.State(), b.Check(1205*ms).Pass)
	b.Complete(1204*ms, 1210*ms, false)
	fmt.Println(b.State(), b.Check(1211*ms).Pass)
	// Output:
	// OPEN false
	// true HALF_OPEN false
	// CLOSED true
}

// A chain asks the leaky bucket first, then the breaker after the wait.
func ExampleChain() {
	l, _ := algorithms.New("leaky-bucket:limit=10+circuit-breaker:strategy=error-count,threshold=0", 0)
	c := l.(*algorithms.Chain)
	fmt.Println(len(c.Stages()), c.Breaker() != nil, c.Rate())
	fmt.Println(c.Decide(0), c.Decide(30*time.Millisecond))
	// Output:
	// 2 true 10
	// {true 0s} {true 70ms}
}
