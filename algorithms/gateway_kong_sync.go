package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
)

// KongSyncConfig configures Kong's rate-limiting plugin with policy=redis
// and sync_rate > 0 on several Kong nodes.
type KongSyncConfig struct {
	// Limits per unit (second … year); 0 means the unit is not configured.
	Limits [kongUnits]float64
	// SyncRate is conf.sync_rate: the delay of the sync timer (schema.lua
	// asks for at least 0.02 s).
	SyncRate time.Duration
	// Instances is the number of Kong nodes (one worker each); arrival i
	// goes to node i mod Instances, or to the node Route's column names.
	Instances int
	// RTT is the round trip to Redis: a command or pipeline sent at s
	// executes at s + ⌊RTT/2⌋ and its reply is back at s + RTT. With
	// RTT > 0 only one unit may be configured (see KongSync).
	RTT time.Duration
	// Skew spreads the nodes' clocks: node k reads true time − Skew +
	// ⌊2·Skew·k/(Instances−1)⌋, as the Redis family's instances.
	Skew time.Duration
	// Route is a trace column holding each arrival's node (0 …
	// Instances−1); "" sends arrival i to node i mod Instances.
	Route string
}

// kongRedisTimeout is conf.redis.timeout's default (2000 ms): a round
// trip must be shorter.
const kongRedisTimeout = 2 * time.Second

// kongRunningSleep is how long a sync timer that finds the node's previous
// sync still running sleeps before it looks again: rate_limited_sync calls
// ngx.sleep(redis_config.timeout / 2), and the timeout is in ms (2000) while
// ngx.sleep takes seconds: 1000 s.
const kongRunningSleep = 1000 * time.Second

// KongSync is Kong Gateway's OSS rate-limiting plugin with policy=redis
// and sync_rate > 0, as kong/plugins/rate-limiting/policies/init.lua
// (the "redis" policy's usage and increment, update_local_counters,
// rate_limited_sync, sync_to_redis) and handler.lua (access) write it,
// on Instances nodes sharing one Redis (kept in memory here).
//
// Each node (a worker: the tables are Lua module locals) holds, per
// counter key (identifier, unit and window start, as get_local_key names
// it), cur_usage and cur_delta:
//
//   - usage(): a key whose cur_usage the node holds answers cur_usage +
//     (cur_delta or 0) with no Redis call. (The plugin's expiry test,
//     cur_usage_expire_at > ngx.time(), compares periods[period] +
//     EXPIRATION, Unix ms plus seconds, with Unix seconds, so it always
//     holds: the branch that resets an expired entry never runs; a new
//     window is a new key.) Otherwise one EVAL runs INCR key (EXPIRE key
//     EXPIRATION when it made 1) and returns the value before it; when
//     the reply is back the node stores it as cur_usage with cur_delta =
//     −1, to take back that INCR at the next sync.
//   - a request passes iff limit − usage > 0 for every configured unit;
//     only a pass calls increment(): cur_delta = (cur_delta or 0) + 1 for
//     every configured unit, then rate_limited_sync: when no timer is
//     pending on the node, one is armed at now + sync_rate.
//   - the timer: when the node's previous sync is still running, it
//     sleeps ngx.sleep(conf.redis.timeout / 2), the timeout in ms (2000)
//     read as seconds: 1000 s, the pending flag kept all along, so no
//     other timer is armed and the node counts locally, reading nothing,
//     until it wakes (with rtt > sync_rate); else it clears
//     the pending flag and runs sync_to_redis: one pipeline, built from
//     cur_delta as it is when the timer runs, one EVAL per key (EXISTS;
//     INCRBY delta; EXPIREAT when it did not exist, at periods[period] +
//     EXPIRATION read as seconds: tens of thousands of years away, so a
//     key the sync creates never expires), and once the pipeline's reply
//     is back the node's three tables are cleared: the next request on
//     that node reads Redis again. An empty cur_delta sends nothing (an
//     empty pipeline writes no bytes and waits for no reply).
//
// Round trips and clocks (rtt=, skew=, as the Redis family's: a command
// sent at s executes in Redis at s + ⌊rtt/2⌋, its reply is back at s +
// rtt; node k's clock reads true time + offset_k). The node's clock gives
// ngx.time(), hence the window start of the period key; timers run after
// their delay in true time. While a request's read is in flight its
// coroutine yields and the node serves other requests: they too find no
// cur_usage for the key and send reads of their own, and each reply, when
// it lands, overwrites cur_usage and sets cur_delta to −1 (a pass made in
// between by another request is overwritten with it). A sync's pipeline is
// built when its timer runs, and the tables are cleared when its reply is
// back: the passes the node counts during that round trip are dropped
// without being pushed, and reads that land during it are cleared too.
// With several configured units usage() reads them one round trip after
// another, so a request's later reads see arrivals after it: the lab
// takes rtt > 0 with one configured unit only. Connections come from the
// keepalive pool (connect costs no round trip) and reports'
// retrieve_redis_version sends nothing (anonymous_reports off).
//
// Virtual time: at one instant, replies land first (in the order they
// were sent), then timers (in the order they were armed), then the
// arrival. Redis executes commands in the order they were sent (every one
// is delayed by the same ⌊rtt/2⌋). A pass that needed a read waits rtt;
// a rejection waits nothing. A rejected request arms no timer: its
// read's −1 waits for the node's next pass.
type KongSync struct {
	cfg    *kongSyncParams
	nodes  []kongSyncNode
	redis  map[kongSyncKey]*kongCounter // count and expiry (Unix ms) per key
	passed map[kongSyncKey]int64        // passes per key over all nodes
	q      eventq.Queue[kongEvent]
	seq    int64 // events pushed
	next   int64 // arrivals so far: the next node is next mod Instances

	routeIdx int
	keyName  func(int32) string
	err      error

	reads, syncs, syncEvals, arrivals, beyond int64
	expiredReads                              int64 // reads that found their key past its TTL (tests)
	pruneAt                                   int   // prune when the maps hold this many entries
}

