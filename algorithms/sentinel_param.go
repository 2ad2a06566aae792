package algorithms

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SentinelParamConfig is one hot-parameter rule (ParamFlowRule, QPS grade)
// on one key column.
type SentinelParamConfig struct {
	// Count is the rule's count: tokens per Duration for each value (Java
	// truncates it to a long; Go's threshold is whole).
	Count float64
	// Duration is durationInSec: whole seconds, at least 1.
	Duration time.Duration
	// Burst is burstCount (reject mode).
	Burst int64
	// Throttle selects CONTROL_BEHAVIOR_RATE_LIMITER; MaxQueue is its
	// maxQueueingTimeMs.
	Throttle bool
	MaxQueue time.Duration
	// Items are the per-value counts (paramFlowItemList / SpecificItems).
	Items map[string]int64
	// Capacity bounds the value cache (0: the reference's default,
	// min(4000·D, 200000) in Java, min(4000·D, 20000) in Go; -1:
	// unbounded).
	Capacity int
	// Go selects sentinel-golang v1.0.4 core/hotspot.
	Go bool
	// Key names the key column.
	Key string
}

// SentinelParam is Sentinel's hot-parameter flow control on one key
// column: Sentinel 1.8.8+ ParamFlowChecker (QPS grade) in Java, or
// sentinel-golang v1.0.4 core/hotspot's reject and throttling traffic
// shaping controllers. Time is Sentinel's integer-millisecond clock. For a
// request of cost c with key value v (empty: passes, unaccounted), and
// tokenCount = the item's count for v, else ⌊count⌋:
//
// Reject (default behaviour): tokenCount = 0 or c > tokenCount + burst
// rejects at once, without touching the cache. Otherwise v's entry (last,
// rest) is looked up, which is an access in the LRU whatever follows. A
// first sighting stores (now, max − c) and passes, max = tokenCount +
// burst. Then if now − last > D·1000 ms: refill toAdd = (now −
// last)·tokenCount/(D·1000) (integer division); rest' = max − c if toAdd +
// rest > max, else rest + toAdd − c; rest' < 0 rejects and changes
// nothing, else (now, rest') and pass. Within D·1000 ms: rest − c ≥ 0
// passes with (last, rest − c), else rejects.
//
// Throttle: cost = Math.round(1000·c·D/tokenCount) ms (Go: the integer
// division c·D·1000/tokenCount, floored). A first sighting stores now and
// passes. Then expected = last + cost; if expected ≤ now, last = now and
// pass; if expected − now < max-queue (strict), last = expected and the
// request waits expected − now; else reject.
//
// The cache holds at most capacity values (Java's ConcurrentLinkedHashMap,
// Go's LRU); inserting one more evicts the least recently accessed, which
// later comes back as a first sighting, with a full bucket.
//
// Several rules on one key (a chain sentinel-param:…+sentinel-param:…) are
// checked in order, and tokens an earlier rule took are not given back
// when a later one rejects (ParamFlowSlot.checkFlow).
type SentinelParam struct {
	cfg       SentinelParamConfig
	count     int64 // ⌊count⌋
	durMs     int64
	maxQueue  int64
	capacity  int
	col       int
	slots     keySlots[paramState]
	name      func(int32) string
	itemOf    []int32 // by key id when Items: 0 unresolved, 1 none, k+2 item k
	itemCount []int64
	itemIndex map[string]int32
	peakBytes int64

	shadow       *SentinelParam
	shadowPasses int64
	hasShadow    bool
	shards       *paramShards // set by Shard (shard_keyed.go)
}

// paramState is one value's entry: the time of the last refill (reject)
// or of the last pass (throttle), and the tokens left (reject).
type paramState struct{ last, rest int64 }

// sentinelEpochMs is Sentinel's clock at virtual time 0.
const sentinelEpochMs = 1_700_000_000_000

