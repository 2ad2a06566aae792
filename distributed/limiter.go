package distributed

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
)

// The scripts, printed in full in docs/redis.md.
var (
	//go:embed scripts/fixed_window.lua
	FixedWindowScript string
	//go:embed scripts/sliding_log.lua
	SlidingLogScript string
	//go:embed scripts/sliding_log_all.lua
	SlidingLogAllScript string
	//go:embed scripts/bucketed.lua
	BucketedScript string
	//go:embed scripts/gcra.lua
	GCRAScript string
	//go:embed scripts/measure.lua
	measureScript string
)

// Options are the run-wide settings of a Redis limiter.
type Options struct {
	// Bin is how often MEMORY USAGE is sampled on a real server (once per
	// bin of execution time); 0 turns sampling off.
	Bin time.Duration
}

// Limiter is one redis-* limiter: the gateway instances, the round trips
// and the Redis they share (see the package documentation for the model).
// It implements algorithms.Limiter with a synchronous Decide; it is not
// safe for concurrent use. Call Finish at the end of the run.
type Limiter struct {
	s       Spec
	c       conn
	real    bool
	srvName string
	prefix  string
	key     string // the limiter's key (fixed-window: the key prefix)
	sha     string
	measure string // SHA of the measurement script (redis-script)
	epochMs int64
	offsets []time.Duration
	half    time.Duration // ⌊rtt/2⌋
	bin     time.Duration

	decided atomic.Int64 // l.n, for progress reports from another goroutine

	q    eventq.Queue[secondBatch]
	n    int64 // arrivals decided
	last time.Duration
	err  error
	done bool
	// cost is the count the arrival being queued charges (redis-gcra's
	// cost, redis-cell's quantity, redis-envoy-ratelimit's hits_addend;
	// 1 for the other kinds). It sits in done's padding.
	cost int32

	// The pipeline: commands, the batches they belong to, where the
	// decisions go, and the earliest second batch that waits for a reply.
	cmds    [][]string
	pend    []pending
	out     []algorithms.Decision
	one     [1]algorithms.Decision
	waiting bool
	waitKey eventq.Key

	commands    int64
	peakMembers int64
	peakBytes   int64
	sampledBin  int64
	sampled     bool
	windows     map[windowKey]int64 // fixed-window, envoy: window key → last sampled bytes

	nat *native      // the native backend's keys (native.go); nil on Lua
	gw  gatewayState // the gateways' limiters (gateway.go)
	pk  perKey       // key=COLUMN (perkey.go)
}

// secondBatch is an atomic=false second batch: ZADD + PEXPIRE.
type secondBatch struct {
	now    int64 // clock=instance: the first batch's now
	member string
	key    int32 // the request's key id (key=COLUMN), -1 without
}

// New builds the limiter described by s on backend b.
func New(s *Spec, b *Backend, o Options) (*Limiter, error) {
	l := &Limiter{
		s:       *s,
		c:       b.conn(),
		real:    b.Real(),
		srvName: b.Name(),
		prefix:  b.newPrefix(),
		epochMs: s.EpochMs(),
		offsets: s.Offsets(),
		half:    s.RTT / 2,
		bin:     o.Bin,
	}
	var src string
	switch s.Kind {
	case FixedWindow:
		src, l.key = FixedWindowScript, l.prefix+"fw:"
		l.windows = map[windowKey]int64{}
	case SlidingLog:
		src, l.key = SlidingLogScript, l.prefix+"log"
		if s.CountAll {
			src = SlidingLogAllScript
		}
		if !s.Atomic {
			src = ""
		}
	case Bucketed:
		src, l.key = BucketedScript, l.prefix+"buckets"
	case GCRA:
		src, l.key = GCRAScript, l.prefix+"rate:gcra"
	case SpringGateway, EnvoyRatelimit, Cell:
		src = l.newGateway()
	case Script:
		src, l.key = s.Source, l.prefix+"script"
		sha, err := b.load(measureScript)
		if IsServerDown(err) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s: cannot load a script on %s: %s", s.Kind, b.Name(), oneLine(err))
		}
		l.measure = sha
	}
	l.pk.init()
	if !l.useNative(b) {
		src = ""
	}
	if src != "" {
		sha, err := b.load(src)
		if IsServerDown(err) {
			return nil, err
		}
		if err != nil {
			if s.Kind == Script {
				return nil, fmt.Errorf("%s: %s rejected %s: %s; fix the script", s.Kind, b.Name(), s.File, oneLine(err))
			}
			return nil, fmt.Errorf("%s: cannot load its script on %s: %s", s.Kind, b.Name(), oneLine(err))
		}
		l.sha = sha
	}
	return l, nil
}

