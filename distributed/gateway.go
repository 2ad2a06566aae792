package distributed

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// The gateways' scripts, printed in full in docs/redis.md.
var (
	//go:embed scripts/spring_gateway.lua
	SpringGatewayScript string
	//go:embed scripts/cell.lua
	CellScript string
)

// gatewayState is what the gateways' limiters keep beside the common
// Limiter fields.
type gatewayState struct {
	key2   string       // redis-spring-gateway: the timestamp key
	caches []envoyCache // redis-envoy-ratelimit: each instance's local cache
}

// envoyCache is one ratelimit service instance's over-limit local cache
// (freecache, keyed by the cache key): the entries its replies will set,
// in the order they arrive, and the newest window it holds per key id. A
// cache key names its window and the entry lives for the unit's length,
// so it answers for exactly the rest of that window.
type envoyCache struct {
	pending []envoyEntry
	head    int
	windows map[int32]int64
}

type envoyEntry struct {
	at time.Duration // when the reply that sets it is back
	wk windowKey
}

// newGateway sets the keys of a gateway's limiter and returns its script.
func (l *Limiter) newGateway() string {
	switch l.s.Kind {
	case SpringGateway:
		l.key = l.prefix + "request_rate_limiter.{lab}.tokens"
		l.gw.key2 = l.prefix + "request_rate_limiter.{lab}.timestamp"
		return SpringGatewayScript
	case EnvoyRatelimit:
		// The service's key: prefix + domain_key_value_ + window start.
		l.key = l.prefix + "lab_key_value_"
		l.windows = map[windowKey]int64{}
		l.gw.caches = make([]envoyCache, l.s.Instances)
		return ""
	case Cell:
		l.key = l.prefix + "cell"
		return CellScript
	}
	return ""
}

// envoyStart is the window start of envoyproxy/ratelimit's cache key:
// (now / divider) · divider in Unix seconds, now the service's whole
// seconds.
func (l *Limiter) envoyStart(ms int64) int64 {
	d := l.s.Gateway.Divider
	return floorDiv(floorDiv(ms, 1000), d) * d
}

// envoyCached answers arrival i from its instance's local cache when the
// cache holds its key: over the limit, no Redis command, no wait. On the
// Lua backends it first reads the replies in flight, which may fill the
// cache.
func (l *Limiter) envoyCached(exec time.Duration, i, ms int64, j int) bool {
	g := l.s.Gateway
	if !g.LocalCache {
		return false
	}
	if l.nat == nil && len(l.pend) > 0 {
		l.flush()
	}
	c := &l.gw.caches[i%int64(l.s.Instances)]
	at := exec - l.half
	for c.head < len(c.pending) && c.pending[c.head].at <= at {
		if c.windows == nil {
			c.windows = map[int32]int64{}
		}
		e := c.pending[c.head]
		c.windows[e.wk.key] = e.wk.idx
		c.head++
	}
	if c.head == len(c.pending) {
		c.pending, c.head = c.pending[:0], 0
	}
	if w, ok := c.windows[l.pk.cur]; !ok || w != l.envoyStart(ms) {
		return false
	}
	l.out[j] = algorithms.Decision{Pass: g.Shadow}
	return true
}

// envoyOver records arrival i's verdict in its instance's local cache,
// visible when the reply is back.
func (l *Limiter) envoyOver(exec time.Duration, i int64, wk windowKey, over bool) {
	if !over || !l.s.Gateway.LocalCache {
		return
	}
	c := &l.gw.caches[i%int64(l.s.Instances)]
	c.pending = append(c.pending, envoyEntry{at: exec - l.half + l.passWait(), wk: wk})
}

// gatewayFirst queues a gateway limiter's first batch on a Lua backend.
func (l *Limiter) gatewayFirst(p *pending, exec time.Duration, i, ms int64) string {
	g := l.s.Gateway
	switch l.s.Kind {
	case SpringGateway:
		l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "2", l.rkey(), l.rkey2(),
			strconv.FormatInt(g.ReplenishRate, 10), strconv.FormatInt(g.BurstCapacity, 10),
			strconv.FormatInt(floorDiv(ms, 1000), 10), strconv.FormatInt(g.RequestedTokens, 10)})
		return l.rkey()
	case EnvoyRatelimit:
		start := l.envoyStart(ms)
		key := l.rkey() + strconv.FormatInt(start, 10)
		l.newWindow(start)
		p.windowIdx = start
		if g.StopIncrement {
			l.cmds = append(l.cmds, []string{"GET", key})
			p.n++
		}
		p.n += 2
		// fixed_cache_impl.go pipelineAppend: INCRBY key hitsAddend, the
		// request's cost (DoLimit: utils.Max(1, request.HitsAddend)).
		l.cmds = append(l.cmds, []string{"INCRBY", key, strconv.FormatInt(int64(l.cost), 10)}, []string{"EXPIRE", key, strconv.FormatInt(g.Divider, 10)})
		return key
	case Cell:
		ns := l.cellNow(exec, i)
		key := l.rkey()
		l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "1", key,
			strconv.FormatInt(g.MaxBurst, 10), strconv.FormatInt(g.Count, 10),
			strconv.FormatInt(int64(g.Period/time.Second), 10), strconv.FormatInt(int64(l.cost), 10),
			strconv.FormatInt(floorDiv(ns, 1e9), 10), strconv.FormatInt(ns-floorDiv(ns, 1e9)*1e9, 10)})
		return key
	}
	panic("distributed: not a gateway limiter: " + l.s.Kind)
}

// gatewayVerdict reads a gateway limiter's verdict from its first batch's
// replies r, and records what the gateway side keeps of it.
func (l *Limiter) gatewayVerdict(p *pending, r []any) (bool, error) {
	switch l.s.Kind {
	case SpringGateway, Cell:
		arr, ok := r[0].([]any)
		if !ok || len(arr) < 2 {
			return false, fmt.Errorf("%s: the script answered %v on %s", l.s.Kind, describe(r[0]), l.srvName)
		}
		n, ok := arr[0].(int64)
		if !ok {
			return false, fmt.Errorf("%s: the script answered %v on %s", l.s.Kind, arr, l.srvName)
		}
		if l.s.Kind == Cell {
			return n == 0, nil // throttled = 0
		}
		return n == 1, nil
	case EnvoyRatelimit:
		n, ok := r[len(r)-2].(int64)
		if !ok {
			return false, fmt.Errorf("%s: INCRBY answered %v on %s", l.s.Kind, describe(r[len(r)-2]), l.srvName)
		}
		over := n > l.s.Gateway.Limit
		l.envoyOver(p.exec, p.seq, windowKey{p.key, p.windowIdx}, over)
		return !over || l.s.Gateway.Shadow, nil
	}
	panic("distributed: not a gateway limiter: " + l.s.Kind)
}

// gatewayMembers is a gateway limiter's key count after a batch: Spring's
// two keys (none when its TTL is 0), redis-cell's one; the envoy windows
// are counted as they are created.
func (l *Limiter) gatewayMembers() {
	switch l.s.Kind {
	case SpringGateway:
		if l.s.Gateway.springTTL() > 0 {
			l.peakMembers = 2 * l.pk.nkeys
		}
	case Cell:
		l.peakMembers = l.pk.nkeys
	}
}

// Warnings implements the optional interface algorithms.Warnings reads.
func (l *Limiter) Warnings() []string { return l.s.Warnings() }
