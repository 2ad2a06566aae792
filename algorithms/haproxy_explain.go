package algorithms

import (
	"fmt"
	"time"
)

// Explain implements Explainer: HAProxy's track-sc0 then
// `http-request deny if { sc_http_req_rate(0) gt N }`. The request is
// counted before the rule reads the rate, so a denied request counts too
// (include/haproxy/freq_ctr.h update_freq_ctr_period, src/freq_ctr.c
// read_freq_ctr_period: prev·remain/period + curr, integer division).
func (h *HAProxy) Explain(now time.Duration, _ *Request) Explanation {
	p := h.cfg
	e := Explanation{Rule: fmt.Sprintf("stick-table http_req_rate(%dms); deny if sc_http_req_rate(0) gt %d (denied requests are tracked too)", p.period, p.Limit)}
	st := h.haproxyState
	ms := uint32(p.epoch + floorMs(now))
	rel := func(t uint32) string { return fmtMs(time.Duration(int64(int32(t-uint32(p.epoch)))) * time.Millisecond) }
	if !st.live {
		e.State = "no stick-table entry yet"
	} else {
		e.State = fmt.Sprintf("period from %s: curr_ctr=%d prev_ctr=%d", rel(st.tick), st.curr, st.prev)
	}
	cp := st
	d := cp.check(now, p)
	e.Pass = d.Pass
	remain := int64(int32(cp.tick + p.period - ms))
	rate := cp.rate(ms, p.period)
	e.Math = fmt.Sprintf("count this request: period from %s, curr_ctr=%d prev_ctr=%d; rate = %d·%d/%d + %d = %d (integer division); %d gt %d → %s",
		rel(cp.tick), cp.curr, cp.prev, cp.prev, max(remain, 0), p.period, cp.curr, rate, rate, p.Limit, map[bool]string{true: "no: pass", false: "yes: deny"}[d.Pass])
	return e
}
