package algorithms

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func newHier(t testing.TB, limit float64, window time.Duration, layers string) *Hierarchical {
	t.Helper()
	ls, err := ParseLayers(layers)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHierarchical(HierarchicalConfig{Limit: limit, Window: window, Layers: ls})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHierarchicalWorkedExample is docs/algorithms.md's worked example,
// hierarchical:limit=10,window=1s,layers=100ms*10+1s*2, decision by
// decision.
func TestHierarchicalWorkedExample(t *testing.T) {
	h := newHier(t, 10, time.Second, "100ms*10+1s*2")
	steps := []struct {
		at       time.Duration
		n, pass  int
		estimate float64 // before the first arrival of the step
	}{
		{50 * ms, 12, 10, 0},   // ten pass in fine bucket 0 and coarse bucket 0
		{1020 * ms, 5, 2, 8},   // 10·(100−20)/100 = 8 of [0, 100ms): two pass
		{1060 * ms, 6, 4, 6},   // 10·(100−60)/100 + 2 = 6: four pass
		{1100 * ms, 3, 0, 11},  // fine bucket 0 gone: 10·(200−100)/200 + 6 = 11
		{1150 * ms, 1, 1, 8.5}, // 10·(200−150)/200 + 6 = 8.5: 9.5 ≤ 10 passes
	}
	for _, st := range steps {
		if got := h.Estimate(st.at); got != st.estimate {
			t.Fatalf("at %v: estimate %v, want %v", st.at, got, st.estimate)
		}
		passed := 0
		for range st.n {
			if h.Decide(st.at).Pass {
				passed++
			}
		}
		if passed != st.pass {
			t.Fatalf("at %v: %d of %d passed, want %d", st.at, passed, st.n, st.pass)
		}
	}
	// The uniform ring of the fine layer alone forgets bucket 0 at 1 s and
	// lets ten through at 1020 ms: twenty in (20ms, 1020ms].
	ring := newHier(t, 10, time.Second, "100ms*10")
	for range 10 {
		ring.Decide(50 * ms)
	}
	passed := 0
	for range 12 {
		if ring.Decide(1020 * ms).Pass {
			passed++
		}
	}
	if passed != 10 {
		t.Fatalf("the ring alone passed %d at 1020ms, want 10", passed)
	}
}

// hierDefinition is docs/algorithms.md's definition written out plainly
// from the log of passes, for a clock that does not go back.
func hierDefinition(limit float64, window time.Duration, layers []Layer, trace []time.Duration) []bool {
	var passes []int64
	count := func(from, to int64) int64 { // passes in [from, to)
		var n int64
		for _, p := range passes {
			if p >= from && p < to {
				n++
			}
		}
		return n
	}
	out := make([]bool, len(trace))
	for i, at := range trace {
		T, W := int64(at), int64(window)
		s := T - W
		reach := make([]int64, len(layers))
		ans := -1
		for m, l := range layers {
			b := int64(l.Len)
			reach[m] = (floorDiv(T, b) - int64(l.Count) + 1) * b
			if reach[m] <= s {
				ans = m
				break
			}
		}
		var est float64
		if ans < 0 {
			est = float64(count(slices.Min(reach), T+1))
		} else {
			b := int64(layers[ans].Len)
			u := floorDiv(s, b) * b
			e := u + b
			for m := range ans {
				e = min(e, reach[m])
			}
			est = float64(count(u, e))*float64(e-s)/float64(e-u) + float64(count(e, T+1))
		}
		if est+1 <= limit {
			out[i] = true
			passes = append(passes, T)
		}
	}
	return out
}

// randomLayers draws a valid stack of 1 to 3 nested layers for window.
func randomLayers(rng *rand.Rand, window time.Duration) []Layer {
	var ls []Layer
	b := window / time.Duration([]int{1000, 100, 40, 20, 10, 4}[rng.IntN(6)])
	for k := 1 + rng.IntN(3); k > 0 && b <= window; k-- {
		c := 1 + rng.IntN(int(window/b)+2)
		ls = append(ls, Layer{Len: b, Count: c})
		b *= time.Duration([]int{2, 5, 10}[rng.IntN(3)])
	}
	last := &ls[len(ls)-1]
	if need := int((window + last.Len - 1) / last.Len); last.Count < need {
		last.Count = need + rng.IntN(2)
	}
	return ls
}

func sortedJumpyTrace(rng *rand.Rand, n int) []time.Duration {
	tr := jumpyTrace(rng, n, rng.IntN(2) == 0)
	slices.Sort(tr)
	return tr
}

func TestHierarchicalMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	decisions := 0
	for trial := range 60 {
		window := []time.Duration{time.Second, 2 * time.Second, 600 * ms}[trial%3]
		limit := []float64{10, 3, 25.5, 100}[trial%4]
		ls := randomLayers(rng, window)
		h, err := NewHierarchical(HierarchicalConfig{Limit: limit, Window: window, Layers: ls})
		if err != nil {
			t.Fatalf("layers %s: %v", FormatLayers(ls), err)
		}
		trace := sortedJumpyTrace(rng, 1500)
		want := hierDefinition(limit, window, ls, trace)
		for i, at := range trace {
			if got := h.Decide(at).Pass; got != want[i] {
				t.Fatalf("limit %v window %v layers %s, arrival %d at %v: pass=%v, the definition says %v", limit, window, FormatLayers(ls), i, at, got, want[i])
			}
			decisions++
		}
	}
	t.Logf("%d decisions identical", decisions)
}

