package scenarios

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// checkAgainstMap interns keys in a KeyTable and in a map (the obvious
// model: dense ids in first-seen order) and fails at the first difference.
func checkAgainstMap(t testing.TB, keys []string) {
	k := NewKeyTable()
	model := map[string]int32{}
	var names []string
	for i, s := range keys {
		want, ok := model[s]
		if !ok && s != "" {
			want = int32(len(names))
			model[s] = want
			names = append(names, s)
		}
		if s == "" {
			want = NoKey
		}
		got := k.Intern(s)
		if i%2 == 1 {
			got = k.InternBytes([]byte(s))
		}
		if got != want {
			t.Fatalf("key %d %q: id %d, want %d", i, s, got, want)
		}
	}
	if k.Len() != len(names) {
		t.Fatalf("Len %d, want %d", k.Len(), len(names))
	}
	for id, s := range names {
		if got := k.Name(int32(id)); got != s {
			t.Fatalf("Name(%d) %q, want %q", id, got, s)
		}
	}
	if k.Name(int32(len(names))) != "" || k.Name(NoKey) != "" {
		t.Fatal("an unknown id has a name")
	}
}

// Keys that share their first 8 bytes, keys of exactly 8, keys longer
// than a slot's length byte (255) and than an arena chunk's quarter,
// keys that differ only in length (trailing zero bytes), and enough of
// them to rehash many times: ids and names are the model's.
func TestKeyTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 7))
	var keys []string
	n := 60000
	if testing.Short() {
		n = 15000
	}
	for i := 0; i < n; i++ {
		var s string
		switch r.IntN(8) {
		case 0:
			s = fmt.Sprintf("k%d", r.IntN(n/4))
		case 1:
			s = fmt.Sprintf("prefix-%d", r.IntN(n/4)) // shared 8-byte head
		case 2:
			s = fmt.Sprintf("%08d", r.IntN(1000)) // exactly 8 bytes
		case 3:
			s = strings.Repeat("\x00", r.IntN(12)) // zero bytes, lengths 0..11
		case 4:
			s = strings.Repeat("x", 250+r.IntN(10)) + fmt.Sprint(r.IntN(5)) // lengths around 255
		case 5:
			if r.IntN(50) == 0 {
				s = strings.Repeat("y", 16<<10+r.IntN(3)) // its own chunk
			}
		case 6:
			s = "10." + fmt.Sprint(r.IntN(4)) + "." + fmt.Sprint(r.IntN(250)) + "." + fmt.Sprint(r.IntN(250))
		default:
			s = ""
		}
		keys = append(keys, s)
	}
	checkAgainstMap(t, keys)
}

// FuzzKeyTable: any keys, split from the input at '|', get the model's ids
// and names, with the table's hash and with every hash equal.
func FuzzKeyTable(f *testing.F) {
	f.Add("a|b|a||abcdefgh|abcdefghi|abcdefgh\x00|abcdefgh")
	f.Add("\x00|\x00\x00|\x00")
	f.Add("abcdefghijklmno|abcdefghijklmnop|abcdefghijklmno|abcdefghijklmn\x00|abcdefghijklmnop|abcdefghijklmnoq")
	f.Add("10.1.200.7|10.1.200.71|10.1.200.7|10.1.200.17")
	f.Fuzz(func(t *testing.T, in string) {
		keys := strings.Split(in, "|")
		checkAgainstMap(t, keys)
		// Every key's hash alike: only the slots' heads and lengths,
		// the entries and the arena tell them apart.
		tab := NewKeyTable()
		tab.drop = ^uint64(0)
		checkModel(t, tab, keys)
	})
}

// BenchmarkKeyTable interns N keys drawn uniformly from K distinct ones
// ("k0" ... as floorcmd gen writes them; RATELIMIT_BENCH_KEYS, default
// 1,000,000 keys, 10 lookups a key) and reports ns/line and the table's
// heap per key (B/key), beside the floor's map[string]int32 on the same
// keys. ip-floor-map and ip-KeyTable do the same on the addresses of
// floorcmd's access.log (10⁶ lines, "10.a.b.c", 8 to 12 bytes, about
// 245,000 distinct), the keys of the combined-log run.
func BenchmarkKeyTable(b *testing.B) {
	keys := 1_000_000
	if testing.Short() {
		keys = 100_000
	}
	// The lines are one buffer and their ends, so the garbage collector
	// has no line to walk while the tables grow.
	type lineSet struct {
		buf  []byte
		ends []int32
	}
	each := func(ls lineSet, f func([]byte)) {
		start := int32(0)
		for _, e := range ls.ends {
			f(ls.buf[start:e:e])
			start = e
		}
	}
	var lines, ips lineSet
	r := rand.New(rand.NewPCG(27, 8))
	for range 10 * keys {
		lines.buf = fmt.Appendf(lines.buf, "k%d", r.IntN(keys))
		lines.ends = append(lines.ends, int32(len(lines.buf)))
	}
	// As floor.WriteCombined draws them.
	r = rand.New(rand.NewPCG(27, 2))
	for range keys {
		ips.buf = fmt.Appendf(ips.buf, "10.%d.%d.%d", r.IntN(4), r.IntN(250), r.IntN(250))
		ips.ends = append(ips.ends, int32(len(ips.buf)))
	}
	run := func(b *testing.B, lines lineSet, intern func(lineSet) (any, int)) {
		var kept any
		var n int
		m := startMeter()
		var heap uint64
		for range b.N {
			runtime.GC()
			before := heapNow(b, m)
			kept, n = intern(lines)
			heap = heapNow(b, m) - before
		}
		report(b, m, int64(len(lines.ends)), n, heap)
		runtime.KeepAlive(kept)
	}
	floorMap := func(lines lineSet) (any, int) {
		ids := map[string]int32{}
		each(lines, func(l []byte) {
			if _, ok := ids[string(l)]; !ok {
				ids[string(l)] = int32(len(ids))
			}
		})
		return ids, len(ids)
	}
	table := func(lines lineSet) (any, int) {
		k := NewKeyTable()
		each(lines, func(l []byte) { k.InternBytes(l) })
		return k, k.Len()
	}
	b.Run("floor-map", func(b *testing.B) { run(b, lines, floorMap) })
	b.Run("KeyTable", func(b *testing.B) { run(b, lines, table) })
	b.Run("ip-floor-map", func(b *testing.B) { run(b, ips, floorMap) })
	b.Run("ip-KeyTable", func(b *testing.B) { run(b, ips, table) })
}
