package scenarios

import (
	"math"
	"strings"
	"testing"
	"time"
)

const keyedYAML = `name: keyed
limit: 100
duration: 2s
seed: 7
phases:
  - {type: constant, rate: 1000, duration: 1s, keys: {count: 1000, dist: zipf, s: 1.2}, priority: 0.3}
  - {type: constant, start: 0s, rate: 100, key: office, users: {count: 200}}
  - {type: constant, start: 1s, rate: 500, spray: true}
  - {type: poisson, start: 1s, rate: 50}
`

func keyedArrivals(t *testing.T, data string) ([]Arrival, KeyedStream) {
	t.Helper()
	s, err := Parse([]byte(data), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stream()
	if err != nil {
		t.Fatal(err)
	}
	arr, err := readAll(st)
	if err != nil {
		t.Fatal(err)
	}
	return arr, st.(KeyedStream)
}

func TestPopulations(t *testing.T) {
	arr, ks := keyedArrivals(t, keyedYAML)
	if c := ks.KeyColumns(); len(c) != 1 || c[0] != "key" {
		t.Fatalf("KeyColumns %v", c)
	}
	if c := StreamColumns(ks); !c.User || !c.Priority || c.CPU || c.Cost {
		t.Fatalf("Columns %+v", c)
	}
	kt := ks.KeyTable()
	zipf := map[string]int{}
	users := map[string]int{}
	spray := map[string]int{}
	var prio, zipfN, office, none int
	for _, a := range arr {
		name := kt.Name(a.Keys[0])
		if a.Keys[1] != NoKey || a.Keys[2] != NoKey || a.Keys[3] != NoKey {
			t.Fatalf("extra key slots set: %+v", a)
		}
		switch {
		case strings.HasPrefix(name, "k"):
			zipfN++
			zipf[name]++
			if a.Priority {
				prio++
			}
			if a.User != NoKey {
				t.Fatalf("a zipf arrival has a user: %+v", a)
			}
		case name == "office":
			office++
			users[kt.Name(a.User)]++
		case strings.HasPrefix(name, "s3-"):
			spray[name]++
		case a.Keys[0] == NoKey:
			none++
		default:
			t.Fatalf("key %q", name)
		}
		if a.Priority && !strings.HasPrefix(name, "k") {
			t.Fatalf("priority outside the phase that has it: %+v", a)
		}
	}
	if zipfN != 1000 || office != 200 || len(spray) != 500 || none < 20 || none > 90 {
		t.Fatalf("counts: zipf %d, office %d, spray %d distinct, no key %d", zipfN, office, len(spray), none)
	}
	for k, n := range spray {
		if n != 1 || len(k) != len("s3-000001") {
			t.Fatalf("spray key %s sent %d", k, n)
		}
	}
	// Zipf with s = 1.2 over 1000 keys: rank 1 has 1/H(1000, 1.2) ≈ 21%
	// of the draws; allow 4 standard deviations.
	h := 0.0
	for r := 1; r <= 1000; r++ {
		h += math.Pow(float64(r), -1.2)
	}
	p1 := 1 / h
	if got, sd := float64(zipf["k000000"]), math.Sqrt(1000*p1*(1-p1)); math.Abs(got-1000*p1) > 4*sd {
		t.Errorf("k000000 drawn %v times, want about %.0f", got, 1000*p1)
	}
	if zipf["k000000"] <= zipf["k000001"] || zipf["k000001"] <= zipf["k000009"] {
		t.Errorf("zipf not decreasing: %d %d %d", zipf["k000000"], zipf["k000001"], zipf["k000009"])
	}
	if sd := math.Sqrt(1000 * 0.3 * 0.7); math.Abs(float64(prio)-300) > 4*sd {
		t.Errorf("%d prioritized of 1000, want about 300", prio)
	}
	// 200 users drawn uniformly 200 times: many distinct, none dominant.
	if len(users) < 100 {
		t.Errorf("%d distinct users behind office", len(users))
	}
	for u := range users {
		if !strings.HasPrefix(u, "u000") || len(u) != 7 {
			t.Errorf("user name %q", u)
		}
	}
}

func TestPopulationsDeterministic(t *testing.T) {
	a1, k1 := keyedArrivals(t, keyedYAML)
	a2, k2 := keyedArrivals(t, keyedYAML)
	for i := range a1 {
		if a1[i].At != a2[i].At || k1.KeyTable().Name(a1[i].Keys[0]) != k2.KeyTable().Name(a2[i].Keys[0]) || a1[i].Priority != a2[i].Priority ||
			k1.KeyTable().Name(a1[i].User) != k2.KeyTable().Name(a2[i].User) {
			t.Fatalf("arrival %d differs", i)
		}
	}
	// Another seed draws other keys; a priority share added to a phase
	// changes none of its keys.
	a3, k3 := keyedArrivals(t, strings.Replace(keyedYAML, "seed: 7", "seed: 8", 1))
	same := 0
	for i := range a1 {
		if k1.KeyTable().Name(a1[i].Keys[0]) == k3.KeyTable().Name(a3[i].Keys[0]) {
			same++
		}
	}
	if same == len(a1) {
		t.Error("seed 8 draws the same keys as seed 7")
	}
	a4, k4 := keyedArrivals(t, strings.Replace(keyedYAML, ", priority: 0.3}", "}", 1))
	for i := range a1 {
		if k1.KeyTable().Name(a1[i].Keys[0]) != k4.KeyTable().Name(a4[i].Keys[0]) {
			t.Fatalf("arrival %d: the priority share changed the keys", i)
		}
	}
}

// Zipf with s ≤ 1 goes through the table; uniform is flat.
func TestPopulationDraws(t *testing.T) {
	kt := NewKeyTable()
	d := newDrawer(Population{Count: 10, Dist: DistZipf, S: 1}, 1, "k")
	u := newDrawer(Population{Count: 10}, 1, "k")
	zc, uc := map[string]int{}, map[string]int{}
	const n = 100000
	for i := 0; i < n; i++ {
		zc[kt.Name(d.draw(kt))]++
		uc[kt.Name(u.draw(kt))]++
	}
	h := 0.0
	for r := 1; r <= 10; r++ {
		h += 1 / float64(r)
	}
	for r := 0; r < 10; r++ {
		name := padName("k", uint64(r), 6)
		pz := 1 / float64(r+1) / h
		if got := float64(zc[name]); math.Abs(got-n*pz) > 5*math.Sqrt(n*pz) {
			t.Errorf("zipf s=1 rank %d: %v, want %.0f", r+1, got, n*pz)
		}
		if got := float64(uc[name]); math.Abs(got-n/10) > 5*math.Sqrt(n/10) {
			t.Errorf("uniform %s: %v", name, got)
		}
	}
	if kt.Len() != 10 {
		t.Errorf("%d names interned, want 10", kt.Len())
	}
}

// A scenario without populations is not keyed and keeps zero ids.
func TestUnkeyedScenarioHasNoColumns(t *testing.T) {
	s, _ := Lookup("boundary-burst")
	st, _ := s.Stream()
	if st.(KeyedStream).KeyColumns() != nil || StreamColumns(st).User {
		t.Fatal("boundary-burst is keyed")
	}
	a, _ := st.Next()
	if a.Keys != [MaxKeyColumns]int32{} || a.User != 0 {
		t.Fatalf("%+v", a)
	}
}

func TestPopulationErrors(t *testing.T) {
	head := "limit: 10\nduration: 1s\nphases:\n"
	for _, tc := range []struct{ name, phase, want string }{
		{"count 0", "  - {type: constant, rate: 1, keys: {count: 0}}\n", "k.yaml:4: keys: count 0 is out of range"},
		{"no count", "  - type: constant\n    rate: 1\n    keys: {dist: zipf}\n", "k.yaml:6: keys has no count"},
		{"count fraction", "  - type: constant\n    rate: 1\n    keys: {count: 2.5}\n", `k.yaml:6: count: "2.5" is not a whole number`},
		{"bad dist", "  - type: constant\n    rate: 1\n    keys: {count: 5, dist: pareto}\n", `k.yaml:6: keys: dist "pareto" is not known; use uniform or zipf`},
		{"s with uniform", "  - type: constant\n    rate: 1\n    keys: {count: 5, s: 2}\n", "k.yaml:6: keys: s applies to dist: zipf"},
		{"negative s", "  - type: constant\n    rate: 1\n    keys: {count: 5, dist: zipf, s: -1}\n", "k.yaml:6: keys: s -1 is not a Zipf exponent"},
		{"big table", "  - type: constant\n    rate: 1\n    keys: {count: 5000000, dist: zipf, s: 0.9}\n", "k.yaml:6: keys: Zipf with s 0.9 ≤ 1 is drawn from a table"},
		{"unknown field", "  - type: constant\n    rate: 1\n    keys: {cont: 5}\n", `k.yaml:6: unknown key "cont" in keys or users; did you mean "count"?`},
		{"not a mapping", "  - type: constant\n    rate: 1\n    keys: 5\n", "k.yaml:6: keys: \"5\" is not a mapping; write e.g. {count: 1000"},
		{"key and keys", "  - type: constant\n    rate: 1\n    keys: {count: 5}\n    key: a\n", "k.yaml:7: a phase takes one of keys:, key: and spray:"},
		{"spray and key", "  - type: constant\n    rate: 1\n    spray: true\n    key: a\n", "k.yaml:6: a phase takes one of keys:, key: and spray:"},
		{"empty key", "  - type: constant\n    rate: 1\n    key: \"\"\n", "k.yaml:6: key is empty"},
		{"priority 1.5", "  - type: constant\n    rate: 1\n    priority: 1.5\n", "k.yaml:6: priority 1.5 is not a share from 0 to 1"},
		{"users 0", "  - type: constant\n    rate: 1\n    users: {count: 0}\n", "k.yaml:6: users: count 0 is out of range"},
		{"keys on idle", "  - type: idle\n    duration: 1s\n    key: a\n", `k.yaml:6: key "key" does not apply to a idle phase`},
		{"spray not bool", "  - type: constant\n    rate: 1\n    spray: many\n", `k.yaml:6: spray: "many"`},
	} {
		_, err := Parse([]byte(head+tc.phase), "k.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v\nwant one line starting %q", tc.name, err, tc.want)
		}
	}
}