// kongPruneMin is the smallest map size at which KongSync prunes the keys
// no later arrival can touch (prune).
const kongPruneMin = 4096

type kongSyncParams struct {
	KongSyncConfig
	epoch   int64
	units   []int
	offsets []time.Duration
}

type kongSyncKey struct {
	id    int32 // the identifier (a key=COLUMN value; 0 without one)
	unit  int
	start int64 // the window's start, Unix seconds
}

type kongSyncNode struct {
	usage   map[kongSyncKey]int64 // cur_usage (a key present is a hit)
	delta   map[kongSyncKey]int64 // cur_delta
	pending bool                  // plugin_sync_pending
	running bool                  // plugin_sync_running
}

// kongEvent is a node's event: a read's reply (and the rest of its
// request), a sync's reply, or a timer.
type kongEvent struct {
	kind  int // kongReadReply, kongSyncReply, kongTimer
	node  int
	key   kongSyncKey
	value int64 // the read's value
	pass  bool  // the request's verdict (a read's reply)
}

const (
	kongReadReply = iota
	kongSyncReply
	kongTimer
)

// Event classes at one instant: replies, then timers (then the arrival).
const (
	kongClassReply = iota
	kongClassTimer
)

// kongFarFuture is the expiry of a key the sync creates (EXPIREAT with a
// value in ms read as seconds).
const kongFarFuture = math.MaxInt64

// NewKongSync validates c and builds the limiter.
func NewKongSync(c KongSyncConfig) (*KongSync, error) {
	base, err := NewKong(KongConfig{Limits: c.Limits, Redis: true})
	if err != nil {
		return nil, err
	}
	if c.SyncRate < 20*time.Millisecond {
		return nil, fmt.Errorf("kong: sync-rate must be at least 20ms, or -1 to sync at once (schema.lua: \"sync_rate must be greater than 0.02, or -1 to disable\"), got %s", c.SyncRate)
	}
	if c.Instances < 1 {
		return nil, fmt.Errorf("kong: instances must be at least 1, got %d (for example instances=3)", c.Instances)
	}
	if c.RTT < 0 || c.RTT >= kongRedisTimeout {
		return nil, fmt.Errorf("kong: rtt must be from 0 to under 2s (conf.redis.timeout's 2000 ms: a slower reply fails), got %s", FormatDuration(c.RTT))
	}
	if c.RTT > 0 && len(base.cfg.units) > 1 {
		return nil, fmt.Errorf("kong: rtt > 0 takes one configured unit: with several, usage() reads them one round trip after another and a request's later reads depend on arrivals after it, which the lab does not replay; keep one unit or drop rtt")
	}
	if c.Skew < 0 {
		return nil, fmt.Errorf("kong: skew must be 0 or more, got %s (for example skew=50ms)", FormatDuration(c.Skew))
	}
	p := &kongSyncParams{KongSyncConfig: c, epoch: base.cfg.epoch, units: base.cfg.units, offsets: make([]time.Duration, c.Instances)}
	if c.Instances > 1 {
		for k := range p.offsets {
			// 2·skew·k fits in int64 for skew under a year and k ≤ 1024.
			p.offsets[k] = -c.Skew + time.Duration(2*int64(c.Skew)*int64(k)/int64(c.Instances-1))
		}
	}
	return newKongSync(p), nil
}

