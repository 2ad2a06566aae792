package simulator_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// every yields one arrival every step in [0, end).
type every struct{ step, t, end time.Duration }

func (e *every) Next() (scenarios.Arrival, bool) {
	if e.t >= e.end {
		return scenarios.Arrival{}, false
	}
	a := scenarios.Arrival{At: e.t, Clock: e.t}
	e.t += e.step
	return a, true
}
func (e *every) Err() error   { return nil }
func (e *every) Close() error { return nil }

// A fixed window of 3 requests per 100 ms, fed one request every 20 ms:
// the first three of each window pass, the other two are blocked.
func ExampleRun() {
	lim, err := algorithms.New("fixed-window:limit=3,window=100ms", 0)
	if err != nil {
		panic(err)
	}
	cfg := simulator.DefaultConfig()
	cfg.Scenario, cfg.Limit, cfg.End = "every-20ms", 30, 200*time.Millisecond
	res, err := simulator.Run(context.Background(), &every{step: 20 * time.Millisecond, end: cfg.End},
		[]algorithms.Limiter{lim}, cfg)
	if err != nil {
		panic(err)
	}
	simulator.WriteSeriesCSV(os.Stdout, res)
	a := res.Algorithms[0]
	fmt.Printf("passed %d of %d; at most %d in any 1s window (limit %.0f)\n",
		a.Passed, a.Arrived, a.MaxWindowPassed, a.WindowLimit)
	// Output:
	// algorithm,bin_start_ms,arrived,passed,blocked,wait_mean_ms,wait_max_ms
	// "fixed-window:limit=3,window=100ms",0,3,3,0,0.000000,0
	// "fixed-window:limit=3,window=100ms",50,2,0,2,0.000000,0
	// "fixed-window:limit=3,window=100ms",100,3,3,0,0.000000,0
	// "fixed-window:limit=3,window=100ms",150,2,0,2,0.000000,0
	// passed 6 of 10; at most 6 in any 1s window (limit 30)
}