func TestSprayKeysAreNew(t *testing.T) {
	s := Scenario{Name: "s", Limit: 1, Duration: time.Second, Phases: []Phase{
		{Type: PhaseConstant, Rate: 100, PhaseKeys: PhaseKeys{Spray: true}},
		{Type: PhaseConstant, Rate: 100, PhaseKeys: PhaseKeys{Spray: true}},
	}}
	st, err := s.Stream()
	if err != nil {
		t.Fatal(err)
	}
	arr, _ := readAll(st)
	seen := map[int32]bool{}
	for _, a := range arr {
		if seen[a.Keys[0]] {
			t.Fatalf("key %s twice", st.(KeyedStream).KeyTable().Name(a.Keys[0]))
		}
		seen[a.Keys[0]] = true
	}
	if len(seen) != 200 {
		t.Fatalf("%d keys", len(seen))
	}
}

// Populations above the id cache look names up; names keep their width.
func TestLargePopulationNames(t *testing.T) {
	kt := NewKeyTable()
	d := newDrawer(Population{Count: maxIDCache + 10, Dist: DistZipf, S: 2}, 3, "k")
	top := 0
	for i := 0; i < 1000; i++ {
		id := d.draw(kt)
		name := kt.Name(id)
		if len(name) != len("k0000000") || kt.Intern(name) != id {
			t.Fatalf("draw %d: %q (id %d)", i, name, id)
		}
		if name == "k0000000" {
			top++
		}
	}
	// Under s = 2 the top rank has 1/ζ(2) ≈ 60.8% of the draws.
	if top < 550 || top > 670 {
		t.Errorf("the top rank drawn %d times in 1000, want about 608", top)
	}
}
