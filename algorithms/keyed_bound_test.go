package algorithms

import (
	"fmt"
	"testing"
	"time"
)

// passesOf runs (ms, key) arrivals through spec and returns the decisions
// as a string of P and r, with the table's evictions.
func passesOf(t *testing.T, spec string, arr [][2]int) (string, int64) {
	t.Helper()
	l := mustNew(t, spec, 0)
	bindAll(t, l)
	rl := l.(RequestLimiter)
	out := make([]byte, len(arr))
	for i, a := range arr {
		r := Request{Keys: [MaxKeyColumns]int32{int32(a[1]), NoKey, NoKey, NoKey}, Cost: 1}
		out[i] = 'r'
		if rl.DecideRequest(time.Duration(a[0])*time.Millisecond, &r).Pass {
			out[i] = 'P'
		}
	}
	return string(out), KeyReporterOf(l).KeyFigures().Evictions
}

// Envoy's max_dynamic_descriptors bounds the per-key buckets as an LRU:
// five keys round-robin through a table of 2 (or 4) come back evicted,
// with a full bucket; a table of 5 or 20 keeps their empty buckets.
func TestEnvoyMaxDescriptorsBoundsKeys(t *testing.T) {
	var rr [][2]int
	for i := range 10 {
		rr = append(rr, [2]int{10 * i, i % 5})
	}
	for _, c := range []struct {
		bound     string
		want      string
		evictions int64
	}{
		{"max-descriptors=2", "PPPPPPPPPP", 8},
		{"max-descriptors=4", "PPPPPPPPPP", 6},
		{"max-descriptors=5", "PPPPPrrrrr", 0},
		{"max-descriptors=20", "PPPPPrrrrr", 0},
		{"max-descriptors=20,capacity=3", "PPPPPPPPPP", 7}, // capacity= replaces the bound
	} {
		spec := "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s," + c.bound + ",key=key"
		got, ev := passesOf(t, spec, rr)
		if got != c.want || ev != c.evictions {
			t.Errorf("%s: %s with %d evictions, want %s with %d", c.bound, got, ev, c.want, c.evictions)
		}
	}
	// The bound is the reference's, not a capacity= the spec gained.
	if s := mustNew(t, "envoy-local:max-tokens=1,max-descriptors=2,key=ip", 0).Spec(); s != "envoy-local:max-tokens=1,tokens-per-fill=1,fill-interval=1s,mode=atomic,phase=0s,max-descriptors=2,key=ip" {
		t.Errorf("spec %s", s)
	}
}

// Traefik's ttlmap, full, frees the entry at the root of its expiry heap,
// not the least recently used: A, B, C in second 0, A again, then D
// evicts C (container/heap's root after A's Remove+Push), so B keeps its
// empty bucket and C comes back full. An LRU would have evicted B.
func TestTraefikFullMapEvictsHeapRoot(t *testing.T) {
	arr := [][2]int{{100, 0}, {200, 1}, {300, 2}, {400, 0}, {500, 3}, {600, 1}, {650, 2}}
	for _, c := range []struct {
		spec, want string
		evictions  int64
	}{
		{"traefik:average=1,burst=1,key=key,capacity=3", "PPPrPrP", 2},
		{"traefik:average=1,burst=1,key=key", "PPPrPrr", 0},              // 65 536 sources
		{"token-bucket:rate=1,burst=1,key=key,capacity=3", "PPPrPPP", 3}, // an LRU
	} {
		got, ev := passesOf(t, c.spec, arr)
		if got != c.want || ev != c.evictions {
			t.Errorf("%s: %s with %d evictions, want %s with %d", c.spec, got, ev, c.want, c.evictions)
		}
	}
}

// Without capacity=, Traefik's map holds maxSources = 65 536 sources: the
// 65 537th new source in one second pushes out the first (all expire in
// the same second; the heap's root is then the first pushed), which comes
// back with a full bucket.
func TestTraefikMaxSources(t *testing.T) {
	l := mustNew(t, "traefik:average=1,burst=1,key=key", 0)
	bindAll(t, l)
	rl := l.(RequestLimiter)
	dec := func(ms int, id int32) bool {
		r := Request{Keys: [MaxKeyColumns]int32{id, NoKey, NoKey, NoKey}, Cost: 1}
		return rl.DecideRequest(time.Duration(ms)*time.Millisecond, &r).Pass
	}
	for id := range int32(traefikMaxSources + 1) {
		dec(0, id)
	}
	if f := KeyReporterOf(l).KeyFigures(); f.Evictions != 1 || f.PeakKeys != traefikMaxSources {
		t.Fatalf("figures %+v, want 1 eviction and %d keys", f, traefikMaxSources)
	}
	got := fmt.Sprint(dec(1, 0), dec(1, 2))
	if got != "true false" {
		t.Fatalf("source 0 (evicted), source 2 (kept): %s, want true false", got)
	}
}
