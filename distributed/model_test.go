package distributed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// The rules, written plainly with Go maps and slices and no Redis:
// a reference to check the multi-instance runs against.

type modelBatch struct {
	exec  time.Duration
	seq   int
	round int
	now   int64 // clock=instance: the script's now, read at arrival
}

type model struct {
	s       *Spec
	epoch   int64
	counter map[int64]int64   // fixed-window: window index → INCR value
	zset    map[string]int64  // sliding-log: member → score
	buckets map[int64]int64   // bucketed: bucket start → count
	tat     map[string]string // gcra: the stored TAT, as Redis stores it
}

func floorMs(t time.Duration) int64 {
	return int64(math.Floor(float64(t) / float64(time.Millisecond)))
}

func runModel(s *Spec, trace []time.Duration) []algorithms.Decision {
	m := &model{s: s, epoch: s.EpochMs(), counter: map[int64]int64{}, zset: map[string]int64{},
		buckets: map[int64]int64{}, tat: map[string]string{}}
	n := s.Instances
	offset := func(k int) time.Duration {
		if n == 1 {
			return 0
		}
		return -s.Skew + time.Duration(2*int64(s.Skew)*int64(k)/int64(n-1))
	}
	half := s.RTT / 2
	out := make([]algorithms.Decision, len(trace))
	var pending []modelBatch
	for i, at := range trace {
		pending = append(pending, modelBatch{exec: at + half, seq: i, now: m.epoch + floorMs(at+offset(i%n))})
	}
	less := func(a, b modelBatch) bool {
		if a.exec != b.exec {
			return a.exec < b.exec
		}
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		return a.round < b.round
	}
	for len(pending) > 0 {
		sort.Slice(pending, func(x, y int) bool { return less(pending[x], pending[y]) })
		b := pending[0]
		pending = pending[1:]
		now := b.now
		if s.ClockRedis {
			now = m.epoch + floorMs(b.exec)
		}
		if b.round == 1 { // atomic=false: ZADD + PEXPIRE
			m.zset[strconv.Itoa(b.seq)] = now
			continue
		}
		pass, second := m.first(b.seq, now, b.exec)
		if second {
			pending = append(pending, modelBatch{exec: trace[b.seq] + s.RTT + half, seq: b.seq, round: 1, now: b.now})
		}
		if pass {
			out[b.seq] = algorithms.Decision{Pass: true, Wait: s.RTT}
			if s.Kind == SlidingLog && !s.Atomic {
				out[b.seq].Wait = 2 * s.RTT
			}
		}
	}
	return out
}

func (m *model) first(seq int, now int64, exec time.Duration) (pass, second bool) {
	s := m.s
	w := int64(s.Window / time.Millisecond)
	switch s.Kind {
	case FixedWindow:
		idx := int64(math.Floor(float64(now) / float64(w)))
		m.counter[idx]++
		return m.counter[idx] <= s.Limit, false
	case SlidingLog, Script:
		for member, score := range m.zset {
			if score <= now-w {
				delete(m.zset, member)
			}
		}
		if s.Kind == SlidingLog && !s.Atomic {
			pass := int64(len(m.zset)) < s.Limit
			return pass, pass || s.CountAll
		}
		if s.CountAll {
			m.zset[strconv.Itoa(seq)] = now
			return int64(len(m.zset)) <= s.Limit, false
		}
		if int64(len(m.zset)) < s.Limit {
			m.zset[strconv.Itoa(seq)] = now
			return true, false
		}
		return false, false
	case Bucketed:
		var count int64
		for start, c := range m.buckets {
			if start <= now-w {
				delete(m.buckets, start)
			} else {
				count += c
			}
		}
		if count < s.Limit {
			b := w / int64(s.Buckets)
			m.buckets[now-now%b]++
			return true, false
		}
		return false, false
	case GCRA:
		// redis_rate's arithmetic in float64, with TIME's two values.
		us := now * 1000
		if s.ClockRedis {
			us = m.epoch*1000 + int64(math.Floor(float64(exec)/1000))
		}
		sec, usec := float64(us/1_000_000), float64(us%1_000_000)
		t := (sec - 1483228800) + usec/1000000
		period, _ := strconv.ParseFloat(strconv.FormatFloat(s.Period.Seconds(), 'f', -1, 64), 64)
		emission := period / float64(s.Rate)
		increment := emission * 1
		burstOffset := emission * float64(s.Burst)
		tat := t
		if v, ok := m.tat["k"]; ok {
			tat, _ = strconv.ParseFloat(v, 64)
		}
		tat = math.Max(tat, t)
		newTat := tat + increment
		allowAt := newTat - burstOffset
		if (t-allowAt)/emission < 0 {
			return false, false
		}
		if newTat-t > 0 {
			m.tat["k"] = strconv.FormatFloat(newTat, 'g', 17, 64)
		}
		return true, false
	}
	panic(s.Kind)
}

