package algorithms

import (
	"fmt"
	"math"
	"time"
	"unsafe"
)

// AegisBBRConfig configures an AegisBBR limiter.
type AegisBBRConfig struct {
	Window       time.Duration // WithWindow, default 10s
	Buckets      int           // WithBucket, default 100
	CPUThreshold int64         // WithCPUThreshold, per mille, default 800
	// V020 selects the tagged v0.2.0, whose RT is int64(ceil(ns)/1e6)
	// (truncated ms); head (master at e0742c6) rounds up,
	// int64(ceil(ns/1e6)). That line is all that differs in ratelimit/bbr.
	V020 bool
}

// AegisBBR is go-kratos/aegis ratelimit/bbr: a BBR-like limiter that,
// while the CPU EMA is at or above cpu-threshold (or within 1 s of the
// first drop of an episode), drops a request when
//
//	inFlight > 1 and inFlight > ⌊maxPASS · minRT · bucketsPerSecond / 1000⌋
//
// maxPASS is the most completions (passStat counts completions, not
// admissions) in one bucket, minRT the smallest bucket-average RT (whole
// ms, rounded up), both over the window's buckets except the one being
// written, each cached for one bucket duration. Each statistic is aegis's
// RollingCounter, whose buckets are aligned to the limiter's creation and
// advance only when written. The CPU is aegis's global EMA, updated every
// 500 ms (at 0, 500 ms, … here) from ⌊cpu·1000⌋ per mille capped at 1000:
// cpu = int64(prev·0.95 + usage·0.05).
type AegisBBR struct {
	cfg          AegisBBRConfig
	sig          Signals
	bd           time.Duration // bucket duration
	bucketPerSec int64
	pass, rt     aegisRolling
	inflight     int64
	prevDrop     time.Duration // 0: none; else wall ns (aegisWall + t)
	passCache    aegisCache
	rtCache      aegisCache
	cpu          int64
	nextCPU      time.Duration // next EMA sample
}

// aegisWall is the wall clock (UnixNano) at virtual time 0: nonzero, so a
// drop at 0 is remembered (prevDropTime 0 means none).
const aegisWall = time.Duration(1_600_000_000_000_000_000)

type aegisCache struct {
	ok  bool
	val int64
	at  time.Duration
}

// aegisRolling is aegis's RollingCounter over Size buckets: each bucket
// holds at most one point (the sum) and a count of adds.
type aegisRolling struct {
	size       int
	sum        []float64
	cnt        []int64
	offset     int
	lastAppend time.Duration
	bd         time.Duration
}

func newAegisRolling(size int, bd time.Duration) aegisRolling {
	return aegisRolling{size: size, sum: make([]float64, size), cnt: make([]int64, size), bd: bd}
}

func (r *aegisRolling) timespan(now time.Duration) int {
	v := int((now - r.lastAppend) / r.bd)
	if v > -1 {
		return v
	}
	return r.size
}

// add is RollingPolicy.Add at now.
func (r *aegisRolling) add(now time.Duration, val float64) {
	ts := r.timespan(now)
	if ts > 0 {
		ori := ts
		start := (r.offset + 1) % r.size
		end := (r.offset + ts) % r.size
		ts = min(ts, r.size)
		for i := 0; i < ts; i++ {
			k := (start + i) % r.size
			r.sum[k], r.cnt[k] = 0, 0
		}
		r.offset = end
		r.lastAppend += time.Duration(ori * int(r.bd))
	}
	if r.cnt[r.offset] == 0 {
		r.sum[r.offset] = val
	} else {
		r.sum[r.offset] += val
	}
	r.cnt[r.offset]++
}

// reduce calls f on each bucket the limiter's reducers read: from the
// oldest live bucket on, at most size−1 of them (the loop "i := 1; i <
// Bucket"), so with no time passed the bucket being written is left out.
// ok is false when no bucket is live (Reduce returns 0).
func (r *aegisRolling) reduce(now time.Duration, f func(sum float64, cnt int64)) bool {
	ts := r.timespan(now)
	count := r.size - ts
	if count <= 0 {
		return false
	}
	off := r.offset + ts + 1
	if off >= r.size {
		off -= r.size
	}
	for i := 1; i <= count && i < r.size; i++ {
		k := (off + i - 1) % r.size
		f(r.sum[k], r.cnt[k])
	}
	return true
}

// NewAegisBBR validates c.
func NewAegisBBR(c AegisBBRConfig) (*AegisBBR, error) {
	if c.Buckets < 1 || c.Buckets > 1_000_000 {
		return nil, fmt.Errorf("aegis-bbr: buckets must be 1 to 1000000, got %d", c.Buckets)
	}
	if c.Window <= 0 || c.Window/time.Duration(c.Buckets) <= 0 {
		return nil, fmt.Errorf("aegis-bbr: window must be positive and at least buckets ns, got %v (for example window=10s)", c.Window)
	}
	bd := c.Window / time.Duration(c.Buckets)
	if bd > time.Second {
		return nil, fmt.Errorf("aegis-bbr: window/buckets is %v, longer than 1s; aegis's buckets per second would be 0 and every request with 2 in flight dropped. Use more buckets", bd)
	}
	return &AegisBBR{
		cfg: c, bd: bd, bucketPerSec: int64(time.Second / bd),
		pass: newAegisRolling(c.Buckets, bd), rt: newAegisRolling(c.Buckets, bd),
	}, nil
}

// NeedsSignals implements SignalReader.
func (l *AegisBBR) NeedsSignals() Signal { return SignalCPU }

