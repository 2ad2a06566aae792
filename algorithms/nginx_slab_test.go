package algorithms_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestNginxZoneSizes checks the zone arithmetic of docs/algorithms.md's
// "Zone size → states (64-bit)": a 10m zone has 2544 pages and 81,375
// states of keys up to 48 bytes, 1m 8,095, the minimum 32k 7 pages after
// alignment and 191 states.
func TestNginxZoneSizes(t *testing.T) {
	cases := []struct {
		size          int64
		pages, states int64
	}{
		{10 << 20, 2544, 81375},
		{1 << 20, -1, 8095},
		{32 << 10, 7, 191},
	}
	for _, c := range cases {
		if c.pages >= 0 {
			if got := algorithms.NginxZonePages(c.size); got != c.pages {
				t.Errorf("NginxZonePages(%d) = %d, want %d", c.size, got, c.pages)
			}
		}
		for _, keyLen := range []int{1, 48} {
			if got := algorithms.NginxStatesPerZone(c.size, keyLen); got != c.states {
				t.Errorf("NginxStatesPerZone(%d, %d) = %d, want %d", c.size, keyLen, got, c.states)
			}
		}
		// A key over 48 bytes takes a 256-byte chunk: fewer states.
		if long := algorithms.NginxStatesPerZone(c.size, 49); long >= c.states {
			t.Errorf("NginxStatesPerZone(%d, 49) = %d, not fewer than %d", c.size, long, c.states)
		}
	}
}

// TestNginxZoneFills replays a 32k zone that fills: 191 short keys fit; a
// new key then forces out the tail of the LRU queue and passes; the forced
// out key comes back new (its first request costs nothing); and a 60-byte
// key cannot be allocated in a zone full of 128-byte states ("could not
// allocate node"), so it is rejected.
func TestNginxZoneFills(t *testing.T) {
	l := mustNew(t, "nginx-limit-req:rate=1r/s,zone=32k")
	l.(algorithms.KeyNameUser).BindKeyNames(func(id int32) string {
		if id >= 1000 {
			return strings.Repeat("x", 60)
		}
		return fmt.Sprintf("k%d", id)
	})
	var steps []keyArrival
	for id := range int32(191) {
		steps = append(steps, kp(0, id))
	}
	steps = append(steps,
		kb(0, 190),  // an existing key: 0 + 1000 > 0
		kp(0, 191),  // the zone is full: key 0, the tail, is forced out
		kp(0, 0),    // new again; key 1 is forced out
		kb(0, 2),    // still in the zone
		kb(0, 1000), // a 256-byte chunk: no page frees up, rejected
		kp(0, 1),    // key 1 was forced out: new
	)
	replayKeys(t, l, steps)
	if figs := algorithms.KeyReporterOf(l); figs == nil {
		t.Fatalf("nginx-limit-req reports no per-key figures")
	} else if f := figs.KeyFigures(); f.AllocFailures != 1 {
		t.Errorf("KeyFigures = %+v, want 1 allocation failure", f)
	}
}
