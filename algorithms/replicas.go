package algorithms

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	specpkg "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// Replicas is N copies of one per-process limiter behind a load
// balancer: ingress-nginx's controller pods, Envoy processes, Kong nodes
// with the local policy, Traefik instances. Each replica keeps its own
// state and sees only the requests the balancer sends it, so the limit a
// client gets is up to N times the configured one
// (kubernetes/ingress-nginx #5959, #1057, #12711; Kong #5311, #5954).
//
// The spec is the limiter's own with replicas=N and balance=: rr (round
// robin, the default: request i goes to replica i mod N), random (a
// uniform draw from the run's seed), or hash (a hash of the request's
// first key column, as a consistent ingress or an IP-hash balancer
// sends one client to one replica). A replica decides exactly as a run
// of the limiter alone on the requests it was sent
// (TestReplicasDecideAsSplitRuns). Rate is the configured limit of one
// replica, so a run's overshoot shows the multiplication.
type Replicas struct {
	copies  []Limiter
	inner   string
	balance string
	next    int        // rr: the next replica
	rnd     splitmix64 // random
	// before and after let Explain name the right replica: the one the
	// balancer will pick (before a decision), then the one that decided
	// (just after it); -1 when not explaining.
	before, after int
}

// balances are the balance= values.
var balances = []string{"rr", "random", "hash"}

// maxReplicas bounds replicas=: a deployment, not a fleet of states.
const maxReplicas = 1024

// hasReplicas reports whether a single-stage spec asks for replicas.
func hasReplicas(st specpkg.Stage) bool {
	for _, p := range st.Params {
		if p.Key == "replicas" || p.Key == "balance" {
			return true
		}
	}
	return false
}

