package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// Envoy's atomic bucket in doubles: one token per 100 ms, asked exactly
// every 100 ms, refuses the fourth request (0.3 − 0.2 is
// 0.09999999999999998 seconds: 0.9999999999999998 tokens).
func ExampleNew_envoyLocal() {
	l, _ := algorithms.New("envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=100ms", 0)
	for i := 0; i < 6; i++ {
		at := time.Duration(i) * 100 * time.Millisecond
		fmt.Println(at, l.Decide(at).Pass)
	}
	// Output:
	// 0s true
	// 100ms true
	// 200ms true
	// 300ms false
	// 400ms true
	// 500ms false
}

// Traefik: after a pause into its second whole second, a source's bucket
// has expired and the whole burst passes again.
func ExampleNew_traefik() {
	l, _ := algorithms.New("traefik:average=1,burst=3", 0)
	for _, at := range []time.Duration{900 * time.Millisecond, 900 * time.Millisecond, 900 * time.Millisecond, 900 * time.Millisecond,
		2 * time.Second, 2 * time.Second, 2 * time.Second} {
		d := l.Decide(at)
		fmt.Println(at, d.Pass, d.Wait)
	}
	// Output:
	// 900ms true 0s
	// 900ms true 0s
	// 900ms true 0s
	// 900ms false 0s
	// 2s true 0s
	// 2s true 0s
	// 2s true 0s
}

// HAProxy counts the requests it denies: at twice the limit, ten pass and
// then none.
func ExampleNew_haproxy() {
	l, _ := algorithms.New("haproxy:limit=10,period=10s", 0)
	passed := 0
	for i := 0; i < 120; i++ {
		if l.Decide(time.Duration(i) * 500 * time.Millisecond).Pass {
			passed++
		}
	}
	fmt.Println(passed)
	// Output: 10
}
