package algorithms

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// NginxLimitReqConfig is one limit_req directive with its zone.
type NginxLimitReqConfig struct {
	// Rate is in milli-requests per second, as nginx stores it: Nr/s is
	// N·1000, Nr/m is ⌊N·1000/60⌋.
	Rate int64
	// Burst and Delay are whole requests; NoDelay is delay=∞.
	Burst, Delay int64
	NoDelay      bool
	// Zone is the zone size in bytes; 0 is an unbounded table that never
	// expires a state (the lab's twin for extra_passes_from_eviction).
	Zone int64
	// Key names the key column.
	Key string
}

// NginxLimitReq is nginx's ngx_http_limit_req_module (1.15.7 and later, as
// in the current source), one limit_req directive per zone; several zones
// are several limit_req directives in one location (a chain
// nginx-limit-req:…+nginx-limit-req:…).
//
// Each key's state is its excess in milli-requests and the time last of
// the last accounted request, in whole milliseconds of nginx's cached
// clock: every arrival within one millisecond sees the same now. For one
// zone, a request with key k at now:
//
//   - k empty: passes, unaccounted.
//   - k has a state: it moves to the head of the zone's LRU queue;
//     ms = now − last (ms < −60000 counts as 1, −60000 ≤ ms < 0 as 0);
//     excess = max(0, state.excess − rate·ms/1000 + 1000). excess > burst
//     rejects, writing nothing. Else state.excess = excess, last = now if
//     ms ≠ 0, and the request is delayed (excess − delay)·1000/rate ms
//     when excess > delay (nodelay: never).
//   - k is new: first up to two states at the queue's tail are expired if
//     idle ≥ 60 s (|now − last|) and drained (excess − rate·ms/1000 ≤ 0);
//     then a state is allocated in the zone's slab (see nginxSlab); if the
//     zone is full, the tail is removed by force (with up to two more
//     expirable states) and the allocation tried again; if it still fails,
//     nginx logs "could not allocate node" and rejects. A new state has
//     excess 0 and last = now: the first request costs nothing.
//
// With several zones (directives in order), every zone but the last only
// checks (a new state there is created with last = 0, a found one is not
// written), and a reject in any zone charges nothing anywhere; when every
// zone passes, each earlier zone is charged at the same now as above and
// the delay is the largest of the zones' delays. A zone whose key is
// empty is skipped.
//
// The request's cost is ignored: limit_req counts requests.
type NginxLimitReq struct {
	zones        []*nginxZone
	name         func(int32) string
	shadow       *NginxLimitReq
	shadowPasses int64
	hasShadow    bool
	shards       *nginxShards // set by Shard (shard_keyed.go)
}

type nginxZone struct {
	cfg                NginxLimitReqConfig
	rate, burst, delay int64 // milli-requests
	col                int
	slots              keySlots[nginxState]
	slab               *nginxSlab
	pageOf             []int32 // by slot of a bounded zone: the slab page its state is on
	node               int32   // ctx->node: the slot checked by an earlier zone, -1
	allocFailures      int64
	peakBytes          int64
}

// nginxState is one key's state in a zone (ngx_http_limit_req_node_t):
// its excess in milli-requests and the time of its last accounted
// request. A bounded zone keeps the slab page each state was allocated
// on beside, by slot (pageOf): an unbounded zone (every shadow twin) has
// no slab, and keeps 16 bytes a key.
type nginxState struct {
	excess, last int64
}

// nginxAccountedNode is the layout a state's bytes are counted with in
// StateBytes and peak_state_bytes (key, LRU links, page, excess, last:
// 40 bytes), whatever the table keeps: the figures, and nothing else,
// depend on it.
type nginxAccountedNode struct {
	key, prev, next int32
	st              struct {
		page         int32
		excess, last int64
	}
}

// nginxEpochMs is what nginx's clock reads at virtual time 0: large, so
// that a state created with last = 0 reads as long idle, as on a real
// server, and a clock stepped back stays positive.
const nginxEpochMs = 1 << 40

