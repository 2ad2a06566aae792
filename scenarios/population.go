package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Key and user populations of a phase (issue 15) and its share of
// prioritized arrivals (issue 18). A scenario with any of them streams
// arrivals that carry one key column, "key" (KeyedStream); its arrivals
// from phases without a key setting have no key (NoKey: not accounted).
//
// Every draw comes from the phase's own generators, seeded from the
// scenario's seed and the phase's index (one generator each for keys,
// users and priorities), so the same file and seed give the same keys,
// and adding a phase or a priority share changes no other draw.

// Key distributions.
const (
	DistUniform = "uniform"
	DistZipf    = "zipf"
)

// MaxPopulation bounds a phase's keys or users.
const MaxPopulation = 100_000_000

// maxZipfTable bounds a Zipf population with s ≤ 1, whose draws go through
// a table of its cumulative weights (s > 1 uses math/rand/v2's Zipf).
const maxZipfTable = 4_000_000

// DefaultZipfS is the Zipf exponent when a population gives none.
const DefaultZipfS = 1.1

// Population is a set of Count keys (or users) that a phase's arrivals
// draw from: uniformly, or by Zipf's law with exponent S (the key of rank
// r, from 1, is drawn with probability ∝ r^-S). Key i is named "k" and i
// in six or more digits ("k000000", the most frequent under Zipf); user i
// "u000000". Count 0 is no population.
type Population struct {
	Count int64   `yaml:"count"`
	Dist  string  `yaml:"dist,omitempty"`
	S     float64 `yaml:"s,omitempty"`
}

// PhaseKeys are a phase's key, user and priority settings; at most one of
// Keys, Key and Spray.
type PhaseKeys struct {
	// Keys draws each arrival's key from a population.
	Keys Population `yaml:"keys,omitempty"`
	// Key gives every arrival of the phase this key (one client).
	Key string `yaml:"key,omitempty"`
	// Spray gives every arrival a key never seen before ("s2-000001": the
	// phase's number, then the arrival's).
	Spray bool `yaml:"spray,omitempty"`
	// Users draws each arrival's user (the identity behind a shared key,
	// as a NAT's) from a population.
	Users Population `yaml:"users,omitempty"`
	// Priority is the seeded share of the phase's arrivals that are
	// prioritized, 0 to 1.
	Priority float64 `yaml:"priority,omitempty"`
}

// populationKeys are the YAML keys of PhaseKeys, valid on every phase that
// sends arrivals.
var populationKeys = []string{"keys", "key", "spray", "users", "priority"}

// keyed reports whether the phase sets a key.
func (k PhaseKeys) keyed() bool { return k.Keys.Count > 0 || k.Key != "" || k.Spray }

// any reports whether the phase sets anything.
func (k PhaseKeys) any() bool { return k.keyed() || k.Users.Count > 0 || k.Priority > 0 }

// checkKeys validates a phase's key settings.
func (p Phase) checkKeys() *fieldError {
	k := p.PhaseKeys
	if !k.any() && k.Keys.Dist == "" && k.Users.Dist == "" && k.Priority == 0 {
		return nil
	}
	switch p.Type {
	case PhaseIdle, PhaseClockStep:
		for _, f := range []struct {
			key string
			set bool
		}{{"keys", k.Keys != Population{}}, {"key", k.Key != ""}, {"spray", k.Spray}, {"users", k.Users != Population{}}, {"priority", k.Priority != 0}} {
			if f.set {
				return fe(f.key, "%s does not apply to a %s phase, which sends nothing; put it on a phase with traffic", f.key, p.Type)
			}
		}
	}
	n := 0
	for _, set := range []bool{k.Keys != Population{}, k.Key != "", k.Spray} {
		if set {
			n++
		}
	}
	if n > 1 {
		key := "key"
		if k.Spray {
			key = "spray"
		}
		return fe(key, "a phase takes one of keys:, key: and spray:; keep the one that says who sends its arrivals")
	}
	if k.Keys != (Population{}) {
		if e := k.Keys.check("keys"); e != nil {
			return e
		}
	}
	if k.Users != (Population{}) {
		if e := k.Users.check("users"); e != nil {
			return e
		}
	}
	if math.IsNaN(k.Priority) || k.Priority < 0 || k.Priority > 1 {
		return fe("priority", "priority %v is not a share from 0 to 1; write e.g. priority: 0.3 for 30%% of the phase's arrivals", k.Priority)
	}
	return nil
}

// check validates a population under the YAML key key.
func (q Population) check(key string) *fieldError {
	if q.Count < 1 || q.Count > MaxPopulation {
		return fe(key, "%s: count %d is out of range; give 1 to %d, e.g. %s: {count: 1000}", key, q.Count, int64(MaxPopulation), key)
	}
	switch q.Dist {
	case "", DistUniform:
		if q.S != 0 {
			return fe(key, "%s: s applies to dist: zipf; remove s or add dist: zipf", key)
		}
	case DistZipf:
		if math.IsNaN(q.S) || math.IsInf(q.S, 0) || q.S < 0 || q.S > 100 {
			return fe(key, "%s: s %v is not a Zipf exponent; give a number above 0 (default %v), e.g. s: 1.1", key, q.S, DefaultZipfS)
		}
		if s := q.exponent(); s <= 1 && q.Count > maxZipfTable {
			return fe(key, "%s: Zipf with s %v ≤ 1 is drawn from a table, at most %d keys; give s above 1 or fewer keys", key, s, maxZipfTable)
		}
	default:
		return fe(key, "%s: dist %q is not known; use uniform or zipf", key, q.Dist)
	}
	return nil
}

