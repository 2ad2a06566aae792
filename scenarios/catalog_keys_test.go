package scenarios

import (
	"math"
	"strings"
	"testing"
	"time"
)

// keyedDrain streams a scenario and counts arrivals per key name.
func keyedDrain(t *testing.T, s Scenario) ([]Arrival, *KeyTable, map[string]int) {
	t.Helper()
	if !KeyedScenariosEnabled {
		s.Algorithms = nil // Stream validates them; not registered yet
	}
	st, err := s.Stream()
	if err != nil {
		t.Fatal(err)
	}
	arr, err := readAll(st)
	if err != nil {
		t.Fatal(err)
	}
	ks := st.(KeyedStream)
	if c := ks.KeyColumns(); len(c) != 1 || c[0] != "key" {
		t.Fatalf("%s: KeyColumns %v", s.Name, c)
	}
	per := map[string]int{}
	for _, a := range arr {
		per[ks.KeyTable().Name(a.Keys[0])]++
	}
	return arr, ks.KeyTable(), per
}

func TestKeyedCatalog(t *testing.T) {
	byName := map[string]Scenario{}
	for _, s := range keyedScenarios() {
		byName[s.Name] = s
		if s.Description == "" || strings.Contains(s.Description, "\n") || s.Limit <= 0 || len(s.Algorithms) < 3 {
			t.Errorf("%s: %+v", s.Name, s)
		}
		check := s
		if !KeyedScenariosEnabled {
			check.Algorithms = nil // their limiters are not registered yet
		} else if _, err := Lookup(s.Name); err != nil {
			t.Errorf("%s is enabled but not in the catalog: %v", s.Name, err)
		}
		if err := check.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if len(byName) != 4 {
		t.Fatalf("%d keyed scenarios", len(byName))
	}
	if _, err := Lookup("heavy-hitters"); (err == nil) != KeyedScenariosEnabled {
		t.Errorf("Lookup(heavy-hitters) = %v with KeyedScenariosEnabled %v", err, KeyedScenariosEnabled)
	}

	t.Run("heavy-hitters", func(t *testing.T) {
		arr, _, per := keyedDrain(t, byName["heavy-hitters"])
		if n := float64(len(arr)); math.Abs(n-200000) > 5*math.Sqrt(200000) {
			t.Errorf("%v arrivals, want about 200000", n)
		}
		h := 0.0
		for r := 1; r <= 100000; r++ {
			h += math.Pow(float64(r), -1.1)
		}
		if share, want := float64(per["k000000"])/float64(len(arr)), 1/h; math.Abs(share-want) > 0.01 {
			t.Errorf("top key share %.4f, want %.4f", share, want)
		}
		if len(per) < 20000 || len(per) > 100000 {
			t.Errorf("%d distinct keys", len(per))
		}
	})
	t.Run("key-spray", func(t *testing.T) {
		arr, _, per := keyedDrain(t, byName["key-spray"])
		if per["hot"] != 300 || len(arr) != 300+50000 || len(per) != 50001 {
			t.Errorf("hot %d, arrivals %d, keys %d", per["hot"], len(arr), len(per))
		}
		for _, a := range arr {
			if a.At >= 5*time.Second && a.At < 10*time.Second {
				continue
			}
			if a.Keys[0] != arr[0].Keys[0] {
				t.Fatalf("a new key outside the spray at %v", a.At)
			}
		}
		// The hot key is evicted from Sentinel's default table (4000
		// values) only if more new keys than that come between two of its
		// requests: during the spray, the most between two is 5000.
		most, since := 0, 0
		for _, a := range arr {
			if a.Keys[0] == arr[0].Keys[0] {
				most, since = max(most, since), 0
				continue
			}
			since++
		}
		if most <= 4000 {
			t.Errorf("at most %d new keys between two hot requests: the hot key is never evicted from a 4000-value table", most)
		}
	})
	t.Run("nat-office", func(t *testing.T) {
		arr, kt, per := keyedDrain(t, byName["nat-office"])
		users := map[int32]int{}
		for _, a := range arr {
			if kt.Name(a.Keys[0]) == "office-nat" {
				users[a.User]++
			} else if a.User != NoKey {
				t.Fatalf("a user outside the office: %+v", a)
			}
		}
		if math.Abs(float64(per["office-nat"])-3000) > 5*math.Sqrt(3000) || len(users) != 200 || len(per) != 51 {
			t.Errorf("office %d arrivals, %d users; %d keys", per["office-nat"], len(users), len(per))
		}
		// Each user stays well under the per-key limit of 10/s.
		for u, n := range users {
			if float64(n)/30 > 2 {
				t.Errorf("user %s sends %.1f/s", kt.Name(u), float64(n)/30)
			}
		}
	})
	t.Run("burst-zero", func(t *testing.T) {
		arr, _, per := keyedDrain(t, byName["burst-zero"])
		if len(arr) != 60 || per["client"] != 60 {
			t.Fatalf("%d arrivals, %v", len(arr), per)
		}
		// Arrival k at round(k/3 s): whole milliseconds 0, 333, 666, 1000, ...
		for k, a := range arr {
			if want := time.Duration(math.Round(float64(k) * 1e9 / 3)); a.At != want {
				t.Fatalf("arrival %d at %v, want %v", k, a.At, want)
			}
		}
	})
}
