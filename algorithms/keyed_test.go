package algorithms

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// keyedConstructors is every per-key limiter under test; each must survive
// every keyed trace (TestKeyedConformance).
var keyedConstructors = []string{
	"nginx-limit-req:rate=10r/s",
	"nginx-limit-req:rate=2r/s,burst=3,zone=32k",
	"nginx-limit-req:rate=1r/m,burst=2,nodelay=true",
	"nginx-limit-req:rate=5r/s,burst=10,delay=4,zone=32k",
	"nginx-limit-req:rate=3r/s,burst=2,zone=32k+nginx-limit-req:rate=5r/s,burst=5,nodelay=true,zone=32k,key=ip",
	"sentinel-param:count=5",
	"sentinel-param:count=3,duration=2s,burst=2,capacity=50",
	"sentinel-param:count=4,behavior=throttle,max-queue=300ms,capacity=40",
	"sentinel-param:count=3,behavior=throttle,max-queue=500ms,flavor=go",
	"sentinel-param:count=10,items=k1:0|k2:100,capacity=30,flavor=go",
	"sentinel-param:count=5+sentinel-param:count=2,duration=3s",
	"token-bucket:rate=5,burst=3,key=key",
	"token-bucket:rate=5,key=ip,capacity=40",
	"fixed-window:limit=3,key=key,capacity=10",
	"leaky-bucket:limit=10,max-queue=300ms,key=key",
	"leap-array:limit=10,key=ip,capacity=25",
}

// keyedTrace is a random keyed trace: equal timestamps, idle gaps, steps
// back, many keys, some empty.
func keyedTrace(seed uint64, n, keys int) ([]time.Duration, []Request) {
	rng := rand.New(rand.NewPCG(seed, 15))
	at := make([]time.Duration, n)
	rs := make([]Request, n)
	var t time.Duration
	for i := range at {
		switch x := rng.IntN(100); {
		case x < 20: // same instant
		case x < 21:
			t += time.Duration(rng.IntN(120)) * time.Second // idle gap
		case x < 22:
			t -= time.Duration(rng.IntN(90_000)) * time.Millisecond // step back
		default:
			t += time.Duration(rng.IntN(10_000)) * time.Microsecond
		}
		at[i] = t
		for c := range rs[i].Keys {
			rs[i].Keys[c] = int32(rng.IntN(rng.IntN(keys) + 1)) // skewed: low ids are hot
			if rng.IntN(50) == 0 {
				rs[i].Keys[c] = NoKey
			}
		}
		rs[i].Cost = 1 + int32(rng.IntN(100)/97)
	}
	return at, rs
}

func bindAll(t *testing.T, l Limiter) {
	t.Helper()
	ku, ok := l.(KeyColumnUser)
	if !ok {
		t.Fatalf("%s is not a KeyColumnUser", l.Spec())
	}
	cols := ku.KeyColumns()
	idx := make([]int, len(cols))
	for i, c := range cols {
		if c == "ip" {
			idx[i] = 1
		}
	}
	if err := ku.BindKeyColumns(idx); err != nil {
		t.Fatal(err)
	}
	if kn, ok := l.(KeyNameUser); ok {
		kn.BindKeyNames(func(id int32) string { return "k" + string(rune('0'+id%10)) + strings.Repeat("x", int(id%3)) })
	}
}

func TestKeyedConformance(t *testing.T) {
	for _, spec := range keyedConstructors {
		t.Run(spec, func(t *testing.T) {
			a, b := mustNew(t, spec, 0), mustNew(t, spec, 0)
			again := mustNew(t, a.Spec(), 0)
			if again.Spec() != a.Spec() {
				t.Fatalf("spec %s re-parses as %s", a.Spec(), again.Spec())
			}
			for _, l := range []Limiter{a, b, again} {
				bindAll(t, l)
			}
			if KeyReporterOf(a) == nil {
				t.Fatal("no KeyReporter")
			}
			at, rs := keyedTrace(uint64(len(spec)), 20000, 100)
			passes := 0
			for i := range at {
				r := rs[i]
				d := a.(RequestLimiter).DecideRequest(at[i], &r)
				d2 := b.(RequestLimiter).DecideRequest(at[i], &r)
				d3 := again.(RequestLimiter).DecideRequest(at[i], &r)
				if d != d2 || d != d3 {
					t.Fatalf("arrival %d: %+v, twin %+v, from spec %+v", i, d, d2, d3)
				}
				if d.Wait < 0 || (!d.Pass && d.Wait != 0) {
					t.Fatalf("arrival %d: bad decision %+v", i, d)
				}
				if d.Pass {
					passes++
				}
			}
			if passes == 0 || passes == len(at) {
				t.Fatalf("%d of %d passed: the trace does not exercise the limiter", passes, len(at))
			}
			if a.StateBytes() <= 0 {
				t.Fatalf("StateBytes %d", a.StateBytes())
			}
		})
	}
}

