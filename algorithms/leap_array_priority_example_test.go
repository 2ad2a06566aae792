package algorithms_test

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// A borrow, step by step (docs/algorithms.md): limit 2, two 500 ms
// buckets, occupy timeout 500 ms. The window is full at 600 ms; the
// prioritized D and E wait for the bucket starting at 1000 ms and are
// counted there in advance; F finds 2 borrowed already (maxCount 2) and is
// blocked; G and H find the window full with D and E; I passes.
func ExampleLeapArray_DecideRequest() {
	l, _ := algorithms.New("leap-array:limit=2,sample-count=2,interval=1s", 0)
	ms := time.Millisecond
	for _, a := range []struct {
		name string
		at   time.Duration
		prio bool
	}{
		{"A", 0, false}, {"B", 100 * ms, false}, {"C", 200 * ms, false},
		{"D", 600 * ms, true}, {"E", 700 * ms, true}, {"F", 800 * ms, true},
		{"G", 1000 * ms, false}, {"H", 1500 * ms, false}, {"I", 2000 * ms, false},
	} {
		d := l.(algorithms.RequestLimiter).DecideRequest(a.at, &algorithms.Request{Cost: 1, Priority: a.prio})
		fmt.Printf("%s at %v prioritized=%v: pass=%v wait=%v\n", a.name, a.at, a.prio, d.Pass, d.Wait)
	}
	// Output:
	// A at 0s prioritized=false: pass=true wait=0s
	// B at 100ms prioritized=false: pass=true wait=0s
	// C at 200ms prioritized=false: pass=false wait=0s
	// D at 600ms prioritized=true: pass=true wait=400ms
	// E at 700ms prioritized=true: pass=true wait=300ms
	// F at 800ms prioritized=true: pass=false wait=0s
	// G at 1s prioritized=false: pass=false wait=0s
	// H at 1.5s prioritized=false: pass=false wait=0s
	// I at 2s prioritized=false: pass=true wait=0s
}

// A borrow that never reaches its bucket: when the caller reports exits
// (a run with response times) and D and E answer only after 600 ms,
// nothing reads the window while the bucket [1000 ms, 1500 ms) is current,
// so their borrowed passes are never counted and H passes at 1500 ms.
func ExampleLeapArray_Exit() {
	l, _ := algorithms.New("leap-array:limit=2,sample-count=2,interval=1s", 0)
	la := l.(*algorithms.LeapArray)
	la.ReportExits()
	ms := time.Millisecond
	prio := &algorithms.Request{Cost: 1, Priority: true}
	plain := &algorithms.Request{Cost: 1}
	la.DecideRequest(0, plain)
	la.DecideRequest(100*ms, plain)
	d := la.DecideRequest(600*ms, prio)
	e := la.DecideRequest(700*ms, prio)
	fmt.Println("D waits", d.Wait, "E waits", e.Wait)
	fmt.Println("H at 1.5s passes:", la.DecideRequest(1500*ms, plain).Pass)
	la.Exit(1600 * ms) // D: admitted at 1000 ms, 600 ms of response time
	la.Exit(1600 * ms) // E
	// Output:
	// D waits 400ms E waits 300ms
	// H at 1.5s passes: true
}