// NewNginxLimitReq builds the limiter of one or more limit_req directives.
func NewNginxLimitReq(cs ...NginxLimitReqConfig) (*NginxLimitReq, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("nginx-limit-req: no zone")
	}
	l := &NginxLimitReq{}
	for _, c := range cs {
		if c.Rate <= 0 {
			return nil, fmt.Errorf("nginx-limit-req: rate must be positive (for example rate=10r/s)")
		}
		if c.Burst < 0 || c.Delay < 0 {
			return nil, fmt.Errorf("nginx-limit-req: burst and delay must not be negative")
		}
		if c.Zone != 0 && c.Zone < NginxMinZone {
			return nil, fmt.Errorf("nginx-limit-req: zone %s is too small: nginx needs at least 8 pages, zone=32k", formatSize(c.Zone))
		}
		if c.Key == "" {
			c.Key = "key"
		}
		z := &nginxZone{cfg: c, rate: c.Rate, burst: c.Burst * 1000, delay: c.Delay * 1000,
			slots: newKeySlots[nginxState](), node: -1}
		if c.NoDelay {
			z.delay = (1<<63 - 1) / 1000 * 1000
		}
		if c.Zone > 0 {
			z.slab = newNginxSlab(c.Zone)
		} else {
			z.slots = newDirectKeySlots[nginxState]() // nothing expires
		}
		z.slots.nodeBytes = int(unsafe.Sizeof(nginxAccountedNode{}))
		l.zones = append(l.zones, z)
	}
	return l, nil
}

// Configs returns the directives in order.
func (l *NginxLimitReq) Configs() []NginxLimitReqConfig {
	out := make([]NginxLimitReqConfig, len(l.zones))
	for i, z := range l.zones {
		out[i] = z.cfg
	}
	return out
}

// Spec implements Limiter: the zones' specs joined by '+'.
func (l *NginxLimitReq) Spec() string {
	parts := make([]string, len(l.zones))
	for i, z := range l.zones {
		c := z.cfg
		delay := fmt.Sprintf("delay=%d", c.Delay)
		if c.NoDelay {
			delay = "nodelay=true"
		}
		parts[i] = fmt.Sprintf("nginx-limit-req:rate=%s,burst=%d,%s,zone=%s,key=%s",
			formatNginxRate(c.Rate), c.Burst, delay, formatSize(c.Zone), c.Key)
	}
	return strings.Join(parts, "+")
}

// Rate implements Limiter: 0, a per-key limiter has no aggregate limit.
func (l *NginxLimitReq) Rate() float64 { return 0 }

// StateBytes implements Limiter: the states now held, 40 bytes each
// (key, LRU links, page, excess, last: nginxAccountedNode), plus the id
// index and the slab's page records.
func (l *NginxLimitReq) StateBytes() int {
	if l.shards != nil {
		return l.shards.stateBytes()
	}
	n := 0
	for _, z := range l.zones {
		n += z.bytes()
	}
	return n
}

func (z *nginxZone) bytes() int {
	n := z.slots.bytes()
	if z.slab != nil {
		n += z.slab.bytes()
	}
	return n
}

// KeyColumns implements KeyColumnUser: one column per zone.
func (l *NginxLimitReq) KeyColumns() []string {
	out := make([]string, len(l.zones))
	for i, z := range l.zones {
		out[i] = z.cfg.Key
	}
	return out
}

// BindKeyColumns implements KeyColumnUser.
func (l *NginxLimitReq) BindKeyColumns(idx []int) error {
	if len(idx) != len(l.zones) {
		return errBind("nginx-limit-req", idx)
	}
	for i, z := range l.zones {
		if idx[i] < 0 || idx[i] >= MaxKeyColumns {
			return errBind("nginx-limit-req", idx)
		}
		z.col = idx[i]
	}
	if l.shadow != nil {
		return l.shadow.BindKeyColumns(idx)
	}
	return nil
}

