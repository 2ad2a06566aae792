package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// modelTable is the obvious KeyTable: a map and a list, dense ids in
// first-seen order.
type modelTable struct {
	ids   map[string]int32
	names []string
}

func (m *modelTable) intern(s string) int32 {
	if s == "" {
		return NoKey
	}
	if id, ok := m.ids[s]; ok {
		return id
	}
	id := int32(len(m.names))
	m.ids[s] = id
	m.names = append(m.names, s)
	return id
}

// randomKey draws a key meant to meet the table's edge cases: every
// length from 1 to 40 (in a slot alone up to 8, in the entry up to 15, in
// the arena from 16), keys sharing their first 8 or 15 bytes, keys that
// differ only by trailing zero bytes, and now and then one longer than an
// arena chunk's quarter.
func randomKey(r *rand.Rand, distinct int) string {
	v := r.IntN(distinct)
	switch r.IntN(6) {
	case 0: // any length 1..40, 100 values each: many equal heads
		n := 1 + r.IntN(40)
		b := []byte(strings.Repeat("ab", 20)[:n])
		b[n-1] = byte('0' + v%10)
		if n > 1 {
			b[n-2] = byte('0' + v/10%10)
		}
		return string(b)
	case 1: // one shared 8-byte head, lengths 9..40
		return "prefix--" + fmt.Sprintf("%0*d", 1+r.IntN(32), v)
	case 2: // one shared 15-byte head, lengths 15..18
		d := strconv.Itoa(v % 1000)
		return "fifteen-bytes--" + d[:r.IntN(len(d)+1)]
	case 3: // zero bytes and lengths that differ only by them
		return strings.Repeat("\x00", 1+r.IntN(24)) + strings.Repeat("\x00z", r.IntN(2))
	case 4:
		if r.IntN(200) == 0 {
			return strings.Repeat("y", 16<<10+r.IntN(3)) // its own chunk
		}
		return "10." + strconv.Itoa(v%4) + "." + strconv.Itoa(v/4%250) + "." + strconv.Itoa(v/1000%250)
	}
	return "k" + strconv.Itoa(v)
}

// checkModel interns keys in tab and in the model and fails at the first
// id or name that differs; then every id's name and Len.
func checkModel(t testing.TB, tab *KeyTable, keys []string) {
	t.Helper()
	m := &modelTable{ids: map[string]int32{}}
	for i, s := range keys {
		want := m.intern(s)
		var got int32
		if i%2 == 0 {
			got = tab.Intern(s)
		} else {
			got = tab.InternBytes([]byte(s))
		}
		if got != want {
			t.Fatalf("key %d %q (length %d): id %d, want %d", i, trunc(s), len(s), got, want)
		}
	}
	if tab.Len() != len(m.names) {
		t.Fatalf("Len %d, want %d", tab.Len(), len(m.names))
	}
	for id, s := range m.names {
		if got := tab.Name(int32(id)); got != s {
			t.Fatalf("Name(%d) %q, want %q", id, trunc(got), trunc(s))
		}
	}
	if tab.Name(int32(len(m.names))) != "" || tab.Name(NoKey) != "" || tab.Name(-7) != "" {
		t.Fatal("an unknown id has a name")
	}
}

func trunc(s string) string {
	if len(s) > 50 {
		return s[:50] + "…"
	}
	return s
}

// The table against the model on random keys, enough distinct ones to
// double the slots many times (1,024 to 2^19), every key looked up again
// and again.
func TestKeyTableRandomAgainstModel(t *testing.T) {
	n := 400_000
	if testing.Short() {
		n = 100_000
	}
	for seed := range uint64(2) {
		r := rand.New(rand.NewPCG(27, seed))
		keys := make([]string, n)
		for i := range keys {
			keys[i] = randomKey(r, n/2)
		}
		tab := NewKeyTable()
		checkModel(t, tab, keys)
		if tab.Len() < 100_000/4 || len(tab.slots) < 1<<16 {
			t.Fatalf("only %d keys, %d slots: the test does not grow the table", tab.Len(), len(tab.slots))
		}
	}
}

