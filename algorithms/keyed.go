package algorithms

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Keyed is any single-key limiter made per-key (a spec with key=COLUMN):
// one instance of the limiter per key value, created fresh on the key's
// first request. capacity=N bounds the table: every request, passed or
// not, is an access, and a new key beyond N evicts the least recently
// used one, which starts fresh when it comes back. An empty key is met
// as the family's product meets it (keyed_empty.go: passed unaccounted,
// one shared state, refused, or keyed by a fallback column).
//
// Limiters whose state has a fixed size keep only that state per key, by
// value and without pointers, in one flat array, and their configuration
// once (token-bucket, fixed-window, leaky-bucket, sliding-window-counter,
// the gateways, guava-bursty, guava-warming-up, uber: keyedStater); the others
// (leap-array, sliding-log, warm-up, … : TestKeyedFallbackKinds) keep one
// instance per key.
type Keyed struct {
	inner    string // the inner spec
	proto    Limiter
	capacity int
	bounded  bool // capacity is the reference's own bound (KeyBound), not capacity=
	key      string
	col      int
	table    keyedTable
	empty    emptyKey // the rule for an empty key (keyed_empty.go)

	shadow       *Keyed
	shadowPasses int64
	hasShadow    bool
}

// keyedTable is the per-key table of one state type.
type keyedTable interface {
	decide(id int32, now time.Duration, capacity int, r *Request) Decision
	live() int
	bytes() int
	figures() (evictions int64, peak int, peakBytes int64)
	evictedOf(id int32) int32
}

// table keeps the per-key states of a limiter type T by value next to
// their LRU links: fresh is a new key's state, decide runs the limiter on
// it.
type table[T any] struct {
	slots     keySlots[T]
	fresh     func() T
	run       func(st *T, now time.Duration, r *Request) Decision
	peakBytes int64
}

func (t *table[T]) decide(id int32, now time.Duration, capacity int, r *Request) Decision {
	return t.run(t.get(id, capacity), now, r)
}

// get returns id's state, creating it (and evicting the least recently
// used key beyond capacity) when the key has none: every call is an
// access.
func (t *table[T]) get(id int32, capacity int) *T {
	s := t.slots.lookup(id)
	if s >= 0 {
		if capacity > 0 { // an unbounded table never evicts: no order to keep
			t.slots.touch(s)
		}
	} else {
		if capacity > 0 && t.slots.live >= capacity {
			t.slots.remove(t.slots.tail, true)
		}
		s = t.slots.insert(id)
		*t.slots.at(s) = t.fresh()
		if t.slots.live == t.slots.peak {
			t.peakBytes = max(t.peakBytes, int64(t.bytes()))
		}
	}
	return t.slots.at(s)
}

func (t *table[T]) live() int                { return t.slots.live }
func (t *table[T]) bytes() int               { return t.slots.bytes() }
func (t *table[T]) evictedOf(id int32) int32 { return t.slots.evictedOf(id) }
func (t *table[T]) figures() (int64, int, int64) {
	return t.slots.evictions, t.slots.peak, t.peakBytes
}

// flatTable is the table of a pointer-free limiter type. A type that
// reads the request (a cost: leaky-bucket) decides with DecideRequest;
// per-key instances read no keys.
func flatTable[T any, P interface {
	*T
	Limiter
}](proto T) *table[T] {
	t := &table[T]{slots: newKeySlots[T](), fresh: func() T { return proto },
		run: func(st *T, now time.Duration, _ *Request) Decision { return P(st).Decide(now) }}
	if _, ok := any(P(&proto)).(RequestLimiter); ok {
		t.run = func(st *T, now time.Duration, r *Request) Decision {
			return any(P(st)).(RequestLimiter).DecideRequest(now, r)
		}
	}
	return t
}

// stateTable is the table of a limiter whose per-key state S is split
// from its configuration: fresh is a new key's state, run decides on a
// key's state with the configuration kept once (in the closure).
func stateTable[S any](fresh S, run func(st *S, now time.Duration, r *Request) Decision) *table[S] {
	return &table[S]{slots: newKeySlots[S](), fresh: func() S { return fresh }, run: run}
}

// guavaTable is the table of guava-bursty and guava-warming-up: fresh is
// the state of a new limiter, g the configuration both share.
func guavaTable(fresh guavaState, g guavaSmooth) *table[guavaState] {
	return stateTable(fresh, func(st *guavaState, now time.Duration, r *Request) Decision { return st.tryAcquire(now, r.cost(), &g) })
}

// keyedStater is implemented by limiters whose state per key has a fixed
// size and no pointers: keyedTable returns a table that keeps only that
// state per key, by value, with the limiter's configuration once (in the
// table's closures), for the receiver as a new key's limiter.
type keyedStater interface {
	keyedTable() keyedTable
}

