package algorithms

import (
	"testing"
	"time"
)

// TestEnvoyFractionParse: the enabled= and enforced= forms, N/D with
// Envoy's three denominators or a decimal one of them writes exactly.
func TestEnvoyFractionParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want EnvoyFraction
		ok   bool
	}{
		{"50/100", EnvoyFraction{50, 100}, true},
		{"25/10000", EnvoyFraction{25, 10000}, true},
		{"1/1000000", EnvoyFraction{1, 1000000}, true},
		{"150/100", EnvoyFraction{150, 100}, true}, // Envoy: always (random % 100 < 150)
		{"0.5", EnvoyFraction{50, 100}, true},
		{"0.0125", EnvoyFraction{125, 10000}, true},
		{"0", EnvoyFraction{0, 100}, true},
		{"1", EnvoyFraction{}, true},
		{"0.0000001", EnvoyFraction{}, false},
		{"1.5", EnvoyFraction{}, false},
		{"50/1000", EnvoyFraction{}, false},
		{"half", EnvoyFraction{}, false},
	} {
		got, err := ParseEnvoyFraction("enabled", c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestEnvoyFractionDraws: filter_enabled and filter_enforced below 100%
// are drawn per request as Runtime featureEnabled does, random() %
// denominator < numerator, from the seed Reseed gives; a request not
// enabled passes without a token; a refusal not enforced passes.
func TestEnvoyFractionDraws(t *testing.T) {
	const seed = 42
	for _, c := range []struct {
		name              string
		enabled, enforced EnvoyFraction
	}{
		{"enabled 50/100", EnvoyFraction{50, 100}, EnvoyFraction{}},
		{"enforced 2500/10000", EnvoyFraction{}, EnvoyFraction{2500, 10000}},
		{"both", EnvoyFraction{30, 100}, EnvoyFraction{500000, 1000000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// One token, never refilled within the run: after the first
			// checked request every checked one is refused.
			e, err := NewEnvoyLocal(EnvoyLocalConfig{MaxTokens: 1, TokensPerFill: 1, FillInterval: time.Hour, MaxDescriptors: 20, Enabled: c.enabled, Enforced: c.enforced})
			if err != nil {
				t.Fatal(err)
			}
			e.Reseed(seed)
			ref := splitmix64{s: seed}
			draw := func(f EnvoyFraction) bool { return f.always() || ref.next()%f.Den < f.Num }
			tokens := 1
			skipped, unenforced := 0, 0
			for i := 0; i < 2000; i++ {
				want := true
				switch {
				case !draw(c.enabled):
					skipped++
				case tokens > 0:
					tokens--
				case !draw(c.enforced):
					unenforced++
				default:
					want = false
				}
				if got := e.Decide(time.Duration(i) * time.Millisecond).Pass; got != want {
					t.Fatalf("request %d: pass %v, want %v", i, got, want)
				}
			}
			// The draws take their share (the generator is fixed, so
			// these bounds hold for this seed, not by chance).
			near := func(n int, share float64, of int) bool {
				want := share * float64(of)
				return float64(n) > want-150 && float64(n) < want+150
			}
			if !c.enabled.always() && !near(skipped, 1-float64(c.enabled.Num)/float64(c.enabled.Den), 2000) {
				t.Errorf("%d of 2000 requests not enabled at %v", skipped, c.enabled)
			}
			if c.enabled.always() && !near(unenforced, 1-float64(c.enforced.Num)/float64(c.enforced.Den), 1999) {
				t.Errorf("%d of 1999 refusals not enforced at %v", unenforced, c.enforced)
			}
		})
	}
}

// At 0% enabled the bucket is never checked: everything passes and the
// spec says so; at 100% the spec reads as before the fractions existed.
func TestEnvoyFractionSpec(t *testing.T) {
	e, err := NewEnvoyLocal(EnvoyLocalConfig{MaxTokens: 1, TokensPerFill: 1, FillInterval: time.Second, MaxDescriptors: 20, Enabled: EnvoyFraction{0, 100}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if !e.Decide(0).Pass {
			t.Fatal("a request refused with filter_enabled at 0%")
		}
	}
	if want := "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,mode=atomic,phase=0s,max-descriptors=20,enabled=0/100"; e.Spec() != want {
		t.Errorf("spec %s, want %s", e.Spec(), want)
	}
	full, _ := NewEnvoyLocal(EnvoyLocalConfig{MaxTokens: 1, TokensPerFill: 1, FillInterval: time.Second, MaxDescriptors: 20, Enforced: EnvoyFraction{100, 100}})
	if want := "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,mode=atomic,phase=0s,max-descriptors=20"; full.Spec() != want {
		t.Errorf("spec %s, want %s", full.Spec(), want)
	}
}

// FuzzEnvoyFraction: the parser never panics, and what it accepts prints
// back to the same fraction.
func FuzzEnvoyFraction(f *testing.F) {
	for _, s := range []string{"50/100", "0.25", "1", "0", "7/1000000", "x/y", "1e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, err := ParseEnvoyFraction("enabled", s)
		if err != nil {
			return
		}
		y, err := ParseEnvoyFraction("enabled", x.String())
		if err != nil || y.always() != x.always() || (!x.always() && y != x) {
			t.Errorf("%q → %v → %v (%v)", s, x, y, err)
		}
	})
}