// Collisions: with the hash's bits dropped, every key's slot search
// starts at the same place (drop all: one probe chain through every
// key) or at one of 16 (drop all but the top 4 bits, which are in the
// slot's tag too), so equal tags, equal heads and equal lengths all meet
// and only the entry and the arena tell the keys apart; the doublings
// move slots by their tags.
func TestKeyTableCollisions(t *testing.T) {
	for _, drop := range []uint64{^uint64(0), ^uint64(0) >> 4} {
		r := rand.New(rand.NewPCG(27, drop))
		keys := make([]string, 6000)
		for i := range keys {
			keys[i] = randomKey(r, 1500)
		}
		tab := NewKeyTable()
		tab.drop = drop
		checkModel(t, tab, keys)
		if tab.Len() < 1000 {
			t.Fatalf("only %d keys", tab.Len())
		}
	}
}

// Past 2^24 slots a doubling hashes the keys again instead of taking
// the slot's 24 bits: the same ids either way (hashAgain makes every
// doubling take that path, so the test stays small).
func TestKeyTableRehashHashingAgain(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 3))
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = randomKey(r, 50000)
	}
	tab := NewKeyTable()
	tab.hashAgain = true
	checkModel(t, tab, keys)
	if len(tab.slots) < 1<<14 {
		t.Fatalf("%d slots: too few doublings", len(tab.slots))
	}
}

// Reserve, before any key and halfway: the same ids, and no slot moves
// while the reserved keys come in.
func TestKeyTableReserve(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 4))
	keys := make([]string, 50000)
	for i := range keys {
		keys[i] = randomKey(r, 1<<30)
	}
	tab := NewKeyTable()
	tab.Reserve(20000)
	slots := len(tab.slots)
	if slots < 40000 {
		t.Fatalf("%d slots reserved for 20,000 keys", slots)
	}
	checkModel(t, tab, keys[:15000])
	if len(tab.slots) != slots {
		t.Fatalf("slots grew from %d to %d within the reserve", slots, len(tab.slots))
	}
	tab.Reserve(100)    // smaller: no change
	tab.Reserve(200000) // halfway
	if len(tab.slots) < 400000 {
		t.Fatalf("%d slots reserved for 200,000 keys", len(tab.slots))
	}
	checkModel(t, tab, keys)
}

// Name and Len from other goroutines while the table interns (under
// -race: no race; every name read is the one interned, through block,
// chunk and slot growth). Key i's name is concurrentKey(i); the readers
// stop when the interning is over, not on a clock.
func TestKeyTableConcurrentReaders(t *testing.T) {
	n := 60000
	if testing.Short() {
		n = 20000
	}
	tab := NewKeyTable()
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(27, uint64(g)))
			reads := 0
			for !done.Load() || reads < 1000 {
				l := tab.Len()
				if l == 0 {
					continue
				}
				id := int32(r.IntN(l))
				if g == 0 {
					id = int32(l - 1) // the newest
				}
				if got, want := tab.Name(id), concurrentKey(int(id)); got != want {
					errs <- fmt.Sprintf("Name(%d) %q, want %q", id, trunc(got), trunc(want))
					return
				}
				if tab.Len() < l {
					errs <- "Len went down"
					return
				}
				reads++
			}
		}()
	}
	r := rand.New(rand.NewPCG(27, 5))
	for i := 0; i < n; i++ {
		if id := tab.Intern(concurrentKey(i)); id != int32(i) {
			t.Fatalf("key %d: id %d", i, id)
		}
		if j := r.IntN(i + 1); tab.InternBytes([]byte(concurrentKey(j))) != int32(j) {
			t.Fatalf("key %d again: another id", j)
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// concurrentKey is key i of TestKeyTableConcurrentReaders: lengths 2 to
// 41, and every 997th longer than an arena chunk's quarter.
func concurrentKey(i int) string {
	s := strconv.Itoa(i) + "-"
	if i%997 == 0 {
		return s + strings.Repeat("L", 16<<10)
	}
	return s + strings.Repeat("abcdefgh", 5)[:i%(41-len(s))]
}