// An empty key passes unaccounted, whatever the limiter.
func TestKeyedEmptyKeyPasses(t *testing.T) {
	for _, spec := range keyedConstructors {
		l := mustNew(t, spec, 0)
		bindAll(t, l)
		r := Request{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, Cost: 1}
		for i := range 1000 {
			if d := l.(RequestLimiter).DecideRequest(time.Duration(i), &r); !d.Pass || d.Wait != 0 {
				t.Fatalf("%s: empty key decided %+v", spec, d)
			}
		}
		if f := KeyReporterOf(l).KeyFigures(); f.PeakKeys != 0 {
			t.Fatalf("%s: empty keys took %d states", spec, f.PeakKeys)
		}
	}
}

// keyedKindSpecs builds every registered kind that can be made per-key:
// its name alone with a default limit, or these parameters where it needs
// some.
var keyedKindSpecs = map[string]string{
	"guava-warming-up": "guava-warming-up:warm-up=2s",
	"envoy-local":      "envoy-local:max-tokens=5,tokens-per-fill=2,fill-interval=100ms,max-descriptors=1000",
}

// perKeyTables is the per-key table of every registered kind that key=
// makes a Keyed, by kind name (the timer mode of envoy-local under
// "envoy-local:mode=timer").
func perKeyTables(t *testing.T) map[string]keyedTable {
	t.Helper()
	out := map[string]keyedTable{}
	for _, in := range List() {
		spec, ok := keyedKindSpecs[in.Name]
		if !ok {
			spec = in.Name
		}
		l, err := New(spec, 10)
		if err != nil {
			continue // needs parameters this list does not give (circuit-breaker, …)
		}
		if _, adaptive := l.(Completer); adaptive {
			continue // per-key through KeyedCompleter, not a keyedTable
		}
		k, err := NewKeyed(l.Spec(), "key", 0)
		if err != nil {
			continue // cannot be made per-key, or is per-key by itself
		}
		out[in.Name] = k.table
	}
	out["envoy-local:mode=timer"] = newTable(mustNew(t, keyedKindSpecs["envoy-local"]+",mode=timer", 0))
	return out
}

// flatStateType is the per-key state type of a flat table (the T of its
// keySlots[T]), or false for the one-instance-per-key fallback.
func flatStateType(tb keyedTable) (reflect.Type, bool) {
	if _, boxed := tb.(*table[Limiter]); boxed {
		return nil, false
	}
	var find func(typ reflect.Type) reflect.Type
	find = func(typ reflect.Type) reflect.Type {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Name == "slots" {
				nodes, _ := f.Type.FieldByName("nodes")
				st, _ := nodes.Type.Elem().FieldByName("st")
				return st.Type
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				if st := find(f.Type); st != nil {
					return st
				}
			}
		}
		return nil
	}
	st := find(reflect.TypeOf(tb).Elem())
	return st, st != nil
}

