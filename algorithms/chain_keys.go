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

// KeyReporterOf returns the per-key view of l: l itself, or the first
// per-key stage of a chain; nil when l keeps no per-key state.
func KeyReporterOf(l Limiter) KeyReporter {
	switch x := l.(type) {
	case KeyReporter:
		return x
	case *Chain:
		for _, s := range x.stages {
			if k, ok := s.(KeyReporter); ok {
				return k
			}
		}
	}
	return nil
}
