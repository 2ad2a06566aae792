package algorithms

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Keyed is any single-key limiter made per-key (a spec with key=COLUMN):
// one instance of the limiter per key value, created fresh on the key's
// first request. capacity=N bounds the table: every request, passed or
// not, is an access, and a new key beyond N evicts the least recently
// used one, which starts fresh when it comes back. An empty key passes
// unaccounted.
//
// Limiters whose state holds no pointer (token-bucket, fixed-window,
// leaky-bucket, sliding-window-counter, …) keep their per-key states by
// value in one flat array; the others keep one instance per key.
type Keyed struct {
	inner    string // the inner spec
	proto    Limiter
	capacity int
	key      string
	col      int
	slots    keySlots
	store    keyedStore
	peak     int64

	shadow       *Keyed
	shadowPasses int64
	hasShadow    bool
}

// keyedStore holds the per-slot states.
type keyedStore interface {
	grow()            // append a fresh state
	reset(slot int32) // make the slot's state fresh
	decide(slot int32, now time.Duration, r *Request) Decision
	bytesPer() int
}

// flatStore keeps states of a pointer-free limiter type T by value.
type flatStore[T any, P interface {
	*T
	Limiter
}] struct {
	proto  T
	states []T
}

func (f *flatStore[T, P]) grow()            { f.states = append(f.states, f.proto) }
func (f *flatStore[T, P]) reset(slot int32) { f.states[slot] = f.proto }
func (f *flatStore[T, P]) decide(slot int32, now time.Duration, _ *Request) Decision {
	return P(&f.states[slot]).Decide(now)
}
func (f *flatStore[T, P]) bytesPer() int { return int(reflect.TypeFor[T]().Size()) }

// boxStore keeps one instance per slot, built from the spec.
type boxStore struct {
	spec   string
	states []Limiter
	size   int
}

func (b *boxStore) grow()            { b.states = append(b.states, b.fresh()) }
func (b *boxStore) reset(slot int32) { b.states[slot] = b.fresh() }
func (b *boxStore) fresh() Limiter {
	l, err := New(b.spec, 0)
	if err != nil {
		panic("algorithms: keyed: " + err.Error())
	}
	return l
}
func (b *boxStore) decide(slot int32, now time.Duration, r *Request) Decision {
	if rl, ok := b.states[slot].(RequestLimiter); ok {
		rr := *r
		for i := range rr.Keys {
			rr.Keys[i] = NoKey
		}
		return rl.DecideRequest(now, &rr)
	}
	return b.states[slot].Decide(now)
}
func (b *boxStore) bytesPer() int { return b.size + 16 }

// newStore picks the flat store when proto's type allows it.
func newStore(proto Limiter) keyedStore {
	switch l := proto.(type) {
	case *TokenBucket:
		return &flatStore[TokenBucket, *TokenBucket]{proto: *l}
	case *FixedWindow:
		return &flatStore[FixedWindow, *FixedWindow]{proto: *l}
	case *Throttling:
		return &flatStore[Throttling, *Throttling]{proto: *l}
	case *SlidingWindowCounter:
		return &flatStore[SlidingWindowCounter, *SlidingWindowCounter]{proto: *l}
	}
	return &boxStore{spec: proto.Spec(), size: proto.StateBytes()}
}

// NewKeyed makes the limiter of spec inner per-key on column key;
// capacity 0 is unbounded.
func NewKeyed(inner string, key string, capacity int) (*Keyed, error) {
	return newKeyed(inner, key, capacity, 0)
}