// The flat tables hold per-key states without pointers, slices, maps,
// interfaces, strings or funcs, so the garbage collector never walks them
// and a key's state has a fixed size: walk the state type of every kind
// that has a flat table, and every slice of the table itself.
func TestKeyedFlatTypesHaveNoPointers(t *testing.T) {
	flat := 0
	for name, tb := range perKeyTables(t) {
		st, ok := flatStateType(tb)
		if !ok {
			continue
		}
		flat++
		if hasPointers(st) {
			t.Errorf("%s: per-key state %v holds a pointer, slice, map, interface, string or func", name, st)
		}
		var walk func(typ reflect.Type)
		walk = func(typ reflect.Type) {
			for i := range typ.NumField() {
				f := typ.Field(i)
				switch {
				case isPageDirectory(typ, f):
					if hasPointers(f.Type.Elem().Elem()) {
						t.Errorf("%s: %v.%s's pages hold pointers", name, typ, f.Name)
					}
				case f.Type.Kind() == reflect.Slice && hasPointers(f.Type.Elem()):
					t.Errorf("%s: %v.%s holds pointers", name, typ, f.Name)
				case f.Type.Kind() == reflect.Struct:
					walk(f.Type)
				}
			}
		}
		walk(reflect.TypeOf(tb).Elem())
	}
	if flat < 14 {
		t.Errorf("only %d flat tables found: the walk does not see them", flat)
	}
	var walk func(typ reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch {
			case isPageDirectory(typ, f):
				if hasPointers(f.Type.Elem().Elem()) {
					t.Errorf("%v.%s's pages hold pointers", typ, f.Name)
				}
			case f.Type.Kind() == reflect.Slice && hasPointers(f.Type.Elem()):
				t.Errorf("%v.%s holds pointers", typ, f.Name)
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			}
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[keySlots[nginxState]](), reflect.TypeFor[keySlots[paramState]](), reflect.TypeFor[nginxSlab]()} {
		walk(typ)
	}
}

// isPageDirectory reports whether field f of typ is a paged array's
// directory ([][]E): one pointer per page of 4096 entries, which the
// collector walks (a few hundred words at 10⁶ keys); its pages must hold
// no pointers.
func isPageDirectory(typ reflect.Type, f reflect.StructField) bool {
	return strings.HasPrefix(typ.Name(), "paged[") && f.Name == "pages" &&
		f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Slice
}

// The kinds whose state has a variable size (buckets, a log, a queue) keep
// one instance per key: an interface and a heap object each. The list is
// explicit, so a kind falling back by accident (a new type not given a
// case in newTable) fails here.
func TestKeyedFallbackKinds(t *testing.T) {
	want := []string{"decaying-window", "hierarchical", "leap-array", "seed-ring", "sliding-log", "warm-up", "warm-up-rate-limiter"}
	var got []string
	for name, tb := range perKeyTables(t) {
		if _, ok := flatStateType(tb); !ok {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("kinds with one instance per key: %v, want %v", got, want)
	}
}

// A flat table decides exactly as one instance of the single-key limiter
// per key (the fallback table, which builds each from the spec), bounded
// or not: the same state moves through the same method.
func TestKeyedFlatMatchesOneInstancePerKey(t *testing.T) {
	specs := []string{
		"envoy-local:max-tokens=5,tokens-per-fill=2,fill-interval=100ms,max-descriptors=1000",
		"envoy-local:max-tokens=3,tokens-per-fill=1,fill-interval=50ms,mode=timer,phase=7ms,max-descriptors=1000",
		"traefik:average=5,burst=3",
		"traefik:average=1,period=3s,burst=2",
		"haproxy:limit=4,period=1s,expire=3s",
		"haproxy:limit=2,period=333ms",
		"kong:second=3,minute=20,policy=local",
		"kong:second=2,hour=50,policy=redis",
		"kong:minute=30",
		"kong:second=5,minute=50,hour=500,day=5000,month=50000,year=500000,policy=redis",
		"resilience4j:limit-for-period=3,refresh-period=200ms,timeout=300ms",
		"bucket4j:capacity=4,refill-tokens=2,refill-period=300ms",
		"bucket4j:capacity=3,refill-tokens=1,refill-period=250ms,refill=intervally,clock=nanos",
		"uber:rate=20,slack=3",
		"uber:rate=7,slack=0",
		"guava-bursty:rate=5,max-burst=2s,timeout=100ms",
		"guava-bursty:rate=3,timeout=inf",
		"guava-warming-up:rate=8,warm-up=1s,timeout=200ms",
		"token-bucket:rate=5,burst=3",
	}
	for _, spec := range specs {
		for _, capacity := range []int{0, 7} {
			proto := mustNew(t, spec, 0)
			flat := newTable(proto)
			if _, ok := flatStateType(flat); !ok {
				t.Fatalf("%s: not flat", spec)
			}
			if _, heap := flat.(*traefikTable); heap && capacity > 0 {
				continue // Traefik's full map evicts by expiry: TestTraefikFullMapEvictsHeapRoot
			}
			ref := instanceTable(proto.Spec())
			at, rs := keyedTrace(uint64(len(spec)+capacity), 20000, 40)
			passes, waits := 0, 0
			for i := range at {
				id := rs[i].Keys[0]
				if id < 0 {
					continue
				}
				r := rs[i]
				r.Cost = int32(1 + i%3) // the cost-aware kinds charge it (hits_addend, tryConsume(n), acquirePermission(n))
				d, w := flat.decide(id, at[i], capacity, &r), ref.decide(id, at[i], capacity, &r)
				if d != w {
					t.Fatalf("%s capacity %d, arrival %d (key %d at %v): flat %+v, one instance per key %+v", spec, capacity, i, id, at[i], d, w)
				}
				if d.Pass {
					passes++
				}
				if d.Wait > 0 {
					waits++
				}
			}
			if passes == 0 || (passes == len(at) && waits == 0) {
				t.Errorf("%s: %d of %d passed, %d waited: the trace does not exercise the limiter", spec, passes, len(at), waits)
			}
			if ev, _, _ := flat.figures(); capacity > 0 && ev == 0 {
				t.Errorf("%s capacity %d: no eviction", spec, capacity)
			}
		}
	}
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Func, reflect.Chan:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return hasPointers(t.Elem())
	}
	return false
}

