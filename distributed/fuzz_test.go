package distributed

import (
	"strings"
	"testing"
)

// FuzzParse: any spec string either parses to a Spec whose canonical form
// parses back to the same Spec, or fails with one line; it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"redis-sliding-log:limit=10,atomic=false,count=all,instances=3,skew=50ms,rtt=2ms,clock=redis",
		"redis-fixed-window:limit=1,window=7ms",
		"redis-bucketed:limit=60,window=60s,buckets=60",
		"redis-gcra:rate=5,burst=1,period=1500ms",
		"redis-script:file=testdata/seed.lua,limit=3",
		"redis-spring-gateway:replenish-rate=5,burst-capacity=2,requested-tokens=3,key=route",
		"redis-envoy-ratelimit:limit=7,unit=month,local-cache=true,stop-increment-over-limit=true,shadow-mode=true",
		"redis-cell:max-burst=0,count=30,period=60s,clock=redis", "redis-cell:count=2000000", "redis-envoy-ratelimit:limit=1e10",
		"redis-fixed-window:limit=1e3", "redis-gcra:rate=,", "redis-:", "REDIS-GCRA : rate = 3",
	} {
		f.Add(s, 100.0)
	}
	f.Fuzz(func(t *testing.T, spec string, limit float64) {
		s, err := Parse(spec, limit)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: a multi-line error: %q", spec, err)
			}
			return
		}
		again, err := Parse(s.String(), 0)
		if err != nil {
			t.Fatalf("%q: canonical %q does not parse: %v", spec, s.String(), err)
		}
		if again.String() != s.String() || *again != *s {
			t.Fatalf("%q: canonical %q parses as %q", spec, s.String(), again.String())
		}
	})
}
