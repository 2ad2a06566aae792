package algorithms

import (
	"strconv"
	"time"
)

// Sharding of the two per-key kinds with their own tables (shard.go):
// nginx-limit-req with one unbounded zone (zone=0) and sentinel-param
// with an unbounded cache (capacity=unbounded) and no items=. Shard s of n
// is a limiter of the same configuration that sees key id as id / n.

// nginxShards are the shards of an NginxLimitReq.
type nginxShards = keyShards[nginxState, *NginxLimitReq]

// shardSlots is the one zone's table a split limit_req holds.
func (l *NginxLimitReq) shardSlots() *keySlots[nginxState] { return &l.zones[0].slots }

// Shard implements Sharder: one limit_req with an unbounded zone.
func (l *NginxLimitReq) Shard(n int) (Shards, string) {
	switch {
	case n < 2:
		return nil, "one worker"
	case len(l.zones) != 1:
		return nil, "several limit_req zones check each request against several keys' states"
	case l.zones[0].slab != nil || l.hasShadow:
		return nil, "its zone (zone=" + formatSize(l.zones[0].cfg.Zone) + ") expires and forces out states in the order of every key's requests"
	}
	sh := &nginxShards{n: int32(n), col: l.zones[0].col, parts: make([]*NginxLimitReq, n), req: make([]shardRequest, n)}
	for s := range sh.parts {
		p, err := NewNginxLimitReq(l.Configs()...)
		if err != nil {
			panic("algorithms: nginx shard: " + err.Error())
		}
		p.zones[0].col = sh.col
		if l.name != nil {
			name, s, n := l.name, int32(s), int32(n)
			p.name = func(id int32) string { return name(id*n + s) }
		}
		sh.parts[s] = p
	}
	l.shards = sh
	return sh, ""
}

// shardRequest is a shard's copy of the request it decides, its key
// column's id made local, alone on its cache lines: a copy on the stack
// escapes (the part is called through the generic shape) and would cost
// an allocation per request.
type shardRequest struct {
	r Request
	_ [64]byte
}

// paramShards are the shards of a SentinelParam.
type paramShards = keyShards[paramState, *SentinelParam]

// shardSlots is the cache a split sentinel-param holds.
func (p *SentinelParam) shardSlots() *keySlots[paramState] { return &p.slots }

// Shard implements Sharder: an unbounded cache without items=.
func (p *SentinelParam) Shard(n int) (Shards, string) {
	switch {
	case n < 2:
		return nil, "one worker"
	case p.capacity > 0 || p.hasShadow:
		return nil, "its cache is bounded (capacity=" + strconv.Itoa(p.capacity) + ") and evicts in the order of every value's requests"
	case p.itemCount != nil:
		return nil, "items= resolves value names as they come, in the order of every value's requests"
	}
	sh := &paramShards{n: int32(n), col: p.col, parts: make([]*SentinelParam, n), req: make([]shardRequest, n)}
	for s := range sh.parts {
		q, err := NewSentinelParam(p.cfg)
		if err != nil {
			panic("algorithms: sentinel-param shard: " + err.Error())
		}
		q.col = p.col
		sh.parts[s] = q
	}
	p.shards = sh
	return sh, ""
}

// shardPart is a per-key limiter a keyShards splits: it decides a request
// whose key id is local to its shard, and holds its keys in one table.
type shardPart[T any] interface {
	DecideRequest(now time.Duration, r *Request) Decision
	shardSlots() *keySlots[T]
}

// keyShards routes requests by key id to n parts (shard id % n, local id
// id / n) and reports the parts' figures as one unbounded table.
type keyShards[T any, P shardPart[T]] struct {
	n     int32
	col   int
	parts []P
	req   []shardRequest // per shard: the request with its key made local
}

func (sh *keyShards[T, P]) Of(r *Request) int {
	if id := r.Keys[sh.col]; id >= 0 {
		return int(id % sh.n)
	}
	return 0
}

func (sh *keyShards[T, P]) DecideOn(s int, now time.Duration, r *Request) Decision {
	if r.Keys[sh.col] < 0 {
		return sh.parts[s].DecideRequest(now, r)
	}
	l := &sh.req[s].r
	*l = *r
	l.Keys[sh.col] /= sh.n
	return sh.parts[s].DecideRequest(now, l)
}

func (sh *keyShards[T, P]) stateBytes() int {
	parts := make([]*keySlots[T], len(sh.parts))
	for i, p := range sh.parts {
		parts[i] = p.shardSlots()
	}
	return mergedBytes(parts)
}

// keyFigures: an unbounded table neither expires nor fails an allocation.
func (sh *keyShards[T, P]) keyFigures() KeyFigures {
	live := 0
	for _, p := range sh.parts {
		live += p.shardSlots().live
	}
	return KeyFigures{PeakKeys: live, PeakStateBytes: int64(sh.stateBytes())}
}