type step struct {
	ms   int64
	key  int32
	pass bool
	wait time.Duration
}

func runSteps(t *testing.T, l Limiter, steps []step) {
	t.Helper()
	rl := l.(RequestLimiter)
	for i, s := range steps {
		r := Request{Keys: [MaxKeyColumns]int32{s.key, NoKey, NoKey, NoKey}, Cost: 1}
		d := rl.DecideRequest(time.Duration(s.ms)*time.Millisecond, &r)
		if d.Pass != s.pass || d.Wait != s.wait {
			t.Fatalf("step %d (t=%dms key %d): %+v, want pass=%v wait=%v", i, s.ms, s.key, d, s.pass, s.wait)
		}
	}
}

// The worked example of docs/algorithms.md (nginx-limit-req).
func TestNginxWorkedExample(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=2r/s,burst=1", 0)
	runSteps(t, l, []step{
		{0, 7, true, 0},                         // new key: excess 0
		{100, 7, true, 400 * time.Millisecond},  // 0 − 2000·100/1000 + 1000 = 800: delayed 800·1000/2000 ms
		{200, 7, false, 0},                      // 800 − 200 + 1000 = 1600 > 1000: rejected, nothing written
		{600, 7, true, 400 * time.Millisecond},  // from last = 100: 800 − 1000 + 1000 = 800
		{600, 8, true, 0},                       // another key has its own state
		{600, 7, false, 0},                      // same ms: 800 + 1000 = 1800
		{1600, 7, true, 0},                      // 800 − 2000 + 1000 < 0 → 0
		{1600, 7, true, 500 * time.Millisecond}, // ms = 0: 0 + 1000
	})
	nd := mustNew(t, "nginx-limit-req:rate=2r/s,burst=1,nodelay=true", 0)
	runSteps(t, nd, []step{{0, 1, true, 0}, {100, 1, true, 0}, {200, 1, false, 0}})
	// delay=1 of burst=3: the first excess request passes at once.
	dl := mustNew(t, "nginx-limit-req:rate=1r/s,burst=3,delay=1", 0)
	runSteps(t, dl, []step{{0, 1, true, 0}, {0, 1, true, 0}, {0, 1, true, time.Second}, {0, 1, true, 2 * time.Second}, {0, 1, false, 0}})
}

