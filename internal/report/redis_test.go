package report

import (
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

func redisReport() *Report {
	res := &simulator.Result{Scenario: "redis-race", Limit: 100, Bin: 50 * time.Millisecond, Window: time.Second, End: time.Second,
		Algorithms: []simulator.AlgoResult{
			{Spec: "redis-sliding-log:limit=100,window=1s,atomic=true,count=passed,instances=4,skew=0s,rtt=4ms,clock=instance",
				Name: "redis-sliding-log", Rate: 100, Arrived: 200, Passed: 100, Redis: &simulator.RedisFigures{Commands: 200, PeakMembers: 100, PeakBytes: -1}},
			{Spec: "fixed-window:limit=100,window=1s", Name: "fixed-window", Rate: 100, Arrived: 200, Passed: 100},
			{Spec: "redis-sliding-log:limit=100,window=1s,atomic=false,count=passed,instances=4,skew=0s,rtt=4ms,clock=instance",
				Name: "redis-sliding-log", Rate: 100, Arrived: 200, Passed: 139, Redis: &simulator.RedisFigures{Commands: 650, PeakMembers: 139, PeakBytes: 4096}},
		}}
	return &Report{Result: res}
}

// The Redis figures follow the main table under the same short names, in
// the terminal table (fitted) and in Markdown.
func TestRedisFiguresUnderShortNames(t *testing.T) {
	for _, w := range []int{100, 80} {
		r := redisReport()
		r.Width = w
		var b strings.Builder
		if err := Table(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if maxWidth(out) > w {
			t.Errorf("width %d: a line of %d columns:\n%s", w, maxWidth(out), out)
		}
		if strings.Count(out, "│ redis-sliding-log atomic=false │") != 2 || strings.Contains(out, "│ redis-sliding-log:") ||
			!strings.Contains(out, "redis commands") {
			t.Errorf("width %d:\n%s", w, out)
		}
	}
	var b strings.Builder
	if err := Markdown(&b, redisReport()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| algorithm | redis commands | commands/arrival | peak members | peak bytes |\n| --- | ---: | ---: | ---: | ---: |\n",
		"| redis-sliding-log atomic=true | 200 | 1.00 | 100 | - |\n| redis-sliding-log atomic=false | 650 | 3.25 | 139 | 4096 |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}