func newKeyed(inner string, key string, capacity int, defaultLimit float64) (*Keyed, error) {
	proto, err := New(inner, defaultLimit)
	if err != nil {
		return nil, err
	}
	switch proto.(type) {
	case *Chain, *CircuitBreaker, *Keyed, KeyColumnUser:
		return nil, fmt.Errorf("%s cannot be made per-key with key=%s", registryNameOf(proto.Spec()), key)
	}
	if capacity < 0 {
		return nil, fmt.Errorf("%s: capacity must be positive, got %d (leave it out for an unbounded table)", registryNameOf(proto.Spec()), capacity)
	}
	if key == "" {
		key = "key"
	}
	return &Keyed{inner: proto.Spec(), proto: proto, capacity: capacity, key: key,
		slots: newKeySlots(), store: newStore(proto)}, nil
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
	if k.capacity > 0 {
		s += ",capacity=" + strconv.Itoa(k.capacity)
	}
	return s
}

// Rate implements Limiter: 0, a per-key limiter has no aggregate limit.
func (k *Keyed) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (k *Keyed) StateBytes() int { return k.slots.bytes() + k.slots.live*k.store.bytesPer() }

// KeyColumns implements KeyColumnUser.
func (k *Keyed) KeyColumns() []string { return []string{k.key} }

// BindKeyColumns implements KeyColumnUser.
func (k *Keyed) BindKeyColumns(idx []int) error {
	c, err := bindOne(registryNameOf(k.inner), idx)
	k.col = c
	if err == nil && k.shadow != nil {
		k.shadow.col = c
	}
	return err
}

// Decide implements Limiter for a request without a key: it passes.
func (k *Keyed) Decide(time.Duration) Decision { return Decision{Pass: true} }

// DecideRequest implements RequestLimiter.
func (k *Keyed) DecideRequest(now time.Duration, r *Request) Decision {
	if k.hasShadow {
		if k.shadow.DecideRequest(now, r).Pass {
			k.shadowPasses++
		}
	}
	id := r.Keys[k.col]
	if id < 0 {
		return Decision{Pass: true}
	}
	s := k.slots.lookup(id)
	if s >= 0 {
		k.slots.touch(s)
	} else {
		if k.capacity > 0 && k.slots.live >= k.capacity {
			k.slots.remove(k.slots.tail, true)
		}
		var grown bool
		s, grown = k.slots.insert(id)
		if grown {
			k.store.grow()
		} else {
			k.store.reset(s)
		}
		k.peak = max(k.peak, int64(k.StateBytes()))
	}
	return k.store.decide(s, now, r)
}

// KeyIndex implements KeyReporter.
func (k *Keyed) KeyIndex() int { return k.col }

// KeyNominal implements KeyReporter: the inner limiter's rate per second.
func (k *Keyed) KeyNominal() (float64, time.Duration) {
	return k.proto.Rate(), time.Second
}

// KeyEvictions implements KeyReporter.
func (k *Keyed) KeyEvictions(id int32) int32 { return k.slots.evictedOf(id) }

// KeyFigures implements KeyReporter.
func (k *Keyed) KeyFigures() KeyFigures {
	return KeyFigures{Evictions: k.slots.evictions, PeakKeys: k.slots.peak, PeakStateBytes: k.peak,
		ShadowPasses: k.shadowPasses, HasShadow: k.hasShadow}
}

// TrackShadow implements KeyReporter.
func (k *Keyed) TrackShadow() {
	if k.capacity == 0 || k.hasShadow {
		return
	}
	k.shadow, _ = NewKeyed(k.inner, k.key, 0)
	k.shadow.col = k.col
	k.hasShadow = true
}

// keyedKindNames are the kinds that are per-key by themselves (key= is
// one of their parameters).
var keyedKindNames = []string{"nginx-limit-req", "sentinel-param"}

// cutKeyParams removes key= and capacity= from a spec's parameters, for
// a single-key kind made per-key.
func cutKeyParams(name, rest string) (inner, key string, capacity int, ok bool, err error) {
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
		case "capacity":
			hasCap = true
			n, e := strconv.Atoi(strings.TrimSpace(v))
			if e != nil || n < 1 {
				return "", "", 0, false, fmt.Errorf("%s: capacity %q is not a whole number ≥ 1 (the most keys the table holds; leave it out for unbounded)", name, strings.TrimSpace(v))
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
