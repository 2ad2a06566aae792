package distributed

import (
	"math"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
)

// The embedded default decides each built-in limiter natively: the
// limiter's Redis keys are Go values (a counter per window key, the ZSET
// of a sliding log as a heap of its scores, the bucket ZSET as a slice,
// the stored TAT or tokens as the number the script would read back), and
// each script or command batch is a Go function doing what the script
// does, in the same order and with the same arithmetic (float64 where the
// Lua computes in doubles, int64 where redis-cell counts in ns). Batches
// run in the order the model gives (see the package documentation), keys
// never expire (as on the other backends, where the lab cancels every
// TTL), and commands and members are counted as the Lua backends count
// them, so the decisions and figures are those of the Lua run on a server
// (the tests replay fuzzed traces through all three backends). redis-script
// always runs as Lua, on the embedded miniredis.

// native is one limiter's keys on the native backend: the window
// counters, and the rest per key id (flat, indexed by key id + 1).
type native struct {
	counters map[windowKey]int64 // fixed-window, envoy: window key → INCR value
	windows  int64               // window keys created
	keys     []nativeKey
}

// nativeKey is what one key's scripts keep.
type nativeKey struct {
	// fixed-window, envoy: the window key last incremented and its value
	// (the map holds the others), so that a key's run of arrivals in one
	// window touches no map.
	winIdx   int64
	winCount int64
	hasWin   bool
	log      scoreHeap // sliding-log: the ZSET's scores (members are unique)
	buckets  []bucket  // bucketed: the ZSET, member (bucket start) → score
	tat      float64   // gcra: the TAT the script stored
	hasTat   bool
	tokens   float64 // spring: the tokens and timestamp keys
	stamp    float64
	hasStamp bool
	cellTat  int64 // redis-cell: the TAT in Unix ns
	hasCell  bool
}

func newNative() *native { return &native{counters: map[windowKey]int64{}} }

// at returns key k's state.
func (n *native) at(k int32) *nativeKey {
	i := int(k) + 1
	if i >= len(n.keys) {
		n.keys = append(n.keys, make([]nativeKey, i+1-len(n.keys))...)
	}
	return &n.keys[i]
}

// incr is INCR of key k's window idx (k's state nk): the new value.
func (n *native) incr(nk *nativeKey, k int32, idx, by int64) int64 {
	if nk.hasWin && nk.winIdx == idx {
		nk.winCount += by
		return nk.winCount
	}
	if nk.hasWin {
		n.counters[windowKey{k, nk.winIdx}] = nk.winCount
	}
	c, seen := n.counters[windowKey{k, idx}]
	if !seen {
		n.windows++
	}
	nk.hasWin, nk.winIdx, nk.winCount = true, idx, c+by
	return c + by
}

// reset deletes every key (Finish).
func (n *native) reset() { *n = *newNative() }

type bucket struct{ start, count int64 }

// OpenEmbeddedLua starts an embedded miniredis on which every limiter
// runs its Lua script with gopher-lua, as before the native backend
// (--redis lua): slower, the same decisions.
func OpenEmbeddedLua() (*Backend, error) {
	b, err := OpenEmbedded()
	if err != nil {
		return nil, err
	}
	b.native = false
	b.name = "the embedded Redis (Lua)"
	return b, nil
}

// Native reports whether the backend decides the built-in limiters in Go.
func (b *Backend) Native() bool { return b.native }

// useNative makes l decide natively when its backend is the native one;
// redis-script stays on Lua. It reports whether l needs its script loaded.
func (l *Limiter) useNative(b *Backend) bool {
	if !b.native || l.s.Kind == Script {
		return true
	}
	l.nat = newNative()
	return false
}

