package simulator

import (
	"math"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// hostModel derives the host signals of a modelled downstream, on the
// limiters' clock: the CPU utilisation (the CPU share of each request in
// service, summed, over the servers, one core each) and Linux's load1,
// computed as the kernel does (calc_load every 5 s on the number of tasks
// in service, running or in I/O wait: avenrun = (avenrun·EXP_1 +
// n·FIXED_1·(FIXED_1 − EXP_1) [+ FIXED_1 − 1 when rising]) / FIXED_1 with
// FIXED_1 = 2048 and EXP_1 = 1884, read back as /proc/loadavg prints it,
// two decimals). Each service interval is two changes on a heap; the row
// advances the model to each event's time before the event, writing the
// signals into its signal track, so a limiter sampling at or before the
// current time reads exactly what was in force.
//
// A FIFO downstream whose servers do not change (and that does not cancel
// on timeout) is not kept request by request: a saturated service with
// nothing in front queues without end, and the changes of every request
// queued would grow with the run. Its starts come in admission order
// (each at max(admission, first server free), both non-decreasing), so
// the model keeps a copy of the servers as they were before the first
// admission it has not started yet (lag) and the admissions since, a run
// of those that waited for a server counted, not listed (their start is
// the first free server's time, not their admission); it places them on
// its copy, one at a time, as its clock reaches their starts. The heap
// then holds only the ends of the requests in service (at most the
// servers), and the changes come out in the same order (time, ends
// before starts, admission order) with the same sums as if each had been
// queued.
type hostModel struct {
	servers float64
	// deltas is every change to come; with lag, the ends of the requests
	// in service only.
	deltas  eventq.Queue[modelDelta]
	busy    float64 // CPU share in service
	tasks   int64   // requests in service
	avenrun int64
	nextLd  time.Duration
	at      time.Duration
	track   *signalTrack
	seq     int64

	cfg       *scenarios.Downstream
	lag       *downstream // the servers before admission adms[head]
	adms      []modelAdm
	head      int
	next      modelStart // the next start, placed on lag (when hasNext)
	hasNext   bool
	lastStart time.Duration
}

// modelAdm is an admission the lagging model has not placed yet: at adm,
// or n in a row that each waited for a server (waits).
type modelAdm struct {
	adm   time.Duration
	n     int64
	waits bool
}

// modelStart is a placed request whose start the model has not reached.
type modelStart struct {
	start, end       time.Duration
	w                float64
	startSeq, endSeq int64
}

type modelDelta struct {
	cpu   float64
	tasks int64
}

const (
	loadFixed1 = 2048
	loadExp1   = 1884
	loadFreq   = 5 * time.Second
)

func newHostModel(servers int, track *signalTrack) *hostModel {
	return &hostModel{servers: float64(servers), track: track}
}

// attach makes m the host model of the FIFO downstream d, lagging when
// d's servers never change and it does not cancel on timeout.
func (m *hostModel) attach(d *downstream) {
	m.cfg = d.cfg
	d.model = m
	if !d.gated && !d.cfg.CancelOnTimeout {
		m.lag = newDownstream(d.cfg)
		m.lastStart = math.MinInt64
	}
}

// admit records a request admitted at adm that its downstream placed on
// [start, end); waits reports that it waited for the first server to come
// free (its start is that server's free time, not adm).
func (m *hostModel) admit(adm time.Duration, waits bool, start, end time.Duration) {
	if m == nil {
		return
	}
	if m.lag != nil && start < m.lastStart {
		// A clock that stepped back: starts no longer come in admission
		// order, so keep each change from now on.
		m.unlag()
	}
	if m.lag == nil {
		if end > start {
			m.serve(start, end, m.cfg.IOAt(start))
		}
		return
	}
	m.lastStart = start
	if n := len(m.adms); waits && n > m.head && m.adms[n-1].waits {
		m.adms[n-1].n++
		return
	}
	if m.head > 64 && 2*m.head > len(m.adms) {
		n := copy(m.adms, m.adms[m.head:])
		m.adms, m.head = m.adms[:n], 0
	}
	m.adms = append(m.adms, modelAdm{adm: adm, n: 1, waits: waits})
}

// place places the next admission on lag and keeps its start in next;
// it reports false when every admission is placed.
func (m *hostModel) place() bool {
	for m.head < len(m.adms) {
		a := &m.adms[m.head]
		adm := a.adm
		if a.waits {
			adm = m.lag.free[0]
		}
		if a.n--; a.n == 0 {
			m.head++
		}
		start, end, _, _ := m.lag.place(adm)
		if end <= start {
			continue
		}
		m.seq += 2
		m.next = modelStart{start: start, end: end, w: 1 - m.cfg.IOAt(start), startSeq: m.seq - 1, endSeq: m.seq}
		m.hasNext = true
		return true
	}
	m.adms, m.head = m.adms[:0], 0
	return false
}

// unlag queues every admission not started yet as its two changes and
// stops lagging.
func (m *hostModel) unlag() {
	for m.hasNext || m.place() {
		n := m.next
		m.hasNext = false
		m.deltas.Push(eventq.Key{At: n.start, Seq: n.startSeq}, modelDelta{cpu: n.w, tasks: 1})
		m.deltas.Push(eventq.Key{At: n.end, Class: -1, Seq: n.endSeq}, modelDelta{cpu: -n.w, tasks: -1})
	}
	m.lag = nil
}

// peek returns the next change; start reports that it is next's start.
func (m *hostModel) peek() (k eventq.Key, d modelDelta, start, ok bool) {
	k, d, ok = m.deltas.Peek()
	if m.lag == nil || !(m.hasNext || m.place()) {
		return k, d, false, ok
	}
	if sk := (eventq.Key{At: m.next.start, Seq: m.next.startSeq}); !ok || sk.Less(k) {
		return sk, modelDelta{cpu: m.next.w, tasks: 1}, true, true
	}
	return k, d, false, true
}

// serve records a request in service over [start, end) with the given
// I/O share.
func (m *hostModel) serve(start, end time.Duration, io float64) {
	if m == nil || end <= start {
		return
	}
	w := 1 - io
	m.seq++
	m.deltas.Push(eventq.Key{At: start, Seq: m.seq}, modelDelta{cpu: w, tasks: 1})
	m.seq++
	// Ends before starts at the same instant (Class 0 < 1 would put the
	// start first, so ends use a lower class by a negative Round).
	m.deltas.Push(eventq.Key{At: end, Class: -1, Seq: m.seq}, modelDelta{cpu: -w, tasks: -1})
}

// set records a change of dcpu busy cores and dtasks requests in service
// at t (the ps downstream's changes, always at the current time).
func (m *hostModel) set(t time.Duration, dcpu float64, dtasks int64) {
	if m == nil || (dcpu == 0 && dtasks == 0) {
		return
	}
	m.seq++
	m.deltas.Push(eventq.Key{At: t, Seq: m.seq}, modelDelta{cpu: dcpu, tasks: dtasks})
}

// advance applies every change and load tick at or before t.
func (m *hostModel) advance(t time.Duration) {
	if m == nil {
		return
	}
	for {
		k, d, start, ok := m.peek()
		next := m.nextLd
		if ok && k.At < next && k.At <= t {
			if start {
				// In service: its end joins the heap.
				m.hasNext = false
				m.deltas.Push(eventq.Key{At: m.next.end, Class: -1, Seq: m.next.endSeq}, modelDelta{cpu: -m.next.w, tasks: -1})
			} else {
				m.deltas.Pop()
			}
			m.busy += d.cpu
			m.tasks += d.tasks
			m.at = k.At
			m.emit()
			continue
		}
		if next <= t {
			// calc_load at the tick, on the tasks in service then.
			active := m.tasks * loadFixed1
			nl := m.avenrun*loadExp1 + active*(loadFixed1-loadExp1)
			if active >= m.avenrun {
				nl += loadFixed1 - 1
			}
			m.avenrun = nl / loadFixed1
			m.at = next
			m.nextLd += loadFreq
			m.emit()
			continue
		}
		return
	}
}

// load1 is avenrun as /proc/loadavg prints it.
func (m *hostModel) load1() float64 {
	i := m.avenrun >> 11
	frac := ((m.avenrun & (loadFixed1 - 1)) * 100) >> 11
	return float64(i) + float64(frac)/100
}

func (m *hostModel) emit() {
	cpu := max(m.busy, 0) / m.servers
	m.track.see(m.at, float32(min(cpu, 1)), float32(m.load1()))
}
