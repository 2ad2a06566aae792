package algorithms

import (
	"fmt"
	"strings"
	"time"
)

// Explain implements Explainer: nginx's ngx_http_limit_req_lookup
// (src/http/modules/ngx_http_limit_req_module.c): excess = lr->excess −
// ctx->rate·ms/1000 + 1000 in milli-requests with integer division,
// floored at 0; excess > burst rejects (NGX_BUSY); a new key starts at
// excess 0. Times are nginx's cached clock, whole milliseconds. A zone
// that cannot allocate a new state rejects too; Explain does not
// foresee that (why then reports the disagreement).
func (l *NginxLimitReq) Explain(now time.Duration, r *Request) Explanation {
	var rules, states, maths []string
	nowMs := nginxEpochMs + int64(floorDivDur(now, time.Millisecond))
	rel := func(ms int64) string { return fmt.Sprintf("%dms", ms-nginxEpochMs) }
	e := Explanation{Pass: true}
	var maxDelay int64
	for i, z := range l.zones {
		c := z.cfg
		zkey := "$" + c.Key
		if c.Key == "*" {
			zkey = "a constant key"
		}
		rule := fmt.Sprintf("limit_req_zone %s rate=%s; limit_req burst=%d", zkey, formatNginxRate(c.Rate), c.Burst)
		switch {
		case c.NoDelay:
			rule += " nodelay"
		case c.Delay > 0:
			rule += fmt.Sprintf(" delay=%d", c.Delay)
		}
		rules = append(rules, rule+fmt.Sprintf(" (rate %d milli-requests/s: one request per %sms)", z.rate, fmtF(1e6/float64(z.rate))))
		prefix := ""
		if len(l.zones) > 1 {
			prefix = fmt.Sprintf("zone %d: ", i+1)
		}
		id := NoKey
		if r != nil {
			id = r.Keys[z.col]
		}
		if id < 0 {
			states = append(states, prefix+"key empty")
			maths = append(maths, prefix+"an empty key is not limited")
			continue
		}
		key := fmt.Sprintf("key #%d", id)
		if l.name != nil {
			key = fmt.Sprintf("key %q", l.name(id))
		}
		s := z.slots.lookup(id)
		if s < 0 {
			states = append(states, prefix+key+" has no state yet")
			maths = append(maths, prefix+"a new state: excess 0 → pass (the first request costs nothing)")
			continue
		}
		st := z.slots.at(s)
		states = append(states, fmt.Sprintf("%s%s: excess=%s last=%s", prefix, key, milli(st.excess), rel(st.last)))
		ms := nginxMs(nowMs - st.last)
		ex := max(0, st.excess-z.rate*ms/1000+1000)
		m := fmt.Sprintf("%sms = %s − %s = %d; excess = max(0, %d − %d·%d/1000 + 1000) = %d milli-requests", prefix, rel(nowMs), rel(st.last), ms, st.excess, z.rate, ms, ex)
		if ex > z.burst {
			m += fmt.Sprintf(" > burst %d → reject (503, \"limiting requests, excess: %s by zone\")", z.burst, milli(ex))
			e.Pass = false
		} else {
			m += fmt.Sprintf(" ≤ burst %d", z.burst)
			if ex > z.delay {
				d := (ex - z.delay) * 1000 / z.rate
				maxDelay = max(maxDelay, d)
				m += fmt.Sprintf("; delayed (%d − %d)·1000/%d = %dms", ex, z.delay, z.rate, d)
			}
			m += " → pass"
		}
		maths = append(maths, m)
	}
	if e.Pass {
		e.Wait = time.Duration(maxDelay) * time.Millisecond
	}
	e.Rule, e.State, e.Math = strings.Join(rules, "; "), strings.Join(states, "; "), strings.Join(maths, "; ")
	return e
}

// milli prints milli-requests as nginx's log does: 1.500.
func milli(x int64) string { return fmt.Sprintf("%d.%03d", x/1000, x%1000) }
