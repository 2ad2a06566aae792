package report_test

import (
	"fmt"
	"os"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

func ExampleCheck() {
	res := &simulator.Result{Scenario: "demo", Limit: 100, Bin: 50 * time.Millisecond, Window: time.Second,
		Algorithms: []simulator.AlgoResult{
			{Spec: "fixed-window:limit=100,window=1s", Name: "fixed-window", Rate: 100, Arrived: 300, Passed: 200,
				MaxWindowPassed: 200, WindowLimit: 100, Overshoot: 2},
			{Spec: "sliding-log:limit=100,window=1s,history=10s", Name: "sliding-log", Rate: 100, Arrived: 300, Passed: 100,
				MaxWindowPassed: 100, WindowLimit: 100, Overshoot: 1},
		}}
	var ts []report.Threshold
	for _, s := range []string{"overshoot>1.05", "pass_pct<50"} {
		t, err := report.ParseThreshold(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		ts = append(ts, t)
	}
	crossed, _ := report.Check(res, ts)
	for _, c := range crossed {
		fmt.Println(c)
	}
	_, err := report.ParseThreshold("overshot>1")
	fmt.Println(err != nil)
	// Output:
	// fixed-window: overshoot is 2.000000, crossing --fail-if 'overshoot>1.05' (fixed-window:limit=100,window=1s)
	// sliding-log: pass_pct is 33.3333, crossing --fail-if 'pass_pct<50' (sliding-log:limit=100,window=1s,history=10s)
	// true
}

func ExampleMarkdown() {
	res := &simulator.Result{Scenario: "demo", Limit: 100, Bin: 50 * time.Millisecond, Window: time.Second, End: 3 * time.Second,
		Algorithms: []simulator.AlgoResult{
			{Spec: "leap-array:limit=100,sample-count=10,interval=1s", Name: "leap-array", SampleCount: 10, Rate: 100,
				Arrived: 300, Passed: 210, MaxWindowPassed: 109, WindowLimit: 100, Overshoot: 1.09, SmoothBound: 1.1, PeakBinPassed: 20},
		}}
	report.Markdown(os.Stdout, &report.Report{Result: res, Seed: 7, HasSeed: true})
	// Output:
	// demo · 0s to 3s (3s) · 300 arrivals · limit 100/s · bin 50ms · window 1s · seed 7
	//
	// | algorithm | passed | pass % | max/1s | overshoot | smooth bound | peak/50ms | wait p99 |
	// | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
	// | leap-array N=10 | 210 | 70.0 | 109 | 1.090 | 1.100 | 20 | 0 |
	//
	// Specs:
	//
	// - leap-array N=10: `leap-array:limit=100,sample-count=10,interval=1s`
}
