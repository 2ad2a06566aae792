package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
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
	// goes to node i mod Instances.
	Instances int
}

// KongSync is Kong Gateway's OSS rate-limiting plugin with policy=redis
// and sync_rate > 0, as kong/plugins/rate-limiting/policies/init.lua
// (the "redis" policy's usage and increment, update_local_counters,
// rate_limited_sync, sync_to_redis) and handler.lua (access) write it,
// on Instances nodes sharing one Redis (kept in memory here).
//
// Each node (a worker: the tables are Lua module locals) holds, per
// counter key (unit and window start, as get_local_key names it),
// cur_usage and cur_delta:
//
//   - usage(): a key the node holds answers cur_usage + cur_delta with no
//     Redis call. (The plugin's expiry test, cur_usage_expire_at >
//     ngx.time(), compares periods[period] + EXPIRATION, Unix ms plus
//     seconds, with Unix seconds, so it always holds: the branch that
//     resets an expired entry never runs; a new window is a new key.)
//     Otherwise one EVAL runs INCR key (EXPIRE key EXPIRATION when it made
//     1) and returns the value before it; the node stores it as cur_usage
//     with cur_delta = −1, to take back that INCR at the next sync.
//   - a request passes iff limit − usage > 0 for every configured unit;
//     only a pass calls increment(): cur_delta += 1 for every configured
//     unit, then rate_limited_sync: when no timer is pending on the node,
//     one is armed at now + sync_rate.
//   - the timer (sync_to_redis) pipelines one EVAL per key in cur_delta
//     (EXISTS; INCRBY delta; EXPIREAT when it did not exist, at
//     periods[period] + EXPIRATION read as seconds: tens of thousands of
//     years away, so a key the sync creates never expires), then clears
//     the node's three tables: the next request on that node reads Redis
//     again.
//
// Virtual time: a timer due at or before an arrival runs before it (in
// the order they fall due; syncs only add, so their order cannot change
// a count). Redis and the timers answer at once (no rtt). A rejected
// request arms no timer: its read's −1 waits for the node's next pass.
type KongSync struct {
	cfg    *kongSyncParams
	nodes  []kongSyncNode
	redis  map[kongSyncKey]*kongCounter // count and expiry (Unix ms) per key
	passed map[kongSyncKey]int64        // passes per key over all nodes
	next   int64                        // arrivals so far: the next node is next mod Instances

	reads, syncs, syncEvals, arrivals, beyond int64
}

type kongSyncParams struct {
	KongSyncConfig
	epoch int64
	units []int
}

type kongSyncKey struct {
	id    int32 // the identifier (a key=COLUMN value; 0 without one)
	unit  int
	start int64 // the window's start, Unix seconds
}

type kongSyncEntry struct{ usage, delta int64 }

type kongSyncNode struct {
	entries map[kongSyncKey]*kongSyncEntry
	pending bool
	at      time.Duration // the pending timer's time
}

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
	p := &kongSyncParams{KongSyncConfig: c, epoch: base.cfg.epoch, units: base.cfg.units}
	return newKongSync(p), nil
}

func newKongSync(p *kongSyncParams) *KongSync {
	k := &KongSync{cfg: p, nodes: make([]kongSyncNode, p.Instances),
		redis: map[kongSyncKey]*kongCounter{}, passed: map[kongSyncKey]int64{}}
	for i := range k.nodes {
		k.nodes[i].entries = map[kongSyncKey]*kongSyncEntry{}
	}
	return k
}

// Decide implements Limiter: access() for one request on node
// arrival mod Instances.
func (k *KongSync) Decide(now time.Duration) Decision { return k.decide(0, now) }

// decide is access() for identifier id.
func (k *KongSync) decide(id int32, now time.Duration) Decision {
	k.runTimers(now)
	n := &k.nodes[k.next%int64(len(k.nodes))]
	k.next++
	k.arrivals++
	ms := k.cfg.epoch + floorMs(now)
	sec := floorDiv(ms, 1000)
	var keys [kongUnits]kongSyncKey
	stop := false
	for i, u := range k.cfg.units {
		start, _ := kongWindow(u, sec)
		key := kongSyncKey{id, u, start}
		keys[i] = key
		var usage int64
		if e := n.entries[key]; e != nil {
			usage = e.usage + e.delta
		} else {
			usage = k.readRedis(key, ms)
			n.entries[key] = &kongSyncEntry{usage: usage, delta: -1}
		}
		if k.cfg.Limits[u]-float64(usage) <= 0 {
			stop = true
		}
	}
	if stop {
		return Decision{}
	}
	over := false
	for i, u := range k.cfg.units {
		n.entries[keys[i]].delta++
		k.passed[keys[i]]++
		if float64(k.passed[keys[i]]) > k.cfg.Limits[u] {
			over = true
		}
	}
	if over {
		k.beyond++
	}
	if !n.pending {
		n.pending, n.at = true, now+k.cfg.SyncRate
	}
	return Decision{Pass: true}
}