// newReplicasSpec builds NAME:...,replicas=N[,balance=B].
func newReplicasSpec(st specpkg.Stage, defaultLimit float64) (Limiter, error) {
	n, balance := 0, "rr"
	var rest []string
	for _, p := range st.Params {
		switch p.Key {
		case "replicas":
			v, err := strconv.Atoi(p.Value)
			if err != nil || v < 1 || v > maxReplicas {
				return nil, fmt.Errorf("%s: replicas must be a whole number from 1 to %d, got %q (for example replicas=3, one per pod)", st.Name, maxReplicas, p.Value)
			}
			n = v
		case "balance":
			if !containsStr(balances, p.Value) {
				return nil, fmt.Errorf("%s: balance %q is unknown; use rr (round robin), random or hash (of the first key column)", st.Name, p.Value)
			}
			balance = p.Value
		default:
			rest = append(rest, strings.TrimSpace(p.Text))
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: balance= applies to replicas; add replicas=N (for example replicas=3,balance=%s)", st.Name, balance)
	}
	inner := st.Name
	if len(rest) > 0 {
		inner += ":" + strings.Join(rest, ",")
	}
	r := &Replicas{balance: balance, before: -1, after: -1}
	for i := 0; i < n; i++ {
		l, err := New(inner, defaultLimit)
		if err != nil {
			return nil, err
		}
		switch l.(type) {
		case *Chain, *CircuitBreaker, Completer:
			return nil, fmt.Errorf("%s cannot be replicated: it runs on the simulator's event queue; replicate a rate limiter (for example nginx-limit-req, token-bucket, envoy-local)", st.Name)
		}
		if _, ok := l.(batchLimiter); ok {
			return nil, fmt.Errorf("%s is shared through Redis already; replicas= is for per-process limiters (use instances= for the Redis family)", st.Name)
		}
		r.copies = append(r.copies, l)
	}
	r.inner = r.copies[0].Spec()
	return r, nil
}

// batchLimiter is what the Redis family implements (distributed's
// batchDecider); it cannot be asked here, so the check is by method.
type batchLimiter interface {
	DecideBatch(clocks []time.Duration, out []Decision)
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func keyColumnsOf(l Limiter) []string {
	if ku, ok := l.(KeyColumnUser); ok {
		return ku.KeyColumns()
	}
	return nil
}

// pick is the replica of request r, advancing the balancer when advance.
func (p *Replicas) pick(r *Request, advance bool) int {
	n := len(p.copies)
	switch p.balance {
	case "random":
		g := p.rnd
		i := int(g.next() % uint64(n))
		if advance {
			p.rnd = g
		}
		return i
	case "hash":
		if r == nil || r.Keys[0] < 0 {
			return 0
		}
		h := uint64(r.Keys[0]) * 0x9e3779b97f4a7c15
		return int((h >> 32) % uint64(n))
	}
	i := p.next
	if advance {
		p.next = (p.next + 1) % n
	}
	return i
}

// Decide implements Limiter.
func (p *Replicas) Decide(now time.Duration) Decision {
	r := Request{Keys: noKeys, Cost: 1}
	return p.DecideRequest(now, &r)
}

// DecideRequest implements RequestLimiter: the balancer picks a replica,
// which decides as it would alone.
func (p *Replicas) DecideRequest(now time.Duration, r *Request) Decision {
	k := p.pick(r, true)
	if p.before == k {
		p.after = k
	}
	p.before = -1
	l := p.copies[k]
	if rl, ok := l.(RequestLimiter); ok {
		return rl.DecideRequest(now, r)
	}
	return l.Decide(now)
}

// Explain implements Explainer when the replicas do: the replica the
// balancer picks next explains.
func (p *Replicas) Explain(now time.Duration, r *Request) Explanation {
	i := p.after
	if i >= 0 {
		p.after = -1
	} else {
		i = p.pick(r, false)
		p.before = i
	}
	ex, ok := p.copies[i].(Explainer)
	if !ok {
		return Explanation{Rule: p.Spec(), State: "replica " + strconv.Itoa(i+1), Math: "(this limiter does not explain its decisions)"}
	}
	e := ex.Explain(now, r)
	e.Rule = fmt.Sprintf("%d replicas, balance %s, each: %s", len(p.copies), p.balance, e.Rule)
	e.State = fmt.Sprintf("replica %d of %d: %s", i+1, len(p.copies), e.State)
	return e
}

// KeyColumns implements KeyColumnUser: the replicas' columns.
func (p *Replicas) KeyColumns() []string { return keyColumnsOf(p.copies[0]) }

// BindKeyColumns implements KeyColumnUser for every replica.
func (p *Replicas) BindKeyColumns(idx []int) error {
	for _, l := range p.copies {
		if ku, ok := l.(KeyColumnUser); ok {
			if err := ku.BindKeyColumns(idx); err != nil {
				return err
			}
		}
	}
	return nil
}

// BindKeyNames implements KeyNameUser for every replica.
func (p *Replicas) BindKeyNames(name func(int32) string) {
	for _, l := range p.copies {
		if kn, ok := l.(KeyNameUser); ok {
			kn.BindKeyNames(name)
		}
	}
}

// Reseed implements Seeded: the balancer's draws and every replica's
// own (Envoy's fractions), each replica from its own seed.
func (p *Replicas) Reseed(seed uint64) {
	p.rnd = splitmix64{s: seed}
	for i, l := range p.copies {
		if sd, ok := l.(Seeded); ok {
			sd.Reseed(seed + uint64(i+1)*0xbf58476d1ce4e5b9)
		}
	}
}

// Spec implements Limiter: the replica's spec with replicas= and
// balance=.
func (p *Replicas) Spec() string {
	sep := ","
	if !strings.Contains(p.inner, ":") {
		sep = ":"
	}
	return fmt.Sprintf("%s%sreplicas=%d,balance=%s", p.inner, sep, len(p.copies), p.balance)
}

// Rate implements Limiter: one replica's configured limit.
func (p *Replicas) Rate() float64 { return p.copies[0].Rate() }

// StateBytes implements Limiter.
func (p *Replicas) StateBytes() int {
	n := int(unsafe.Sizeof(*p))
	for _, l := range p.copies {
		n += l.StateBytes()
	}
	return n
}

// Replicas returns the copies, in balancer order.
func (p *Replicas) Replicas() []Limiter { return p.copies }