func newKongSync(p *kongSyncParams) *KongSync {
	k := &KongSync{cfg: p, nodes: make([]kongSyncNode, p.Instances),
		redis: map[kongSyncKey]*kongCounter{}, passed: map[kongSyncKey]int64{}, routeIdx: -1}
	for i := range k.nodes {
		k.nodes[i].usage = map[kongSyncKey]int64{}
		k.nodes[i].delta = map[kongSyncKey]int64{}
	}
	return k
}

// Decide implements Limiter: access() for one request on node
// arrival mod Instances.
func (k *KongSync) Decide(now time.Duration) Decision { return k.decide(0, now, nil) }

// DecideRequest implements RequestLimiter: the request's node is its
// route column's value with route=.
func (k *KongSync) DecideRequest(now time.Duration, r *Request) Decision {
	return k.decide(0, now, r)
}

// node is the node of the next arrival: arrival mod Instances, or the
// index the route column holds (an index that is not one is an error,
// Err).
func (k *KongSync) node(r *Request) int {
	seq := k.next
	k.next++
	if k.cfg.Route == "" {
		return int(seq % int64(k.cfg.Instances))
	}
	v := ""
	if r != nil && k.routeIdx >= 0 && k.keyName != nil && r.Keys[k.routeIdx] != NoKey {
		v = k.keyName(r.Keys[k.routeIdx])
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n >= k.cfg.Instances {
		if k.err == nil {
			k.err = fmt.Errorf("kong: arrival %d: route column %q holds %q, not a node index from 0 to %d; fix the trace or the spec's instances", seq, k.cfg.Route, v, k.cfg.Instances-1)
		}
		return 0
	}
	return n
}

// Err reports a route column value that names no node.
func (k *KongSync) Err() error { return k.err }

// KongSyncRouted is KongSync with route=COLUMN: each arrival runs on
// the node its column names. It reads a key column, so it cannot be made
// per-key (key=) as well.
type KongSyncRouted struct{ *KongSync }

// KeyColumns implements KeyColumnUser: the route column.
func (k *KongSyncRouted) KeyColumns() []string { return []string{k.cfg.Route} }

// BindKeyColumns implements KeyColumnUser.
func (k *KongSyncRouted) BindKeyColumns(idx []int) error {
	if len(idx) > 0 {
		k.routeIdx = idx[0]
	}
	return nil
}

// BindKeyNames implements KeyNameUser: the route column's values.
func (k *KongSyncRouted) BindKeyNames(name func(id int32) string) { k.keyName = name }

// Fresh implements Freshener, keeping the route column's binding.
func (k *KongSyncRouted) Fresh() Limiter {
	f := newKongSync(k.cfg)
	f.routeIdx, f.keyName = k.routeIdx, k.keyName
	return &KongSyncRouted{f}
}

// decide is access() for identifier id.
func (k *KongSync) decide(id int32, now time.Duration, r *Request) Decision {
	k.runUntil(now)
	if len(k.redis)+len(k.passed) >= max(k.pruneAt, kongPruneMin) {
		k.prune(now)
	}
	ni := k.node(r)
	n := &k.nodes[ni]
	k.arrivals++
	ms := k.cfg.epoch + floorMs(now+k.cfg.offsets[ni])
	sec := floorDiv(ms, 1000)
	var keys [kongUnits]kongSyncKey
	var vals [kongUnits]int64
	read := false
	stop := false
	for i, u := range k.cfg.units {
		start, _ := kongWindow(u, sec)
		key := kongSyncKey{id, u, start}
		keys[i] = key
		var usage int64
		if v, ok := n.usage[key]; ok {
			usage = v + n.delta[key]
		} else {
			usage = k.readRedis(key, k.cfg.epoch+floorMs(now+k.cfg.RTT/2))
			vals[i] = usage
			read = true
			if k.cfg.RTT == 0 {
				n.usage[key], n.delta[key] = usage, -1
			}
		}
		if k.cfg.Limits[u]-float64(usage) <= 0 {
			stop = true
		}
	}
	if !stop {
		for _, key := range keys[:len(k.cfg.units)] {
			k.passed[key]++
		}
		if k.overLimit(keys[:len(k.cfg.units)]) {
			k.beyond++
		}
	}
	if read && k.cfg.RTT > 0 {
		// One unit: the reply lands at now + rtt, then the verdict.
		k.push(now+k.cfg.RTT, kongClassReply, kongEvent{kind: kongReadReply, node: ni, key: keys[0], value: vals[0], pass: !stop})
		if stop {
			return Decision{}
		}
		return Decision{Pass: true, Wait: k.cfg.RTT}
	}
	if stop {
		return Decision{}
	}
	k.increment(ni, keys[:len(k.cfg.units)], now)
	return Decision{Pass: true}
}

// prune drops what no arrival at or after now can read: Redis keys past
// their expiry (every later command executes at now or later, when such a
// key counts as gone: dropping it changes nothing) and the pass counts of
// windows every node's clock has left (a pass is counted at its arrival,
// on its node's clock, at most skew ahead of true time). Amortized: the
// next prune waits until the maps have doubled. The clock going back
// (a step) may then find a key gone that a real Redis would also have
// expired, or a window's pass count restarted (kong_beyond_limit only).
func (k *KongSync) prune(now time.Duration) {
	ms := k.cfg.epoch + floorMs(now)
	for key, c := range k.redis {
		if c.expiry < ms {
			delete(k.redis, key)
		}
	}
	for key := range k.passed {
		if _, end := kongWindow(key.unit, key.start); end*1000+k.cfg.Skew.Milliseconds()+1 < ms {
			delete(k.passed, key)
		}
	}
	k.pruneAt = 2 * (len(k.redis) + len(k.passed))
}

// overLimit reports whether a pass counted in keys (already added to
// passed) made some unit's window hold more passes than its limit.
func (k *KongSync) overLimit(keys []kongSyncKey) bool {
	over := false
	for _, key := range keys {
		if float64(k.passed[key]) > k.cfg.Limits[key.unit] {
			over = true
		}
	}
	return over
}

// increment is the redis policy's increment() after a pass at now on node
// ni: update_local_counters, then rate_limited_sync.
func (k *KongSync) increment(ni int, keys []kongSyncKey, now time.Duration) {
	n := &k.nodes[ni]
	for _, key := range keys {
		n.delta[key]++
	}
	if !n.pending {
		n.pending = true
		k.push(now+k.cfg.SyncRate, kongClassTimer, kongEvent{kind: kongTimer, node: ni})
	}
}

func (k *KongSync) push(at time.Duration, class int, e kongEvent) {
	k.seq++
	k.q.Push(eventq.Key{At: at, Class: class, Seq: k.seq}, e)
}

// readRedis is usage()'s EVAL executing at Unix ms ms: INCR (EXPIRE when
// it made 1), the value before it.
func (k *KongSync) readRedis(key kongSyncKey, ms int64) int64 {
	k.reads++
	c := k.redis[key]
	if c != nil && ms > c.expiry {
		k.expiredReads++
	}
	if c == nil || ms > c.expiry {
		c = &kongCounter{expiry: ms + kongExpiration[key.unit]*1000}
		k.redis[key] = c
	}
	c.count++
	return c.count - 1
}

// runUntil runs every event due at or before now (replies and timers come
// before an arrival at the same instant).
func (k *KongSync) runUntil(now time.Duration) {
	for {
		key, e, ok := k.q.Peek()
		if !ok || key.At > now {
			return
		}
		k.q.Pop()
		n := &k.nodes[e.node]
		switch e.kind {
		case kongReadReply:
			n.usage[e.key], n.delta[e.key] = e.value, -1
			if e.pass {
				one := [1]kongSyncKey{e.key}
				k.increment(e.node, one[:], key.At)
			}
		case kongSyncReply:
			clear(n.usage)
			clear(n.delta)
			n.running = false
		case kongTimer:
			if n.running {
				k.push(key.At+kongRunningSleep, kongClassTimer, e)
				continue
			}
			k.sync(e.node, key.At)
		}
	}
}

// sync is sync_to_redis on node ni when its timer runs at: one pipeline,
// an EVAL per key in cur_delta now, executing at + ⌊rtt/2⌋; the node's
// tables are cleared when its reply is back.
func (k *KongSync) sync(ni int, at time.Duration) {
	n := &k.nodes[ni]
	n.pending = false
	if len(n.delta) == 0 {
		clear(n.usage)
		return
	}
	ms := k.cfg.epoch + floorMs(at+k.cfg.RTT/2)
	k.syncs++
	for key, d := range n.delta {
		k.syncEvals++
		c := k.redis[key]
		if c == nil || ms > c.expiry {
			c = &kongCounter{expiry: kongFarFuture}
			k.redis[key] = c
		}
		c.count += d
	}
	if k.cfg.RTT == 0 {
		clear(n.usage)
		clear(n.delta)
		return
	}
	n.running = true
	k.push(at+k.cfg.RTT, kongClassReply, kongEvent{kind: kongSyncReply, node: ni})
}

// KongSyncFigures reports the run's Redis traffic and the passes beyond
// the limit: reads are usage()'s EVALs, syncs the pipelines (one round
// trip each) and syncEvals the EVALs they carried; realtime is what
// sync_rate = −1 sends for the same arrivals (one EVAL per arrival and
// configured unit); beyond counts the passes that found some configured
// unit's window already holding its limit of passes over all nodes.
//
// It first runs the timers still pending (Flush): call it after the last
// arrival.
func (k *KongSync) KongSyncFigures() (reads, syncs, syncEvals, realtime, beyond int64) {
	k.Flush()
	return k.reads, k.syncs, k.syncEvals, k.arrivals * int64(len(k.cfg.units)), k.beyond
}

// KongSyncOf is the KongSync a row runs: lim itself, or the one plugin
// behind a kong key=COLUMN row (every key an identifier of it); nil for
// any other limiter.
func KongSyncOf(lim Limiter) *KongSync {
	switch l := lim.(type) {
	case *KongSync:
		return l
	case *KongSyncRouted:
		return l.KongSync
	case *Keyed:
		if t, ok := l.table.(*kongSyncTable); ok {
			return t.k
		}
	}
	return nil
}

// Flush runs the timers still pending after the last arrival, as the
// nodes would: their EVALs then count in KongSyncFigures.
func (k *KongSync) Flush() { k.runUntil(math.MaxInt64 / 2) }

// RedisCount is the Redis value of unit's window holding now (tests).
func (k *KongSync) RedisCount(unit string, now time.Duration) int64 {
	for u, name := range kongUnitNames {
		if name == unit {
			ms := k.cfg.epoch + floorMs(now)
			start, _ := kongWindow(u, floorDiv(ms, 1000))
			if c := k.redis[kongSyncKey{0, u, start}]; c != nil && ms <= c.expiry {
				return c.count
			}
		}
	}
	return 0
}

// Nodes is the number of Kong nodes (instances=).
func (k *KongSync) Nodes() int { return k.cfg.Instances }

// SyncRate is conf.sync_rate.
func (k *KongSync) SyncRate() time.Duration { return k.cfg.SyncRate }

// RTT is the round trip to Redis (rtt=).
func (k *KongSync) RTT() time.Duration { return k.cfg.RTT }

// EpochMs is the Unix ms of virtual time 0.
func (k *KongSync) EpochMs() int64 { return k.cfg.epoch }

// Spec implements Limiter.
func (k *KongSync) Spec() string {
	var b strings.Builder
	b.WriteString("kong:")
	for _, u := range k.cfg.units {
		fmt.Fprintf(&b, "%s=%s,", kongUnitNames[u], formatFloat(k.cfg.Limits[u]))
	}
	fmt.Fprintf(&b, "policy=redis,sync-rate=%s,instances=%d", k.cfg.SyncRate, k.cfg.Instances)
	if k.cfg.RTT > 0 {
		b.WriteString(",rtt=" + FormatDuration(k.cfg.RTT))
	}
	if k.cfg.Skew > 0 {
		b.WriteString(",skew=" + FormatDuration(k.cfg.Skew))
	}
	if k.cfg.Route != "" {
		b.WriteString(",route=" + k.cfg.Route)
	}
	return b.String()
}

// Rate implements Limiter, as Kong's.
func (k *KongSync) Rate() float64 {
	r := math.Inf(1)
	for _, u := range k.cfg.units {
		r = min(r, k.cfg.Limits[u]/float64(kongExpiration[u]))
	}
	return r
}

// WindowLimit implements WindowLimiter, as Kong's.
func (k *KongSync) WindowLimit(w time.Duration) float64 {
	r := math.Inf(1)
	for _, u := range k.cfg.units {
		r = min(r, k.cfg.Limits[u]*max(1, w.Seconds()/float64(kongExpiration[u])))
	}
	return r
}

// StateBytes implements Limiter: the struct, the nodes and the map
// entries live now (an approximation of the maps' overhead: 64 bytes an
// entry).
func (k *KongSync) StateBytes() int {
	b := int(unsafe.Sizeof(*k)) + len(k.nodes)*int(unsafe.Sizeof(kongSyncNode{}))
	e := len(k.redis) + len(k.passed) + k.q.Len()
	for i := range k.nodes {
		e += len(k.nodes[i].usage) + len(k.nodes[i].delta)
	}
	return b + 64*e
}

// Fresh implements Freshener: a new plugin (its own nodes, timers and
// Redis), sharing k's configuration.
func (k *KongSync) Fresh() Limiter { return newKongSync(k.cfg) }

// keyedTable implements keyedStater: with key=COLUMN every key is an
// identifier of one plugin, as in Kong: the nodes' tables hold every
// identifier's counters, one timer per node pushes them all, and arrival
// i (whatever its key) runs on node i mod Instances. Nothing is evicted
// (Kong's Lua tables have no bound; a sync empties them).
func (k *KongSync) keyedTable() keyedTable {
	return &kongSyncTable{k: newKongSync(k.cfg), seen: map[int32]struct{}{}}
}

type kongSyncTable struct {
	k    *KongSync
	seen map[int32]struct{}
}

func (t *kongSyncTable) decide(id int32, now time.Duration, _ int, _ *Request) Decision {
	t.seen[id] = struct{}{}
	return t.k.decide(id, now, nil)
}
func (t *kongSyncTable) live() int                    { return len(t.seen) }
func (t *kongSyncTable) bytes() int                   { return t.k.StateBytes() }
func (t *kongSyncTable) figures() (int64, int, int64) { return 0, len(t.seen), int64(t.k.StateBytes()) }
func (t *kongSyncTable) evictedOf(int32) int32        { return 0 }

// kongSync reads kong's sync-rate, instances, rtt, skew and route:
// SyncRate is 0 for −1 (the default), else the timer's delay; the others
// apply only with sync-rate > 0.
func (a *args) kongSync(redis bool) (c KongSyncConfig, err error) {
	c.Instances = 1
	if a.has("sync-rate") {
		v := strings.TrimSpace(a.str("sync-rate"))
		if v != "-1" {
			if f, ferr := strconv.ParseFloat(v, 64); ferr == nil && f >= 0 && f < 4e7 {
				c.SyncRate = time.Duration(math.Round(f * 1e9))
			} else if d, derr := time.ParseDuration(v); derr == nil && d >= 0 {
				c.SyncRate = d
			} else {
				return c, fmt.Errorf("kong: sync-rate %q is neither -1 nor a duration (for example sync-rate=1s or sync-rate=-1)", v)
			}
			if !redis {
				return c, fmt.Errorf("kong: sync-rate can only be used with policy=redis (schema.lua); add policy=redis or drop sync-rate")
			}
			if c.SyncRate < 20*time.Millisecond {
				return c, fmt.Errorf("kong: sync-rate must be at least 20ms, or -1 to sync at once (schema.lua), got %s", v)
			}
			if c.SyncRate > 365*24*time.Hour {
				return c, fmt.Errorf("kong: sync-rate %s is over a year, the longest the lab times (for example sync-rate=1s)", v)
			}
		}
	}
	for _, name := range []string{"instances", "rtt", "skew", "route"} {
		if a.has(name) && c.SyncRate == 0 {
			return c, fmt.Errorf("kong: %s only applies with policy=redis and sync-rate > 0 (each node's local counters); drop %s or add sync-rate=1s", name, name)
		}
	}
	if a.has("instances") {
		if c.Instances, err = a.int("instances"); err != nil {
			return c, err
		}
		if c.Instances < 1 || c.Instances > 1024 {
			return c, fmt.Errorf("kong: instances must be 1 to 1024, got %d (for example instances=3)", c.Instances)
		}
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"rtt", &c.RTT}, {"skew", &c.Skew}} {
		if a.has(d.name) {
			if *d.to, err = a.duration(d.name); err != nil {
				return c, err
			}
		}
	}
	if c.Skew > 365*24*time.Hour {
		return c, fmt.Errorf("kong: skew %s is over a year (for example skew=50ms)", FormatDuration(c.Skew))
	}
	if v := strings.TrimSpace(a.str("route")); a.has("route") && v != "none" && v != "(none)" {
		if v == "" {
			return c, fmt.Errorf("kong: route= needs a trace column holding each request's node (0 … instances−1), for example route=node")
		}
		c.Route = v
	}
	return c, nil
}
