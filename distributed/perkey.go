package distributed

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// Per-key limits (key=COLUMN): each value of a key column of the trace
// (interned as a key id by package scenarios) gets its own Redis keys, the
// limiter's keys suffixed with {id} (a user's or a route's, as a gateway
// names them), on the same instances, round trips and clocks. Without
// key=, every request shares one set of keys, as before.

// windowKey names a window counter: the request's key id and the window.
type windowKey struct {
	key int32
	idx int64
}

// perKey is a Limiter's key=COLUMN state.
type perKey struct {
	col   int    // index in Request.Keys, -1 until BindKeyColumns
	cur   int32  // the key id of the batch being queued, -1 for none
	seen  []bool // key id + 1 → its Redis keys have been written
	nkeys int64  // keys seen
}

func (p *perKey) init() { p.col, p.cur = -1, -1 }

// setKey makes k the key of the batch being queued.
func (l *Limiter) setKey(k int32) {
	l.pk.cur = k
	i := int(k) + 1
	if i >= len(l.pk.seen) {
		l.pk.seen = append(l.pk.seen, make([]bool, i+1-len(l.pk.seen))...)
	}
	if !l.pk.seen[i] {
		l.pk.seen[i] = true
		l.pk.nkeys++
	}
}

// check refuses a keyed limiter whose key column was never bound.
func (p *perKey) check(l *Limiter, k int32) bool {
	if l.s.Key != "" && p.col < 0 {
		l.err = fmt.Errorf("%s: key=%s but the run gave it no key column; run it on a trace with a %q column", l.s.Kind, l.s.Key, l.s.Key)
		return false
	}
	return true
}

// keyName is the limiter's Redis key base for key id k.
func keyName(base string, k int32) string {
	if k < 0 {
		return base
	}
	return base + "{" + strconv.FormatInt(int64(k), 10) + "}"
}

// rkey is the Redis key of the batch being queued (fixed windows and
// envoy windows append the window to it).
func (l *Limiter) rkey() string { return keyName(l.key, l.pk.cur) }

// rkey2 is redis-spring-gateway's timestamp key for the batch.
func (l *Limiter) rkey2() string { return keyName(l.gw.key2, l.pk.cur) }

// newWindow records a window key of the current key (fixed-window and
// envoy count them as members).
func (l *Limiter) newWindow(idx int64) {
	wk := windowKey{l.pk.cur, idx}
	if _, ok := l.windows[wk]; !ok {
		l.windows[wk] = 0
		l.peakMembers = max(l.peakMembers, int64(len(l.windows)))
	}
}

// keyNames lists every Redis key the limiter wrote.
func (l *Limiter) keyNames() []string {
	var keys []string
	if l.windows != nil {
		for wk := range l.windows {
			keys = append(keys, keyName(l.key, wk.key)+strconv.FormatInt(wk.idx, 10))
		}
		return keys
	}
	for i, seen := range l.pk.seen {
		if !seen {
			continue
		}
		keys = append(keys, keyName(l.key, int32(i-1)))
		if l.gw.key2 != "" {
			keys = append(keys, keyName(l.gw.key2, int32(i-1)))
		}
	}
	return keys
}

// KeyColumns implements algorithms.KeyColumnUser: the spec's key=COLUMN.
func (l *Limiter) KeyColumns() []string {
	if l.s.Key == "" {
		return nil
	}
	return []string{l.s.Key}
}

// BindKeyColumns implements algorithms.KeyColumnUser.
func (l *Limiter) BindKeyColumns(idx []int) error {
	if len(idx) != len(l.KeyColumns()) {
		return fmt.Errorf("%s: %d key columns bound, want %d", l.s.Kind, len(idx), len(l.KeyColumns()))
	}
	if len(idx) == 1 {
		if idx[0] < 0 || idx[0] >= algorithms.MaxKeyColumns {
			return fmt.Errorf("%s: key column index %d out of range", l.s.Kind, idx[0])
		}
		l.pk.col = idx[0]
	}
	return nil
}

// KeyColumnIndex is the bound key column's index in Request.Keys, -1
// without key=COLUMN (the simulator then batches without keys).
func (l *Limiter) KeyColumnIndex() int { return l.pk.col }