// BindSignals implements SignalReader.
func (l *AegisBBR) BindSignals(g Signals) { l.sig = g }

// sampleCPU runs the EMA samples due at or before now.
func (l *AegisBBR) sampleCPU(now time.Duration) {
	for l.nextCPU <= now {
		v := l.sig.CPU(l.nextCPU)
		usage := uint64(0)
		if v > 0 {
			usage = uint64(math.Floor(v * 1000))
		}
		usage = min(usage, 1000)
		l.cpu = int64(float64(l.cpu)*0.95 + float64(usage)*(1.0-0.95))
		l.nextCPU += 500 * time.Millisecond
	}
}

func (l *AegisBBR) cacheFresh(c *aegisCache, now time.Duration) bool {
	if !c.ok {
		return false
	}
	v := int((now - c.at) / l.bd)
	if v <= -1 {
		v = l.cfg.Buckets
	}
	return v < 1
}

func (l *AegisBBR) maxPASS(now time.Duration) int64 {
	if l.cacheFresh(&l.passCache, now) {
		return l.passCache.val
	}
	res := 1.0
	var val float64
	if l.pass.reduce(now, func(sum float64, cnt int64) {
		c := 0.0
		if cnt > 0 {
			c = sum
		}
		res = math.Max(res, c)
	}) {
		val = res
	}
	l.passCache = aegisCache{ok: true, val: int64(val), at: now}
	return int64(val)
}

func (l *AegisBBR) minRT(now time.Duration) int64 {
	if l.cacheFresh(&l.rtCache, now) {
		return l.rtCache.val
	}
	res := math.MaxFloat64
	var val float64
	if l.rt.reduce(now, func(sum float64, cnt int64) {
		if cnt == 0 {
			return
		}
		res = math.Min(res, sum/float64(cnt))
	}) {
		val = res
	}
	// int64(math.Ceil(MaxFloat64)) is MinInt64 on amd64, so "no sample"
	// ends as 1 like a Reduce over nothing.
	raw := int64(1)
	if val != math.MaxFloat64 {
		raw = int64(math.Ceil(val))
	}
	if raw <= 0 {
		raw = 1
	}
	l.rtCache = aegisCache{ok: true, val: raw, at: now}
	return raw
}

func (l *AegisBBR) maxInFlight(now time.Duration) int64 {
	return int64(math.Floor(float64(l.maxPASS(now)*l.minRT(now)*l.bucketPerSec)/1000.0) + 0.5)
}

// Decide implements Limiter.
func (l *AegisBBR) Decide(now time.Duration) Decision { return completerDecide(l, now) }

// Check implements Stage: shouldDrop.
func (l *AegisBBR) Check(now time.Duration) Decision {
	l.sampleCPU(now)
	wall := aegisWall + now
	if l.cpu < l.cfg.CPUThreshold {
		if l.prevDrop == 0 {
			return Decision{Pass: true}
		}
		if wall-l.prevDrop <= time.Second {
			in := l.inflight
			return Decision{Pass: !(in > 1 && in > l.maxInFlight(now))}
		}
		l.prevDrop = 0
		return Decision{Pass: true}
	}
	in := l.inflight
	drop := in > 1 && in > l.maxInFlight(now)
	if drop && l.prevDrop == 0 {
		l.prevDrop = wall
	}
	return Decision{Pass: !drop}
}

// Record implements Stage.
func (l *AegisBBR) Record(at time.Duration) { l.Begin(at, at) }

// Begin implements Completer: inFlight++ and the start time.
func (l *AegisBBR) Begin(_, at time.Duration) Ticket {
	l.inflight++
	return Ticket{At: at}
}

// Complete implements Completer: the DoneFunc, for every outcome: rtStat
// gets the RT in ms when positive, inFlight−−, passStat gets 1.
func (l *AegisBBR) Complete(now time.Duration, tk Ticket, _ Outcome) {
	l.sampleCPU(now)
	ns := float64(now - tk.At)
	var rt int64
	if l.cfg.V020 {
		rt = int64(math.Ceil(ns) / float64(time.Millisecond))
	} else {
		rt = int64(math.Ceil(ns / float64(time.Millisecond)))
	}
	if rt > 0 {
		l.rt.add(now, float64(rt))
	}
	l.inflight--
	l.pass.add(now, 1)
}

// InFlight implements Completer.
func (l *AegisBBR) InFlight() int64 { return l.inflight }

// CurrentLimit implements Completer: maxInFlight, read without touching
// the caches.
func (l *AegisBBR) CurrentLimit(now time.Duration) float64 {
	pc, rc := l.passCache, l.rtCache
	v := l.maxInFlight(now)
	l.passCache, l.rtCache = pc, rc
	return float64(v)
}

// CPU is the CPU EMA (per mille) after the samples due at now.
func (l *AegisBBR) CPU(now time.Duration) int64 { l.sampleCPU(now); return l.cpu }

// Spec implements Limiter.
func (l *AegisBBR) Spec() string {
	v := "head"
	if l.cfg.V020 {
		v = "v0.2.0"
	}
	return fmt.Sprintf("aegis-bbr:window=%s,buckets=%d,cpu-threshold=%d,version=%s",
		FormatDuration(l.cfg.Window), l.cfg.Buckets, l.cfg.CPUThreshold, v)
}

// Rate implements Limiter.
func (l *AegisBBR) Rate() float64 { return 0 }

// StateBytes implements Limiter.
func (l *AegisBBR) StateBytes() int { return int(unsafe.Sizeof(*l)) + 2*16*l.cfg.Buckets }
