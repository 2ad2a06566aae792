package algorithms

import (
	"time"
)

// KeyedCompleter is Keyed over an adaptive limiter (concurrency,
// sentinel-system, aegis-bbr, aimd, vegas, gradient2, envoy-adaptive,
// none with key=COLUMN): one instance per key, each counting its own
// key's calls in flight and learning from their completions.
//
// Each call is begun and completed on its own key's instance: the
// simulator calls BeginRequest and CompleteRequest (RequestCompleter)
// with the request of the call, the same request CheckRequest saw. The
// Completer methods without a request (Check, Begin, Complete) see a
// call without a key, which passes unaccounted, as Decide does.
//
// Eviction (capacity=N): a key evicted while calls of it are in flight
// loses its instance with their count; when it comes back it starts
// fresh, with nothing in flight. The completion of a call begun on an
// instance that has since been evicted is dropped, not applied to the
// key's fresh instance (which never counted it): the ticket carries how
// many times the key had lost its state when the call began. The row's
// own InFlight still counts every call until it ends.
type KeyedCompleter struct {
	*Keyed
	t        *table[Limiter]
	inflight int64
	seed     uint64
	made     uint64
	sig      Signals
	needs    Signal
	// over is, by key id, whether the key once offered a call while its
	// own calls in flight were already at its limit (KeyOver).
	over []bool
}

// RequestCompleter is a Completer that reads the request: a per-key
// adaptive limiter. The chain executor calls BeginRequest and
// CompleteRequest, with the call's request, instead of Begin and
// Complete.
type RequestCompleter interface {
	Completer
	RequestStage
	BeginRequest(arrival, at time.Duration, r *Request) Ticket
	CompleteRequest(now time.Duration, t Ticket, r *Request, o Outcome)
}

// newKeyedCompleter wraps k, whose prototype is a Completer. Every fresh
// per-key instance is seeded from the run's seed (in creation order) and
// bound to the run's signals.
func newKeyedCompleter(k *Keyed) *KeyedCompleter {
	kc := &KeyedCompleter{Keyed: k, t: k.table.(*table[Limiter])}
	if r, ok := k.proto.(SignalReader); ok {
		kc.needs = r.NeedsSignals()
	}
	base := kc.t.fresh
	kc.t.fresh = func() Limiter {
		l := base()
		if sd, ok := l.(Seeded); ok {
			kc.made++
			sd.Reseed(kc.seed + kc.made*0x9e3779b97f4a7c15)
		}
		if r, ok := l.(SignalReader); ok && kc.sig != nil {
			r.BindSignals(kc.sig)
		}
		return l
	}
	return kc
}

// slot returns id's instance, creating it (and evicting the least
// recently used key beyond capacity) as Keyed's decisions do; touch
// marks the access.
func (kc *KeyedCompleter) slot(id int32) Completer {
	t := kc.t
	s := t.slots.lookup(id)
	if s >= 0 {
		if kc.capacity > 0 {
			t.slots.touch(s)
		}
	} else {
		if kc.capacity > 0 && t.slots.live >= kc.capacity {
			t.slots.remove(t.slots.tail, true)
		}
		s = t.slots.insert(id)
		*t.slots.at(s) = t.fresh()
		if t.slots.live == t.slots.peak {
			t.peakBytes = max(t.peakBytes, int64(t.bytes()))
		}
	}
	return (*t.slots.at(s)).(Completer)
}

// Check implements Stage for a call without a key: it passes.
func (kc *KeyedCompleter) Check(time.Duration) Decision { return Decision{Pass: true} }

// Record implements Stage for a call without a key: nothing to count.
func (kc *KeyedCompleter) Record(time.Duration) {}

// Begin implements Completer for a call without a key: nothing to count.
func (kc *KeyedCompleter) Begin(_, at time.Duration) Ticket { return Ticket{At: at, Gen: -1} }

// Complete implements Completer for a call without a key.
func (kc *KeyedCompleter) Complete(time.Duration, Ticket, Outcome) {}

// InFlight implements Completer: the calls begun on any key and not yet
// ended.
func (kc *KeyedCompleter) InFlight() int64 { return kc.inflight }

// CurrentLimit implements Completer: NaN, each key has its own limit.
func (kc *KeyedCompleter) CurrentLimit(time.Duration) float64 { return noLimit }

