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
//
// route=COLUMN sends each request to the replica its trace column names
// (0 … active−1), as sentinel-cluster's route= does for its clients
// (algorithms/sentinel_cluster.go, client). scale=AT:N+AT:N changes the
// number of active replicas on the virtual clock (an autoscaler): from AT
// on, N replicas. A replica that leaves is gone with its state (replicas
// N … above are dropped, the highest first, as a ReplicaSet scales down
// its newest pods); one that joins starts fresh, as a new pod's nginx
// starts with empty zones. rr keeps its turn modulo the new count;
// random and hash pick over the active count, as a Kubernetes Service
// re-spreads its endpoints (kube-proxy picks among the ready endpoints
// it has now).
type Replicas struct {
	copies  []Limiter // every slot up to the most replicas; nil when inactive
	active  int       // the replicas taking traffic now
	inner   string
	balance string
	next    int        // rr: the next replica
	rnd     splitmix64 // random
	seed    uint64
	rate    float64 // one replica's Rate

	defaultLimit float64
	schedule     []ScaleStep // scale=, in time order
	step         int         // the next schedule step to apply
	route        string      // route=COLUMN, "" when unset
	routeIdx     int         // the route column's index in Request.Keys
	keyIdx       []int       // the replica's own bound key columns
	keyName      func(int32) string
	err          error
	now          time.Duration // the arrival being decided, for err

	arrived, passed []int64 // per slot, over the run
	periods         []ReplicaPeriod
	// before and after let Explain name the right replica: the one the
	// balancer will pick (before a decision), then the one that decided
	// (just after it); -1 when not explaining.
	before, after int
}

// balances are the balance= values.
var balances = []string{"rr", "random", "hash", "route"}

// ScaleStep is one step of scale=: from At on, N replicas take traffic.
type ScaleStep struct {
	At time.Duration
	N  int
}

// ReplicaPeriod is a stretch of the run with a fixed number of replicas,
// and the limit they admit together: Replicas × one replica's Rate, what
// a client sending through the balancer can get.
type ReplicaPeriod struct {
	From     time.Duration
	Replicas int
	// Limit is what the replicas admit together per Window (one
	// replica's own limit, KeyNominal's for a per-key limiter, times
	// Replicas); PerKey says it is each key's.
	Limit  float64
	Window time.Duration
	PerKey bool
}

// ParseScale reads scale=AT:N+AT:N… (for example 10s:5+20s:2): times in
// Go's duration syntax, strictly increasing, counts from 1 to max.
func ParseScale(v string, max int) ([]ScaleStep, error) {
	var out []ScaleStep
	for _, part := range strings.Split(v, "+") {
		at, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("scale step %q is not AT:N; write for example scale=10s:5+20s:2 (from 10s 5 replicas, from 20s 2)", part)
		}
		d, err := time.ParseDuration(strings.TrimSpace(at))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("scale step %q: %q is not a duration from 0 on; write for example 10s or 1m30s", part, at)
		}
		k, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || k < 1 || k > max {
			return nil, fmt.Errorf("scale step %q: %q is not a whole number of replicas from 1 to %d", part, n, max)
		}
		if len(out) > 0 && d <= out[len(out)-1].At {
			return nil, fmt.Errorf("scale step %q comes at or before %s; list the steps in increasing time", part, FormatDuration(out[len(out)-1].At))
		}
		out = append(out, ScaleStep{d, k})
	}
	return out, nil
}

// formatScale is ParseScale's inverse.
func formatScale(steps []ScaleStep) string {
	parts := make([]string, len(steps))
	for i, st := range steps {
		parts[i] = FormatDuration(st.At) + ":" + strconv.Itoa(st.N)
	}
	return strings.Join(parts, "+")
}

// maxReplicas bounds replicas=: a deployment, not a fleet of states.
const maxReplicas = 1024

// hasReplicas reports whether a single-stage spec asks for replicas.
func hasReplicas(st specpkg.Stage) bool {
	for _, p := range st.Params {
		// route= alone is sentinel-cluster's own parameter; with
		// replicas= it is the balancer's.
		if p.Key == "replicas" || p.Key == "balance" || p.Key == "scale" {
			return true
		}
	}
	return false
}

