package algorithms

import (
	"strings"
	"testing"
	"time"
)

// emptyStep is one request of an empty-key test: its time, its key and
// fallback ids (NoKey for an empty cell) and the decision wanted.
type emptyStep struct {
	at       time.Duration
	key, alt int32
	pass     bool
}

// runEmptySteps builds spec, binds key column 0 (and the fallback, when
// the spec has one, to column 1), and checks every decision.
func runEmptySteps(t *testing.T, spec string, steps []emptyStep) {
	t.Helper()
	l, err := New(spec, 0)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	ku := l.(KeyColumnUser)
	idx := []int{0, 1}[:len(ku.KeyColumns())]
	if err := ku.BindKeyColumns(idx); err != nil {
		t.Fatalf("%s: bind: %v", spec, err)
	}
	rl := l.(RequestLimiter)
	for i, s := range steps {
		r := Request{Keys: [MaxKeyColumns]int32{s.key, s.alt, NoKey, NoKey}, Cost: 1}
		if d := rl.DecideRequest(s.at, &r); d.Pass != s.pass {
			t.Errorf("%s: request %d (at %v, key %d, fallback %d): pass %v, want %v", spec, i, s.at, s.key, s.alt, d.Pass, s.pass)
		}
	}
}

const ek = NoKey // an empty key

// TestEmptyKeyPerProduct pins each family's rule for an empty key
// (keyed_empty.go) with exact decisions: two requests of the same
// non-empty key show the limit, and the empty-key requests show the rule.
func TestEmptyKeyPerProduct(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name, spec string
		policy     EmptyKeyPolicy
		steps      []emptyStep
	}{
		// ngx_http_limit_req_handler: key.len == 0 -> continue.
		{"nginx skips the zone", "nginx-limit-req:rate=1r/s", EmptyKeyPass, []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, ek, true}, {0, ek, ek, true}, {0, ek, ek, true}}},
		// ParamFlowChecker.passCheck: value == null -> pass.
		{"sentinel-param passes a null argument", "sentinel-param:count=1", EmptyKeyPass, []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, ek, true}, {0, ek, ek, true}}},
		{"sentinel-golang passes a nil argument", "sentinel-param:count=1,flavor=go", EmptyKeyPass, []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, ek, true}, {0, ek, ek, true}}},
		// oxy's makeHeaderExtractor: "" is the source: one shared bucket.
		// maxDelay at 1 r/s is 500 ms: the second request at 0 would wait
		// 1 s and is refused.
		{"traefik shares one bucket", "traefik:average=1,burst=1,key=user", EmptyKeyShared, []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, false}, {0, 0, ek, true}, {0, 1, ek, true}, {600 * ms, ek, ek, true}}},
		// Kong's get_identifier: identifier or the forwarded IP, in the
		// same counters as any identifier of that string.
		{"kong falls back to the ip column", "kong:second=1,key=user,fallback=ip", EmptyKeyFallback, []emptyStep{
			{0, ek, 7, true}, {0, 7, ek, false}, {0, ek, 8, true}, {0, ek, 8, false}, {0, 9, 8, true}}},
		{"kong without a fallback column shares one counter", "kong:second=1,key=user", EmptyKeyFallback, []emptyStep{
			{0, ek, 7, true}, {0, ek, 8, false}, {0, 7, ek, true}}},
		{"bucket4j's map holds one bucket for the empty string", "bucket4j:capacity=1,refill-tokens=1,key=user", EmptyKeyShared, []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, false}, {0, 0, ek, true}}},
		{"resilience4j's registry holds one limiter for the empty name", "resilience4j:limit-for-period=1,refresh-period=1s,timeout=0s,key=user", EmptyKeyShared, []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, false}, {0, 0, ek, true}}},
		// http_ana.c: no key, no tracking; sc_http_req_rate(0) fails. (The
		// second request of key 0 reads rate 2 > 1: denied.)
		{"haproxy tracks nothing", "haproxy:limit=1,period=1s,key=ip", EmptyKeyPass, []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, ek, true}, {0, ek, ek, true}, {0, ek, ek, true}}},
		// No descriptor, no descriptor limit.
		{"envoy-local applies no descriptor", "envoy-local:max-tokens=1,tokens-per-fill=1,key=ip", EmptyKeyPass, []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, ek, true}, {0, ek, ek, true}}},
		{"the lab's own kinds pass it unaccounted", "token-bucket:rate=1,burst=1,key=ip", EmptyKeyPass, []emptyStep{
			{0, 0, ek, true}, {0, 0, ek, false}, {0, ek, ek, true}, {0, ek, ek, true}}},
		{"empty-key=shared", "token-bucket:rate=1,burst=1,key=ip,empty-key=shared", EmptyKeyShared, []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, false}, {0, 0, ek, true}, {0, 0, ek, false}}},
		{"empty-key=reject", "token-bucket:rate=1,burst=1,key=ip,empty-key=reject", EmptyKeyReject, []emptyStep{
			{0, ek, ek, false}, {0, 0, ek, true}, {0, ek, ek, false}}},
		{"empty-key=pass overrides traefik's rule", "traefik:average=1,burst=1,key=user,empty-key=pass", EmptyKeyPass, []emptyStep{
			{0, ek, ek, true}, {0, ek, ek, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := New(c.spec, 0)
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := EmptyKeyPolicyOf(l); !ok || p != c.policy {
				t.Errorf("EmptyKeyPolicyOf(%s) = %v, %v; want %v", c.spec, p, ok, c.policy)
			}
			runEmptySteps(t, c.spec, c.steps)
		})
	}
}