// CheckRequest implements RequestStage: r's key's instance decides.
func (kc *KeyedCompleter) CheckRequest(now time.Duration, r *Request) Decision {
	id := r.Keys[kc.col]
	if id < 0 {
		return Decision{Pass: true}
	}
	c := kc.slot(id)
	if float64(c.InFlight()+1) > c.CurrentLimit(now) { // false for NaN: no limit
		if int(id) >= len(kc.over) {
			kc.over = append(kc.over, make([]bool, max(int(id)+1, 2*len(kc.over))-len(kc.over))...)
		}
		kc.over[id] = true
	}
	return c.Check(now)
}

// KeyOverReporter is a per-key limiter that tells itself whether a key
// offered more than its limit: a concurrency limit, whose "over" is not a
// count in a window but a call offered while the key's own calls in
// flight were already at the limit.
type KeyOverReporter interface {
	KeyOver(id int32) bool
}

// KeyOver implements KeyOverReporter: id once offered a call while its
// calls in flight were at its instance's current limit (InFlight + 1 >
// CurrentLimit: for concurrency:limit=N, N of its calls in flight). Each
// key has its own instance, so a key refused by its own limit is always
// over: a per-key concurrency row hurts no innocent key.
func (kc *KeyedCompleter) KeyOver(id int32) bool {
	return id >= 0 && int(id) < len(kc.over) && kc.over[id]
}

// KeyNominal implements KeyReporter: for concurrency:limit=N, N calls in
// flight at once (window 0); for the other adaptive kinds the inner rule's
// rate per second (0 when it has none), their over being KeyOver's.
func (kc *KeyedCompleter) KeyNominal() (float64, time.Duration) {
	if c, ok := kc.proto.(*Concurrency); ok {
		return c.cfg.Limit, 0
	}
	return kc.Keyed.KeyNominal()
}

// RecordRequest implements RequestStage: the call is begun (a chain
// decided for one caller at a time never completes it).
func (kc *KeyedCompleter) RecordRequest(at time.Duration, r *Request) { kc.BeginRequest(at, at, r) }

// BeginRequest implements RequestCompleter: r's key's instance counts the
// call in flight.
func (kc *KeyedCompleter) BeginRequest(arrival, at time.Duration, r *Request) Ticket {
	id := r.Keys[kc.col]
	if id < 0 {
		return Ticket{At: at, Gen: -1}
	}
	tk := kc.slot(id).Begin(arrival, at)
	tk.Gen = kc.t.evictedOf(id)
	kc.inflight++
	return tk
}

// CompleteRequest implements RequestCompleter: the call ends on the
// instance it was begun on, unless that instance has been evicted since.
func (kc *KeyedCompleter) CompleteRequest(now time.Duration, tk Ticket, r *Request, o Outcome) {
	id := r.Keys[kc.col]
	if id < 0 || tk.Gen < 0 {
		return
	}
	kc.inflight--
	s := kc.t.slots.lookup(id)
	if s < 0 || kc.t.evictedOf(id) != tk.Gen {
		return // begun on an instance that is gone
	}
	(*kc.t.slots.at(s)).(Completer).Complete(now, tk, o)
}

// Decide implements Limiter for a call without a key: it passes.
func (kc *KeyedCompleter) Decide(time.Duration) Decision { return Decision{Pass: true} }

// DecideRequest implements RequestLimiter for one caller at a time: check
// then begin; the call never completes (as Completer.Decide).
func (kc *KeyedCompleter) DecideRequest(now time.Duration, r *Request) Decision {
	d := kc.CheckRequest(now, r)
	if d.Pass {
		kc.BeginRequest(now, now, r)
	}
	return d
}

// TrackShadow implements KeyReporter: nothing. An unbounded shadow of an
// adaptive table would need the completions of calls the row itself
// refused, so extra_passes_from_eviction is not tracked for it.
func (kc *KeyedCompleter) TrackShadow() {}

// Reseed implements Seeded: the instances made from now on draw from
// seed (the limiters that draw random numbers).
func (kc *KeyedCompleter) Reseed(seed uint64) { kc.seed, kc.made = seed, 0 }

// NeedsSignals implements SignalReader: the inner rule's signals.
func (kc *KeyedCompleter) NeedsSignals() Signal { return kc.needs }

// BindSignals implements SignalReader: every instance reads g.
func (kc *KeyedCompleter) BindSignals(g Signals) { kc.sig = g }
