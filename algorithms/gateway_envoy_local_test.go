package algorithms_test

import (
	"testing"
	"time"
)

// TestEnvoyLocalTable replays docs/algorithms.md's envoy-local section:
// mode=atomic keeps time_old in IEEE doubles, so a whole token can come
// out as 0.9999999999999998; mode=timer counts whole tokens added by a
// timer at phase + k·fill_interval.
func TestEnvoyLocalTable(t *testing.T) {
	cases := []struct {
		name, spec, want string
		ats              []time.Duration
	}{
		// (0.3 − 0.2)·10 = 0.9999999999999998 < 1 refuses the fourth; at
		// 0.4 s 2.0000000000000004 is capped to 1.
		{"atomic: doc worked example, a request every 100 ms", "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=100ms",
			"+++.+.", at(0, 100, 200, 300, 400, 500)},
		{"atomic: a full bucket of max-tokens at creation", "envoy-local:max-tokens=3,tokens-per-fill=1,fill-interval=1s",
			"+++.", times(4, 0)},
		{"atomic: a clock before time_old gives a negative total", "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s",
			"+..+", at(2000, 1500, 2999, 3000)},
		{"timer: doc worked example (phase 30 ms)", "envoy-local:max-tokens=3,tokens-per-fill=2,fill-interval=100ms,mode=timer,phase=30ms",
			"+++." + "." + "++." + "." + "+++.",
			append(append(append(append(times(4, 0), dms(129)), times(3, dms(130))...), dms(229)), times(4, dms(1000))...)},
		{"timer: ticks already fired stay fired when the clock steps back", "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=100ms,mode=timer",
			"+.+..+", at(0, 50, 100, 50, 150, 200)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pattern(mustNew(t, c.spec), c.ats); got != c.want {
				t.Errorf("%s: %s, want %s", c.spec, got, c.want)
			}
		})
	}
}

// TestEnvoyLocalMaxDescriptors is the per-key bound's worked example:
// keys 0..4 twice, 10 ms apart. With an LRU of 2 each key has been erased
// when it comes back and gets a new, full bucket; with 5 or the default 20
// the second round meets five empty buckets.
func TestEnvoyLocalMaxDescriptors(t *testing.T) {
	ats := at(0, 10, 20, 30, 40, 50, 60, 70, 80, 90)
	keys := []int32{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}
	for spec, want := range map[string]string{
		"envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,max-descriptors=2,key=key": "++++++++++",
		"envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,max-descriptors=5,key=key": "+++++.....",
		"envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,key=key":                   "+++++.....",
	} {
		if got := keyPattern(t, mustNew(t, spec), ats, keys); got != want {
			t.Errorf("%s: %s, want %s", spec, got, want)
		}
	}
}

func TestEnvoyLocalErrors(t *testing.T) {
	checkErrors(t, map[string][]string{
		"envoy-local:max-tokens=1,fill-interval=49ms": {"50ms"},
		"envoy-local:max-tokens=1,mode=timer,key=ip":  {"mode=timer cannot be per key"},
		"envoy-local:max-tokens=1,mode=leaky":         {"mode"},
	})
	if _, err := algorithmsNew("envoy-local:max-tokens=1,mode=timer,key=*", 0); err != nil {
		t.Errorf("mode=timer with key=* (one shared state): %v", err)
	}
}
