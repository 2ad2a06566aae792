package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// Guava's documented warm-up: RateLimiter.create(2.0, 4000 ms) with cold
// factor 3, each acquire() arriving as the previous one returns.
func ExampleNew_guavaWarmingUp() {
	l, _ := algorithms.New("guava-warming-up:rate=2,warm-up=4s,timeout=inf", 0)
	var now time.Duration
	for i := 0; i < 8; i++ {
		d := l.Decide(now)
		fmt.Printf("%v ", d.Wait)
		now += d.Wait
	}
	fmt.Println()
	// Output:
	// 0s 1.375s 1.125s 875ms 625ms 500ms 500ms 500ms
}

// seed 002's printed ring after a 5 s idle gap: every call wipes the ring
// until its bucket start has caught up, so 7 of 10 pass at a limit of 3.
func ExampleNew_seedRing() {
	l, _ := algorithms.New("seed-ring:limit=3,window=1s,buckets=10", 0)
	for i := 0; i < 4; i++ {
		l.Decide(0)
	}
	passed := 0
	for i := 0; i < 10; i++ {
		if l.Decide(5050 * time.Millisecond).Pass {
			passed++
		}
	}
	fmt.Println(passed, "of 10 passed")
	// Output:
	// 7 of 10 passed
}