// DecideRequest implements algorithms.RequestLimiter: the request's key
// picks its Redis keys, and redis-gcra and redis-cell charge its cost
// (ChargesCost); the others count one per request, as their scripts
// count. Priority is not read.
func (l *Limiter) DecideRequest(now time.Duration, r *algorithms.Request) algorithms.Decision {
	k := int32(-1)
	if l.pk.col >= 0 {
		k = r.Keys[l.pk.col]
	}
	l.out = l.one[:]
	l.one[0] = algorithms.Decision{}
	l.decide(now, 0, k, r.Cost)
	l.flush()
	return l.one[0]
}

// DecideBatchKeys is DecideBatch with each arrival's key id.
func (l *Limiter) DecideBatchKeys(nows []time.Duration, keys []int32, out []algorithms.Decision) {
	l.out = out
	for j, now := range nows {
		out[j] = algorithms.Decision{}
		l.decide(now, j, keys[j], 1)
	}
	l.flush()
}

// ChargesCost reports whether the limiter charges a request's cost:
// redis-gcra's script is go-redis/redis_rate v10's AllowN (ARGV[4] is
// its n), redis-cell's is CL.THROTTLE with quantity, and
// redis-envoy-ratelimit's INCRBY adds envoyproxy/ratelimit's hitsAddend.
// The others' scripts count one per request.
func (l *Limiter) ChargesCost() bool {
	return l.s.Kind == GCRA || l.s.Kind == Cell || l.s.Kind == EnvoyRatelimit
}

// DecideBatchCosts is DecideBatchKeys with each arrival's cost; keys is
// nil without key=COLUMN.
func (l *Limiter) DecideBatchCosts(nows []time.Duration, keys, costs []int32, out []algorithms.Decision) {
	l.out = out
	for j, now := range nows {
		out[j] = algorithms.Decision{}
		k := int32(-1)
		if keys != nil {
			k = keys[j]
		}
		l.decide(now, j, k, costs[j])
	}
	l.flush()
}

// KeyReporter implements algorithms.KeyReporterProvider: with key=COLUMN
// the limiter's per-key view, so its rows get keys.csv, the per-key
// figures of summary.json and the top keys like every other per-key
// limiter; nil without key=.
func (l *Limiter) KeyReporter() algorithms.KeyReporter {
	if l.s.Key == "" {
		return nil
	}
	return redisKeys{l}
}

// redisKeys is a keyed Redis limiter's per-key view. Redis keeps every
// key (with its TTL) for as long as the run: no key is evicted, and the
// table is as unbounded as its twin would be.
type redisKeys struct{ l *Limiter }

func (k redisKeys) KeyIndex() int { return k.l.pk.col }

// KeyNominal is the spec's limit per key in its own window: limit per
// window (fixed and sliding windows), rate per period (redis-gcra),
// the gateway's rate per its window (a second for Spring, the unit for
// envoyproxy/ratelimit, the period for redis-cell).
func (k redisKeys) KeyNominal() (float64, time.Duration) {
	s := k.l.s
	switch s.Kind {
	case GCRA:
		return float64(s.Rate), s.Period
	case SpringGateway:
		return s.gatewayRate(), time.Second
	case EnvoyRatelimit:
		return float64(s.Gateway.Limit), s.gatewayWindow()
	case Cell:
		return float64(s.Gateway.Count), s.Gateway.Period
	}
	return float64(s.Limit), s.Window
}

func (k redisKeys) KeyEvictions(int32) int32 { return 0 }

// KeyFigures: the keys seen; the state bytes are Redis's, in the redis
// figures of summary.json.
func (k redisKeys) KeyFigures() algorithms.KeyFigures {
	return algorithms.KeyFigures{PeakKeys: int(k.l.pk.nkeys)}
}

func (k redisKeys) TrackShadow() {}

var (
	_ algorithms.RequestLimiter      = (*Limiter)(nil)
	_ algorithms.KeyColumnUser       = (*Limiter)(nil)
	_ algorithms.KeyReporterProvider = (*Limiter)(nil)
)