// NewSentinelParam validates c and builds the limiter.
func NewSentinelParam(c SentinelParamConfig) (*SentinelParam, error) {
	if !(c.Count >= 0) || math.IsInf(c.Count, 0) || c.Count > math.MaxInt64/2 {
		return nil, fmt.Errorf("sentinel-param: count must be a number ≥ 0, got %s (for example count=10)", formatNumber(c.Count))
	}
	if c.Go && c.Count != math.Trunc(c.Count) {
		return nil, fmt.Errorf("sentinel-param: flavor=go takes a whole count (sentinel-golang's Threshold is an int64), got %s", formatNumber(c.Count))
	}
	if _, err := wholeSeconds("sentinel-param", "duration", c.Duration, 1, 1<<30, "durationInSec"); err != nil {
		return nil, err
	}
	if c.Burst < 0 {
		return nil, fmt.Errorf("sentinel-param: burst must not be negative, got %d", c.Burst)
	}
	mq, err := wholeMs("sentinel-param", "max-queue", c.MaxQueue, 0)
	if err != nil {
		return nil, err
	}
	if c.MaxQueue != 0 && !c.Throttle {
		return nil, fmt.Errorf("sentinel-param: max-queue applies to behavior=throttle only; drop it or add behavior=throttle")
	}
	if c.Burst != 0 && c.Throttle {
		return nil, fmt.Errorf("sentinel-param: burst applies to behavior=reject only (the throttle behaviour ignores burstCount); drop it")
	}
	if c.Key == "" {
		c.Key = "key"
	}
	d := int64(c.Duration / time.Second)
	capacity := c.Capacity
	if capacity == 0 {
		top := int64(200_000)
		if c.Go {
			top = 20_000
		}
		capacity = int(min(4000*d, top))
	}
	if capacity < -1 {
		return nil, fmt.Errorf("sentinel-param: capacity must be positive, got %d", capacity)
	}
	if capacity == -1 {
		capacity = 0
	}
	p := &SentinelParam{cfg: c, count: int64(c.Count), durMs: d * 1000, maxQueue: mq, capacity: capacity, slots: newKeySlots[paramState]()}
	if capacity == 0 {
		p.slots = newDirectKeySlots[paramState]() // never evicts
	}
	if len(c.Items) > 0 {
		p.itemCount = make([]int64, 0, len(c.Items))
		p.itemIndex = map[string]int32{}
		for _, v := range sortedItemNames(c.Items) {
			p.itemIndex[v] = int32(len(p.itemCount))
			if c.Items[v] < 0 {
				return nil, fmt.Errorf("sentinel-param: item %s has a negative count %d", v, c.Items[v])
			}
			p.itemCount = append(p.itemCount, c.Items[v])
		}
	}
	return p, nil
}

func sortedItemNames(m map[string]int64) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// ParseItems parses items=v1:N|v2:M.
func ParseItems(s string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, part := range strings.Split(s, "|") {
		v, n, ok := strings.Cut(part, ":")
		if i := strings.LastIndexByte(part, ':'); i >= 0 {
			v, n, ok = part[:i], part[i+1:], true
		}
		c, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if !ok || v == "" || err != nil || c < 0 {
			return nil, fmt.Errorf("sentinel-param: item %q is not VALUE:COUNT with a whole count ≥ 0 (for example items=vip:100|bot:0)", part)
		}
		if _, dup := out[v]; dup {
			return nil, fmt.Errorf("sentinel-param: item %q is given twice", v)
		}
		out[v] = c
	}
	return out, nil
}

