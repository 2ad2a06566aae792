package algorithms

import (
	"fmt"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// Chain is a spec A+B+…: stages asked one after another for each request,
// as Sentinel's slot chain asks a flow rule and then a degrade rule on one
// resource. A request passes only if every stage passes. Stage i is asked
// at the arrival plus the waits of the stages before it, with Check, which
// changes what its reference changes while deciding (x/time/rate has spent
// its token, ThrottlingController has moved latestPassedTime, a breaker has
// let its probe through) even when a later stage blocks. Only when the
// whole chain passed is the pass recorded, with Record at the admission
// time (the arrival plus every wait), as StatisticSlot records it after
// the whole slot chain. At most one circuit breaker, and it is last.
//
// Because a later stage is asked later than the arrival, the decisions of
// overlapping requests depend on the order in which those later steps
// happen; the simulator drives chains with its event queue (see
// simulator's chain executor). Decide here is the chain for one caller at
// a time: every step of a request, its Record included, runs at once, so it
// is exact only when each request is admitted before the next arrives.
type Chain struct {
	stages  []Stage
	breaker *CircuitBreaker

	// shadow is the chain with unbounded tables (chainKeys.TrackShadow);
	// shadowPasses what it passed.
	shadow       *Chain
	shadowPasses int64
}

// NewChain builds a chain from its stages.
func NewChain(stages ...Stage) (*Chain, error) {
	if len(stages) == 0 {
		return nil, fmt.Errorf("empty chain: write A+B, for example leap-array:limit=100+circuit-breaker:strategy=error-ratio,threshold=0.5")
	}
	c := &Chain{stages: stages}
	n := 0
	for _, s := range stages {
		if _, ok := s.(*CircuitBreaker); ok {
			n++
		}
	}
	if n > 1 {
		return nil, fmt.Errorf("chain %s has %d circuit breakers; keep one, last (Sentinel checks a flow rule, then a degrade rule)", c.Spec(), n)
	}
	for i, s := range stages {
		if b, ok := s.(*CircuitBreaker); ok {
			if i != len(stages)-1 {
				return nil, fmt.Errorf("chain %s has the circuit breaker before %s; put it last, as Sentinel's DegradeSlot comes after FlowSlot", c.Spec(), registryNameOf(stages[i+1].Spec()))
			}
			c.breaker = b
		}
	}
	return c, nil
}

func registryNameOf(spec string) string {
	n, _, _ := strings.Cut(spec, ":")
	return n
}

// newChainSpec parses A+B+… for New.
func newChainSpec(spec string, defaultLimit float64) (Limiter, error) {
	parts := splitChain(spec)
	stages := make([]Stage, 0, len(parts))
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("chain %q has an empty stage; write A+B, for example leap-array:limit=100+circuit-breaker:strategy=error-count,threshold=5", spec)
		}
		l, err := New(p, defaultLimit)
		if err != nil {
			return nil, err
		}
		s, ok := l.(Stage)
		if k, keyed := l.(*Keyed); keyed && !ok {
			// A key= stage: one instance of the kind per key (chain_keyed.go).
			ks, err := newKeyedStage(k)
			if err != nil {
				return nil, err
			}
			s, ok = ks, true
		}
		if !ok {
			return nil, fmt.Errorf("%s cannot be a stage of a chain; run it as a row of its own (--algo %s)", registryNameOf(l.Spec()), strings.TrimSpace(p))
		}
		stages = append(stages, s)
	}
	// Consecutive limit_req directives are one handler (chain_keys.go).
	stages, err := mergeNginx(stages)
	if err != nil {
		return nil, err
	}
	if len(stages) == 1 {
		return stages[0], nil
	}
	return NewChain(stages...)
}

// splitChain splits A+B+… into its stages as written, by package spec's
// rule (a '+' followed by a limiter name or by nothing starts a stage), so
// that "rate=3e+08" stays whole.
func splitChain(s string) []string {
	stages := spec.Split(s).Stages
	parts := make([]string, len(stages))
	for i, st := range stages {
		parts[i] = st.Text
	}
	return parts
}

// StageNames returns the registry name of every stage of spec, in order:
// one name for a single limiter, one per stage for a chain A+B+….
func StageNames(spec string) []string {
	parts := splitChain(spec)
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = registryNameOf(strings.TrimSpace(p))
	}
	return names
}

// Stages returns the stages in order.
func (c *Chain) Stages() []Stage { return c.stages }

// Breaker returns the chain's circuit breaker, or nil.
func (c *Chain) Breaker() *CircuitBreaker { return c.breaker }

// Decide implements Limiter for one caller at a time (see Chain).
func (c *Chain) Decide(now time.Duration) Decision {
	t := now
	for _, s := range c.stages {
		d := s.Check(t)
		if !d.Pass {
			return Decision{}
		}
		t += max(d.Wait, 0)
	}
	for _, s := range c.stages {
		s.Record(t)
	}
	return Decision{Pass: true, Wait: t - now}
}

// Spec implements Limiter: the stages' specs joined by '+'.
func (c *Chain) Spec() string {
	specs := make([]string, len(c.stages))
	for i, s := range c.stages {
		specs[i] = s.Spec()
	}
	return strings.Join(specs, "+")
}

// Rate implements Limiter: the smallest rate of its rate-limiting stages
// (0 when none limits a rate).
func (c *Chain) Rate() float64 {
	r := 0.0
	for _, s := range c.stages {
		if x := s.Rate(); x > 0 && (r == 0 || x < r) {
			r = x
		}
	}
	return r
}

// StateBytes implements Limiter.
func (c *Chain) StateBytes() int {
	n := 0
	for _, s := range c.stages {
		n += s.StateBytes()
	}
	return n
}