func (q Population) exponent() float64 {
	if q.S == 0 {
		return DefaultZipfS
	}
	return q.S
}

// drawer draws ranks 0..Count-1 of a population.
type drawer struct {
	n     uint64
	rng   *rand.Rand
	zipf  *rand.Zipf
	cdf   []float64
	ids   []int32 // rank → interned id, NoKey-1 until first drawn
	names string  // name prefix
	width int
	buf   []byte
}

func newDrawer(q Population, seed uint64, prefix string) *drawer {
	d := &drawer{n: uint64(q.Count), rng: newPCG(seed), names: prefix}
	d.width = max(6, len(strconv.FormatInt(q.Count-1, 10)))
	if q.Dist == DistZipf {
		s := q.exponent()
		if s > 1 {
			// P(k) ∝ (1 + k)^-s for k = 0 .. imax: rank k+1 under Zipf.
			d.zipf = rand.NewZipf(d.rng, s, 1, d.n-1)
		} else {
			d.cdf = make([]float64, d.n)
			sum := 0.0
			for r := uint64(0); r < d.n; r++ {
				sum += math.Pow(float64(r+1), -s)
				d.cdf[r] = sum
			}
		}
	}
	return d
}

// draw returns the interned id of the next drawn member.
func (d *drawer) draw(kt *KeyTable) int32 {
	var r uint64
	switch {
	case d.zipf != nil:
		r = d.zipf.Uint64()
	case d.cdf != nil:
		u := d.rng.Float64() * d.cdf[len(d.cdf)-1]
		r = uint64(sort.SearchFloat64s(d.cdf, u))
		if r >= d.n {
			r = d.n - 1
		}
	default:
		r = d.rng.Uint64N(d.n)
	}
	if d.n > maxIDCache {
		d.buf = appendName(d.buf[:0], d.names, r, d.width)
		return kt.InternBytes(d.buf)
	}
	if d.ids == nil {
		d.ids = make([]int32, d.n)
		for i := range d.ids {
			d.ids[i] = NoKey - 1
		}
	}
	if id := d.ids[r]; id != NoKey-1 {
		return id
	}
	id := kt.Intern(padName(d.names, r, d.width))
	d.ids[r] = id
	return id
}

// maxIDCache bounds the populations whose rank → id table is kept (16 MB);
// larger ones look each drawn name up in the key table.
const maxIDCache = 1 << 22

// padName is prefix then n in at least width digits.
func padName(prefix string, n uint64, width int) string {
	return string(appendName(nil, prefix, n, width))
}

func appendName(b []byte, prefix string, n uint64, width int) []byte {
	b = append(b, prefix...)
	var d [20]byte
	s := strconv.AppendUint(d[:0], n, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// tagger gives one phase's arrivals their key, user and priority.
type tagger struct {
	keys, users *drawer
	key         int32
	spray       bool
	sprayN      uint64
	sprayPrefix string
	prio        float64
	prioRNG     *rand.Rand
}

// newTagger builds phase i's tagger, nil when the phase sets nothing.
func newTagger(p Phase, seed uint64, i int, kt *KeyTable) *tagger {
	k := p.PhaseKeys
	if !k.any() {
		return nil
	}
	base := phaseSeed(seed, i)
	t := &tagger{key: NoKey, spray: k.Spray, sprayPrefix: fmt.Sprintf("s%d-", i+1), prio: k.Priority}
	if k.Keys.Count > 0 {
		t.keys = newDrawer(k.Keys, splitmix64(base^0x6b657973), "k")
	}
	if k.Key != "" {
		t.key = kt.Intern(k.Key)
	}
	if k.Users.Count > 0 {
		t.users = newDrawer(k.Users, splitmix64(base^0x7573657273), "u")
	}
	if k.Priority > 0 {
		t.prioRNG = newPCG(splitmix64(base ^ 0x7072696f))
	}
	return t
}

func (t *tagger) tag(a *Arrival, kt *KeyTable) {
	switch {
	case t.keys != nil:
		a.Keys[0] = t.keys.draw(kt)
	case t.spray:
		t.sprayN++
		a.Keys[0] = kt.Intern(padName(t.sprayPrefix, t.sprayN, 6))
	case t.key != NoKey:
		a.Keys[0] = t.key
	}
	if t.users != nil {
		a.User = t.users.draw(kt)
	}
	if t.prioRNG != nil {
		a.Priority = t.prioRNG.Float64() < t.prio
	}
}

// KeyColumns is ["key"] when a phase sets keys, else nil.
func (m *mergeStream) KeyColumns() []string { return m.cols.Keys }

// KeyTable is the table the arrivals' key and user ids point into.
func (m *mergeStream) KeyTable() *KeyTable { return m.keys }

// Columns says what the scenario's arrivals carry.
func (m *mergeStream) Columns() Columns { return m.cols }

// scenarioColumns returns what a scenario's arrivals carry.
func scenarioColumns(phases []Phase) Columns {
	var c Columns
	for _, p := range phases {
		if p.keyed() {
			c.Keys = []string{"key"}
		}
		c.User = c.User || p.Users.Count > 0
		c.Priority = c.Priority || p.Priority > 0
	}
	return c
}