func errBind(name string, idx []int) error {
	return fmt.Errorf("%s: bad key column binding %v", name, idx)
}

// BindKeyNames implements KeyNameUser: a state takes 80 bytes plus its
// key's length in the zone. Unbound, every key counts as 16 bytes (an
// IPv6 $binary_remote_addr; any key up to 48 bytes takes the same
// 128-byte chunk).
func (l *NginxLimitReq) BindKeyNames(name func(int32) string) {
	l.name = name
	if l.shadow != nil {
		l.shadow.name = name
	}
}

// nginxMaxKeyLen is the longest key limit_req accounts (65535 bytes).
const nginxMaxKeyLen = 65535

func (l *NginxLimitReq) keyLen(id int32) int {
	if l.name == nil {
		return 16
	}
	return len(l.name(id))
}

// Decide implements Limiter for a request whose every key is empty: it
// passes unaccounted.
func (l *NginxLimitReq) Decide(now time.Duration) Decision {
	r := Request{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, Cost: 1}
	return l.DecideRequest(now, &r)
}

// Check implements Stage (Decide: limit_req charges while deciding).
func (l *NginxLimitReq) Check(now time.Duration) Decision { return l.Decide(now) }

// Record implements Stage: nothing, the zones were charged by Check.
func (l *NginxLimitReq) Record(time.Duration) {}