// newReplicasSpec builds NAME:...,replicas=N[,balance=B].
func newReplicasSpec(st specpkg.Stage, defaultLimit float64) (Limiter, error) {
	n, balance := 0, "rr"
	var rest []string
	var scale []ScaleStep
	route := ""
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
		case "scale":
			v, err := ParseScale(p.Value, maxReplicas)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", st.Name, err)
			}
			scale = v
		case "route":
			if p.Value == "" || strings.ContainsAny(p.Value, " :") {
				return nil, fmt.Errorf("%s: route=%q: name the trace column holding each request's replica (0 … replicas−1), for example route=pod", st.Name, p.Value)
			}
			route = p.Value
		default:
			rest = append(rest, strings.TrimSpace(p.Text))
		}
	}
	if route != "" {
		if balance != "rr" && balance != "route" {
			return nil, fmt.Errorf("%s: route=%s names each request's replica; drop balance=%s", st.Name, route, balance)
		}
		balance = "route"
	} else if balance == "route" {
		return nil, fmt.Errorf("%s: balance=route needs route=COLUMN, the trace column naming each request's replica", st.Name)
	}
	if n == 0 && (len(scale) > 0 || route != "") {
		return nil, fmt.Errorf("%s: scale= and route= apply to replicas; add replicas=N (the count at time 0, for example replicas=3)", st.Name)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: balance= applies to replicas; add replicas=N (for example replicas=3,balance=%s)", st.Name, balance)
	}
	inner := st.Name
	if len(rest) > 0 {
		inner += ":" + strings.Join(rest, ",")
	}
	slots := n
	for _, stp := range scale {
		slots = max(slots, stp.N)
	}
	r := &Replicas{balance: balance, before: -1, after: -1, active: n, defaultLimit: defaultLimit,
		schedule: scale, route: route, routeIdx: -1,
		arrived: make([]int64, slots), passed: make([]int64, slots)}
	for i := 0; i < slots; i++ {
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
		if i >= n {
			l = nil // joins later, fresh
		}
		r.copies = append(r.copies, l)
	}
	first, _ := New(inner, defaultLimit)
	r.inner = first.Spec()
	r.rate = first.Rate()
	r.periods = []ReplicaPeriod{r.period(first, 0, n)}
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
	n := p.active
	switch p.balance {
	case "route":
		v := ""
		if r != nil && p.routeIdx >= 0 && p.keyName != nil && r.Keys[p.routeIdx] != NoKey {
			v = p.keyName(r.Keys[p.routeIdx])
		}
		k, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || k < 0 || k >= n {
			if advance && p.err == nil {
				p.err = fmt.Errorf("replicas: the arrival at %s: route column %q holds %q, not a replica index from 0 to %d (the replicas active then); fix the trace, replicas= or scale=", FormatDuration(p.now), p.route, v, n-1)
			}
			return 0
		}
		return k
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
	i := p.next % n
	if advance {
		p.next = (i + 1) % n
	}
	return i
}

// scaleTo applies the schedule's steps due at now: leaving replicas are
// dropped with their state, joining ones start fresh.
func (p *Replicas) scaleTo(now time.Duration) {
	for p.step < len(p.schedule) && now >= p.schedule[p.step].At {
		st := p.schedule[p.step]
		p.step++
		for i := st.N; i < p.active; i++ {
			p.copies[i] = nil
		}
		for i := p.active; i < st.N; i++ {
			l, err := New(p.inner, p.defaultLimit)
			if err != nil { // built the same spec at construction
				p.err = err
				return
			}
			p.bind(i, l)
			p.copies[i] = l
		}
		p.active = st.N
		p.periods = append(p.periods, p.period(p.copies[0], st.At, st.N))
	}
}

// period is the stretch from at with n replicas of l: their limit
// together, per key for a per-key limiter (its KeyNominal), else its own
// count per window (nominaler) or its rate per second.
func (p *Replicas) period(l Limiter, at time.Duration, n int) ReplicaPeriod {
	lim, win, perKey := l.Rate(), time.Second, false
	if kr, ok := l.(interface {
		KeyNominal() (float64, time.Duration)
	}); ok {
		lim, win = kr.KeyNominal()
		perKey = true
	} else if nm, ok := l.(nominaler); ok {
		lim, win = nm.nominal()
	}
	return ReplicaPeriod{From: at, Replicas: n, Limit: float64(n) * lim, Window: win, PerKey: perKey}
}