// TestNginxSkipsLongKeys: a key longer than 65535 bytes is logged and
// skipped, like an empty one.
func TestNginxSkipsLongKeys(t *testing.T) {
	l, err := New("nginx-limit-req:rate=1r/s,zone=0", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := l.(*NginxLimitReq)
	if err := n.BindKeyColumns([]int{0}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 65536)
	n.BindKeyNames(func(id int32) string {
		if id == 1 {
			return long
		}
		return "short"
	})
	for i, want := range []bool{true, false} {
		r := Request{Keys: [MaxKeyColumns]int32{0, NoKey, NoKey, NoKey}, Cost: 1}
		if d := n.DecideRequest(0, &r); d.Pass != want {
			t.Errorf("short key, request %d: pass %v, want %v", i, d.Pass, want)
		}
	}
	for i := range 3 {
		r := Request{Keys: [MaxKeyColumns]int32{1, NoKey, NoKey, NoKey}, Cost: 1}
		if d := n.DecideRequest(0, &r); !d.Pass {
			t.Errorf("65536-byte key, request %d: refused, want skipped", i)
		}
	}
	if f := n.KeyFigures(); f.PeakKeys != 1 {
		t.Errorf("peak keys %d, want 1 (the long key holds no state)", f.PeakKeys)
	}
}

// TestEmptyKeySpec: the rule round-trips through Spec when written, and
// bad values are one line naming the fix.
func TestEmptyKeySpec(t *testing.T) {
	for spec, want := range map[string]string{
		"token-bucket:rate=1,key=ip,empty-key=shared": "empty-key=shared",
		"kong:second=5,key=user,fallback=ip":          "fallback=ip",
		"traefik:average=5,key=user":                  "",
	} {
		l, err := New(spec, 0)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		got := l.Spec()
		if want != "" && !strings.HasSuffix(got, ","+want) || want == "" && strings.Contains(got, "empty-key") {
			t.Errorf("Spec(%s) = %s, want it to end with %q", spec, got, want)
		}
		again, err := New(got, 0)
		if err != nil || again.Spec() != got {
			t.Errorf("Spec %s does not round-trip: %v", got, err)
		}
	}
	for spec, wants := range map[string][]string{
		"token-bucket:rate=1,key=ip,empty-key=drop":              {`empty-key "drop" is not known; allowed: pass, shared, reject`},
		"token-bucket:rate=1,key=ip,fallback=":                   {"fallback= needs a column name"},
		"token-bucket:rate=1,key=ip,empty-key=fallback":          {"write fallback=COLUMN"},
		"token-bucket:rate=1,key=ip,empty-key=reject,fallback=x": {"disagree; keep one"},
		"kong:second=1,key=ip,fallback=a,fallback=b":             {`parameter "fallback" is given twice`},
		"kong:second=1,key=ip,empty-key=pass,empty-key=shared":   {`parameter "empty-key" is given twice`},
		"concurrency:limit=2,key=ip,empty-key=shared":            {"an adaptive limiter passes a call without a key unaccounted"},
	} {
		_, err := New(spec, 0)
		for _, w := range wants {
			if err == nil || !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
				t.Errorf("New(%q): %v, want one line with %q", spec, err, w)
			}
		}
	}
}

