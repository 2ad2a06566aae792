package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: Envoy's local_ratelimit filter
// (source/extensions/filters/http/local_ratelimit/local_ratelimit.cc,
// decodeHeaders: filter_enabled, then the bucket, then filter_enforced)
// over AtomicTokenBucketImpl (source/common/common/token_bucket_impl.cc:
// the one double time_in_seconds_; tokens = min(max_tokens, (now −
// time_in_seconds)·fill_rate)) or, with timer=true, Envoy ≤ 1.30's
// TimerTokenBucket. The filter's random draws are made on a copy of its
// generator, so the verdict is the one the filter then draws.
func (e *EnvoyLocal) Explain(now time.Duration, r *Request) Explanation {
	c := e.cfg
	cost := reqCost(r)
	mode := "atomic bucket (Envoy ≥ 1.31)"
	if c.Timer {
		mode = "timer bucket (Envoy ≤ 1.30)"
		cost = 1
	}
	ex := Explanation{Rule: fmt.Sprintf("token_bucket max_tokens=%d tokens_per_fill=%d fill_interval=%v: %s, fill_rate %s/s", c.MaxTokens, c.TokensPerFill, c.FillInterval, mode, fmtF(c.fillRate))}
	if !c.Enabled.always() || !c.Enforced.always() {
		ex.Rule += fmt.Sprintf(", filter_enabled %s, filter_enforced %s", c.Enabled, c.Enforced)
	}
	var step string
	if c.Timer {
		ex.State = fmt.Sprintf("tokens=%d after %d fill(s)", e.timer.tokens, e.timer.ticks)
		ts := e.timer
		ts.tick(now, c)
		step = fmt.Sprintf("fills due by %s: %d; tokens = %d", fmtMs(now), ts.ticks, ts.tokens)
		if ts.tokens > 0 {
			step += " > 0: take one"
		} else {
			step += ": none to take"
		}
	} else {
		tNow := float64(now) / 1e9
		full := e.atomic.timeOld
		ex.State = fmt.Sprintf("time_in_seconds=%s (the bucket was empty then; full %ss later)", fmtF(full), fmtF(c.maxTok/c.fillRate))
		raw := (tNow - full) * c.fillRate
		total := min(raw, c.maxTok)
		step = fmt.Sprintf("tokens = min(%s, (%s − %s)·%s) = %s", fmtF(c.maxTok), fmtF(tNow), fmtF(full), fmtF(c.fillRate), fmtF(total))
		if total >= float64(cost) {
			step += fmt.Sprintf(" ≥ %d: take %d", cost, cost)
		} else {
			step += fmt.Sprintf(" < %d", cost)
		}
	}
	// The same decision on copies of the state and of the generator.
	pc := *c
	rnd := *c.rnd
	pc.rnd = &rnd
	at, ts := e.atomic, e.timer
	bucket := false
	d := pc.gate(func() Decision {
		bucket = true
		if pc.Timer {
			return ts.consume(now, &pc)
		}
		return at.consume(now, cost, &pc)
	})
	ex.Pass = d.Pass
	switch {
	case !bucket:
		ex.Math = "filter_enabled drew off: the request passes untouched → pass"
	case d.Pass && !bucketPassed(c, e, now, cost):
		ex.Math = step + "; refused, but filter_enforced drew off: counted as limited → pass"
	case d.Pass:
		ex.Math = step + " → pass"
	default:
		ex.Math = step + " → reject (429, x-envoy-ratelimited)"
	}
	return ex
}

// bucketPassed is the bucket's own verdict on copies, draws aside.
func bucketPassed(c *envoyLocalParams, e *EnvoyLocal, now time.Duration, cost int32) bool {
	if c.Timer {
		ts := e.timer
		return ts.consume(now, c).Pass
	}
	at := e.atomic
	return at.consume(now, cost, c).Pass
}