// 1r/m is 16 milli-requests per second: one request per 62.5 s; and a
// client at exactly 3r/s with burst=0 loses requests to the millisecond
// arithmetic (333·3000/1000 = 999 < 1000).
func TestNginxRateArithmetic(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/m", 0)
	runSteps(t, l, []step{{0, 1, true, 0}, {62499, 1, false, 0}, {62500, 1, true, 0}})
	z := mustNew(t, "nginx-limit-req:rate=3r/s", 0)
	runSteps(t, z, []step{{0, 1, true, 0}, {333, 1, false, 0}, {334, 1, true, 0}, {667, 1, false, 0}, {668, 1, true, 0}})
	if r, _ := ParseNginxRate("1r/m"); r != 16 {
		t.Fatalf("1r/m = %d milli, want 16", r)
	}
}

// A clock stepped back: −60000 ≤ ms < 0 counts as 0, ms < −60000 as 1;
// last moves only when ms ≠ 0.
func TestNginxClockBack(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/s,burst=5,nodelay=true", 0)
	runSteps(t, l, []step{
		{100_000, 1, true, 0}, // excess 0, last 100000
		{50_000, 1, true, 0},  // ms = −50000 → 0: excess 1000; last stays 100000
		{39_999, 1, true, 0},  // ms = −60001 → 1: 1000 − 1 + 1000 = 1999; last = 39999
		{40_000, 1, true, 0},  // ms = 1: 1999 − 1 + 1000 = 2998
		{40_000, 1, true, 0},  // 3998
		{40_000, 1, true, 0},  // 4998
		{40_000, 1, false, 0}, // 5998 > 5000
	})
}

// Zone size → states, as ngx_slab on 64-bit: 32k has 7 pages, one for the
// log context, six of 32 128-byte chunks less the shared context.
func TestNginxZoneStates(t *testing.T) {
	for _, c := range []struct {
		zone   int64
		keyLen int
		pages  int64
		states int64
	}{
		{32 << 10, 4, 7, 191},
		{32 << 10, 48, 7, 191},
		{32 << 10, 49, 7, 5 * 16}, // 256-byte chunks; the context keeps a 128-byte page
		{1 << 20, 16, 254, 253*32 - 1},
		{10 << 20, 16, 2544, 2543*32 - 1},
	} {
		if p := NginxZonePages(c.zone); p != c.pages {
			t.Errorf("zone %d: %d pages, want %d", c.zone, p, c.pages)
		}
		if n := NginxStatesPerZone(c.zone, c.keyLen); n != c.states {
			t.Errorf("zone %d, %d-byte keys: %d states, want %d", c.zone, c.keyLen, n, c.states)
		}
	}
	if _, err := New("nginx-limit-req:rate=1r/s,zone=31k", 0); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("zone=31k: %v", err)
	}
}

// A full zone: a new key forces the tail out (an eviction); when the freed
// chunk is of another size, nginx cannot allocate and rejects.
func TestNginxZoneFull(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/s,zone=32k", 0).(*NginxLimitReq)
	names := func(id int32) string {
		if id >= 1000 {
			return strings.Repeat("L", 60) // a 256-byte chunk
		}
		return "k"
	}
	l.BindKeyNames(names)
	var steps []step
	for k := range int32(191) {
		steps = append(steps, step{0, k, true, 0})
	}
	steps = append(steps,
		step{1, 191, true, 0}, // zone full: key 0, the tail, is forced out
		step{2, 0, true, 0},   // key 0 starts fresh (forcing key 1 out)
		step{3, 1000, false, 0},
	)
	runSteps(t, l, steps)
	f := l.KeyFigures()
	if f.Evictions != 3 || f.AllocFailures != 1 || f.PeakKeys != 191 {
		t.Fatalf("figures %+v, want 3 evictions (keys 0, 1 and 2 forced out), 1 alloc failure, 191 peak", f)
	}
	if l.KeyEvictions(0) != 1 || l.KeyEvictions(2) != 1 || l.KeyEvictions(5) != 0 {
		t.Fatalf("per-key evictions %d %d %d", l.KeyEvictions(0), l.KeyEvictions(2), l.KeyEvictions(5))
	}
}

// Idle, drained states at the tail expire (at most two) when a key is
// created; they are not forced, and the zone is not full.
func TestNginxExpiry(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/s,burst=5", 0).(*NginxLimitReq)
	runSteps(t, l, []step{
		{0, 1, true, 0}, {0, 2, true, 0}, {0, 3, true, 0},
		{0, 3, true, time.Second}, // key 3 holds excess 1000
		{59_999, 4, true, 0},      // nothing idle 60 s yet
		{61_000, 5, true, 0},      // expires keys 1 and 2 (two at most)
	})
	if f := l.KeyFigures(); f.Evictions != 2 || l.zones[0].slots.live != 3 {
		t.Fatalf("evictions %d live %d, want 2 and 3", f.Evictions, l.zones[0].slots.live)
	}
}

