package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// HAProxyConfig configures an HAProxy limiter.
type HAProxyConfig struct {
	// Limit is N in `http-request deny if { sc_http_req_rate(0) gt N }`.
	Limit int64
	// Period is the stick table's http_req_rate(<period>), whole ms.
	Period time.Duration
	// Expire is the stick table's expire: an entry untouched that long is
	// dropped (0: never, which decides as any expire ≥ 2·period does).
	Expire time.Duration
}

// HAProxy is HAProxy's usual request-rate limit:
//
//	stick-table type ip size 1m expire <expire> store http_req_rate(<period>)
//	http-request track-sc0 src
//	http-request deny if { sc_http_req_rate(0) gt <limit> }
//
// track-sc0 counts every request, the denied ones too, in a freq_ctr
// (src/freq_ctr.c, include/haproxy/freq_ctr.h) before the deny rule reads
// it. The counter keeps curr_ctr, prev_ctr and curr_tick on HAProxy's
// 32-bit millisecond clock now_ms (here the low 32 bits of the lab's epoch +
// t, epoch 1.6e12 ms; only differences and parity matter):
//
//   - update: if now − curr_tick < period, curr++; else prev = curr,
//     curr = 1, curr_tick += period, and if now − curr_tick ≥ period still
//     (two periods missed) prev = 0, curr_tick = now; curr_tick is stored
//     even (& ~1, the lock bit), so an odd period drifts the grid.
//   - read: remain = curr_tick + period − now; if remain < 0 the current
//     period has become the past one (remain += period, past = curr or 0,
//     curr = 0); then, with the flapping correction, total is past·period
//     when curr = 0 and past ≤ 1, else past·remain + curr·period; the rate
//     is ⌊total / period⌋.
//
// A request passes iff that rate ≤ limit. A client sending steadily above
// the limit keeps the rate above it with its own denied requests and gets
// nothing through at all.
type HAProxy struct {
	haproxyState
	cfg *haproxyParams
}

// haproxyState is what changes in an HAProxy: the stick-table entry's
// freq_ctr and last touch. A per-key haproxy keeps only this per key (20
// bytes) and the configuration once.
type haproxyState struct {
	tick  uint32 // curr_tick
	curr  uint32 // curr_ctr
	prev  uint32 // prev_ctr
	touch uint32 // now_ms of the entry's last touch
	live  bool   // the stick-table entry exists
}

type haproxyParams struct {
	HAProxyConfig
	period uint32
	expire uint32
	epoch  int64
}

// NewHAProxy validates c and builds the limiter.
func NewHAProxy(c HAProxyConfig) (*HAProxy, error) {
	const maxMs = 1 << 30 // HAProxy tick arithmetic is signed 32-bit
	switch {
	case c.Limit < 1 || c.Limit > math.MaxInt32:
		return nil, fmt.Errorf("haproxy: limit must be a whole number from 1 to %d, got %d (the deny rule is `sc_http_req_rate(0) gt limit`; 0 denies everything)", math.MaxInt32, c.Limit)
	case c.Period < time.Millisecond || c.Period%time.Millisecond != 0 || c.Period > maxMs*time.Millisecond:
		return nil, fmt.Errorf("haproxy: period must be whole milliseconds from 1ms to %dms, got %v (http_req_rate(<period>) counts in ms ticks)", maxMs, c.Period)
	case c.Expire < 0 || c.Expire%time.Millisecond != 0 || c.Expire > maxMs*time.Millisecond:
		return nil, fmt.Errorf("haproxy: expire must be whole milliseconds, 0 (never) to %dms, got %v", maxMs, c.Expire)
	}
	p := &haproxyParams{HAProxyConfig: c, period: uint32(c.Period / time.Millisecond),
		expire: uint32(c.Expire / time.Millisecond), epoch: epochMs(1)}
	return &HAProxy{cfg: p}, nil
}

// Decide implements Limiter.
func (h *HAProxy) Decide(now time.Duration) Decision { return h.Check(now) }

// Record implements Stage; track-sc0 has counted the request already.
func (h *HAProxy) Record(time.Duration) {}

// Check implements Stage: track-sc0 (touch the entry, count the request),
// then the deny rule.
func (h *HAProxy) Check(now time.Duration) Decision { return h.check(now, h.cfg) }

// check is Check on h with configuration p; the single-key limiter and
// the per-key table both decide through it.
func (h *haproxyState) check(now time.Duration, p *haproxyParams) Decision {
	ms := uint32(p.epoch + floorMs(now))
	if h.live && p.expire > 0 && int32(h.touch+p.expire-ms) <= 0 {
		h.live = false // tick_is_expired: the entry is gone
	}
	if !h.live {
		h.live, h.tick, h.curr, h.prev = true, 0, 0, 0
	}
	h.touch = ms
	h.update(ms, p.period)
	if uint64(h.rate(ms, p.period)) > uint64(p.Limit) {
		return Decision{}
	}
	return Decision{Pass: true}
}

// update is update_freq_ctr_period(ctr, period, 1) on one thread.
func (h *haproxyState) update(now, period uint32) {
	if now-h.tick < period {
		h.curr++
		return
	}
	// update_freq_ctr_period_slow: rotate.
	tick := h.tick
	h.prev, h.curr = h.curr, 1
	tick += period
	if now-tick >= period {
		h.prev = 0
		tick = now
	}
	h.tick = tick &^ 1
}

// rate is read_freq_ctr_period(ctr, period).
func (h *haproxyState) rate(now, period uint32) uint32 {
	past, curr := uint64(h.prev), uint64(h.curr)
	remain := int32(h.tick + period - now)
	if remain < 0 {
		remain += int32(period)
		if remain >= 0 {
			past = curr
		} else {
			past = 0
		}
		curr = 0
	}
	var total uint64
	if curr == 0 && past <= 1 {
		total = past * uint64(period)
	} else {
		// past * remain with remain promoted to unsigned long long.
		total = past*uint64(int64(remain)) + curr*uint64(period)
	}
	return uint32(total / uint64(period)) // div64_32
}

// Expired reports whether the stick-table entry has expired by now (never
// when expire is 0): a new limiter then decides the same.
func (h *HAProxy) Expired(now time.Duration) bool {
	p := h.cfg
	if !h.live {
		return true
	}
	if p.expire == 0 {
		return false
	}
	ms := uint32(p.epoch + floorMs(now))
	return int32(h.touch+p.expire-ms) <= 0
}

// EpochMs is the Unix ms of virtual time 0.
func (h *HAProxy) EpochMs() int64 { return h.cfg.epoch }

// Spec implements Limiter.
func (h *HAProxy) Spec() string {
	c := h.cfg
	return fmt.Sprintf("haproxy:limit=%d,period=%s,expire=%s", c.Limit, FormatDuration(c.Period), FormatDuration(c.Expire))
}

// Rate implements Limiter: limit per period.
func (h *HAProxy) Rate() float64 { return float64(h.cfg.Limit) / h.cfg.Period.Seconds() }

// StateBytes implements Limiter.
func (h *HAProxy) StateBytes() int { return int(unsafe.Sizeof(*h)) }

// keyedTable implements keyedStater: the two-period counter per key.
func (h *HAProxy) keyedTable() keyedTable {
	p := h.cfg
	return stateTable(haproxyState{},
		func(st *haproxyState, now time.Duration, _ *Request) Decision { return st.check(now, p) })
}

// Fresh implements Freshener: no stick-table entry yet, sharing h's
// configuration.
func (h *HAProxy) Fresh() Limiter { return &HAProxy{cfg: h.cfg} }