// TestEmptyKeyKeysAccount: Kong's fallback charges the IP's key, and the
// per-key results are accounted by it (AccountKey).
func TestEmptyKeyKeysAccount(t *testing.T) {
	l, err := New("kong:second=1,key=user,fallback=ip", 0)
	if err != nil {
		t.Fatal(err)
	}
	k := l.(*Keyed)
	if got := k.KeyColumns(); len(got) != 2 || got[1] != "ip" {
		t.Fatalf("KeyColumns %q, want [user ip]", got)
	}
	if err := k.BindKeyColumns([]int{2, 0}); err != nil {
		t.Fatal(err)
	}
	keys := [MaxKeyColumns]int32{5, NoKey, NoKey, NoKey}
	if got := k.AccountKey(&keys); got != 5 {
		t.Errorf("AccountKey of an empty user with ip 5 = %d, want 5", got)
	}
	keys = [MaxKeyColumns]int32{5, NoKey, 3, NoKey}
	if got := k.AccountKey(&keys); got != 3 {
		t.Errorf("AccountKey of user 3 = %d, want 3", got)
	}
}

// TestEmptyKeyKongWarns: a Kong row keyed without fallback= warns that
// its empty keys share one counter; with fallback= it does not.
func TestEmptyKeyKongWarns(t *testing.T) {
	l, _ := New("kong:second=1,key=user", 0)
	if w := Warnings(l); len(w) != 1 || !strings.Contains(w[0], "fallback=ip") {
		t.Errorf("warnings %q, want one naming fallback=ip", w)
	}
	l, _ = New("kong:second=1,key=user,fallback=ip", 0)
	if w := Warnings(l); len(w) != 0 {
		t.Errorf("with fallback=: warnings %q, want none", w)
	}
}

// FuzzKeyedEmptyKeyParams: the per-key parameters (empty-key=,
// fallback=) never panic, errors are one line, and what New accepts
// prints back to a spec that builds the same limiter.
func FuzzKeyedEmptyKeyParams(f *testing.F) {
	for _, s := range []string{"empty-key=shared", "fallback=ip", "empty-key=fallback,fallback=ip", "empty-key=reject,fallback=x",
		"empty-key=", "fallback=", "empty-key=PASS", "empty-key=pass,empty-key=shared", "capacity=3,empty-key=shared", "fallback=ip,fallback=ua"} {
		f.Add("token-bucket:rate=2", s)
		f.Add("kong:second=1", s)
		f.Add("traefik:average=1", s)
	}
	f.Fuzz(func(t *testing.T, base, params string) {
		spec := base + ",key=user," + params
		l, err := New(spec, 0)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error of several lines: %v", spec, err)
			}
			return
		}
		again, err := New(l.Spec(), 0)
		if err != nil || again.Spec() != l.Spec() {
			t.Fatalf("%q → %q → %v, %v", spec, l.Spec(), again, err)
		}
		p1, _ := EmptyKeyPolicyOf(l)
		p2, _ := EmptyKeyPolicyOf(again)
		if p1 != p2 {
			t.Fatalf("%q: policy %v, after Spec %v", spec, p1, p2)
		}
	})
}

// TestKeyedNominal: a per-key row's nominal limit is the kind's own limit
// per its own window where it has one, else its rate per second.
func TestKeyedNominal(t *testing.T) {
	for spec, want := range map[string]struct {
		limit float64
		w     time.Duration
	}{
		"kong:minute=100,key=ip":                                                 {100, time.Minute},
		"kong:second=100,minute=5000,key=ip":                                     {5000, time.Minute},
		"haproxy:limit=1000,period=10s,key=ip":                                   {1000, 10 * time.Second},
		"resilience4j:limit-for-period=5,refresh-period=250ms,timeout=0s,key=ip": {5, 250 * time.Millisecond},
		"fixed-window:limit=10,window=10s,key=ip":                                {10, 10 * time.Second},
		"sliding-log:limit=3,window=2s,key=ip":                                   {3, 2 * time.Second},
		"token-bucket:rate=5,key=ip":                                             {5, time.Second},
		"traefik:average=60,period=1m,key=ip":                                    {1, time.Second},
	} {
		l, err := New(spec, 0)
		if err != nil {
			t.Fatal(err)
		}
		if lim, w := KeyReporterOf(l).KeyNominal(); lim != want.limit || w != want.w {
			t.Errorf("%s: nominal %v per %v, want %v per %v", spec, lim, w, want.limit, want.w)
		}
	}
}