// Two limit_req in one location: the first zone only checks, a reject in
// the second charges nothing in the first, all pass → both charged at the
// same now, delay the largest.
func TestNginxTwoZones(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/s,burst=1+nginx-limit-req:rate=1r/s,burst=5,key=ip", 0)
	n, ok := l.(*NginxLimitReq)
	if !ok || len(n.zones) != 2 {
		t.Fatalf("two consecutive nginx stages built %T", l)
	}
	if err := n.BindKeyColumns([]int{0, 1}); err != nil {
		t.Fatal(err)
	}
	req := func(ms int64, a, b int32) Decision {
		r := Request{Keys: [MaxKeyColumns]int32{a, b, NoKey, NoKey}, Cost: 1}
		return n.DecideRequest(time.Duration(ms)*time.Millisecond, &r)
	}
	want := func(d Decision, pass bool, wait time.Duration) {
		t.Helper()
		if d.Pass != pass || d.Wait != wait {
			t.Fatalf("%+v, want pass=%v wait=%v", d, pass, wait)
		}
	}
	want(req(0, 1, 9), true, 0)                // both new
	want(req(0, 1, 9), true, time.Second)      // zone 1: 1000 (delay 1 s); zone 2: 1000 (1 s)
	want(req(0, 1, 9), false, 0)               // zone 1: 2000 > 1000, zone 2 not asked
	want(req(0, 2, 9), true, 2*time.Second)    // zone 1 new (0); zone 2: 2000 → 2 s
	want(req(0, 3, 9), true, 3*time.Second)    // zone 2: 3000
	want(req(0, 1, 8), false, 0)               // zone 1 rejects: zone 2 is not asked, key 8 gets no state
	want(req(500, 1, 9), false, 0)             // zone 1: 1000 − 500 + 1000 = 1500 > 1000
	want(req(1000, 1, 9), true, 3*time.Second) // zone 1: 1000 (1 s); zone 2: 3000 − 1000 + 1000 (3 s)
	if n.zones[0].slots.live != 3 || n.zones[1].slots.live != 1 {
		t.Fatalf("live states %d and %d, want 3 and 1", n.zones[0].slots.live, n.zones[1].slots.live)
	}
}

// The worked example of docs/algorithms.md (sentinel-param, reject).
func TestSentinelParamWorkedExample(t *testing.T) {
	for _, flavor := range []string{"java", "go"} {
		l := mustNew(t, "sentinel-param:count=2,flavor="+flavor, 0)
		runSteps(t, l, []step{
			{0, 1, true, 0},     // first sighting: (0, 2 − 1)
			{10, 1, true, 0},    // within 1000 ms: rest 0
			{20, 1, false, 0},   // 0 − 1 < 0
			{1000, 1, false, 0}, // 1000 is not > 1000: no refill
			{1001, 1, true, 0},  // toAdd = 1001·2/1000 = 2: rest 0 + 2 − 1 = 1, last = 1001
			{1002, 1, true, 0},  // rest 0
			{1002, 2, true, 0},  // another value, its own bucket
			{5000, 1, true, 0},  // toAdd 7 + 0 > 2: rest = 2 − 1
		})
	}
	// burst: max = count + burst; an idle value refills to max only.
	b := mustNew(t, "sentinel-param:count=1,burst=2", 0)
	runSteps(t, b, []step{{0, 1, true, 0}, {0, 1, true, 0}, {0, 1, true, 0}, {0, 1, false, 0}, {1001, 1, true, 0}, {1001, 1, false, 0}})
}