// nowMs is the script's now, in Unix ms, for virtual time t.
func (l *Limiter) nowMs(t time.Duration) int64 {
	ms := int64(t / time.Millisecond)
	if t%time.Millisecond < 0 {
		ms--
	}
	return l.epochMs + ms
}

// Decide implements algorithms.Limiter. Arrival i's verdict depends only
// on the batches Redis runs before i's first batch: earlier arrivals'
// first batches, and their second batches that are due first. So Decide
// runs the queued second batches whose key (execution time, arrival,
// round) comes before i's first batch, then i's first batch, and queues
// i's second batch if it has one.
func (l *Limiter) Decide(now time.Duration) algorithms.Decision {
	l.out = l.one[:]
	l.one[0] = algorithms.Decision{}
	l.decide(now, 0, -1, 1)
	l.flush()
	return l.one[0]
}

// Check implements algorithms.Stage. A deployed script decides and
// records in one step (the non-atomic sliding log records in its second
// round trip, which the model schedules itself), so, as with
// x/time/rate, Check is Decide and Record does nothing.
func (l *Limiter) Check(now time.Duration) algorithms.Decision { return l.Decide(now) }

// Record implements algorithms.Stage: nothing to record, see Check.
func (l *Limiter) Record(time.Duration) {}

var _ algorithms.Stage = (*Limiter)(nil)

// DecideBatch decides consecutive arrivals, out[j] for nows[j], exactly
// as Decide would one by one, but sends Redis every batch it can in one
// pipeline, in execution order: it waits for replies only when a batch
// would come after a second batch that depends on a reply still in flight
// (the non-atomic sliding log with count=passed sends its ZADD only after
// a pass), and every maxPipeline batches.
func (l *Limiter) DecideBatch(nows []time.Duration, out []algorithms.Decision) {
	l.out = out
	for j, now := range nows {
		out[j] = algorithms.Decision{}
		l.decide(now, j, -1, 1)
	}
	l.flush()
}

// maxPipeline bounds the batches sent in one pipeline.
const maxPipeline = 512

// decide queues arrival number l.n at now, of key id k (-1: the one key)
// and count cost (ChargesCost), into the pipeline, its decision to be
// written to l.out[j] when the replies are read.
func (l *Limiter) decide(now time.Duration, j int, k int32, cost int32) {
	if l.err != nil || l.done {
		return
	}
	if !l.pk.check(l, k) {
		return
	}
	if l.n > 0 && now < l.last {
		l.err = fmt.Errorf("%s: the clock steps back at arrival %d (from %v to %v); redis-* limiters need a clock that never goes back: use a scenario without clock steps or a trace with non-decreasing timestamps",
			l.s.Kind, l.n, l.last, now)
		return
	}
	l.last = now
	i := l.n
	l.n++
	l.decided.Store(l.n)
	if l.pk.col >= 0 && k == algorithms.NoKey {
		switch l.s.EmptyKeyPolicy() { // shared: the Redis key of the empty value
		case algorithms.EmptyKeyPass:
			l.out[j] = algorithms.Decision{Pass: true}
			return
		case algorithms.EmptyKeyReject:
			l.out[j] = algorithms.Decision{}
			return
		}
	}
	exec := now + l.half
	key := eventq.Key{At: exec, Seq: i}
	for {
		if l.waiting && !key.Less(l.waitKey) {
			l.flush() // a second batch may have to run before this one
		}
		if !l.q.Before(key) {
			break
		}
		k, ev, _ := l.q.Peek()
		if l.waiting && !k.Less(l.waitKey) {
			l.flush()
			continue
		}
		l.q.Pop()
		l.second(k.At, ev)
	}
	var ms int64
	if l.s.ClockRedis {
		ms = l.nowMs(exec)
	} else {
		ms = l.nowMs(now + l.offsets[i%int64(l.s.Instances)])
	}
	l.setKey(k)
	l.cost = 1
	if l.ChargesCost() {
		l.cost = max(cost, 1)
	}
	l.first(exec, i, ms, j)
	if len(l.pend) >= maxPipeline {
		l.flush()
	}
}

// pending is a batch in the pipeline, waiting for its replies.
type pending struct {
	out       int // index in l.out of a first batch; -1 for a second batch
	seq       int64
	exec      time.Duration
	ms        int64
	member    string
	start, n  int // its commands l.cmds[start:start+n], then the lab's
	measured  int // index of the member count, -1 if none
	memory    int // index of MEMORY USAGE, -1 if none
	windowIdx int64
	key       int32 // the request's key id, -1 without key=COLUMN
}