// TestHierarchicalBound: on random traces, every window (t − W, t] ending
// at a pass holds at most ⌊limit⌋ plus the passes of (t − W, t − W + G),
// G = UncertainSpan(), counted on the exact log of passes.
func TestHierarchicalBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	tight := 0
	for trial := range 120 {
		window := []time.Duration{time.Second, time.Minute, 300 * ms}[trial%3]
		limit := []float64{10, 50, 7.5}[trial%3]
		ls := randomLayers(rng, window)
		cfg := HierarchicalConfig{Limit: limit, Window: window, Layers: ls}
		h, err := NewHierarchical(cfg)
		if err != nil {
			t.Fatal(err)
		}
		g := cfg.UncertainSpan()
		var trace []time.Duration
		if trial%2 == 0 {
			trace = sortedJumpyTrace(rng, 3000)
			for i := range trace { // scale the trace's seconds to windows
				trace[i] = time.Duration(float64(trace[i]) * window.Seconds())
			}
		} else {
			trace = poissonTrace(rng, 3*limit/window.Seconds(), 8*window)
		}
		var passes []time.Duration
		for _, at := range trace {
			if h.Decide(at).Pass {
				passes = append(passes, at)
			}
		}
		lo, glo, ghi := 0, 0, 0
		for i, p := range passes {
			s := p - window
			for passes[lo] <= s {
				lo++
			}
			for glo < len(passes) && passes[glo] <= s {
				glo++
			}
			for ghi < len(passes) && passes[ghi] < s+g {
				ghi++
			}
			inWindow := i - lo + 1
			bound := int(limit) + max(0, ghi-glo)
			if inWindow > bound {
				t.Fatalf("layers %s window %v limit %v: %d passes in (%v, %v], bound ⌊limit⌋ + %d passes in (t−W, t−W+%v) = %d",
					FormatLayers(ls), window, limit, inWindow, s, p, ghi-glo, g, bound)
			}
			if inWindow == bound && ghi > glo {
				tight++
			}
		}
	}
	if tight == 0 {
		t.Fatal("the bound was never reached with a non-empty uncertain span; the traces do not test it")
	}
}

