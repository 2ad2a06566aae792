package algorithms_test

import (
	"slices"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestChainTable replays docs/algorithms.md's "Chains A+B+…" for one
// caller at a time (Chain.Decide): a request passes only if every stage
// passes; a stage's Check changes its state even when a later stage
// blocks; the pass is recorded only when the whole chain passed; stage i
// is asked at the arrival plus the waits before it, and the chain's wait
// is their sum.
func TestChainTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		// The second request at 0 spends the bucket's last token though the
		// leap-array blocks it, so the second at 1 s finds the bucket empty
		// (token-bucket alone: +++.).
		{"a stage's Check spends its token even when a later stage blocks", "token-bucket:rate=1,burst=2+leap-array:limit=1", []arrival{
			pass(0), block(0), pass(dms(1000)), block(dms(1000)),
		}},
		// The two requests the token bucket blocks at 0 are not counted by
		// the fixed window: at 1 s it holds 1 and passes; at 2 s it holds 2.
		{"a pass is recorded only when the whole chain passed", "fixed-window:limit=2,window=10s+token-bucket:rate=1,burst=1", []arrival{
			pass(0), block(0), block(0), pass(dms(1000)), block(dms(2000)),
		}},
		// The second stage is asked at the arrival plus the first's wait:
		// at 100 ms it waits 100 ms for its turn at 200 ms, and so on.
		{"the chain's wait is the sum of the waits", "leaky-bucket:limit=10,max-queue=500ms+leaky-bucket:limit=5,max-queue=1s", []arrival{
			pass(0), passAfter(0, dms(200)), passAfter(0, dms(400)),
		}},
		// The second request at 0 is blocked by the token bucket, so the
		// throttling is not asked and its latest stays at 0: the request
		// at 1 s does not wait (it would wait 1 s had the throttling
		// queued the blocked one).
		{"the first stage that blocks ends it: later stages are not asked", "token-bucket:rate=1,burst=1+leaky-bucket:limit=1,max-queue=10s", []arrival{
			pass(0), block(0), pass(dms(1000)),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}

func TestChainSpecRateAndStages(t *testing.T) {
	l := mustNew(t, "leaky-bucket:limit=10+token-bucket:rate=3")
	c, ok := l.(*algorithms.Chain)
	if !ok {
		t.Fatalf("New(A+B) is a %T, want *Chain", l)
	}
	if got, want := l.Spec(), "leaky-bucket:limit=10,interval=1s,max-queue=500ms+token-bucket:rate=3,burst=3"; got != want {
		t.Errorf("Spec() = %q, want %q", got, want)
	}
	if got := mustNew(t, l.Spec()).Spec(); got != l.Spec() {
		t.Errorf("New(%q).Spec() = %q", l.Spec(), got)
	}
	if got := l.Rate(); got != 3 {
		t.Errorf("Rate() = %v, want 3, the smallest rate", got)
	}
	if len(c.Stages()) != 2 || c.Breaker() != nil {
		t.Errorf("Stages() = %d stages, Breaker() = %v", len(c.Stages()), c.Breaker())
	}
	b := mustNew(t, "leap-array:limit=5+circuit-breaker:strategy=error-count,threshold=2").(*algorithms.Chain)
	if b.Breaker() == nil || b.Breaker() != b.Stages()[1] {
		t.Errorf("Breaker() is not the last stage")
	}
	// A lone breaker is a *CircuitBreaker, not a chain.
	if _, ok := mustNew(t, "circuit-breaker:strategy=error-count,threshold=2").(*algorithms.CircuitBreaker); !ok {
		t.Errorf("a lone circuit-breaker is not a *CircuitBreaker")
	}
}

// TestChainSplitting: a chain is split at a '+' followed by a limiter
// name, so a number's exponent is not a stage.
func TestChainSplitting(t *testing.T) {
	cases := map[string][]string{
		"token-bucket:rate=1+leap-array:limit=2":                     {"token-bucket", "leap-array"},
		"sliding-log:limit=1e+3":                                     {"sliding-log"},
		"leap-array:limit=1+none":                                    {"leap-array", "none"},
		"nginx-limit-req:rate=1r/s+nginx-limit-req:rate=2r/s,key=ip": {"nginx-limit-req", "nginx-limit-req"},
	}
	for spec, want := range cases {
		if got := algorithms.StageNames(spec); !slices.Equal(got, want) {
			t.Errorf("StageNames(%q) = %q, want %q", spec, got, want)
		}
	}
	if got := mustNew(t, "sliding-log:limit=1e+3").Spec(); got != "sliding-log:limit=1000,window=1s,history=10s" {
		t.Errorf("limit=1e+3 built %q", got)
	}
}

func TestChainErrors(t *testing.T) {
	checkErrors(t, map[string][]string{
		"leap-array:limit=1+":                           {"has an empty stage"},
		"+leap-array:limit=1":                           {"has an empty stage"},
		"leap-array:limit=1+redis-fixed-window:limit=1": {`"redis-fixed-window" is a Redis limiter`, "not as a stage of a chain"},
		"circuit-breaker:strategy=error-count,threshold=1+leap-array:limit=1":                                                  {"has the circuit breaker before leap-array; put it last"},
		"leap-array:limit=1+circuit-breaker:strategy=error-count,threshold=1+circuit-breaker:strategy=error-count,threshold=1": {"has 2 circuit breakers; keep one, last"},
		"leap-array:limit=1+lepa-array:limit=2":                                                                                {`unknown algorithm "lepa-array" (did you mean "leap-array"?)`},
	})
	if _, err := algorithms.NewChain(); err == nil {
		t.Errorf("NewChain() with no stage builds")
	}
}