// Throttle: cost Math.round(1000·c·D/count) ms in Java, floored in Go;
// a wait must be strictly shorter than max-queue.
func TestSentinelParamThrottle(t *testing.T) {
	l := mustNew(t, "sentinel-param:count=4,behavior=throttle,max-queue=200ms", 0)
	runSteps(t, l, []step{
		{0, 1, true, 0},                        // first sighting: last = 0
		{250, 1, true, 0},                      // expected 250 ≤ 250: last = 250
		{260, 1, false, 0},                     // expected 500: 240 ≥ 200
		{300, 1, false, 0},                     // 200 is not < 200
		{301, 1, true, 199 * time.Millisecond}, // last = 500
		{301, 1, false, 0},                     // expected 750: 449
	})
	for _, c := range []struct {
		flavor string
		want   int64
	}{{"java", 667}, {"go", 666}} {
		// count=3, cost 2: 2000/3 = 666.67 ms.
		l := mustNew(t, "sentinel-param:count=3,behavior=throttle,flavor="+c.flavor, 0)
		r := Request{Keys: [MaxKeyColumns]int32{1, NoKey, NoKey, NoKey}, Cost: 2}
		rl := l.(RequestLimiter)
		rl.DecideRequest(0, &r)
		if rl.DecideRequest(time.Duration(c.want-1)*time.Millisecond, &r).Pass {
			t.Errorf("%s: passed at %d ms, before the cost of %d ms", c.flavor, c.want-1, c.want)
		}
		if !rl.DecideRequest(time.Duration(c.want)*time.Millisecond, &r).Pass {
			t.Errorf("%s: rejected at the cost, %d ms", c.flavor, c.want)
		}
	}
}

// A bounded cache: every access (a block too) moves the value up; a new
// value beyond capacity evicts the least recently used, which comes back
// as a first sighting with a full bucket.
func TestSentinelParamLRU(t *testing.T) {
	l := mustNew(t, "sentinel-param:count=1,capacity=2", 0)
	runSteps(t, l, []step{
		{0, 1, true, 0}, {0, 2, true, 0},
		{1, 1, false, 0}, // a block still accesses value 1: value 2 is now the tail
		{2, 3, true, 0},  // evicts 2
		{3, 1, false, 0}, // 1 kept its empty bucket
		{4, 2, true, 0},  // 2 comes back fresh (evicting 3)
	})
	k := KeyReporterOf(l)
	if f := k.KeyFigures(); f.Evictions != 2 || f.PeakKeys != 2 || k.KeyEvictions(2) != 1 || k.KeyEvictions(3) != 1 {
		t.Fatalf("figures %+v, evictions of 2: %d, of 3: %d", f, k.KeyEvictions(2), k.KeyEvictions(3))
	}
	if got := mustNew(t, "sentinel-param:count=1,duration=60s", 0).Spec(); !strings.Contains(got, "capacity=200000") {
		t.Errorf("java default capacity: %s", got)
	}
	if got := mustNew(t, "sentinel-param:count=1,duration=3s,flavor=go", 0).Spec(); !strings.Contains(got, "capacity=12000") {
		t.Errorf("go default capacity: %s", got)
	}
}

// Items: a value's own count; count 0 rejects without touching the cache.
// Several rules on one key run in order with no refund.
func TestSentinelParamItemsAndRules(t *testing.T) {
	l := mustNew(t, "sentinel-param:count=1,items=vip:3|bot:0,capacity=1", 0)
	l.(KeyNameUser).BindKeyNames(func(id int32) string { return []string{"vip", "bot", "joe"}[id] })
	runSteps(t, l, []step{
		{0, 0, true, 0}, {0, 0, true, 0}, {0, 0, true, 0}, {0, 0, false, 0},
		{0, 1, false, 0}, // bot: 0, no access, so vip is not evicted
		{0, 0, false, 0},
		{0, 2, true, 0}, {0, 2, false, 0},
	})
	if f := KeyReporterOf(l).KeyFigures(); f.Evictions != 1 {
		t.Fatalf("evictions %d, want 1 (vip by joe)", f.Evictions)
	}
	c := mustNew(t, "sentinel-param:count=3+sentinel-param:count=1", 0)
	runSteps(t, c, []step{
		{0, 1, true, 0},  // both first sightings
		{0, 1, false, 0}, // rule 1: 1 left → 1 … rule 2 rejects; rule 1 keeps the token taken
		{0, 1, false, 0}, // rule 1: 0 left … rule 2 rejects
		{0, 1, false, 0}, // rule 1 rejects
	})
}