// newTable is proto's own table when it has one (keyedStater), else one
// instance per key built from its spec.
func newTable(proto Limiter) keyedTable {
	if s, ok := proto.(keyedStater); ok {
		return s.keyedTable()
	}
	return instanceTable(proto.Spec())
}

// instanceTable is the fallback for a limiter whose state has a variable
// size (leap-array's buckets, sliding-log's log, warm-up's …): one
// instance per key, built from spec.
func instanceTable(spec string) *table[Limiter] {
	return &table[Limiter]{slots: newKeySlots[Limiter](),
		fresh: func() Limiter {
			l, err := New(spec, 0)
			if err != nil {
				panic("algorithms: keyed: " + err.Error())
			}
			return l
		},
		run: func(st *Limiter, now time.Duration, r *Request) Decision {
			if rl, ok := (*st).(RequestLimiter); ok {
				// The instance is the key's own: it sees the request's cost
				// and priority, not its keys.
				one := Request{Keys: noKeys, Cost: r.Cost, Priority: r.Priority}
				return rl.DecideRequest(now, &one)
			}
			return (*st).Decide(now)
		}}
}

// resourceWide is implemented by limiters whose state is the whole
// resource's by definition, so that a table of them per key means nothing
// (the circuit breaker: Sentinel keeps one per DegradeRule and resource).
type resourceWide interface {
	resourceWide()
}

// perKeyable reports whether l can be made per-key with key=COLUMN: not
// when it reads key columns itself (KeyColumnUser: the per-key kinds, a
// chain, a Keyed) or is resource-wide.
func perKeyable(l Limiter) bool {
	_, keyed := l.(KeyColumnUser)
	_, whole := l.(resourceWide)
	return !keyed && !whole
}

var (
	_ KeyColumnUser = (*Chain)(nil)
	_ KeyColumnUser = (*Keyed)(nil)
)

// NewKeyed makes the limiter of spec inner per-key on column key;
// capacity 0 is unbounded. For an adaptive inner limiter (a Completer),
// build the spec with key= through New, which gives the KeyedCompleter
// whose calls complete on their own key's instance.
func NewKeyed(inner string, key string, capacity int) (*Keyed, error) {
	return newKeyed(inner, key, capacity, 0)
}

func newKeyed(inner string, key string, capacity int, defaultLimit float64) (*Keyed, error) {
	k, err := newKeyedTable(inner, key, capacity, defaultLimit)
	if err == nil && capacity == 0 {
		// The reference bounds its table (Envoy's max_dynamic_descriptors,
		// Traefik's maxSources): that bound applies unless capacity= is given.
		if b, ok := k.proto.(KeyBound); ok && b.MaxKeys() > 0 {
			k.capacity, k.bounded = b.MaxKeys(), true
		}
	}
	return k, err
}

// newKeyedTable is newKeyed without the reference's bound: capacity 0 is
// a table that never evicts (the unbounded twin of TrackShadow).
func newKeyedTable(inner string, key string, capacity int, defaultLimit float64) (*Keyed, error) {
	inner, ek, err := cutEmptyKey(inner)
	if err != nil {
		return nil, err
	}
	proto, err := New(inner, defaultLimit)
	if err != nil {
		return nil, err
	}
	if !perKeyable(proto) {
		return nil, fmt.Errorf("%s cannot be made per-key with key=%s", registryNameOf(proto.Spec()), key)
	}
	if capacity < 0 {
		return nil, fmt.Errorf("%s: capacity must be positive, got %d (leave it out for an unbounded table)", registryNameOf(proto.Spec()), capacity)
	}
	if key == "" {
		key = "key"
	}
	if _, adaptive := proto.(Completer); adaptive && ek.given && ek.policy != EmptyKeyPass {
		return nil, fmt.Errorf("%s with key=%s: an adaptive limiter passes a call without a key unaccounted; drop empty-key= and fallback=", registryNameOf(proto.Spec()), key)
	}
	ek.settle(proto)
	return &Keyed{inner: proto.Spec(), proto: proto, capacity: capacity, key: key, table: newTable(proto), empty: ek}, nil
}

// Inner returns the per-key limiter's own spec.
func (k *Keyed) Inner() string { return k.inner }

// Spec implements Limiter: the inner spec with key= and capacity=.
func (k *Keyed) Spec() string {
	sep := ","
	if !strings.Contains(k.inner, ":") {
		sep = ":"
	}
	s := k.inner + sep + "key=" + k.key
	if k.capacity > 0 && !k.bounded {
		_, params, _ := strings.Cut(k.inner, ":")
		own := strings.HasPrefix(params, "capacity=") || strings.Contains(params, ",capacity=")
		s += "," + capName(own) + "=" + strconv.Itoa(k.capacity)
	}
	return s + k.empty.specSuffix()
}

// Rate implements Limiter: 0, a per-key limiter has no aggregate limit.
func (k *Keyed) Rate() float64 { return 0 }