// CheckRequest implements RequestStage.
func (l *NginxLimitReq) CheckRequest(now time.Duration, r *Request) Decision {
	return l.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing.
func (l *NginxLimitReq) RecordRequest(time.Duration, *Request) {}

const (
	ngxDeclined = iota
	ngxOK
	ngxAgain
	ngxBusy
	ngxError
)

// DecideRequest implements RequestLimiter: ngx_http_limit_req_handler.
func (l *NginxLimitReq) DecideRequest(now time.Duration, r *Request) Decision {
	if l.shards != nil {
		return l.shards.DecideOn(l.shards.Of(r), now, r)
	}
	if l.hasShadow {
		if l.shadow.DecideRequest(now, r).Pass {
			l.shadowPasses++
		}
	}
	nowMs := nginxEpochMs + int64(floorDivDur(now, time.Millisecond))
	rc := ngxDeclined
	var excess int64
	n := 0
	var lim *nginxZone
	for n = 0; n < len(l.zones); n++ {
		z := l.zones[n]
		lim = z
		id := r.Keys[z.col]
		if id < 0 {
			continue // ngx_http_limit_req_handler: an empty key is skipped
		}
		s := z.slots.lookup(id)
		if s < 0 && l.keyLen(id) > nginxMaxKeyLen {
			// (A key with a state was not longer: only a new key's
			// length is read, which keeps the key table's names out of
			// the hot path.)
			// ngx_http_limit_req_handler: a zone whose key is longer
			// than 65535 bytes (logged) is skipped: not accounted.
			continue
		}
		rc, excess = l.lookup(z, id, s, nowMs, n == len(l.zones)-1)
		if rc != ngxAgain {
			break
		}
	}
	switch rc {
	case ngxDeclined:
		return Decision{Pass: true}
	case ngxBusy, ngxError:
		for i := 0; i < n; i++ {
			l.zones[i].node = -1
		}
		return Decision{}
	case ngxAgain:
		excess = 0
	}
	var maxDelay int64
	if excess > lim.delay {
		maxDelay = (excess - lim.delay) * 1000 / lim.rate
	}
	for i := n - 1; i >= 0; i-- {
		z := l.zones[i]
		s := z.node
		if s < 0 {
			continue
		}
		z.node = -1
		st := z.slots.at(s)
		ms := nginxMs(nowMs - st.last)
		ex := max(0, st.excess-z.rate*ms/1000+1000)
		if ms != 0 {
			st.last = nowMs
		}
		st.excess = ex
		if ex <= z.delay {
			continue
		}
		if d := (ex - z.delay) * 1000 / z.rate; d > maxDelay {
			maxDelay = d
		}
	}
	return Decision{Pass: true, Wait: time.Duration(maxDelay) * time.Millisecond}
}

// nginxMs is the guard on a negative time since last.
func nginxMs(ms int64) int64 {
	if ms < -60000 {
		return 1
	}
	if ms < 0 {
		return 0
	}
	return ms
}

func floorDivDur(a, b time.Duration) time.Duration {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// lookup is ngx_http_limit_req_lookup; s is id's slot in z, or -1.
func (l *NginxLimitReq) lookup(z *nginxZone, id, s int32, nowMs int64, account bool) (int, int64) {
	if s >= 0 {
		if z.slab != nil { // an unbounded zone never expires a state: no order to keep
			z.slots.touch(s)
		}
		st := z.slots.at(s)
		ms := nginxMs(nowMs - st.last)
		excess := max(0, st.excess-z.rate*ms/1000+1000)
		if excess > z.burst {
			return ngxBusy, excess
		}
		if account {
			st.excess = excess
			if ms != 0 {
				st.last = nowMs
			}
			return ngxOK, excess
		}
		z.node = s
		return ngxAgain, excess
	}
	size := ngxNodeBytes + l.keyLen(id)
	var page int32
	if z.slab != nil {
		z.expire(nowMs, 1)
		var ok bool
		if page, ok = z.slab.alloc(size); !ok {
			z.expire(nowMs, 0)
			if page, ok = z.slab.alloc(size); !ok {
				z.allocFailures++
				return ngxError, 0
			}
		}
	}
	s = z.slots.insert(id)
	st := z.slots.at(s)
	if z.slab != nil {
		if int(s) >= len(z.pageOf) {
			z.pageOf = growInt32(z.pageOf, int(s)+1)
		}
		z.pageOf[s] = page
	}
	if z.slots.live == z.slots.peak {
		z.peakBytes = max(z.peakBytes, int64(z.bytes()))
	}
	if account {
		st.last = nowMs
		return ngxOK, 0
	}
	st.last = 0
	z.node = s
	return ngxAgain, 0
}

// expire is ngx_http_limit_req_expire: n = 1 removes up to two idle,
// drained states at the tail; n = 0 first removes the tail by force.
func (z *nginxZone) expire(nowMs int64, n int) {
	for n < 3 {
		s := z.slots.tail
		if s < 0 || s == z.node {
			// A state an earlier directive of this request holds has
			// count > 0: nginx stops there.
			return
		}
		st := z.slots.at(s)
		if n != 0 {
			ms := nowMs - st.last
			if ms < 0 {
				ms = -ms
			}
			if ms < 60000 {
				return
			}
			if st.excess-z.rate*ms/1000 > 0 {
				return
			}
		}
		n++
		z.slab.free(z.pageOf[s])
		z.slots.remove(s, true)
	}
}

// KeyIndex implements KeyReporter: the first zone's column.
func (l *NginxLimitReq) KeyIndex() int { return l.zones[0].col }

// KeyNominal implements KeyReporter: the first zone's rate per second (per
// minute for a rate under 1r/s), burst not counted.
func (l *NginxLimitReq) KeyNominal() (float64, time.Duration) {
	r := l.zones[0].rate
	if r < 1000 {
		return float64(r) * 60 / 1000, time.Minute
	}
	return float64(r) / 1000, time.Second
}

// KeyEvictions implements KeyReporter: the states of id removed (expired
// or forced out), over every zone.
func (l *NginxLimitReq) KeyEvictions(id int32) int32 {
	var n int32
	for _, z := range l.zones {
		n += z.slots.evictedOf(id)
	}
	return n
}

// KeyFigures implements KeyReporter.
func (l *NginxLimitReq) KeyFigures() KeyFigures {
	if l.shards != nil {
		return l.shards.keyFigures()
	}
	var f KeyFigures
	for _, z := range l.zones {
		f.Evictions += z.slots.evictions
		f.PeakKeys = max(f.PeakKeys, z.slots.peak)
		f.PeakStateBytes += z.peakBytes
		f.AllocFailures += z.allocFailures
	}
	f.ShadowPasses, f.HasShadow = l.shadowPasses, l.hasShadow
	return f
}

// TrackShadow implements KeyReporter: the twin has unbounded zones (no
// expiry, no allocation failure). A limiter whose zones are all unbounded
// needs none.
func (l *NginxLimitReq) TrackShadow() {
	u, bounded := l.unbounded()
	if !bounded || l.hasShadow {
		return
	}
	l.shadow = u
	l.hasShadow = true
}

// unbounded is l with every zone unbounded, bound to l's columns and
// names; bounded tells whether any of l's zones is.
func (l *NginxLimitReq) unbounded() (u *NginxLimitReq, bounded bool) {
	cs := l.Configs()
	for i := range cs {
		bounded = bounded || cs[i].Zone > 0
		cs[i].Zone = 0
	}
	u, _ = NewNginxLimitReq(cs...)
	u.name = l.name
	idx := make([]int, len(l.zones))
	for i, z := range l.zones {
		idx[i] = z.col
	}
	u.BindKeyColumns(idx)
	return u, bounded
}

// unboundedTwin implements twinStage.
func (l *NginxLimitReq) unboundedTwin() (Stage, bool) { return l.unbounded() }

// Joined returns the limiter of l's directives followed by o's, as two
// limit_req directives in one location.
func (l *NginxLimitReq) Joined(o *NginxLimitReq) (*NginxLimitReq, error) {
	return NewNginxLimitReq(append(l.Configs(), o.Configs()...)...)
}

// ParseNginxRate parses Nr/s or Nr/m as ngx_http_limit_req_zone does and
// returns milli-requests per second.
func ParseNginxRate(s string) (int64, error) {
	scale := int64(1)
	num := s
	switch {
	case strings.HasSuffix(s, "r/s"):
		num = s[:len(s)-3]
	case strings.HasSuffix(s, "r/m"):
		num, scale = s[:len(s)-3], 60
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || strings.ContainsAny(num, "+-") || n > 1<<40 {
		return 0, fmt.Errorf("nginx-limit-req: rate %q is not Nr/s or Nr/m with a whole N > 0 (for example rate=10r/s)", s)
	}
	return n * 1000 / scale, nil
}

func formatNginxRate(milli int64) string {
	if milli%1000 == 0 {
		return strconv.FormatInt(milli/1000, 10) + "r/s"
	}
	// ⌊N·1000/60⌋ for N r/m: find the smallest N that gives it back.
	n := (milli*60 + 999) / 1000
	for n*1000/60 < milli {
		n++
	}
	if n*1000/60 == milli {
		return strconv.FormatInt(n, 10) + "r/m"
	}
	return strconv.FormatInt(milli, 10) + "mr/s"
}

// ParseSize parses a size as ngx_parse_size does: bytes, or a whole number
// with k/K (KiB), m/M (MiB) or g/G (GiB).
func ParseSize(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	scale := int64(1)
	num := s
	switch s[len(s)-1] {
	case 'k', 'K':
		scale, num = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		scale, num = 1<<20, s[:len(s)-1]
	case 'g', 'G':
		scale, num = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || strings.ContainsAny(num, "+-") || n > (1<<62)/scale {
		return 0, fmt.Errorf("size %q is not a whole number with an optional k, m or g (for example 10m)", s)
	}
	return n * scale, nil
}

func formatSize(b int64) string {
	switch {
	case b == 0:
		return "0"
	case b%(1<<20) == 0:
		return strconv.FormatInt(b>>20, 10) + "m"
	case b%(1<<10) == 0:
		return strconv.FormatInt(b>>10, 10) + "k"
	}
	return strconv.FormatInt(b, 10)
}
