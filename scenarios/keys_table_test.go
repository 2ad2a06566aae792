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
// keys.
func BenchmarkKeyTable(b *testing.B) {
	keys := 1_000_000
	if testing.Short() {
		keys = 100_000
	}
	r := rand.New(rand.NewPCG(27, 8))
	lines := make([][]byte, 10*keys)
	for i := range lines {
		lines[i] = []byte("k" + fmt.Sprint(r.IntN(keys)))
	}
	run := func(b *testing.B, intern func() (any, int)) {
		var kept any
		var n int
		m := startMeter()
		var heap uint64
		for range b.N {
			runtime.GC()
			before := heapNow(b, m)
			kept, n = intern()
			heap = heapNow(b, m) - before
		}
		report(b, m, int64(len(lines)), n, heap)
		runtime.KeepAlive(kept)
	}
	b.Run("floor-map", func(b *testing.B) {
		run(b, func() (any, int) {
			ids := map[string]int32{}
			for _, l := range lines {
				if _, ok := ids[string(l)]; !ok {
					ids[string(l)] = int32(len(ids))
				}
			}
			return ids, len(ids)
		})
	})
	b.Run("KeyTable", func(b *testing.B) {
		run(b, func() (any, int) {
			k := NewKeyTable()
			for _, l := range lines {
				k.InternBytes(l)
			}
			return k, k.Len()
		})
	})
}
