package algorithms

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// capsBaseSpecs are the kinds that need parameters to build; every other
// kind builds from its name with a default limit of 10.
var capsBaseSpecs = map[string]string{
	"guava-warming-up": "guava-warming-up:warm-up=2s",
	"circuit-breaker":  "circuit-breaker:strategy=error-count,threshold=5",
	"nginx-limit-req":  "nginx-limit-req:rate=10r/s",
	"sentinel-system":  "sentinel-system:qps=10",
}

// capsBase is kind name's spec for the capability tests, and how to add a
// parameter to it.
func capsBase(name string) (spec, sep string) {
	spec, ok := capsBaseSpecs[name]
	if !ok {
		spec = name
	}
	if strings.Contains(spec, ":") {
		return spec, ","
	}
	return spec, ":"
}

// Every kind's Caps say what it does: each capability is checked against
// the behaviour it names, in both directions.
func TestCapsMatchBehaviour(t *testing.T) {
	for _, in := range List() {
		t.Run(in.Name, func(t *testing.T) {
			base, sep := capsBase(in.Name)
			l, err := New(base, 10)
			if err != nil {
				t.Fatalf("%s: %v", base, err)
			}
			if in.Caps.Has(CapRedis) {
				t.Errorf("%s declares redis; no limiter of this package runs on Redis", in.Name)
			}

			// key=COLUMN builds, and reads that column.
			keyed, err := New(base+sep+"key=k", 10)
			if got := err == nil; got != in.Caps.Has(CapKeyColumn) {
				t.Errorf("%s: key=k builds %v (%v), Caps %s", in.Name, got, err, in.Caps)
			}
			if err == nil {
				ku, ok := keyed.(KeyColumnUser)
				if !ok || !slices.Equal(ku.KeyColumns(), []string{"k"}) {
					t.Errorf("%s: key=k gives %T, not a reader of column k", in.Name, keyed)
				}
			}

			// check-to-add=1ms builds, wrapping the limiter.
			cta, err := New(base+sep+"check-to-add=1ms", 10)
			if got := err == nil; got != in.Caps.Has(CapCheckToAdd) {
				t.Errorf("%s: check-to-add=1ms builds %v (%v), Caps %s", in.Name, got, err, in.Caps)
			}
			if _, wrapped := cta.(*CheckToAdd); err == nil && !wrapped {
				t.Errorf("%s: check-to-add=1ms gives %T, not a CheckToAdd", in.Name, cta)
			}
			// and matters: passes decided within the gap are not yet
			// counted, so a burst at one instant gets more through.
			if err == nil && slices.Equal(burst(cta), burst(l)) {
				t.Errorf("%s: check-to-add=1ms decides a burst as without it; its pass is recorded in one step", in.Name)
			}

			// A chain takes it as a stage (after another, as a breaker
			// must be last).
			_, isStage := l.(Stage)
			_, err = New("fixed-window:limit=5+"+base, 10)
			if got := err == nil; got != in.Caps.Has(CapStage) || isStage != in.Caps.Has(CapStage) {
				t.Errorf("%s: chain stage builds %v (%v), is a Stage %v, Caps %s", in.Name, got, err, isStage, in.Caps)
			}

			// It reads completions: the simulator's closed loop feeds a
			// Completer and a circuit breaker (simulator/chain.go).
			_, completer := l.(Completer)
			_, breaker := l.(interface {
				Complete(entry, exit time.Duration, failed bool)
			})
			if got := completer || breaker; got != in.Caps.Has(CapClosedLoop) {
				t.Errorf("%s: reads completions %v, Caps %s", in.Name, got, in.Caps)
			}

			// A request's cost changes its decisions, alone and per key.
			if got := chargesCost(t, base); got != in.Caps.Has(CapCost) {
				t.Errorf("%s: cost 5 decides differently from cost 1: %v, Caps %s", in.Name, got, in.Caps)
			}
			if in.Caps.Has(CapKeyColumn) && !strings.Contains(base, "key=") {
				if got := chargesCost(t, base+sep+"key=k"); got != in.Caps.Has(CapCost) {
					t.Errorf("%s with key=k: cost 5 decides differently from cost 1: %v, Caps %s", in.Name, got, in.Caps)
				}
			}
		})
	}
}

// chargesCost reports whether two fresh limiters of spec decide a burst
// differently when every request costs 5 rather than 1: 100 arrivals at
// t = 0, 100 more 1 ms apart and 100 more 10 ms apart, all of key 0.
func chargesCost(t *testing.T, spec string) bool {
	t.Helper()
	run := func(cost int32) []Decision {
		l, err := New(spec, 10)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if sr, ok := l.(SignalReader); ok {
			sr.BindSignals(ConstSignals{Cpu: 0.5, Load: 1})
		}
		if ku, ok := l.(KeyColumnUser); ok {
			if err := ku.BindKeyColumns([]int{0}); err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
		}
		r := Request{Keys: noKeys, Cost: cost}
		r.Keys[0] = 0
		var out []Decision
		for i := range 300 {
			// The last 100, 10 ms apart, reach past the 100 ms a request
			// of cost 1 at 10/s pays (Guava moves its next free ticket by
			// the cost and refuses nothing for its size).
			now := time.Duration(max(i-100, 0)) * time.Millisecond
			if i >= 200 {
				now = 100*time.Millisecond + time.Duration(i-200)*10*time.Millisecond
			}
			rl, ok := l.(RequestLimiter)
			if !ok {
				out = append(out, l.Decide(now))
				continue
			}
			out = append(out, rl.DecideRequest(now, &r))
		}
		return out
	}
	return !slices.Equal(run(1), run(5))
}

// burst decides 40 arrivals at t = 0 and one at 1 s on l.
func burst(l Limiter) []Decision {
	var out []Decision
	for range 40 {
		out = append(out, l.Decide(0))
	}
	return append(out, l.Decide(time.Second))
}
