package algorithms

import "time"

// This file makes chains carry requests: per-key stages (RequestStage)
// read the request's keys and cost, and consecutive nginx-limit-req stages
// are one NginxLimitReq of several zones, as several limit_req directives
// in one location are one handler.

// mergeNginx joins each run of consecutive *NginxLimitReq stages into one.
func mergeNginx(stages []Stage) ([]Stage, error) {
	out := stages[:0:0]
	for _, s := range stages {
		if n, ok := s.(*NginxLimitReq); ok && len(out) > 0 {
			if prev, ok := out[len(out)-1].(*NginxLimitReq); ok {
				j, err := prev.Joined(n)
				if err != nil {
					return nil, err
				}
				out[len(out)-1] = j
				continue
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// DecideRequest implements RequestLimiter for one caller at a time (see
// Chain.Decide).
func (c *Chain) DecideRequest(now time.Duration, r *Request) Decision {
	c.ShadowRequest(now, r)
	t := now
	for _, s := range c.stages {
		var d Decision
		if rs, ok := s.(RequestStage); ok {
			d = rs.CheckRequest(t, r)
		} else {
			d = s.Check(t)
		}
		if !d.Pass {
			return Decision{}
		}
		t += max(d.Wait, 0)
	}
	for _, s := range c.stages {
		if rs, ok := s.(RequestStage); ok {
			rs.RecordRequest(t, r)
		} else {
			s.Record(t)
		}
	}
	return Decision{Pass: true, Wait: t - now}
}

// KeyColumns implements KeyColumnUser: every keyed stage's columns, in
// order (nil when no stage is keyed).
func (c *Chain) KeyColumns() []string {
	var out []string
	for _, s := range c.stages {
		if k, ok := s.(KeyColumnUser); ok {
			out = append(out, k.KeyColumns()...)
		}
	}
	return out
}

// BindKeyColumns implements KeyColumnUser.
func (c *Chain) BindKeyColumns(idx []int) error {
	for _, s := range c.stages {
		if k, ok := s.(KeyColumnUser); ok {
			n := len(k.KeyColumns())
			if n > len(idx) {
				return errBind("chain", idx)
			}
			if err := k.BindKeyColumns(idx[:n]); err != nil {
				return err
			}
			idx = idx[n:]
		}
	}
	return nil
}

// BindKeyNames implements KeyNameUser.
func (c *Chain) BindKeyNames(name func(int32) string) {
	for _, s := range c.stages {
		if k, ok := s.(KeyNameUser); ok {
			k.BindKeyNames(name)
		}
	}
}

// KeyReporterOf returns the per-key view of l: l itself, or for a chain
// holding a per-key stage, that first stage's keys (keys.csv is accounted
// by its column) with the chain's figures: every keyed stage's evictions,
// and a twin of the whole chain with every table unbounded (TrackShadow),
// so that extra_passes_from_eviction compares chain with chain; nil when l
// keeps no per-key state.
func KeyReporterOf(l Limiter) KeyReporter {
	if p, ok := l.(KeyReporterProvider); ok {
		return p.KeyReporter()
	}
	if k, ok := l.(KeyReporter); ok {
		return k
	}
	return nil
}

// KeyReporter implements KeyReporterProvider: the per-key view of the
// chain's first per-key stage with the chain's figures (chainKeys), or nil
// when no stage keeps per-key state.
func (c *Chain) KeyReporter() KeyReporter {
	for _, s := range c.stages {
		if k := KeyReporterOf(s); k != nil {
			return chainKeys{k, c}
		}
	}
	return nil
}

// ShadowRequest decides r at now on the chain's unbounded twin, if
// TrackShadow made one (DecideRequest does; a caller that runs the stages
// itself calls it where it asks the first stage).
func (c *Chain) ShadowRequest(now time.Duration, r *Request) {
	if c.shadow != nil && c.shadow.DecideRequest(now, r).Pass {
		c.shadowPasses++
	}
}

// KeyReporterProvider is a limiter that is per-key or not by its
// configuration (a chain with or without a per-key stage, a redis-* spec
// with or without key=COLUMN): KeyReporter is its per-key view, or nil.
type KeyReporterProvider interface {
	KeyReporter() KeyReporter
}

// twinStage is a per-key stage whose table may be bounded: unboundedTwin
// is a new stage of the same configuration with an unbounded table, bound
// to the same key columns, and whether the receiver's table is bounded.
type twinStage interface {
	unboundedTwin() (Stage, bool)
}

// chainKeys is the per-key view of a chain (KeyReporterOf).
type chainKeys struct {
	KeyReporter // the first per-key stage
	c           *Chain
}

// KeyFigures sums the keyed stages' evictions, failures and bytes, takes
// the largest peak of keys, and the chain twin's passes.
func (k chainKeys) KeyFigures() KeyFigures {
	var f KeyFigures
	for _, s := range k.c.stages {
		if r := KeyReporterOf(s); r != nil {
			g := r.KeyFigures()
			f.Evictions += g.Evictions
			f.AllocFailures += g.AllocFailures
			f.PeakStateBytes += g.PeakStateBytes
			f.PeakKeys = max(f.PeakKeys, g.PeakKeys)
		}
	}
	f.ShadowPasses, f.HasShadow = k.c.shadowPasses, k.c.shadow != nil
	return f
}

// AccountKey implements KeyAccounter: the first per-key stage's, when it
// charges a request without a key to another key (Kong's fallback).
func (k chainKeys) AccountKey(keys *[MaxKeyColumns]int32) int32 {
	if a, ok := k.KeyReporter.(KeyAccounter); ok {
		return a.AccountKey(keys)
	}
	return keys[k.KeyIndex()]
}

// KeyOver implements KeyOverReporter: the first per-key stage's, when it
// knows (a per-key concurrency stage); false otherwise.
func (k chainKeys) KeyOver(id int32) bool {
	if o, ok := k.KeyReporter.(KeyOverReporter); ok {
		return o.KeyOver(id)
	}
	return false
}

// WindowLimit implements WindowLimiter: the tightest of the stages' limits
// in a window of w, each stage's own (Kong's tightest unit at that length,
// Rate·w for the others); 0 when no stage limits a rate.
func (c *Chain) WindowLimit(w time.Duration) float64 {
	r := 0.0
	for _, s := range c.stages {
		x := s.Rate() * w.Seconds()
		if wl, ok := s.(WindowLimiter); ok {
			x = wl.WindowLimit(w)
		}
		if x > 0 && (r == 0 || x < r) {
			r = x
		}
	}
	return r
}

// TrackShadow builds the chain's unbounded twin: each bounded per-key
// stage unbounded, every other stage new from its spec. A chain whose
// tables are all unbounded needs none; one with a circuit breaker or an
// adaptive stage gets none (extra_passes_from_eviction is then null): the
// twin is decided whole and sees no completions, so its breaker would
// never move and its calls in flight would only grow.
func (k chainKeys) TrackShadow() {
	c := k.c
	if c.shadow != nil || c.breaker != nil {
		return // a breaker's twin would see no completions
	}
	for _, s := range c.stages {
		if _, ok := s.(Completer); ok {
			return // nor would an adaptive stage's
		}
	}
	stages := make([]Stage, len(c.stages))
	bounded := false
	for i, s := range c.stages {
		if t, ok := s.(twinStage); ok {
			var b bool
			stages[i], b = t.unboundedTwin()
			bounded = bounded || b
			continue
		}
		l, err := New(s.Spec(), 0)
		st, ok := l.(Stage)
		if err != nil || !ok {
			return // no twin: extra_passes_from_eviction stays unknown
		}
		stages[i] = st
	}
	if bounded {
		c.shadow = &Chain{stages: stages}
	}
}