// Cost: a request of cost c takes c tokens; more than count + burst is
// rejected without an access.
func TestSentinelParamCost(t *testing.T) {
	l := mustNew(t, "sentinel-param:count=5", 0).(RequestLimiter)
	r := Request{Keys: [MaxKeyColumns]int32{1, NoKey, NoKey, NoKey}, Cost: 3}
	for i, want := range []bool{true, false, false} { // rest 5 − 3 = 2, then 2 − 3 < 0
		if i == 2 {
			r.Cost = 6
		}
		if d := l.DecideRequest(0, &r); d.Pass != want {
			t.Fatalf("request %d: %+v, want pass=%v", i, d, want)
		}
	}
}

// The generic wrapper: one token bucket per key, an LRU of capacity 2.
func TestKeyedTokenBucket(t *testing.T) {
	l := mustNew(t, "token-bucket:rate=1,burst=1,key=ip,capacity=2", 0)
	if l.Spec() != "token-bucket:rate=1,burst=1,key=ip,capacity=2" {
		t.Fatalf("spec %s", l.Spec())
	}
	runSteps(t, l, []step{
		{0, 1, true, 0}, {0, 1, false, 0}, {0, 2, true, 0},
		{1, 3, true, 0},  // evicts 1
		{2, 1, true, 0},  // 1 is fresh: a full bucket (evicts 2)
		{3, 3, false, 0}, // 3 kept its empty bucket
	})
	if _, err := New("token-bucket:rate=1,capacity=2", 0); err == nil || !strings.Contains(err.Error(), "add key=") {
		t.Fatalf("capacity without key: %v", err)
	}
	if _, err := New("circuit-breaker:strategy=error-count,threshold=1,key=ip", 0); err == nil {
		t.Fatal("a per-key breaker was accepted")
	}
}

// A per-key limiter charges each request's cost as the single-key limiter
// does: bucket4j with capacity 4 passes a cost of 3 then refuses a second
// one on the same key, while another key has its own full bucket (the
// per-key table used to decide every request as a cost of 1).
func TestKeyedChargesCost(t *testing.T) {
	for _, spec := range []string{
		"bucket4j:capacity=4,refill-tokens=1,refill-period=1h,key=key",
		"resilience4j:limit-for-period=4,refresh-period=1h,timeout=0s,key=key",
		"envoy-local:max-tokens=4,tokens-per-fill=1,fill-interval=1h,key=key",
	} {
		l := mustNew(t, spec, 0).(RequestLimiter)
		if err := l.(KeyColumnUser).BindKeyColumns([]int{0}); err != nil {
			t.Fatal(err)
		}
		req := func(key int32, cost int32) *Request {
			return &Request{Keys: [MaxKeyColumns]int32{key, NoKey, NoKey, NoKey}, Cost: cost}
		}
		got := ""
		for _, r := range []*Request{req(1, 3), req(1, 3), req(2, 3), req(1, 1)} {
			if l.DecideRequest(0, r).Pass {
				got += "+"
			} else {
				got += "."
			}
		}
		if got != "+.++" {
			t.Errorf("%s: %s, want +.++ (3 of 4 tokens, then 3 more refused, another key full, then the last token)", spec, got)
		}
	}
}

// A chain's unbounded twin is decided whole and sees no completions, so a
// chain with an adaptive stage gets none (extra_passes_from_eviction null)
// rather than a twin whose calls in flight only grow: with concurrency
// behind a bounded sentinel-param the twin refused all but 3 and the
// extra passes read 4977 where count=1000 refuses nobody.
func TestChainTwinSkipsAdaptiveStages(t *testing.T) {
	for spec, want := range map[string]bool{
		"sentinel-param:count=1000,capacity=2+concurrency:limit=3": false,
		"sentinel-param:count=1000,capacity=2+leap-array:limit=5":  true,
	} {
		l := mustNew(t, spec, 0)
		r := KeyReporterOf(l)
		if r == nil {
			t.Fatalf("%s: no key reporter", spec)
		}
		r.TrackShadow()
		if got := r.KeyFigures().HasShadow; got != want {
			t.Errorf("%s: twin %v, want %v", spec, got, want)
		}
	}
}