// readRedis is usage()'s EVAL: INCR (EXPIRE when it made 1), the value
// before it.
func (k *KongSync) readRedis(key kongSyncKey, ms int64) int64 {
	k.reads++
	c := k.redis[key]
	if c == nil || ms > c.expiry {
		c = &kongCounter{expiry: ms + kongExpiration[key.unit]*1000}
		k.redis[key] = c
	}
	c.count++
	return c.count - 1
}

// runTimers runs every node's sync due at or before now, earliest first.
func (k *KongSync) runTimers(now time.Duration) {
	for {
		best := -1
		for i := range k.nodes {
			if n := &k.nodes[i]; n.pending && n.at <= now && (best < 0 || n.at < k.nodes[best].at) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		k.sync(&k.nodes[best])
	}
}

// sync is sync_to_redis on node n at its timer's time: one pipeline, an
// EVAL per key in cur_delta, then the node's tables cleared.
func (k *KongSync) sync(n *kongSyncNode) {
	ms := k.cfg.epoch + floorMs(n.at)
	k.syncs++
	for key, e := range n.entries {
		k.syncEvals++
		c := k.redis[key]
		if c == nil || ms > c.expiry {
			c = &kongCounter{expiry: kongFarFuture}
			k.redis[key] = c
		}
		c.count += e.delta
	}
	clear(n.entries)
	n.pending = false
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

// Flush runs the timers still pending after the last arrival, as the
// nodes would: their EVALs then count in KongSyncFigures.
func (k *KongSync) Flush() { k.runTimers(math.MaxInt64) }

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
	e := len(k.redis) + len(k.passed)
	for i := range k.nodes {
		e += len(k.nodes[i].entries)
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
	return t.k.decide(id, now)
}
func (t *kongSyncTable) live() int                    { return len(t.seen) }
func (t *kongSyncTable) bytes() int                   { return t.k.StateBytes() }
func (t *kongSyncTable) figures() (int64, int, int64) { return 0, len(t.seen), int64(t.k.StateBytes()) }
func (t *kongSyncTable) evictedOf(int32) int32        { return 0 }

// kongSync reads kong's sync-rate and instances: sync is 0 for −1 (the
// default), else the timer's delay; instances is 1 unless given, and
// only with sync-rate > 0.
func (a *args) kongSync(redis bool) (sync time.Duration, instances int, err error) {
	instances = 1
	if a.has("sync-rate") {
		v := strings.TrimSpace(a.str("sync-rate"))
		if v != "-1" {
			if f, ferr := strconv.ParseFloat(v, 64); ferr == nil && f >= 0 && f < 4e7 {
				sync = time.Duration(math.Round(f * 1e9))
			} else if d, derr := time.ParseDuration(v); derr == nil && d >= 0 {
				sync = d
			} else {
				return 0, 0, fmt.Errorf("kong: sync-rate %q is neither -1 nor a duration (for example sync-rate=1s or sync-rate=-1)", v)
			}
			if !redis {
				return 0, 0, fmt.Errorf("kong: sync-rate can only be used with policy=redis (schema.lua); add policy=redis or drop sync-rate")
			}
			if sync < 20*time.Millisecond {
				return 0, 0, fmt.Errorf("kong: sync-rate must be at least 20ms, or -1 to sync at once (schema.lua), got %s", v)
			}
			if sync > 365*24*time.Hour {
				return 0, 0, fmt.Errorf("kong: sync-rate %s is over a year, the longest the lab times (for example sync-rate=1s)", v)
			}
		}
	}
	if a.has("instances") {
		if sync == 0 {
			return 0, 0, fmt.Errorf("kong: instances only applies with policy=redis and sync-rate > 0 (each node's local counters); drop instances or add sync-rate=1s")
		}
		if instances, err = a.int("instances"); err != nil {
			return 0, 0, err
		}
		if instances < 1 || instances > 1024 {
			return 0, 0, fmt.Errorf("kong: instances must be 1 to 1024, got %d (for example instances=3)", instances)
		}
	}
	return sync, instances, nil
}