// nativeFirst runs arrival i's first batch at execution time exec with
// the script's now ms and writes its decision to l.out[j].
func (l *Limiter) nativeFirst(exec time.Duration, i, ms int64, j int) {
	n := l.nat.at(l.pk.cur)
	w := int64(l.s.Window / time.Millisecond)
	pass := false
	switch l.s.Kind {
	case FixedWindow:
		l.commands++
		pass = l.nat.incr(n, l.pk.cur, floorDiv(ms, w), 1) <= l.s.Limit
		l.peakMembers = max(l.peakMembers, l.nat.windows)
	case SlidingLog:
		n.log.removeUpTo(ms - w)
		count := int64(len(n.log))
		switch {
		case !l.s.Atomic:
			l.commands += 2
			pass = count < l.s.Limit
			if pass || l.s.CountAll {
				l.q.Push(secondKey(exec, i, l.s.RTT), secondBatch{now: ms, key: l.pk.cur})
			}
		case l.s.CountAll:
			l.commands++
			n.log.push(ms)
			pass = int64(len(n.log)) <= l.s.Limit
		default:
			l.commands++
			if pass = count < l.s.Limit; pass {
				n.log.push(ms)
			}
		}
		l.peakMembers = max(l.peakMembers, int64(len(n.log)))
	case Bucketed:
		l.commands++
		var count int64
		kept := n.buckets[:0]
		for _, b := range n.buckets {
			if b.start <= ms-w {
				continue
			}
			count += b.count
			kept = append(kept, b)
		}
		n.buckets = kept
		if pass = count < l.s.Limit; pass {
			size := w / int64(l.s.Buckets)
			start := ms - ms%size
			found := false
			for k := range n.buckets {
				if n.buckets[k].start == start {
					n.buckets[k].count++
					found = true
					break
				}
			}
			if !found {
				n.buckets = append(n.buckets, bucket{start, 1})
			}
		}
		l.peakMembers = max(l.peakMembers, int64(len(n.buckets)))
	case GCRA:
		l.commands++
		l.peakMembers = l.pk.nkeys
		pass = l.nativeGCRA(n, exec, ms)
	case SpringGateway:
		l.commands++
		pass = l.nativeSpring(n, floorDiv(ms, 1000))
		l.gatewayMembers()
	case EnvoyRatelimit:
		g := l.s.Gateway
		wk := windowKey{l.pk.cur, l.envoyStart(ms)}
		l.commands += 2
		if g.StopIncrement {
			l.commands++
		}
		over := l.nat.incr(n, wk.key, wk.idx, int64(l.cost)) > g.Limit
		l.peakMembers = max(l.peakMembers, l.nat.windows)
		l.envoyOver(exec, i, wk, over)
		pass = !over || g.Shadow
	case Cell:
		l.commands++
		l.peakMembers = l.pk.nkeys
		pass = l.nativeCell(n, l.cellNow(exec, i))
	}
	if pass {
		l.out[j] = algorithms.Decision{Pass: true, Wait: l.passWait()}
	}
}

// secondKey is the event key of arrival i's second batch.
func secondKey(exec time.Duration, i int64, rtt time.Duration) eventq.Key {
	return eventq.Key{At: exec + rtt, Seq: i, Round: 1}
}

// nativeSecond runs an atomic=false second batch: ZADD + PEXPIRE.
func (l *Limiter) nativeSecond(exec time.Duration, ev secondBatch) {
	ms := ev.now
	if l.s.ClockRedis {
		ms = l.nowMs(exec)
	}
	l.commands += 2
	n := l.nat.at(ev.key)
	n.log.push(ms)
	l.peakMembers = max(l.peakMembers, int64(len(n.log)))
}

// passWait is how long a pass waits: its round trips.
func (l *Limiter) passWait() time.Duration {
	switch {
	case l.s.Kind == SlidingLog && !l.s.Atomic,
		l.s.Kind == EnvoyRatelimit && l.s.Gateway.StopIncrement:
		return 2 * l.s.RTT
	}
	return l.s.RTT
}

