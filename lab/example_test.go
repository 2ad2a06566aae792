package lab_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// A Go program replays a small trace, held in memory, through two
// limiters and prints what each let through.
func Example() {
	// 30 requests 10 ms apart from t=900 ms: a burst across the boundary
	// of the second.
	var trace strings.Builder
	trace.WriteString("t_ms\n")
	for i := range 30 {
		fmt.Fprintf(&trace, "%d\n", 900+10*i)
	}
	opts := lab.DefaultOptions()
	opts.Source = lab.Source{Trace: "-", In: strings.NewReader(trace.String()), Limit: 10, LimitSet: true}
	opts.Specs = []string{"fixed-window", "sliding-log"}
	ctx := context.Background()
	plan, err := lab.NewPlan(ctx, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer plan.Close()
	res, err := plan.Replay(ctx, lab.Hooks{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Algorithms {
		fmt.Printf("%s: passed %d of %d, at most %d in one second\n", a.Spec, a.Passed, a.Arrived, a.MaxWindowPassed)
	}
	// Output:
	// fixed-window:limit=10,window=1s: passed 20 of 30, at most 20 in one second
	// sliding-log:limit=10,window=1s,history=10s: passed 10 of 30, at most 10 in one second
}

// A catalog scenario, replayed with its own limit through two specs.
func ExamplePlan_Replay() {
	opts := lab.DefaultOptions()
	opts.Source.Scenario = "boundary-burst"
	opts.Specs = []string{"fixed-window", "leap-array:sample-count=10"}
	ctx := context.Background()
	plan, err := lab.NewPlan(ctx, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer plan.Close()
	res, err := plan.Replay(ctx, lab.Hooks{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Algorithms {
		fmt.Printf("%s: passed %d of %d, overshoot %.2f\n", a.Spec, a.Passed, a.Arrived, a.Overshoot)
	}
	// Output:
	// fixed-window:limit=500,window=1s: passed 1000 of 1000, overshoot 2.00
	// leap-array:limit=500,sample-count=10,interval=1s: passed 500 of 1000, overshoot 1.00
}
