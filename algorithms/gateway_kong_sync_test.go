package algorithms

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"
)

func mustKongSync(t *testing.T, spec string) *KongSync {
	t.Helper()
	l, err := New(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := l.(*KongSync)
	if !ok {
		t.Fatalf("%s built %T, want *KongSync", spec, l)
	}
	return k
}

// TestKongSyncWorkedExample is docs/algorithms.md's worked example:
// minute=4, sync-rate=1s, two nodes (A takes the even arrivals, B the odd).
func TestKongSyncWorkedExample(t *testing.T) {
	k := mustKongSync(t, "kong:minute=4,policy=redis,sync-rate=1s,instances=2")
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	steps := []struct {
		at    int  // ms
		pass  bool // decision
		redis int64
	}{
		{0, true, 1},    // A reads Redis: INCR -> 1, usage 0; cur_delta -1 then +1; timer A at 1000
		{100, true, 2},  // B reads: INCR -> 2, usage 1; timer B at 1100
		{200, true, 2},  // A: 0 + 0
		{300, true, 2},  // B: 1 + 0
		{400, true, 2},  // A: 0 + 1
		{500, true, 2},  // B: 1 + 1
		{600, true, 2},  // A: 0 + 2
		{700, true, 2},  // B: 1 + 2
		{800, true, 2},  // A: 0 + 3 (A's delta now 4)
		{900, false, 2}, // B: 1 + 3 = 4: rejected, no Redis call
		// timer A at 1000 pushes 4 (Redis 6), timer B at 1100 pushes 3 (9), both clear.
		{1200, false, 10}, // A reads: INCR -> 10, usage 9: rejected, cur_delta -1 kept, no timer
		{1300, false, 11}, // B likewise
		{60000, true, 1},  // A, next minute: a new key, INCR -> 1, usage 0; timer A at 61000
	}
	for i, s := range steps {
		if got := k.Decide(ms(s.at)).Pass; got != s.pass {
			t.Fatalf("step %d at %dms: pass=%v, want %v", i, s.at, got, s.pass)
		}
		if got := k.RedisCount("minute", ms(s.at)); got != s.redis {
			t.Fatalf("step %d at %dms: Redis holds %d, want %d", i, s.at, got, s.redis)
		}
	}
	k.Flush() // timer A at 61000: the old minute's -1 and the new one's 0
	// The first minute's key, created at 0 with EXPIRE 60, is gone at
	// 61000: the sync's EXISTS finds nothing, INCRBY -1 makes a new key
	// and EXPIREAT sets it tens of thousands of years away.
	if got := k.RedisCount("minute", ms(59000)); got != -1 {
		t.Errorf("after the flush the first minute holds %d, want -1 (recreated by the sync after its TTL)", got)
	}
	if got := k.RedisCount("minute", ms(60500)); got != 1 {
		t.Errorf("the second minute holds %d, want 1", got)
	}
	reads, syncs, evals, realtime, beyond := k.KongSyncFigures()
	if reads != 5 || syncs != 3 || evals != 4 || realtime != 13 || beyond != 5 {
		t.Errorf("figures reads=%d syncs=%d evals=%d realtime=%d beyond=%d, want 5 3 4 13 5", reads, syncs, evals, realtime, beyond)
	}
}

// TestKongSyncTimerPhase: the timer is armed by the first pass after a
// sync, at its time + sync_rate, not on a grid; passes while it is
// pending do not move it.
func TestKongSyncTimerPhase(t *testing.T) {
	k := mustKongSync(t, "kong:second=100,policy=redis,sync-rate=300ms")
	for _, at := range []int{50, 100, 340} {
		k.Decide(time.Duration(at) * time.Millisecond)
	}
	// one timer armed at 50 fires at 350: the three passes (less the read's -1) reach Redis.
	if got := k.RedisCount("second", 349*time.Millisecond); got != 1 {
		t.Fatalf("before the timer Redis holds %d, want 1 (the read's INCR)", got)
	}
	k.Decide(360 * time.Millisecond) // runs the timer first, then reads again
	if got := k.RedisCount("second", 360*time.Millisecond); got != 4 {
		t.Fatalf("after the timer and a read Redis holds %d, want 4 (1 + 2 pushed + 1 INCR)", got)
	}
	// the pass at 360 armed a second timer (at 660), which the figures run.
	if _, syncs, evals, _, _ := k.KongSyncFigures(); syncs != 2 || evals != 2 {
		t.Fatalf("syncs=%d evals=%d, want 2 and 2", syncs, evals)
	}
}

func TestKongSyncSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"kong:second=5,sync-rate=1s":                                "only be used with policy=redis",
		"kong:second=5,policy=redis,sync-rate=10ms":                 "at least 20ms",
		"kong:second=5,policy=redis,sync-rate=soon":                 "neither -1 nor a duration",
		"kong:second=5,policy=redis,instances=3":                    "instances only applies",
		"kong:second=5,policy=redis,sync-rate=1s,instances=0":       "instances must be 1 to 1024",
		"kong:second=5,policy=redis,rtt=10ms":                       "rtt only applies",
		"kong:second=5,policy=redis,skew=10ms":                      "skew only applies",
		"kong:second=5,policy=redis,route=node":                     "route only applies",
		"kong:second=5,minute=9,policy=redis,sync-rate=1s,rtt=10ms": "rtt > 0 takes one configured unit",
		"kong:second=5,policy=redis,sync-rate=1s,rtt=2s":            "under 2s",
		"kong:second=5,policy=redis,sync-rate=1s,skew=-1ms":         "skew must be 0 or more",
		"kong:second=5,policy=redis,sync-rate=1s,route=node,key=k":  "cannot be made per-key",
	} {
		_, err := New(spec, 0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", spec, err, want)
		}
	}
	for spec, want := range map[string]string{
		"kong:second=5,policy=redis,sync-rate=-1":  "*algorithms.Kong",
		"kong:second=5,policy=redis,sync-rate=0.5": "*algorithms.KongSync",
		"kong:second=5,policy=redis,sync-rate=1s":  "*algorithms.KongSync",
	} {
		l, err := New(spec, 0)
		if err != nil || fmt.Sprintf("%T", l) != want {
			t.Errorf("%s: %T %v, want %s", spec, l, err, want)
		}
	}
	k := mustKongSync(t, "kong:second=5,minute=50,policy=redis,sync-rate=0.5,instances=3")
	if k.Spec() != "kong:second=5,minute=50,policy=redis,sync-rate=500ms,instances=3" {
		t.Errorf("Spec %q", k.Spec())
	}
	if _, err := New(k.Spec(), 0); err != nil {
		t.Errorf("Spec does not parse back: %v", err)
	}
	r := mustNew(t, "kong:second=5,policy=redis,sync-rate=1s,instances=3,rtt=10ms,skew=40ms,route=node", 0)
	if want := "kong:second=5,policy=redis,sync-rate=1s,instances=3,rtt=10ms,skew=40ms,route=node"; r.Spec() != want {
		t.Errorf("Spec %q, want %q", r.Spec(), want)
	}
	if _, err := New(r.Spec(), 0); err != nil {
		t.Errorf("Spec does not parse back: %v", err)
	}
}