// Spec implements Limiter.
func (p *SentinelParam) Spec() string {
	c := p.cfg
	var b strings.Builder
	fmt.Fprintf(&b, "sentinel-param:count=%s,duration=%s", formatFloat(c.Count), FormatDuration(c.Duration))
	if c.Throttle {
		fmt.Fprintf(&b, ",behavior=throttle,max-queue=%s", FormatDuration(c.MaxQueue))
	} else {
		fmt.Fprintf(&b, ",burst=%d,behavior=reject", c.Burst)
	}
	if len(c.Items) > 0 {
		names := sortedItemNames(c.Items)
		for i, v := range names {
			names[i] = v + ":" + strconv.FormatInt(c.Items[v], 10)
		}
		fmt.Fprintf(&b, ",items=%s", strings.Join(names, "|"))
	}
	capacity := strconv.Itoa(p.capacity)
	if p.capacity == 0 {
		capacity = "unbounded"
	}
	flavor := "java"
	if c.Go {
		flavor = "go"
	}
	fmt.Fprintf(&b, ",capacity=%s,key=%s,flavor=%s", capacity, c.Key, flavor)
	return b.String()
}

// Rate implements Limiter: 0, a per-key limiter has no aggregate limit.
func (p *SentinelParam) Rate() float64 { return 0 }

// StateBytes implements Limiter: 32 bytes per value held (key, links,
// last, rest) plus the id index.
func (p *SentinelParam) StateBytes() int {
	if p.shards != nil {
		return p.shards.stateBytes()
	}
	return p.slots.bytes() + 4*len(p.itemOf)
}

// KeyColumns implements KeyColumnUser.
func (p *SentinelParam) KeyColumns() []string { return []string{p.cfg.Key} }

// BindKeyColumns implements KeyColumnUser.
func (p *SentinelParam) BindKeyColumns(idx []int) error {
	c, err := bindOne("sentinel-param", idx)
	p.col = c
	if err == nil && p.shadow != nil {
		p.shadow.col = c
	}
	return err
}

// BindKeyNames implements KeyNameUser: items name values.
func (p *SentinelParam) BindKeyNames(name func(int32) string) {
	p.name = name
	if p.shadow != nil {
		p.shadow.name = name
	}
}

// tokenCount is the count for key id: its item's, else ⌊count⌋.
func (p *SentinelParam) tokenCount(id int32) int64 {
	if p.itemCount == nil || p.name == nil {
		return p.count
	}
	if int(id) >= len(p.itemOf) {
		p.itemOf = growInt32(p.itemOf, int(id)+1)
	}
	k := p.itemOf[id]
	if k == 0 {
		k = 1
		if i, ok := p.itemIndex[p.name(id)]; ok {
			k = i + 2
		}
		p.itemOf[id] = k
	}
	if k == 1 {
		return p.count
	}
	return p.itemCount[k-2]
}

// Decide implements Limiter for a request without a key: it passes.
func (p *SentinelParam) Decide(time.Duration) Decision { return Decision{Pass: true} }

// Check implements Stage (the checker takes its tokens while deciding).
func (p *SentinelParam) Check(now time.Duration) Decision { return p.Decide(now) }

// Record implements Stage: nothing.
func (p *SentinelParam) Record(time.Duration) {}

// CheckRequest implements RequestStage.
func (p *SentinelParam) CheckRequest(now time.Duration, r *Request) Decision {
	return p.DecideRequest(now, r)
}

// RecordRequest implements RequestStage: nothing.
func (p *SentinelParam) RecordRequest(time.Duration, *Request) {}

// access returns id's slot, inserting it (and evicting the least recently
// used value when the cache is full) when new.
func (p *SentinelParam) access(id int32) (slot int32, fresh bool) {
	if s := p.slots.lookup(id); s >= 0 {
		if p.capacity > 0 { // an unbounded cache never evicts: no order to keep
			p.slots.touch(s)
		}
		return s, false
	}
	if p.capacity > 0 && p.slots.live >= p.capacity {
		p.slots.remove(p.slots.tail, true)
	}
	s := p.slots.insert(id)
	if p.slots.live == p.slots.peak {
		p.peakBytes = max(p.peakBytes, int64(p.StateBytes()))
	}
	return s, true
}