// nativeGCRA is gcra.lua in float64, the doubles gopher-lua and Redis's
// Lua compute with; the TAT is stored as the number itself (Redis keeps
// it as a string that reads back to the same double).
func (l *Limiter) nativeGCRA(n *nativeKey, exec time.Duration, ms int64) bool {
	us := ms * 1000
	if l.s.ClockRedis {
		us = l.redisMicros(exec)
	}
	sec := floorDiv(us, 1_000_000)
	period := l.s.Period.Seconds()
	emission := period / float64(l.s.Rate)
	increment := emission * float64(l.cost)
	burstOffset := emission * float64(l.s.Burst)
	now := float64(float64(sec)-1483228800) + float64(us-sec*1_000_000)/1000000
	tat := now
	if n.hasTat {
		tat = n.tat
	}
	tat = math.Max(tat, now)
	newTat := tat + increment
	allowAt := newTat - burstOffset
	diff := now - allowAt
	if remaining := diff / emission; remaining < 0 {
		return false
	}
	if resetAfter := newTat - now; resetAfter > 0 {
		n.tat, n.hasTat = newTat, true
	}
	return true
}

// redisMicros is TIME at execution exec in Unix µs.
func (l *Limiter) redisMicros(exec time.Duration) int64 {
	u := int64(exec / time.Microsecond)
	if exec%time.Microsecond < 0 {
		u--
	}
	return l.epochMs*1000 + u
}

// nativeSpring is Spring's request_rate_limiter.lua with now in whole
// seconds, in the script's doubles.
func (l *Limiter) nativeSpring(n *nativeKey, now int64) bool {
	g := l.s.Gateway
	rate, capacity, requested := float64(g.ReplenishRate), float64(g.BurstCapacity), float64(g.RequestedTokens)
	ttl := g.springTTL()
	lastTokens, lastRefreshed := capacity, 0.0
	if n.hasStamp {
		lastTokens, lastRefreshed = n.tokens, n.stamp
	}
	delta := math.Max(0, float64(now)-lastRefreshed)
	filled := math.Min(capacity, lastTokens+float64(delta*rate))
	allowed := filled >= requested
	newTokens := filled
	if allowed {
		newTokens = filled - requested
	}
	if ttl > 0 {
		n.tokens, n.stamp, n.hasStamp = newTokens, float64(now), true
	}
	return allowed
}

// cellNow is the now redis-cell reads, in Unix ns: the server's clock at
// execution (clock=redis) or the instance's at arrival (clock=instance).
func (l *Limiter) cellNow(exec time.Duration, i int64) int64 {
	t := exec
	if !l.s.ClockRedis {
		t = exec - l.half + l.offsets[i%int64(l.s.Instances)]
	}
	return l.epochMs*1_000_000 + int64(t)
}

// nativeCell is redis-cell's RateLimiter.rate_limit with quantity l.cost
// in integer ns; it reports whether the request passes (not throttled).
func (l *Limiter) nativeCell(n *nativeKey, now int64) bool {
	g := l.s.Gateway
	emission := g.cellEmission()
	increment := emission * int64(l.cost)
	dvt := emission * (g.MaxBurst + 1)
	tat := now
	if n.hasCell {
		tat = n.cellTat
	}
	newTat := tat + increment
	if now > tat {
		newTat = now + increment
	}
	if now-(newTat-dvt) < 0 {
		return false
	}
	n.cellTat, n.hasCell = newTat, true
	return true
}

// scoreHeap is a min-heap of ZSET scores: ZREMRANGEBYSCORE key 0 x pops
// every score ≤ x (scores are Unix ms, all positive) and ZCARD is its
// length. Members are unique per arrival, so a ZADD always adds.
type scoreHeap []int64

func (h *scoreHeap) push(x int64) {
	s := append(*h, x)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= x {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
	*h = s
}

func (h *scoreHeap) removeUpTo(x int64) {
	s := *h
	for len(s) > 0 && s[0] <= x {
		last := s[len(s)-1]
		s = s[:len(s)-1]
		if len(s) == 0 {
			break
		}
		// Sift last down from the root.
		i := 0
		for {
			c := 2*i + 1
			if c >= len(s) {
				break
			}
			if c+1 < len(s) && s[c+1] < s[c] {
				c++
			}
			if s[c] >= last {
				break
			}
			s[i] = s[c]
			i = c
		}
		s[i] = last
	}
	*h = s
}