// TestKongSyncRouteAndSkew: route= puts each arrival on the node its
// column names (a value that names none is an error), and skew moves each
// node's window: with skew=400ms on two nodes, node 0 reads true time −
// 400 ms and node 1 true time + 400 ms, so at true 700 ms they count in
// different seconds.
func TestKongSyncRouteAndSkew(t *testing.T) {
	l := mustNew(t, "kong:second=1,policy=redis,sync-rate=1s,instances=2,skew=400ms,route=node", 0).(*KongSyncRouted)
	names := []string{"0", "1", "7"}
	if err := l.BindKeyColumns([]int{0}); err != nil {
		t.Fatal(err)
	}
	l.BindKeyNames(func(id int32) string { return names[id] })
	on := func(node int32, at time.Duration) bool {
		return l.DecideRequest(at, &Request{Keys: [MaxKeyColumns]int32{node}, Cost: 1}).Pass
	}
	// Node 0 at true 700 ms reads 300 ms (second 0); node 1 reads 1100 ms
	// (second 1): each key is new, each passes.
	if !on(0, 700*time.Millisecond) || !on(1, 700*time.Millisecond) {
		t.Fatal("the two nodes' first requests, in different seconds, must pass")
	}
	// Node 0 again, still in its second 0: its local count is 0 + 0 (the
	// read's -1 and the pass's +1), so limit 1 − 0 > 0 passes.
	if !on(0, 800*time.Millisecond) {
		t.Fatal("node 0's second request passes on its local count (undercount by the read)")
	}
	if on(0, 900*time.Millisecond) {
		t.Fatal("node 0's third request in its second 0 must be rejected")
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	on(2, time.Second)
	if l.Err() == nil || !strings.Contains(l.Err().Error(), `holds "7"`) {
		t.Fatalf("a route value naming no node: %v", l.Err())
	}
}

// luaKong is a line-by-line port of kong/plugins/rate-limiting/
// policies/init.lua's redis policy (usage, increment,
// update_local_counters, rate_limited_sync, sync_to_redis) and
// handler.lua's access, with string cache keys, periods in ms as
// get_timestamps returns them, ngx.time() in seconds and Redis TTLs in
// seconds, to check KongSync's reading of it (including the claim that
// the cur_usage_expire_at branch never runs).
type luaKong struct {
	limits    map[string]float64
	syncRate  time.Duration
	epoch     int64
	workers   []*luaWorker
	redis     map[string]*luaRedisVal
	n         int
	expiredIn int // times the cur_usage_expire_at branch ran
}

type luaWorker struct {
	curUsage, curUsageExpireAt, curDelta map[string]int64
	pending                              bool
	timerAt                              time.Duration
}

type luaRedisVal struct {
	v        int64
	expireMs int64 // 1<<62: none
}

var luaExpiration = map[string]int64{"second": 1, "minute": 60, "hour": 3600, "day": 86400, "month": 2592000, "year": 31536000}

func (l *luaKong) nowMs(t time.Duration) int64 { return l.epoch + floorMs(t) }

func (l *luaKong) periods(t time.Duration) map[string]int64 {
	sec := floorDiv(l.nowMs(t), 1000)
	m := map[string]int64{}
	for u, name := range kongUnitNames {
		s, _ := kongWindow(u, sec)
		m[name] = s * 1000
	}
	return m
}

func (l *luaKong) get(key string, ms int64) *luaRedisVal {
	v := l.redis[key]
	if v != nil && ms > v.expireMs {
		delete(l.redis, key)
		return nil
	}
	return v
}

func (l *luaKong) usage(w *luaWorker, period string, t time.Duration) int64 {
	periods := l.periods(t)
	cacheKey := fmt.Sprintf("ratelimit:%s:%s:%s:%d:%s", "r", "s", "id", periods[period], period)
	ngxTime := floorDiv(l.nowMs(t), 1000)
	if _, ok := w.curUsage[cacheKey]; ok {
		if w.curUsageExpireAt[cacheKey] > ngxTime {
			return w.curUsage[cacheKey] + w.curDelta[cacheKey]
		}
		l.expiredIn++
		w.curUsage[cacheKey] = 0
		w.curUsageExpireAt[cacheKey] = periods[period] + luaExpiration[period]
		w.curDelta[cacheKey] = 0
		return 0
	}
	ms := l.nowMs(t)
	v := l.get(cacheKey, ms)
	if v == nil {
		v = &luaRedisVal{expireMs: 1 << 62}
		l.redis[cacheKey] = v
	}
	v.v++ // incr
	if v.v == 1 {
		v.expireMs = ms + luaExpiration[period]*1000 // expire
	}
	cur := v.v - 1
	w.curUsage[cacheKey] = cur
	w.curUsageExpireAt[cacheKey] = periods[period] + luaExpiration[period]
	w.curDelta[cacheKey] = -1
	return cur
}

func (l *luaKong) syncToRedis(w *luaWorker) {
	ms := l.nowMs(w.timerAt)
	for cacheKey, delta := range w.curDelta {
		v := l.get(cacheKey, ms)
		exists := v != nil
		if v == nil {
			v = &luaRedisVal{expireMs: 1 << 62}
			l.redis[cacheKey] = v
		}
		v.v += delta
		if !exists {
			v.expireMs = w.curUsageExpireAt[cacheKey] * 1000 // expireat, in seconds
		}
	}
	clear(w.curUsage)
	clear(w.curUsageExpireAt)
	clear(w.curDelta)
}

func (l *luaKong) access(t time.Duration) bool {
	for {
		var due *luaWorker
		for _, w := range l.workers {
			if w.pending && w.timerAt <= t && (due == nil || w.timerAt < due.timerAt) {
				due = w
			}
		}
		if due == nil {
			break
		}
		due.pending = false
		l.syncToRedis(due)
	}
	w := l.workers[l.n%len(l.workers)]
	l.n++
	stop := false
	for _, period := range kongUnitNames {
		limit, ok := l.limits[period]
		if !ok {
			continue
		}
		if limit-float64(l.usage(w, period, t)) <= 0 {
			stop = true
		}
	}
	if stop {
		return false
	}
	periods := l.periods(t)
	for period := range l.limits {
		cacheKey := fmt.Sprintf("ratelimit:%s:%s:%s:%d:%s", "r", "s", "id", periods[period], period)
		w.curDelta[cacheKey]++
	}
	if !w.pending {
		w.pending, w.timerAt = true, t+l.syncRate
	}
	return true
}

func TestKongSyncMatchesLuaPort(t *testing.T) {
	rng := rand.New(rand.NewSource(30))
	compared := 0
	for trial := 0; trial < 60; trial++ {
		limits := map[string]float64{}
		spec := "kong:"
		for _, u := range []string{"second", "minute", "hour"} {
			if rng.Intn(2) == 0 || (u == "hour" && len(limits) == 0) {
				limits[u] = float64(1 + rng.Intn(40))
				spec += fmt.Sprintf("%s=%g,", u, limits[u])
			}
		}
		syncRate := time.Duration(20+rng.Intn(3000)) * time.Millisecond
		nodes := 1 + rng.Intn(4)
		spec += fmt.Sprintf("policy=redis,sync-rate=%s,instances=%d", syncRate, nodes)
		k := mustKongSync(t, spec)
		l := &luaKong{limits: limits, syncRate: syncRate, epoch: k.EpochMs(), redis: map[string]*luaRedisVal{}}
		for i := 0; i < nodes; i++ {
			l.workers = append(l.workers, &luaWorker{map[string]int64{}, map[string]int64{}, map[string]int64{}, false, 0})
		}
		now := time.Duration(0)
		for i := 0; i < 400; i++ {
			now += time.Duration(rng.ExpFloat64() * float64(time.Duration(1+rng.Intn(3))*100*time.Millisecond))
			if want, got := l.access(now), k.Decide(now).Pass; want != got {
				t.Fatalf("%s: arrival %d at %v: model %v, Lua port %v", spec, i, now, got, want)
			}
			compared++
			for _, u := range []string{"second", "minute", "hour"} {
				if _, ok := limits[u]; !ok {
					continue
				}
				p := l.periods(now)
				key := fmt.Sprintf("ratelimit:r:s:id:%d:%s", p[u], u)
				var want int64
				if v := l.get(key, l.nowMs(now)); v != nil {
					want = v.v
				}
				if got := k.RedisCount(u, now); got != want {
					t.Fatalf("%s: arrival %d at %v: Redis %s holds %d in the model, %d in the port", spec, i, now, u, got, want)
				}
			}
		}
		if l.expiredIn != 0 {
			t.Fatalf("%s: the cur_usage_expire_at branch ran %d times", spec, l.expiredIn)
		}
	}
	t.Logf("%d decisions compared", compared)
}

// FuzzKongSyncRate: any sync-rate and instances value is refused with an
// error or builds a limiter whose Spec parses back to the same Spec.
func FuzzKongSyncRate(f *testing.F) {
	for _, s := range []string{"1s", "-1", "0.5", "20ms", "19ms", "1e9", "NaN", "-0", "1h", ""} {
		f.Add(s, "3")
	}
	f.Fuzz(func(t *testing.T, rate, instances string) {
		l, err := New("kong:second=5,policy=redis,sync-rate="+rate+",instances="+instances, 0)
		if err != nil {
			return
		}
		again, err := New(l.Spec(), 0)
		if err != nil || again.Spec() != l.Spec() {
			t.Fatalf("%q: Spec %q does not parse back (%v)", rate, l.Spec(), err)
		}
		if k, ok := l.(*KongSync); ok {
			for i := 0; i < 20; i++ {
				k.Decide(time.Duration(i) * 10 * time.Millisecond)
			}
			k.KongSyncFigures()
		}
	})
}

// With key=COLUMN the keys are identifiers of one plugin: the timer key a
// armed at 0 pushes key b's counter too, and b arms none of its own.
func TestKongSyncKeysShareTheNodeTimer(t *testing.T) {
	k := mustKongSync(t, "kong:minute=10,policy=redis,sync-rate=1s")
	tab := k.keyedTable().(*kongSyncTable)
	tab.decide(1, 0, 0, nil)
	tab.decide(2, 500*time.Millisecond, 0, nil)
	tab.decide(1, 1001*time.Millisecond, 0, nil) // the timer at 1000 runs first, then a read
	if tab.k.syncs != 1 || tab.k.syncEvals != 2 {
		t.Fatalf("syncs=%d evals=%d, want one sync carrying both keys", tab.k.syncs, tab.k.syncEvals)
	}
	if tab.live() != 2 {
		t.Fatalf("live=%d, want 2", tab.live())
	}
}

// TestKongSyncRTTWorkedExample is docs/algorithms.md's worked example with
// a round trip: second=5, sync-rate=100ms, two nodes, rtt=20ms (a command
// executes 10 ms after it is sent, its reply lands 20 ms after). A and B
// alternate. The replies of two reads in flight on A overwrite each
// other's cur_delta, and the pass A makes while its sync is in flight is
// cleared with the tables and never pushed.
func TestKongSyncRTTWorkedExample(t *testing.T) {
	k := mustKongSync(t, "kong:second=5,policy=redis,sync-rate=100ms,instances=2,rtt=20ms")
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	steps := []struct {
		at   int
		want Decision
	}{
		{0, Decision{true, ms(20)}},  // A reads (Redis 0 -> 1 at 10): 0; reply at 20: usage 0, delta -1+1; timer A at 120
		{5, Decision{true, ms(20)}},  // B reads (1 -> 2 at 15): 1; reply at 25; timer B at 125
		{10, Decision{true, ms(20)}}, // A: no usage until 20, reads again (2 -> 3 at 20): 2; reply at 30 sets usage 2, delta -1 (A's +1 overwritten), then +1
		{40, Decision{Pass: true}},   // B: 1 + 0
		{50, Decision{Pass: true}},   // A: 2 + 0
		{60, Decision{Pass: true}},   // B: 1 + 1
		{70, Decision{Pass: true}},   // A: 2 + 1 (A's delta 2)
		// 120: timer A sends INCRBY 2 (Redis 5 at 130); 125: timer B sends INCRBY 2 (7 at 135)
		{130, Decision{Pass: true}}, // A: 2 + 2 = 4 < 5, still local (A clears at 140): delta 3, timer A at 230
		// 140: A's sync reply clears A: the pass at 130 is never pushed; 145: B clears
		{150, Decision{}}, // B reads (7 -> 8 at 160): 7, rejected; reply at 170 keeps delta -1, no timer
		{160, Decision{}}, // A reads (8 -> 9 at 170): 8, rejected
		// 230: timer A pushes A's -1 (Redis 8 at 240)
	}
	for i, s := range steps {
		if got := k.Decide(ms(s.at)); got != s.want {
			t.Fatalf("step %d at %dms: %+v, want %+v", i, s.at, got, s.want)
		}
	}
	reads, syncs, evals, realtime, beyond := k.KongSyncFigures()
	if got := k.RedisCount("second", ms(500)); got != 8 {
		t.Errorf("Redis holds %d at the end, want 8 (8 passes, 5 reads, +2 +2 -1 pushed, A's pass at 130 and B's -1 never)", got)
	}
	if reads != 5 || syncs != 3 || evals != 3 || realtime != 10 || beyond != 3 {
		t.Errorf("figures reads=%d syncs=%d evals=%d realtime=%d beyond=%d, want 5 3 3 10 3", reads, syncs, evals, realtime, beyond)
	}
}

// TestKongSyncTimerSleepsWhileSyncRuns: with rtt > sync_rate a timer
// finds the node's previous sync still running and sleeps
// ngx.sleep(timeout / 2), 1000 s (the timeout is in ms, ngx.sleep takes
// seconds), the pending flag kept: the node arms no other timer and keeps
// counting locally, so it admits everything its stale count allows.
func TestKongSyncTimerSleepsWhileSyncRuns(t *testing.T) {
	k := mustKongSync(t, "kong:minute=1000,policy=redis,sync-rate=20ms,instances=1,rtt=30ms")
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	k.Decide(0)      // read, reply at 30: pass; timer at 50
	k.Decide(ms(40)) // local pass
	k.Decide(ms(51)) // the timer at 50 sent a sync (reply at 80): local pass, timer at 71
	// 71: the sync is still running: the timer sleeps 1000 s. 80: the
	// sync's reply clears the node.
	k.Decide(ms(100)) // reads again; pass; the timer is pending: none armed
	for at := 200; at <= 1000; at += 100 {
		if !k.Decide(ms(at)).Pass {
			t.Fatalf("at %dms: rejected", at)
		}
	}
	if k.syncs != 1 || k.reads != 2 {
		t.Fatalf("by 1000ms: %d syncs and %d reads, want 1 and 2 (the timer sleeps 1000 s, the node reads nothing)", k.syncs, k.reads)
	}
	k.Decide(999 * time.Second) // still asleep: a new minute's key is read, no sync
	if k.syncs != 1 || k.reads != 3 {
		t.Fatalf("at 999s: %d syncs and %d reads, want 1 and 3", k.syncs, k.reads)
	}
	k.Decide(1001 * time.Second) // the timer woke at 1000.071 s and synced; a new minute again
	if k.syncs != 2 || k.reads != 4 {
		t.Fatalf("at 1001s: %d syncs and %d reads, want 2 and 4", k.syncs, k.reads)
	}
}

// TestKongSyncRoutedAndKeyedReportFigures: a key=COLUMN row and a route=
// row carry the kong_* figures (KongSyncOf finds the plugin).
func TestKongSyncRoutedAndKeyedReportFigures(t *testing.T) {
	for _, spec := range []string{
		"kong:second=5,policy=redis,sync-rate=1s,instances=2,key=user",
		"kong:second=5,policy=redis,sync-rate=1s,instances=2,route=node",
	} {
		l := mustNew(t, spec, 0)
		if KongSyncOf(l) == nil {
			t.Errorf("%s: KongSyncOf is nil", spec)
		}
	}
	if KongSyncOf(mustNew(t, "kong:second=5,policy=redis,key=user", 0)) != nil {
		t.Errorf("sync-rate -1 has no sync figures")
	}
}

// TestKongSyncPrunesOldWindows: over a long trace the Redis keys past
// their TTL and the pass counts of windows every node has left are
// dropped, so the state stays bounded, and the decisions are those of a
// run that keeps everything.
func TestKongSyncPrunesOldWindows(t *testing.T) {
	spec := "kong:second=3,policy=redis,sync-rate=200ms,instances=3,rtt=6ms,skew=300ms"
	pruned, kept := mustKongSync(t, spec), mustKongSync(t, spec)
	kept.pruneAt = math.MaxInt
	rng := rand.New(rand.NewSource(7))
	at := time.Duration(0)
	peak := 0
	for i := range 60000 {
		at += time.Duration(rng.Intn(40)) * time.Millisecond
		id := int32(rng.Intn(5))
		if a, b := pruned.decide(id, at, nil), kept.decide(id, at, nil); a != b {
			t.Fatalf("arrival %d at %s: pruned %+v, kept %+v", i, at, a, b)
		}
		peak = max(peak, len(pruned.redis)+len(pruned.passed))
	}
	if a, b := fmt.Sprint(pruned.KongSyncFigures()), fmt.Sprint(kept.KongSyncFigures()); a != b {
		t.Fatalf("figures pruned %s, kept %s", a, b)
	}
	if peak > 4*kongPruneMin || len(kept.redis) < 5000 {
		t.Fatalf("pruned maps peaked at %d entries, kept ones hold %d Redis keys", peak, len(kept.redis))
	}
}

// BenchmarkKongSyncDecide is kong with sync-rate > 0 on BenchmarkDecide's
// trace (Poisson at 3x the limit of 1000/s), four nodes: the local
// counters' maps, the timers and the replies on the event queue.
func BenchmarkKongSyncDecide(b *testing.B) {
	for _, bc := range []struct{ name, spec string }{
		{"sync-rate=100ms", "kong:second=1000,policy=redis,sync-rate=100ms,instances=4"},
		{"sync-rate=100ms,rtt=2ms", "kong:second=1000,policy=redis,sync-rate=100ms,instances=4,rtt=2ms"},
		{"sync-rate=1s,rtt=2ms", "kong:second=1000,policy=redis,sync-rate=1s,instances=4,rtt=2ms"},
		{"sync-rate=1s,2-units", "kong:second=1000,minute=50000,policy=redis,sync-rate=1s,instances=4"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := mustNew(b, bc.spec, benchLimit)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.Decide(benchAt(i))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
			b.ReportMetric(float64(l.StateBytes()), "state-bytes")
		})
	}
}
