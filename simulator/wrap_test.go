package simulator

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Issue 21, item 1's neighbours in the engine: a wait, a wait plus a
// trace's rt_ms, or a downstream queue of centuries would pass the int64
// nanoseconds and wrap the run's clock (a negative t_ns, or a panic in the
// window maximum). Each stops the run with one line naming the arrival and
// the cause; the same traffic a little shorter still runs.
func TestTimesThatWouldWrapStopTheRun(t *testing.T) {
	const wrap = "would end it past the last time the run's int64 nanosecond clock holds"
	n := func(k int) []scenarios.Arrival {
		ts := make([]time.Duration, k)
		for i := range ts {
			ts[i] = time.Duration(i) * time.Millisecond
		}
		return at(ts...)
	}
	withRT := func(arr []scenarios.Arrival, rt time.Duration) []scenarios.Arrival {
		for i := range arr {
			arr[i].HasResponse, arr[i].RT = true, rt
		}
		return arr
	}
	spec := func(s string) func() algorithms.Limiter {
		return func() algorithms.Limiter {
			l, err := algorithms.New(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
	}
	year := scenarios.MaxTime
	for _, tc := range []struct {
		name string
		lim  func() algorithms.Limiter
		arr  []scenarios.Arrival
		ds   *scenarios.Downstream
		want string // "" : the run succeeds
	}{
		{"plain wait", func() algorithms.Limiter { return &queue{wait: math.MaxInt64 - 5} }, n(2), nil, "arrival 1 at 1ms: the wait of "},
		{"plain wait that fits", func() algorithms.Limiter { return &queue{wait: math.MaxInt64 - 5*time.Millisecond} }, n(2), nil, ""},
		{"guava without a timeout", spec("guava-bursty:rate=0.0000000001,timeout=inf"), n(3), nil, "arrival 1 at 1ms: the wait of "},
		{"chain wait", spec("guava-bursty:rate=0.0000000001,timeout=inf+circuit-breaker:strategy=error-count,threshold=3"), n(3), nil, "arrival 1 at 1ms: the wait its limiters give it"},
		{"wait plus rt_ms", spec("guava-bursty:rate=0.0000000003,timeout=inf+circuit-breaker:strategy=error-count,threshold=3"), withRT(n(3), 6e18), nil, "arrival 1 at 1ms: its wait plus its rt_ms"},
		{"fifo queue", spec("leap-array:limit=10000"), n(300), &scenarios.Downstream{Servers: 1, Service: year}, "arrival 292 at 292ms: the downstream's queue and service"},
		{"fifo queue behind a timeout", spec("leap-array:limit=10000"), n(300), &scenarios.Downstream{Servers: 1, Service: year, Timeout: time.Second}, "arrival 292 at 292ms: the downstream's queue and service"},
		{"fifo queue that fits", spec("leap-array:limit=10000"), n(250), &scenarios.Downstream{Servers: 1, Service: year}, ""},
		{"ps", spec("leap-array:limit=10000"), n(300), &scenarios.Downstream{Servers: 1, PS: true, Cores: 1, Service: year}, "the downstream at 292ms: the processor-sharing service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cfgFor(time.Second)
			cfg.Downstream = tc.ds
			_, err := Run(context.Background(), &sliceStream{arr: tc.arr}, []algorithms.Limiter{tc.lim()}, cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("the run fails: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), wrap) || strings.Contains(err.Error(), "panicked")):
				t.Fatalf("%v, want an error with %q and %q", err, tc.want, wrap)
			}
		})
	}
}
