package lab

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/registry"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// This file is where the lab meets package registry, the one list of
// every family's limiters, and the Redis session a run's redis-*
// limiters share (registry.Env): every other file of the lab, and the
// command, goes through the functions here.

// Info describes one limiter of the registry: its name, family,
// parameters, capabilities and reference.
type Info = algorithms.Info

// Limiters lists every limiter the lab builds, in the registry's order
// (the in-process families, then the Redis ones).
func Limiters() []Info { return registry.List() }

// LimiterNames is the name of every limiter of Limiters, in order.
func LimiterNames() []string {
	var names []string
	for _, a := range Limiters() {
		names = append(names, a.Name)
	}
	return names
}

// ParseFailIf parses one --fail-if threshold, [NAME.]FIELD OP NUMBER.
// NAME may be a limiter's name or one of its aliases (sliding-window,
// throttling), as --algo takes them; the threshold then holds the
// registry name, the one summary.json's "name" and the rows' specs carry.
func ParseFailIf(s string) (report.Threshold, error) {
	t, err := report.ParseThreshold(s, registry.Names()...)
	if err != nil {
		return t, err
	}
	if info, ok := registry.Lookup(t.Name); ok {
		t.Name = info.Name
	}
	return t, nil
}

// Families is every Family of the registry, in its order.
func Families() []string {
	var fams []string
	for _, a := range Limiters() {
		if !slices.Contains(fams, a.Family) {
			fams = append(fams, a.Family)
		}
	}
	return fams
}

// newLimiter builds one spec for a run at limit: the redis-* ones on the
// run's Redis session rs (nil: they are refused).
func newLimiter(spec string, limit float64, rs *redisSession) (algorithms.Limiter, error) {
	var env *registry.Env
	if rs != nil {
		env = rs.env
	}
	return registry.New(spec, limit, env)
}

// NewLimiter builds one limiter of the in-process families at limit (a
// redis-* spec needs a Plan, which opens its Redis session).
func NewLimiter(spec string, limit float64) (algorithms.Limiter, error) {
	return newLimiter(spec, limit, nil)
}

// loader reads scenario files and checks their specs against every
// family of the registry, the Redis one included, when the file is read.
var loader = scenarios.Loader{Check: registry.Check}

// warnings are what the summary says under the table about l.
func warnings(l algorithms.Limiter) []string { return algorithms.Warnings(l) }

// costWarnings are the warnings of a run whose trace has a cost column:
// one for each row that counts every request as 1 (its family has no
// CapCost, or check-to-add wraps it), and one for each chain naming its
// stages that do (algorithms.StageChargesCost).
func costWarnings(ls []algorithms.Limiter) []string {
	var out []string
	for _, l := range ls {
		if c, chain := l.(*algorithms.Chain); chain {
			var not []string
			for _, s := range c.Stages() {
				if !algorithms.StageChargesCost(s, registry.Caps(s.Spec())) {
					not = append(not, algorithms.StageNames(s.Spec())...)
				}
			}
			if len(not) > 0 {
				out = append(out, algorithms.ChainCostNotCharged(l.Spec(), not, len(not) == len(c.Stages())))
			}
			continue
		}
		if !registry.Caps(l.Spec()).Has(algorithms.CapCost) {
			out = append(out, algorithms.CostNotCharged(l.Spec(), false))
		} else if _, ok := l.(*algorithms.CheckToAdd); ok {
			out = append(out, algorithms.CheckToAddCostNotCharged(l.Spec()))
		}
	}
	return out
}

// checkSpec says whether the lab can build spec, without a backend for
// the redis-* ones.
func checkSpec(spec string) error { return registry.Check(spec, 0) }

// breakerConfig is the configuration of the circuit-breaker spec at
// limit, and whether spec is one.
func breakerConfig(spec string, limit float64) (algorithms.CircuitBreakerConfig, bool) {
	l, err := registry.New(spec, limit, nil)
	b, ok := l.(*algorithms.CircuitBreaker)
	if err != nil || !ok {
		return algorithms.CircuitBreakerConfig{}, false
	}
	return b.Config(), true
}

// redisSession is a run's registry.Env (the backend its redis-* limiters
// share, opened on the first redis-* spec: the embedded native default,
// the embedded Lua interpreter with --redis lua, or a real server), and
// whether --redis-timeout was given, for the note that says it is unused.
type redisSession struct {
	env        *registry.Env
	timeoutSet bool
}

// Redis says where a run's redis-* limiters keep their state.
type Redis struct {
	// URL is a real server (redis://HOST:PORT/DB), "lua" for the embedded
	// Lua interpreter, or "" for the embedded native default.
	URL string
	// Timeout bounds the wait for a real server's reply
	// (DefaultRedisTimeout by default); TimeoutSet says the user gave it (a note then
	// says when it goes unused).
	Timeout    time.Duration
	TimeoutSet bool
}

// DefaultRedisTimeout is how long a real server's reply may take.
const DefaultRedisTimeout = distributed.DefaultTimeout

// newRedisSession checks the Redis options and returns the session a
// run's redis-* limiters are built on.
func newRedisSession(ctx context.Context, o Redis, bin time.Duration) (*redisSession, error) {
	env, err := registry.NewEnv(ctx, o.URL, o.Timeout, bin)
	if err != nil {
		return nil, err
	}
	return &redisSession{env: env, timeoutSet: o.TimeoutSet}, nil
}

// printNotes says, on one "note:" line, that --redis goes unused when the
// run has no redis-* limiter (its limiters are all built by then).
func (r *redisSession) printNotes(w io.Writer, fit int) {
	if r == nil {
		return
	}
	if r.timeoutSet && r.env.Embedded() {
		why := "this run's Redis is the embedded one, which answers at once"
		if !r.env.Opened() {
			why = "this run has no redis-* limiter"
		}
		report.WriteNote(w, "note: ", "--redis-timeout is unused: it bounds a real server's replies (--redis redis://HOST:PORT/DB), and "+why, fit)
	}
	if r.env.Redis() == "" || r.env.Opened() {
		return
	}
	report.WriteNote(w, "note: ", fmt.Sprintf("--redis %s is unused: this run has no redis-* limiter (add one with --algo, e.g. --algo redis-sliding-log; 'ratelimit-lab list' shows them)", distributed.RedactURL(r.env.Redis())), fit)
}

// close deletes what the limiters left (after an error) and closes the
// backend.
func (r *redisSession) close() {
	if r != nil {
		r.env.Close()
	}
}

// trackProgress makes the progress bar follow the slowest Redis limiter
// (arrivals it has decided, polled every 100 ms) instead of the arrivals
// fed, which run far ahead of a limiter paced by round trips. It returns
// the function that stops it; without Redis limiters it changes nothing.
func (r *redisSession) trackProgress(cfg *simulator.Config, update func(int64)) (stop func()) {
	if r == nil || len(r.env.RedisLimiters()) == 0 || cfg.Progress == nil {
		return func() {}
	}
	limiters := r.env.RedisLimiters()
	cfg.Progress = nil
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				slowest := limiters[0].Decided()
				for _, l := range limiters[1:] {
					slowest = min(slowest, l.Decided())
				}
				update(slowest)
			}
		}
	}()
	return func() { close(done); <-finished }
}