// bind gives replica i what the run gave the wrapper: its seed, its key
// columns and their names.
func (p *Replicas) bind(i int, l Limiter) {
	if sd, ok := l.(Seeded); ok {
		sd.Reseed(p.seed + uint64(i+1)*0xbf58476d1ce4e5b9)
	}
	if ku, ok := l.(KeyColumnUser); ok && p.keyIdx != nil {
		if err := ku.BindKeyColumns(p.keyIdx); err != nil && p.err == nil {
			p.err = err
		}
	}
	if kn, ok := l.(KeyNameUser); ok && p.keyName != nil {
		kn.BindKeyNames(p.keyName)
	}
}

// Decide implements Limiter.
func (p *Replicas) Decide(now time.Duration) Decision {
	r := Request{Keys: noKeys, Cost: 1}
	return p.DecideRequest(now, &r)
}

// DecideRequest implements RequestLimiter: the balancer picks a replica,
// which decides as it would alone.
func (p *Replicas) DecideRequest(now time.Duration, r *Request) Decision {
	p.scaleTo(now)
	p.now = now
	k := p.pick(r, true)
	if p.before == k {
		p.after = k
	}
	p.before = -1
	l := p.copies[k]
	var d Decision
	if rl, ok := l.(RequestLimiter); ok {
		d = rl.DecideRequest(now, r)
	} else {
		d = l.Decide(now)
	}
	p.arrived[k]++
	if d.Pass {
		p.passed[k]++
	}
	return d
}

// ReplicaFigures reports, per replica slot (0 … the most replicas − 1),
// the requests the balancer sent it and those it passed, and the run's
// periods of fixed replica count with the limit they admit together.
func (p *Replicas) ReplicaFigures() (arrived, passed []int64, periods []ReplicaPeriod) {
	return p.arrived, p.passed, p.periods
}

// Err reports the first route value that named no active replica.
func (p *Replicas) Err() error { return p.err }

// Explain implements Explainer when the replicas do: the replica the
// balancer picks next explains.
func (p *Replicas) Explain(now time.Duration, r *Request) Explanation {
	p.scaleTo(now)
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
	e.Rule = fmt.Sprintf("%d replicas, balance %s, each: %s", p.active, p.balance, e.Rule)
	e.State = fmt.Sprintf("replica %d of %d: %s", i+1, p.active, e.State)
	return e
}

// KeyColumns implements KeyColumnUser: the replicas' columns, then the
// route column.
func (p *Replicas) KeyColumns() []string {
	cols := keyColumnsOf(p.copies[0])
	if p.route != "" {
		cols = append(append([]string(nil), cols...), p.route)
	}
	return cols
}

// BindKeyColumns implements KeyColumnUser for every replica (the route
// column's index, last, is the balancer's).
func (p *Replicas) BindKeyColumns(idx []int) error {
	if p.route != "" && len(idx) > 0 {
		p.routeIdx = idx[len(idx)-1]
		idx = idx[:len(idx)-1]
	}
	p.keyIdx = append([]int(nil), idx...)
	for _, l := range p.copies {
		if ku, ok := l.(KeyColumnUser); ok && l != nil {
			if err := ku.BindKeyColumns(idx); err != nil {
				return err
			}
		}
	}
	return nil
}

// BindKeyNames implements KeyNameUser for every replica and the route
// column.
func (p *Replicas) BindKeyNames(name func(int32) string) {
	p.keyName = name
	for _, l := range p.copies {
		if kn, ok := l.(KeyNameUser); ok && l != nil {
			kn.BindKeyNames(name)
		}
	}
}

// Reseed implements Seeded: the balancer's draws and every replica's
// own (Envoy's fractions), each replica from its own seed.
func (p *Replicas) Reseed(seed uint64) {
	p.rnd = splitmix64{s: seed}
	p.seed = seed
	for i, l := range p.copies {
		if sd, ok := l.(Seeded); ok && l != nil {
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
	s := fmt.Sprintf("%s%sreplicas=%d", p.inner, sep, p.periods[0].Replicas)
	if p.route != "" {
		s += ",route=" + p.route
	} else {
		s += ",balance=" + p.balance
	}
	if len(p.schedule) > 0 {
		s += ",scale=" + formatScale(p.schedule)
	}
	return s
}

// Rate implements Limiter: one replica's configured limit.
func (p *Replicas) Rate() float64 { return p.rate }

// StateBytes implements Limiter.
func (p *Replicas) StateBytes() int {
	n := int(unsafe.Sizeof(*p))
	for _, l := range p.copies {
		if l != nil {
			n += l.StateBytes()
		}
	}
	return n
}

// Replicas returns the copies, in balancer order (nil: not active now).
func (p *Replicas) Replicas() []Limiter { return p.copies }
