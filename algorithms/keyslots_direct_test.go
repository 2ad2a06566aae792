package algorithms

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

// withNodeTables gives l's unbounded tables the node layout of a bounded
// one (an id index, key and links beside each state; nginx's page in the
// node's accounting), the full representation the direct tables compact
// (issue 27): a table that never removes a slot decides the same on
// either.
func withNodeTables(t *testing.T, l Limiter) {
	t.Helper()
	switch x := l.(type) {
	case *NginxLimitReq:
		for _, z := range x.zones {
			if z.slab == nil {
				z.slots = newKeySlots[nginxState]()
				z.slots.nodeBytes = int(unsafe.Sizeof(nginxAccountedNode{}))
			}
		}
	case *SentinelParam:
		if x.capacity == 0 {
			x.slots = newKeySlots[paramState]()
		}
	default:
		t.Fatalf("%T: not a per-key kind with its own table", l)
	}
}

// randomCompactSpec is a random nginx-limit-req (one or two zones, on
// columns k and ip) or sentinel-param rule with an unbounded table, or,
// when bounded, with a small one that fills.
func randomCompactSpec(rng *rand.Rand, bounded bool) string {
	if rng.IntN(2) == 0 {
		zone := func() string {
			rate := strconv.Itoa(1+rng.IntN(20)) + []string{"r/s", "r/m"}[rng.IntN(2)]
			delay := "nodelay=true"
			if rng.IntN(2) == 0 {
				delay = "delay=" + strconv.Itoa(rng.IntN(4))
			}
			size := "0"
			if bounded {
				size = "32k"
			}
			return fmt.Sprintf("nginx-limit-req:rate=%s,burst=%d,%s,zone=%s", rate, rng.IntN(6), delay, size)
		}
		s := zone() + ",key=k"
		if rng.IntN(3) == 0 {
			s += "+" + zone() + ",key=ip"
		}
		return s
	}
	capacity := "unbounded"
	if bounded {
		capacity = strconv.Itoa(20 + rng.IntN(200))
	}
	s := fmt.Sprintf("sentinel-param:count=%d,capacity=%s,key=k", 1+rng.IntN(12), capacity)
	if rng.IntN(2) == 0 {
		s += ",behavior=throttle,max-queue=" + strconv.Itoa(rng.IntN(900)) + "ms"
	} else {
		s += ",burst=" + strconv.Itoa(rng.IntN(5))
	}
	if rng.IntN(3) == 0 {
		s += ",items=7:2|9:0|4100:30"
	}
	if rng.IntN(3) == 0 {
		s += ",flavor=go"
	}
	return s
}

func newCompactTestLimiter(t *testing.T, spec string) Limiter {
	t.Helper()
	l, err := New(spec, 10)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	idx := []int{0}
	if len(l.(KeyColumnUser).KeyColumns()) == 2 {
		idx = []int{0, 1}
	}
	if err := l.(KeyColumnUser).BindKeyColumns(idx); err != nil {
		t.Fatal(err)
	}
	l.(KeyNameUser).BindKeyNames(func(id int32) string { return strconv.Itoa(int(id)) })
	return l
}

// compactTrace is a random request stream: gaps from 0 to 300 ms, now
// and then a minute or more (nginx expires idle states) or a step back
// (the clock guards), costs 1 to 3, keys over a few ids or over ids
// spread across several 4096-entry pages (bounded: more than the table
// holds), some empty.
func compactTrace(rng *rand.Rand, n int, bounded bool) ([]time.Duration, []Request) {
	times := make([]time.Duration, n)
	reqs := make([]Request, n)
	var now time.Duration
	spread := []int{30, 900, 20000}[rng.IntN(3)]
	if bounded {
		spread = []int{900, 20000}[rng.IntN(2)] // more keys than the table holds
	}
	for i := range reqs {
		switch rng.IntN(200) {
		case 0:
			now += time.Duration(60+rng.IntN(120)) * time.Second
		case 1:
			now -= time.Duration(rng.IntN(2000)) * time.Millisecond
		default:
			now += time.Duration(rng.IntN(300)) * time.Millisecond
		}
		times[i] = now
		r := Request{Keys: noKeys, Cost: int32(1 + rng.IntN(3))}
		if rng.IntN(12) > 0 {
			r.Keys[0] = int32(rng.IntN(1 + rng.IntN(spread)))
		}
		if rng.IntN(4) > 0 {
			r.Keys[1] = int32(rng.IntN(60))
		}
		reqs[i] = r
	}
	return times, reqs
}