// Multi-instance runs with round trips, skew and both clocks decide as
// the plain model of the rules.
func TestMultiInstanceMatchesModel(t *testing.T) {
	kinds := []string{
		"redis-fixed-window:limit=%d,window=%s",
		"redis-sliding-log:limit=%d,window=%s",
		"redis-sliding-log:limit=%d,window=%s,atomic=false",
		"redis-sliding-log:limit=%d,window=%s,count=all",
		"redis-sliding-log:limit=%d,window=%s,atomic=false,count=all",
		"redis-bucketed:limit=%d,window=%s,buckets=5",
		"redis-script:file=testdata/seed.lua,limit=%d,window=%s",
		"redis-gcra:rate=%d,period=%s",
	}
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(3, 4))
		for round := range long(10, 4) { // 4: each window, both trace shapes
			limit := 2 + r.IntN(15)
			window := []string{"1s", "200ms", "500ms"}[round%3]
			model := fmt.Sprintf(",instances=%d,rtt=%s,skew=%s,clock=%s",
				1+r.IntN(6), []string{"0s", "1ms", "3ms", "7500us", "1001us"}[r.IntN(5)],
				[]string{"0s", "50ms", "3ms", "333us"}[r.IntN(4)], []string{"instance", "redis"}[r.IntN(2)])
			n := long(300, 150)
			trace := nsTrace(r, n, 3*time.Second)
			if round%2 == 0 {
				trace = wholeMsTrace(r, n, 3*time.Second)
			}
			for _, k := range kinds {
				spec := fmt.Sprintf(k, limit, window) + model
				got := decideAll(t, mustNew(t, spec, b), trace)
				want := runModel(mustParse(t, spec), trace)
				for i := range trace {
					if got[i] != want[i] {
						t.Fatalf("%s: arrival %d at %v: got %+v, the model says %+v", spec, i, trace[i], got[i], want[i])
					}
				}
			}
		}
	})
}

// A worked example of §4.2: two instances, 2 ms round trips, limit 3.
// Arrivals 2 and 3 (1 ms apart, on different instances) both read a count
// of 2 before either ZADD lands, so the window ends with 4 passes.
func TestNonAtomicOversellExample(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		trace := []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 21 * time.Millisecond, 22 * time.Millisecond}
		for _, c := range []struct {
			atomic string
			want   string
		}{
			{"true", "PPPBB"},
			{"false", "PPPPB"},
		} {
			l := mustNew(t, "redis-sliding-log:limit=3,instances=2,rtt=2ms,atomic="+c.atomic, b)
			got := ""
			for _, d := range decideAll(t, l, trace) {
				got += map[bool]string{true: "P", false: "B"}[d.Pass]
			}
			if got != c.want {
				t.Errorf("atomic=%s: %s, want %s", c.atomic, got, c.want)
			}
		}
	})
}

// DecideBatch, which pipelines, decides exactly as Decide one by one and
// reaches the same figures.
func TestDecideBatchEqualsDecide(t *testing.T) {
	specs := []string{
		"redis-sliding-log:limit=7,atomic=false,instances=3,rtt=3ms",
		"redis-sliding-log:limit=7,atomic=false,count=all,instances=3,rtt=3ms,clock=redis",
		"redis-sliding-log:limit=7,atomic=false,rtt=0s",
		"redis-fixed-window:limit=7,window=200ms,instances=2,skew=20ms,rtt=1ms",
		"redis-bucketed:limit=7,window=500ms,buckets=5,rtt=2ms",
		"redis-gcra:rate=7,instances=2,rtt=1ms,clock=redis",
		"redis-script:file=testdata/seed.lua,limit=7,rtt=2ms",
	}
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := rand.New(rand.NewPCG(6, 7))
		n, batch := long(1500, 300), long(700, 120)
		for _, spec := range specs {
			trace := nsTrace(r, n, 3*time.Second)
			one, batched := mustNew(t, spec, b), mustNew(t, spec, b)
			want := decideAll(t, one, trace)
			got := make([]algorithms.Decision, len(trace))
			for lo := 0; lo < len(trace); {
				hi := min(len(trace), lo+1+r.IntN(batch))
				batched.DecideBatch(trace[lo:hi], got[lo:hi])
				lo = hi
			}
			if err := batched.Finish(); err != nil {
				t.Fatal(err)
			}
			for _, l := range []*Limiter{one, batched} {
				if keys := keysLeft(t, l); len(keys) != 0 {
					t.Errorf("%s: keys left after Finish: %v", spec, keys)
				}
			}
			for i := range trace {
				if got[i] != want[i] {
					t.Fatalf("%s: arrival %d at %v: batched %+v, one by one %+v", spec, i, trace[i], got[i], want[i])
				}
			}
			// MEMORY USAGE of a large ZSET varies from run to run on a real
			// server (its skiplist levels are random), so bytes are left out.
			f1, f2 := one.Figures(), batched.Figures()
			f1.PeakBytes, f2.PeakBytes = 0, 0
			if f1 != f2 {
				t.Errorf("%s: figures one by one %+v, batched %+v", spec, f1, f2)
			}
		}
	})
}

// keysLeft lists the keys under l's prefix on its server.
func keysLeft(t *testing.T, l *Limiter) []any {
	t.Helper()
	r, err := l.c.do([][]string{{"SCAN", "0", "MATCH", l.prefix + "*", "COUNT", "100000"}})
	if err != nil {
		t.Fatal(err)
	}
	return r[0].([]any)[1].([]any)
}