// first queues arrival i's first batch at execution time exec with the
// script's now ms.
func (l *Limiter) first(exec time.Duration, i, ms int64, j int) {
	if l.s.Kind == EnvoyRatelimit && l.envoyCached(exec, i, ms, j) {
		return
	}
	if l.nat != nil {
		l.nativeFirst(exec, i, ms, j)
		return
	}
	member := strconv.FormatInt(i, 10)
	nowS := strconv.FormatInt(ms, 10)
	limit := strconv.FormatInt(l.s.Limit, 10)
	window := strconv.FormatInt(int64(l.s.Window/time.Millisecond), 10)
	p := pending{out: j, seq: i, exec: exec, ms: ms, member: member, start: len(l.cmds), n: 1, key: l.pk.cur}
	key := l.rkey()
	switch l.s.Kind {
	case SpringGateway, EnvoyRatelimit, Cell:
		p.n = 0
		if l.s.Kind != EnvoyRatelimit {
			p.n = 1
		}
		key = l.gatewayFirst(&p, exec, i, ms)
	case FixedWindow:
		idx := floorDiv(ms, int64(l.s.Window/time.Millisecond))
		key += strconv.FormatInt(idx, 10)
		l.newWindow(idx)
		p.windowIdx = idx
		l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "1", key, limit, window})
	case SlidingLog:
		if l.s.Atomic {
			l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "1", key, limit, window, nowS, member})
			break
		}
		p.n = 2
		l.cmds = append(l.cmds,
			[]string{"ZREMRANGEBYSCORE", key, "0", strconv.FormatInt(ms-int64(l.s.Window/time.Millisecond), 10)},
			[]string{"ZCARD", key})
		second := eventq.Key{At: exec + l.s.RTT, Seq: i, Round: 1}
		if l.s.CountAll {
			l.q.Push(second, secondBatch{now: ms, member: member, key: l.pk.cur})
		} else if !l.waiting {
			l.waiting, l.waitKey = true, second
		}
	case Bucketed:
		bucket := strconv.FormatInt(int64(l.s.Window/time.Millisecond)/int64(l.s.Buckets), 10)
		l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "1", key, limit, window, nowS, bucket})
	case GCRA:
		sec, usec := l.gcraTime(exec, ms)
		l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "1", key,
			strconv.FormatInt(l.s.Burst, 10), strconv.FormatInt(l.s.Rate, 10),
			strconv.FormatFloat(l.s.Period.Seconds(), 'f', -1, 64), strconv.FormatInt(int64(l.cost), 10), sec, usec})
	case Script:
		l.cmds = append(l.cmds, []string{"EVALSHA", l.sha, "1", key, limit, window, nowS, member})
	}
	l.lab(&p, key)
	l.pend = append(l.pend, p)
}

// firstVerdict reads a first batch's verdict from its replies.
func (l *Limiter) firstVerdict(r []any) (bool, error) {
	switch {
	case l.s.Kind == SlidingLog && !l.s.Atomic:
		n, ok := r[1].(int64)
		if !ok {
			return false, fmt.Errorf("%s: ZCARD answered %v on %s", l.s.Kind, r[1], l.srvName)
		}
		return n < l.s.Limit, nil
	case l.s.Kind == GCRA:
		arr, ok := r[0].([]any)
		if !ok || len(arr) == 0 {
			return false, fmt.Errorf("%s: the script answered %v on %s", l.s.Kind, r[0], l.srvName)
		}
		n, ok := arr[0].(int64)
		return ok && n > 0, nil
	case l.s.Kind == Script:
		pass, err := verdict(r[0])
		if err != nil {
			return false, fmt.Errorf("%s: %s on %s: %v", l.s.Kind, l.s.File, l.srvName, err)
		}
		return pass, nil
	}
	return l.verdict(r[0])
}

// gcraTime is what TIME would return: with clock=instance the instance's
// whole ms, with clock=redis the true execution instant in µs.
func (l *Limiter) gcraTime(exec time.Duration, ms int64) (sec, usec string) {
	us := ms * 1000
	if l.s.ClockRedis {
		u := int64(exec / time.Microsecond)
		if exec%time.Microsecond < 0 {
			u--
		}
		us = l.epochMs*1000 + u
	}
	return strconv.FormatInt(floorDiv(us, 1_000_000), 10), strconv.FormatInt(us-floorDiv(us, 1_000_000)*1_000_000, 10)
}