// The direct tables (an unbounded zone or cache, every shadow twin and
// every shard: states bare in pages, one bit of liveness) decide as the
// full node table does on random traces, request by request, with the
// same state bytes and figures; a bounded limiter's shadow passes are
// what the node-table twin passes; and a split limiter (--workers: direct
// parts) decides and reports as one node table.
func TestDirectTablesDecideLikeNodeTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	for round := range 120 {
		bounded := round%2 == 1
		spec := randomCompactSpec(rng, bounded)
		times, reqs := compactTrace(rng, 3000, bounded)
		t.Run(strconv.Itoa(round)+"/"+spec, func(t *testing.T) {
			if bounded {
				checkShadowLikeNodeTwin(t, spec, times, reqs)
				return
			}
			direct := newCompactTestLimiter(t, spec)
			full := newCompactTestLimiter(t, spec)
			withNodeTables(t, full)
			var split Limiter
			if sp, ok := newCompactTestLimiter(t, spec).(Sharder); ok {
				split = sp.(Limiter)
				if set, _ := sp.Shard(2 + rng.IntN(4)); set == nil {
					split = nil // several zones, items=: refused
				}
			}
			for i := range reqs {
				want := full.(RequestLimiter).DecideRequest(times[i], &reqs[i])
				got := direct.(RequestLimiter).DecideRequest(times[i], &reqs[i])
				if got != want {
					t.Fatalf("request %d: direct %+v, node table %+v", i, got, want)
				}
				fw, fg := KeyReporterOf(full).KeyFigures(), KeyReporterOf(direct).KeyFigures()
				if fg != fw || direct.StateBytes() != full.StateBytes() {
					t.Fatalf("request %d: direct %d bytes %+v, node table %d bytes %+v", i, direct.StateBytes(), fg, full.StateBytes(), fw)
				}
				if split == nil {
					continue
				}
				if got := split.(RequestLimiter).DecideRequest(times[i], &reqs[i]); got != want {
					t.Fatalf("request %d: split %+v, node table %+v", i, got, want)
				}
				if fs := KeyReporterOf(split).KeyFigures(); fs != fw || split.StateBytes() != full.StateBytes() {
					t.Fatalf("request %d: split %d bytes %+v, node table %d bytes %+v", i, split.StateBytes(), fs, full.StateBytes(), fw)
				}
			}
			if KeyReporterOf(full).KeyFigures().PeakKeys == 0 {
				t.Fatal("no key got a state: the trace tests nothing")
			}
		})
	}
}

// checkShadowLikeNodeTwin runs the bounded spec with its shadow twin (a
// direct table) beside its unbounded form on a node table: the shadow's
// passes are the node table's, request by request.
func checkShadowLikeNodeTwin(t *testing.T, spec string, times []time.Duration, reqs []Request) {
	t.Helper()
	l := newCompactTestLimiter(t, spec)
	KeyReporterOf(l).TrackShadow()
	var twin Limiter
	switch x := l.(type) {
	case *NginxLimitReq:
		twin, _ = x.unbounded()
	case *SentinelParam:
		twin = x.unbounded()
	}
	withNodeTables(t, twin)
	var passes int64
	for i := range reqs {
		l.(RequestLimiter).DecideRequest(times[i], &reqs[i])
		if twin.(RequestLimiter).DecideRequest(times[i], &reqs[i]).Pass {
			passes++
		}
		if f := KeyReporterOf(l).KeyFigures(); !f.HasShadow || f.ShadowPasses != passes {
			t.Fatalf("request %d: shadow passes %d (has %v), node-table twin %d", i, f.ShadowPasses, f.HasShadow, passes)
		}
	}
	if KeyReporterOf(l).KeyFigures().Evictions == 0 {
		t.Fatal("the bounded table never evicted: the trace tests nothing")
	}
}

// paged grows without moving what it holds: an entry written stays where
// it is (and keeps its value) while the array grows past the first page
// and on, and new entries are zero.
func TestPagedGrowsInPlace(t *testing.T) {
	var p paged[int64]
	var first *int64
	for n := 1; n <= 5*pageLen+3; n += 1 + n/3 {
		p.extend(n)
		if p.n != n {
			t.Fatalf("extend(%d): n = %d", n, p.n)
		}
		for i := range int32(n) {
			v := p.at(i)
			if *v != 0 && *v != int64(i)+1 {
				t.Fatalf("n %d: entry %d = %d", n, i, *v)
			}
			*v = int64(i) + 1
		}
		if n > pageLen {
			if first == nil {
				first = p.at(pageLen)
			} else if p.at(pageLen) != first {
				t.Fatalf("n %d: entry %d moved", n, pageLen)
			}
		}
	}
	for i := range int32(p.n) {
		if *p.at(i) != int64(i)+1 {
			t.Fatalf("entry %d = %d", i, *p.at(i))
		}
	}
	if want := (p.n + pageLen - 1) / pageLen; len(p.pages) != want || p.n <= 3*pageLen {
		t.Errorf("%d pages for %d entries, want %d (and more than 3)", len(p.pages), p.n, want)
	}
}