// StateBytes implements Limiter: the table's states, links and index (the
// states of a limiter with pointers are counted as its StateBytes each).
func (k *Keyed) StateBytes() int {
	n := k.table.bytes()
	if isBoxed(k.table) {
		n += k.table.live() * k.proto.StateBytes()
	}
	return n
}

// KeyColumns implements KeyColumnUser: the key column, then the
// fallback column when the spec has one.
func (k *Keyed) KeyColumns() []string {
	if k.empty.fallback != "" {
		return []string{k.key, k.empty.fallback}
	}
	return []string{k.key}
}

// BindKeyColumns implements KeyColumnUser.
func (k *Keyed) BindKeyColumns(idx []int) error {
	c, err := bindOne(registryNameOf(k.inner), k.empty.bind(idx))
	k.col = c
	if err == nil && k.shadow != nil {
		k.shadow.col, k.shadow.empty.fcol = c, k.empty.fcol
	}
	return err
}

// Decide implements Limiter for a request without a key: the family's
// rule for an empty key (keyed_empty.go).
func (k *Keyed) Decide(now time.Duration) Decision {
	r := Request{Keys: noKeys, Cost: 1}
	return k.decideEmpty(now, &r)
}

// DecideRequest implements RequestLimiter.
func (k *Keyed) DecideRequest(now time.Duration, r *Request) Decision {
	if k.hasShadow {
		if k.shadow.DecideRequest(now, r).Pass {
			k.shadowPasses++
		}
	}
	id := r.Keys[k.col]
	if id < 0 {
		return k.decideEmpty(now, r)
	}
	return k.table.decide(id+k.empty.shift, now, k.capacity, r)
}

// KeyIndex implements KeyReporter.
func (k *Keyed) KeyIndex() int { return k.col }

// KeyNominal implements KeyReporter: the inner limiter's own limit per
// its window where it has one (keyed_nominal.go: Kong's strictest unit,
// HAProxy's period, resilience4j's cycle, the windows' limit per window),
// else its rate per second.
func (k *Keyed) KeyNominal() (float64, time.Duration) {
	if n, ok := k.proto.(nominaler); ok {
		return n.nominal()
	}
	return k.proto.Rate(), time.Second
}

// KeyEvictions implements KeyReporter.
func (k *Keyed) KeyEvictions(id int32) int32 { return k.table.evictedOf(id + k.empty.shift) }

// KeyFigures implements KeyReporter.
func (k *Keyed) KeyFigures() KeyFigures {
	ev, peak, peakBytes := k.table.figures()
	if isBoxed(k.table) {
		peakBytes += int64(peak * k.proto.StateBytes())
	}
	return KeyFigures{Evictions: ev, PeakKeys: peak, PeakStateBytes: peakBytes,
		ShadowPasses: k.shadowPasses, HasShadow: k.hasShadow}
}

// TrackShadow implements KeyReporter.
func (k *Keyed) TrackShadow() {
	if k.capacity == 0 || k.hasShadow {
		return
	}
	k.shadow, _ = newKeyedTable(k.inner, k.key, 0, 0)
	k.shadow.col, k.shadow.empty = k.col, k.empty
	k.hasShadow = true
}

// cutKeyParams removes key= and capacity= from a spec's parameters, for
// a single-key kind made per-key.
//
// A kind with a capacity parameter of its own (bucket4j) keeps it; its
// table bound is then written key-capacity=N, which every kind accepts.
func cutKeyParams(name, rest string, ownCapacity bool) (inner, key string, capacity int, ok bool, err error) {
	if strings.TrimSpace(rest) == "" {
		return "", "", 0, false, nil
	}
	var keep []string
	hasCap := false
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "key":
			key, ok = strings.TrimSpace(v), true
			continue
		case "capacity", "key-capacity":
			if ownCapacity && strings.ToLower(strings.TrimSpace(k)) == "capacity" {
				break
			}
			hasCap = true
			n, e := strconv.Atoi(strings.TrimSpace(v))
			if e != nil || n < 1 {
				return "", "", 0, false, fmt.Errorf("%s: %s %q is not a whole number ≥ 1 (the most keys the table holds; leave it out for unbounded)", name, capName(ownCapacity), strings.TrimSpace(v))
			}
			capacity = n
			continue
		}
		keep = append(keep, kv)
	}
	if hasCap && !ok {
		return "", "", 0, false, fmt.Errorf("%s: capacity bounds a per-key table; add key=COLUMN (for example %s:key=ip,capacity=1000)", name, name)
	}
	if ok && key == "" {
		return "", "", 0, false, fmt.Errorf("%s: key= needs a column name (for example key=ip)", name)
	}
	inner = name
	if len(keep) > 0 {
		inner += ":" + strings.Join(keep, ",")
	}
	return inner, key, capacity, ok, nil
}

// capName is how a kind's spec writes its per-key table bound.
func capName(ownCapacity bool) string {
	if ownCapacity {
		return "key-capacity"
	}
	return "capacity"
}