// second queues an atomic=false second batch (ZADD + PEXPIRE) at exec.
func (l *Limiter) second(exec time.Duration, ev secondBatch) {
	l.setKey(ev.key)
	if l.nat != nil {
		l.nativeSecond(exec, ev)
		return
	}
	ms := ev.now
	if l.s.ClockRedis {
		ms = l.nowMs(exec)
	}
	p := pending{out: -1, exec: exec, start: len(l.cmds), n: 2, key: ev.key}
	key := l.rkey()
	l.cmds = append(l.cmds,
		[]string{"ZADD", key, strconv.FormatInt(ms, 10), ev.member},
		[]string{"PEXPIRE", key, strconv.FormatInt(int64(l.s.Window/time.Millisecond), 10)})
	l.lab(&p, key)
	l.pend = append(l.pend, p)
}

// lab appends the lab's own commands to a batch: PERSIST of key on a real
// server (no key expires during a run), a member count, and MEMORY USAGE
// once per bin on a real server. They are not counted in redis_commands.
func (l *Limiter) lab(p *pending, key string) {
	l.commands += int64(p.n)
	p.measured, p.memory = -1, -1
	if l.real {
		l.cmds = append(l.cmds, []string{"PERSIST", key})
		if l.gw.key2 != "" {
			l.cmds = append(l.cmds, []string{"PERSIST", l.rkey2()})
		}
	}
	switch l.s.Kind {
	case SpringGateway, Cell:
		l.gatewayMembers()
	case SlidingLog, Bucketed:
		p.measured = len(l.cmds)
		l.cmds = append(l.cmds, []string{"ZCARD", key})
	case Script:
		p.measured = len(l.cmds)
		l.cmds = append(l.cmds, []string{"EVALSHA", l.measure, "1", key})
	case GCRA:
		l.peakMembers = l.pk.nkeys
	}
	if l.real && l.bin > 0 {
		b := floorDiv(int64(p.exec), int64(l.bin))
		if !l.sampled || b != l.sampledBin {
			l.sampled, l.sampledBin = true, b
			p.memory = len(l.cmds)
			l.cmds = append(l.cmds, []string{"MEMORY", "USAGE", key, "SAMPLES", "0"})
			if l.gw.key2 != "" {
				l.cmds = append(l.cmds, []string{"MEMORY", "USAGE", l.rkey2(), "SAMPLES", "0"})
			}
		}
	}
}

// flush sends the pipeline and reads every batch's replies in order.
func (l *Limiter) flush() {
	l.waiting = false
	if len(l.pend) == 0 {
		return
	}
	defer func() { l.cmds, l.pend = l.cmds[:0], l.pend[:0] }()
	if l.err != nil {
		return
	}
	r, err := l.c.do(l.cmds)
	if IsServerDown(err) {
		l.err = err // one plain line, whatever the limiter
		return
	}
	if err != nil {
		if l.s.Kind == Script {
			l.err = fmt.Errorf("%s: %s failed on %s: %s; fix the script", l.s.Kind, l.s.File, l.srvName, oneLine(err))
		} else {
			l.err = fmt.Errorf("%s: %s answered an error: %s", l.s.Kind, l.srvName, oneLine(err))
		}
		return
	}
	for _, p := range l.pend {
		if p.measured >= 0 {
			if m, ok := r[p.measured].(int64); ok && m > l.peakMembers {
				l.peakMembers = m
			}
		}
		if p.memory >= 0 {
			bytes, _ := r[p.memory].(int64)
			if l.gw.key2 != "" {
				b2, _ := r[p.memory+1].(int64)
				bytes += b2
			}
			if l.windows != nil {
				l.windows[windowKey{p.key, p.windowIdx}] = bytes
				bytes = 0
				for _, b := range l.windows {
					bytes += b
				}
			}
			l.peakBytes = max(l.peakBytes, bytes)
		}
		if p.out < 0 {
			continue
		}
		var pass bool
		var err error
		switch l.s.Kind {
		case SpringGateway, EnvoyRatelimit, Cell:
			pass, err = l.gatewayVerdict(&p, r[p.start:p.start+p.n])
		default:
			pass, err = l.firstVerdict(r[p.start : p.start+p.n])
		}
		if err != nil {
			l.err = err
			return
		}
		if !pass {
			continue
		}
		if l.s.Kind == SlidingLog && !l.s.Atomic {
			l.out[p.out] = algorithms.Decision{Pass: true, Wait: 2 * l.s.RTT}
			if !l.s.CountAll {
				l.q.Push(eventq.Key{At: p.exec + l.s.RTT, Seq: p.seq, Round: 1}, secondBatch{now: p.ms, member: p.member, key: p.key})
			}
			continue
		}
		l.out[p.out] = algorithms.Decision{Pass: true, Wait: l.passWait()}
	}
}

