package algorithms

import (
	"fmt"
	"time"
)

// keyedStage is a per-key limiter (a spec with key=COLUMN) as a stage of a
// chain A+B: one instance of the inner limiter per key, each asked with
// Check and Record as the inner limiter is asked in a chain of its own
// (Chain), so a stage behaves per key exactly as the kind behaves as a
// stage. Every Check is an access of the key's state (capacity=N evicts
// the least recently used key); a Record whose key lost its state since
// its Check records on the key's new state. An empty key is met by the
// family's rule (keyed_empty.go): unaccounted, one shared instance,
// refused, or the fallback column's key.
//
// Its per-key results (keys.csv, the per-key figures of summary.json) are
// the chain's, accounted by this stage's key column when it is the
// chain's first per-key stage (chainKeys).
type keyedStage struct {
	*Keyed
	t *table[Limiter]
}

var (
	_ RequestStage = (*keyedStage)(nil)
	_ KeyReporter  = (*keyedStage)(nil)
	_ twinStage    = (*keyedStage)(nil)
)

// newKeyedStage makes k a chain stage, or says why its kind cannot be one.
func newKeyedStage(k *Keyed) (*keyedStage, error) {
	if _, ok := k.proto.(Stage); !ok {
		return nil, fmt.Errorf("%s cannot be a stage of a chain, with or without key=; run it as a row of its own (--algo %s)", registryNameOf(k.inner), k.Spec())
	}
	t := instanceTable(k.inner)
	k.table = t
	return &keyedStage{Keyed: k, t: t}, nil
}

// state is the instance of the request's key, or nil when the request
// passes unaccounted (pass true) or is refused (pass false).
func (s *keyedStage) state(r *Request) (st Stage, pass bool) {
	id := r.Keys[s.col]
	tid, ok, pass := s.empty.tableID(id, r)
	if !ok {
		return nil, pass
	}
	return (*s.t.get(tid, s.capacity)).(Stage), true
}

// CheckRequest implements RequestStage: the key's instance checks.
func (s *keyedStage) CheckRequest(now time.Duration, r *Request) Decision {
	st, pass := s.state(r)
	if st == nil {
		return Decision{Pass: pass}
	}
	if rs, ok := st.(RequestStage); ok {
		one := Request{Keys: noKeys, Cost: r.Cost, Priority: r.Priority}
		return rs.CheckRequest(now, &one)
	}
	return st.Check(now)
}

// RecordRequest implements RequestStage: the key's instance records.
func (s *keyedStage) RecordRequest(at time.Duration, r *Request) {
	st, _ := s.state(r)
	if st == nil {
		return
	}
	if rs, ok := st.(RequestStage); ok {
		one := Request{Keys: noKeys, Cost: r.Cost, Priority: r.Priority}
		rs.RecordRequest(at, &one)
		return
	}
	st.Record(at)
}

// Check implements Stage for a request without a key.
func (s *keyedStage) Check(now time.Duration) Decision {
	r := Request{Keys: noKeys, Cost: 1}
	return s.CheckRequest(now, &r)
}

// Record implements Stage for a request without a key.
func (s *keyedStage) Record(at time.Duration) {
	r := Request{Keys: noKeys, Cost: 1}
	s.RecordRequest(at, &r)
}

// Decide implements Limiter: check, then record at once.
func (s *keyedStage) Decide(now time.Duration) Decision {
	r := Request{Keys: noKeys, Cost: 1}
	return s.DecideRequest(now, &r)
}

// DecideRequest implements RequestLimiter: check, then record at the
// admission.
func (s *keyedStage) DecideRequest(now time.Duration, r *Request) Decision {
	d := s.CheckRequest(now, r)
	if d.Pass {
		s.RecordRequest(now+max(d.Wait, 0), r)
	}
	return d
}

// unboundedTwin implements twinStage.
func (s *keyedStage) unboundedTwin() (Stage, bool) {
	k, err := newKeyedTable(s.inner, s.key, 0, 0)
	if err != nil {
		return s, false
	}
	k.col, k.empty = s.col, s.empty
	t, err := newKeyedStage(k)
	if err != nil {
		return s, false
	}
	return t, s.capacity > 0
}