// DecideRequest implements RequestLimiter.
func (p *SentinelParam) DecideRequest(now time.Duration, r *Request) Decision {
	if p.shards != nil {
		return p.shards.DecideOn(p.shards.Of(r), now, r)
	}
	if p.hasShadow {
		if p.shadow.DecideRequest(now, r).Pass {
			p.shadowPasses++
		}
	}
	id := r.Keys[p.col]
	if id < 0 {
		return Decision{Pass: true}
	}
	c := int64(r.Cost)
	if c <= 0 {
		c = 1
	}
	tokens := p.tokenCount(id)
	if tokens == 0 {
		return Decision{}
	}
	nowMs := sentinelEpochMs + int64(floorDivDur(now, time.Millisecond))
	if p.cfg.Throttle {
		var cost int64
		if p.cfg.Go {
			cost = c * (p.durMs / 1000) * 1000 / tokens
		} else {
			cost = int64(math.Floor(1.0*1000*float64(c)*float64(p.durMs/1000)/float64(tokens) + 0.5))
		}
		s, fresh := p.access(id)
		st := p.slots.at(s)
		if fresh {
			st.last = nowMs
			return Decision{Pass: true}
		}
		expected := st.last + cost
		if expected <= nowMs {
			st.last = nowMs
			return Decision{Pass: true}
		}
		if expected-nowMs < p.maxQueue {
			st.last = expected
			return Decision{Pass: true, Wait: time.Duration(expected-nowMs) * time.Millisecond}
		}
		return Decision{}
	}
	maxCount := tokens + p.cfg.Burst
	if c > maxCount {
		return Decision{}
	}
	s, fresh := p.access(id)
	st := p.slots.at(s)
	if fresh {
		st.last, st.rest = nowMs, maxCount-c
		return Decision{Pass: true}
	}
	pass := nowMs - st.last
	if pass > p.durMs {
		toAdd := pass * tokens / p.durMs
		var rest int64
		if toAdd+st.rest > maxCount {
			rest = maxCount - c
		} else {
			rest = st.rest + toAdd - c
		}
		if rest < 0 {
			return Decision{}
		}
		st.last, st.rest = nowMs, rest
		return Decision{Pass: true}
	}
	if st.rest-c >= 0 {
		st.rest -= c
		return Decision{Pass: true}
	}
	return Decision{}
}

// KeyIndex implements KeyReporter.
func (p *SentinelParam) KeyIndex() int { return p.col }

// KeyNominal implements KeyReporter: ⌊count⌋ per duration.
func (p *SentinelParam) KeyNominal() (float64, time.Duration) {
	return float64(p.count), p.cfg.Duration
}

// KeyEvictions implements KeyReporter.
func (p *SentinelParam) KeyEvictions(id int32) int32 { return p.slots.evictedOf(id) }

// KeyFigures implements KeyReporter.
func (p *SentinelParam) KeyFigures() KeyFigures {
	if p.shards != nil {
		return p.shards.keyFigures()
	}
	return KeyFigures{Evictions: p.slots.evictions, PeakKeys: p.slots.peak, PeakStateBytes: p.peakBytes,
		ShadowPasses: p.shadowPasses, HasShadow: p.hasShadow}
}

// TrackShadow implements KeyReporter.
func (p *SentinelParam) TrackShadow() {
	if p.capacity == 0 || p.hasShadow {
		return
	}
	p.shadow = p.unbounded()
	p.hasShadow = true
}

// unbounded is p with capacity=unbounded, bound to p's column and names.
func (p *SentinelParam) unbounded() *SentinelParam {
	c := p.cfg
	c.Capacity = -1
	u, _ := NewSentinelParam(c)
	u.col, u.name = p.col, p.name
	return u
}

// unboundedTwin implements twinStage.
func (p *SentinelParam) unboundedTwin() (Stage, bool) { return p.unbounded(), p.capacity != 0 }