// verdict reads one of the lab's scripts' 1 or 0.
func (l *Limiter) verdict(r any) (bool, error) {
	pass, err := verdict(r)
	if err != nil {
		return false, fmt.Errorf("%s on %s: %v", l.s.Kind, l.srvName, err)
	}
	return pass, nil
}

// verdict reads a script's 1 or 0.
func verdict(r any) (bool, error) {
	switch r {
	case int64(1):
		return true, nil
	case int64(0):
		return false, nil
	}
	return false, fmt.Errorf("the script returned %s, not 1 (pass) or 0 (block); make it return 1 or 0", describe(r))
}

func describe(r any) string {
	switch v := r.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(r)
}

// Decided is the number of arrivals decided so far; unlike the other
// methods it may be called from another goroutine.
func (l *Limiter) Decided() int64 { return l.decided.Load() }

// Err reports the first error (a clock that steps back, a server error, a
// script that fails); after it every Decide blocks.
func (l *Limiter) Err() error { return l.err }

// Finish runs the batches still queued (their commands and sizes count in
// the figures) and deletes the limiter's keys. Later calls do nothing.
func (l *Limiter) Finish() error {
	if l.done {
		return l.err
	}
	l.flush()
	for l.err == nil && l.q.Len() > 0 {
		k, ev := l.q.Pop()
		l.second(k.At, ev)
		if len(l.pend) >= maxPipeline {
			l.flush()
		}
	}
	l.flush()
	l.done = true
	if err := l.deleteKeys(); err != nil && l.err == nil {
		l.err = err
	}
	return l.err
}

// Close deletes the limiter's keys without running what is queued (for a
// run that stopped on an error).
func (l *Limiter) Close() error {
	if l.done {
		return nil
	}
	l.done = true
	return l.deleteKeys()
}

func (l *Limiter) deleteKeys() error {
	if rc, ok := l.c.(*realConn); ok {
		if rc.down() {
			return nil // a server that stopped answering keeps them
		}
		if rc.ctx.Err() != nil {
			// An interrupted run still deletes its keys, within a second.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(rc.ctx), time.Second)
			defer cancel()
			rc.ctx = ctx
		}
	}
	if l.nat != nil {
		l.nat.reset()
		return nil
	}
	keys := l.keyNames()
	for len(keys) > 0 {
		n := min(len(keys), 512)
		if _, err := l.c.do([][]string{append([]string{"DEL"}, keys[:n]...)}); IsServerDown(err) {
			return err
		} else if err != nil {
			return fmt.Errorf("%s: cannot delete its keys on %s: %s", l.s.Kind, l.srvName, oneLine(err))
		}
		keys = keys[n:]
	}
	return nil
}

// Figures are a Redis limiter's costs over the run.
type Figures struct {
	// Commands is the number of commands the instances sent (a script
	// call is one; the lab's PERSIST and measurements are not counted).
	Commands int64
	// PeakMembers is the largest ZCARD seen after a batch (fixed-window:
	// the number of window keys; gcra: 1).
	PeakMembers int64
	// PeakBytes is the largest MEMORY USAGE sampled (once per bin) on a
	// real server; HasBytes is false on the embedded one.
	PeakBytes int64
	HasBytes  bool
	// EpochMs is the Unix ms of virtual time 0.
	EpochMs int64
}

// Figures returns the limiter's figures so far.
func (l *Limiter) Figures() Figures {
	return Figures{Commands: l.commands, PeakMembers: l.peakMembers,
		PeakBytes: l.peakBytes, HasBytes: l.real && l.bin > 0, EpochMs: l.epochMs}
}

// RedisFigures is Figures in plain values, for the simulator (which does
// not import this package): peakBytes is -1 when not measured.
func (l *Limiter) RedisFigures() (commands, peakMembers, peakBytes, epochMs int64) {
	f := l.Figures()
	pb := int64(-1)
	if f.HasBytes {
		pb = f.PeakBytes
	}
	return f.Commands, f.PeakMembers, pb, f.EpochMs
}

// Spec implements algorithms.Limiter.
func (l *Limiter) Spec() string { return l.s.String() }

// Rate implements algorithms.Limiter: 0 with key=COLUMN, which limits
// each key and no aggregate (as every per-key limiter), so no overshoot
// is measured against one shared limit.
func (l *Limiter) Rate() float64 {
	if l.s.Key != "" {
		return 0
	}
	return l.s.RatePerSecond()
}

// StateBytes implements algorithms.Limiter: the gateway side only (the
// queue of second batches); Redis's side is in the figures.
func (l *Limiter) StateBytes() int {
	return int(unsafe.Sizeof(*l)) + 48*l.q.Len()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