// With a single layer of window/len buckets the layered window is the plain
// ring: leap-array at interval 1s (whose check is count + 1 ≤ limit there)
// decides the same; with one layer of two window-long buckets it is the
// sliding-window counter.
func TestHierarchicalSingleLayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 4))
	for trial := range 40 {
		n := []int{1, 2, 4, 5, 10, 20, 50, 100}[trial%8]
		limit := []float64{10, 3, 7.5, 100}[trial%4]
		h := newHier(t, limit, time.Second, FormatDuration(time.Second/time.Duration(n))+"*"+itoa(n))
		la, err := NewLeapArray(LeapArrayConfig{Limit: limit, SampleCount: n, Interval: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		swc, _ := NewSlidingWindowCounter(SlidingWindowCounterConfig{Limit: limit, Window: time.Second})
		h2 := newHier(t, limit, time.Second, "1s*2")
		trace := sortedJumpyTrace(rng, 3000)
		for i, at := range trace {
			if got, want := h.Decide(at).Pass, la.Decide(at).Pass; got != want {
				t.Fatalf("N=%d limit %v arrival %d at %v: hierarchical pass=%v, leap-array %v", n, limit, i, at, got, want)
			}
			if got, want := h2.Decide(at).Pass, swc.Decide(at).Pass; got != want {
				t.Fatalf("limit %v arrival %d at %v: hierarchical 1s*2 pass=%v, sliding-window-counter %v", limit, i, at, got, want)
			}
		}
	}
}

func itoa(n int) string { return formatFloat(float64(n)) }

func TestHierarchicalErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"hierarchical:limit=10,layers=1s*2+5", "is not LEN*COUNT"},
		{"hierarchical:limit=10,layers=100ms", "is not LEN*COUNT"},
		{"hierarchical:limit=10,layers=100ms*0", "whole count of at least 1"},
		{"hierarchical:limit=10,layers=-1s*2", "positive duration"},
		{"hierarchical:limit=10,layers=100ms*10+250ms*4", "multiple of the one before"},
		{"hierarchical:limit=10,layers=1s*2+100ms*10", "finest first"},
		{"hierarchical:limit=10,layers=100ms*9", "holds only 900ms"},
		{"hierarchical:limit=10,layers=2s*1", "longer than the window"},
		{"hierarchical:limit=0,layers=1s*1", "limit"},
	} {
		_, err := New(tc.spec, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.spec, err, tc.want)
		}
	}
	l, err := New("hierarchical:limit=10", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Spec(), "hierarchical:limit=10,window=1s,layers=100ms*10+1s*2"; got != want {
		t.Fatalf("Spec %q, want %q", got, want)
	}
}

func TestHierarchicalUncertainSpan(t *testing.T) {
	for _, tc := range []struct {
		layers string
		window time.Duration
		want   time.Duration
	}{
		{"100ms*10", time.Second, 100 * ms},
		{"1s*2", time.Second, time.Second},
		{"100ms*10+1s*2", time.Second, 100 * ms},
		{"100ms*5+1s*2", time.Second, 600 * ms},
		{"10s*6", time.Minute, 10 * time.Second},
		{"1s*10+10s*7", time.Minute, 10 * time.Second},
		{"1s*59+10s*7", time.Minute, 2 * time.Second},
	} {
		ls, err := ParseLayers(tc.layers)
		if err != nil {
			t.Fatal(err)
		}
		if got := (HierarchicalConfig{Window: tc.window, Layers: ls}).UncertainSpan(); got != tc.want {
			t.Errorf("%s over %v: G = %v, want %v", tc.layers, tc.window, got, tc.want)
		}
	}
}

func FuzzParseLayers(f *testing.F) {
	for _, s := range []string{"100ms*10+1s*2", "1s*2", "", "+", "*", "1s*", "*3", "1h*-1", "0s*1", "1s*99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := ParseLayers(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "hierarchical: ") {
				t.Fatalf("error %q is not one line naming the spec", err)
			}
			return
		}
		for _, l := range ls {
			if l.Len <= 0 || l.Count < 1 {
				t.Fatalf("%q gave layer %v*%d", s, l.Len, l.Count)
			}
		}
		again, err := ParseLayers(FormatLayers(ls))
		if err != nil || !slices.Equal(again, ls) {
			t.Fatalf("%q: FormatLayers %q reads back as %v, %v", s, FormatLayers(ls), again, err)
		}
		// A config built from them either fails with one line or decides.
		h, err := NewHierarchical(HierarchicalConfig{Limit: 5, Window: time.Second, Layers: ls})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		if h.Config().Buckets() > maxRingBuckets {
			t.Fatal("too many buckets accepted")
		}
		h.Decide(0)
		h.Decide(1500 * ms)
	})
}

// hierMaps is the definition with each layer's buckets in a map, for any
// clock: the layers move to the newest instant reached, the check reads
// them there, and a pass counts in every layer still holding its bucket.
type hierMaps struct {
	limit   float64
	w       int64
	layers  []Layer
	buckets []map[int64]int64
	newest  int64
	seen    bool
}

