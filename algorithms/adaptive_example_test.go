package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// A concurrency limit on the virtual clock: Check at each arrival, Begin
// for a pass, Complete when the call ends.
func ExampleConcurrency() {
	l, _ := algorithms.NewConcurrency(algorithms.ConcurrencyConfig{Limit: 2})
	ms := time.Millisecond
	var open []algorithms.Ticket
	for _, at := range []time.Duration{0, 1 * ms, 2 * ms} {
		d := l.Check(at)
		if d.Pass {
			open = append(open, l.Begin(at, at))
		}
		fmt.Println(at, d.Pass, l.InFlight())
	}
	l.Complete(3*ms, open[0], algorithms.Failure) // an error frees the slot too
	fmt.Println(4*ms, l.Check(4*ms).Pass, l.InFlight())
	// Output:
	// 0s true 1
	// 1ms true 2
	// 2ms false 2
	// 4ms true 1
}

// Envoy's controller starts in a minRTT window at its minimum concurrency
// and returns to the limit it had once request-count samples are in.
func ExampleEnvoyAdaptive() {
	e, _ := algorithms.NewEnvoyAdaptive(algorithms.EnvoyAdaptiveConfig{Interval: 30 * time.Second, UpdateInterval: 100 * time.Millisecond,
		RequestCount: 5, Percentile: 50, Buffer: 25, Min: 3, Max: 1000})
	ms := time.Millisecond
	fmt.Println("limit at 0:", e.CurrentLimit(0))
	for i := 1; i <= 5; i++ {
		t := time.Duration(i) * 10 * ms
		e.Check(t)
		tk := e.Begin(t, t)
		e.Complete(t+time.Duration(i)*ms, tk, algorithms.Success)
	}
	fmt.Println("minRTT:", e.MinRTT())
	// Output:
	// limit at 0: 3
	// minRTT: 3.05ms
}
