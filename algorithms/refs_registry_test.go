package algorithms

import "testing"

// The canonical specs of the Guava, uber and window limiters: defaults
// filled in, the scenario's limit taken as rate or limit.
func TestRefsCanonicalSpecs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"guava-bursty", "guava-bursty:rate=100,max-burst=1s,timeout=0s"},
		{"guava-bursty:timeout=inf,max-burst=1500ms", "guava-bursty:rate=100,max-burst=1500ms,timeout=inf"},
		{"guava-warming-up:warm-up=4s", "guava-warming-up:rate=100,warm-up=4s,cold-factor=3,timeout=0s"},
		{"guava-warming-up:rate=2.5,warm-up=1m,cold-factor=2.5,timeout=20ms", "guava-warming-up:rate=2.5,warm-up=60s,cold-factor=2.5,timeout=20ms"},
		{"uber", "uber:rate=100,slack=10"},
		{"uber:rate=7,slack=0", "uber:rate=7,slack=0"},
		{"sliding-window-counter", "sliding-window-counter:limit=100,window=1s"},
		{"seed-ring", "seed-ring:limit=100,window=1s,buckets=100"},
		{"decaying-window:decay=1s", "decaying-window:limit=100,window=1s,buckets=10,decay=1s"},
	} {
		l := mustNew(t, tc.in, 100)
		if got := l.Spec(); got != tc.want {
			t.Errorf("%s: spec %s, want %s", tc.in, got, tc.want)
		}
		if again := mustNew(t, l.Spec(), 7); again.Spec() != l.Spec() {
			t.Errorf("%s does not round-trip: %s", l.Spec(), again.Spec())
		}
		if _, ok := l.(Stage); !ok {
			t.Errorf("%s does not implement Stage", tc.in)
		}
	}
}