func (h *hierMaps) decide(at time.Duration) bool {
	t := int64(at)
	if !h.seen || t > h.newest {
		h.newest, h.seen = t, true
	}
	T, s := h.newest, h.newest-h.w
	J := func(m int) int64 { return floorDiv(T, int64(h.layers[m].Len)) }
	held := func(m int, i int64) bool { return i > J(m)-int64(h.layers[m].Count) && i <= J(m) }
	for m := range h.layers {
		for i := range h.buckets[m] {
			if !held(m, i) {
				delete(h.buckets[m], i)
			}
		}
	}
	// count(m, from, to): layer m's passes in buckets starting in [from, to).
	count := func(m int, from, to int64) int64 {
		var n int64
		b := int64(h.layers[m].Len)
		for i, c := range h.buckets[m] {
			if i*b >= from && i*b < to {
				n += c
			}
		}
		return n
	}
	ans, near := -1, -1
	reach := func(m int) int64 { return (J(m) - int64(h.layers[m].Count) + 1) * int64(h.layers[m].Len) }
	for m := range h.layers {
		if reach(m) <= s {
			ans = m
			break
		}
		if near < 0 || reach(m) < reach(near) {
			near = m
		}
	}
	var est float64
	if ans < 0 {
		est = float64(count(near, reach(near), T+1))
	} else {
		b := int64(h.layers[ans].Len)
		u := floorDiv(s, b) * b
		e := u + b
		var known int64
		if near >= 0 && reach(near) < e {
			e = reach(near)
			known = count(near, e, u+b)
		}
		rest := count(ans, u, u+b) - known
		exact := count(ans, u+b, T+1) + known
		est = float64(rest)*float64(e-s)/float64(e-u) + float64(exact)
	}
	if est+1 > h.limit {
		return false
	}
	for m, l := range h.layers {
		if i := floorDiv(t, int64(l.Len)); held(m, i) {
			h.buckets[m][i]++
		}
	}
	return true
}

// With a clock that steps back, idles and bursts on edges, the ring
// implementation decides as the map-per-layer definition does.
func TestHierarchicalClockBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	decisions := 0
	for trial := range 60 {
		window := []time.Duration{time.Second, 2 * time.Second, 600 * ms}[trial%3]
		limit := []float64{10, 3, 25.5, 100}[trial%4]
		ls := randomLayers(rng, window)
		h, err := NewHierarchical(HierarchicalConfig{Limit: limit, Window: window, Layers: ls})
		if err != nil {
			t.Fatal(err)
		}
		ref := &hierMaps{limit: limit, w: int64(window), layers: ls}
		for range ls {
			ref.buckets = append(ref.buckets, map[int64]int64{})
		}
		for i, at := range jumpyTrace(rng, 1500, trial%2 == 0) {
			if got, want := h.Decide(at).Pass, ref.decide(at); got != want {
				t.Fatalf("limit %v window %v layers %s, arrival %d at %v: pass=%v, the definition says %v", limit, window, FormatLayers(ls), i, at, got, want)
			}
			decisions++
		}
	}
	t.Logf("%d decisions identical", decisions)
}

// A step back is read at the newest instant: ten passes at 1.05 s fill the
// window, and a request at 0.5 s is refused though nothing passed in
// (−0.5 s, 0.5 s]; after that, a pass at 0.95 s (still held) counts.
func TestHierarchicalStepBackExample(t *testing.T) {
	h := newHier(t, 10, time.Second, "100ms*10+1s*2")
	for range 9 {
		h.Decide(1050 * ms)
	}
	if !h.Decide(950 * ms).Pass { // 9 + 1 ≤ 10, read at 1.05 s
		t.Fatal("the tenth pass, at 950 ms after 1050 ms, was refused")
	}
	if h.Decide(500 * ms).Pass {
		t.Fatal("a request at 500 ms passed although the window at the newest instant holds 10")
	}
	if got := h.Estimate(1050 * ms); got != 10 {
		t.Fatalf("estimate %v, want 10 (the pass at 950 ms counts in fine bucket 9 and coarse bucket 0)", got)
	}
}
