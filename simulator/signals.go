package simulator

import (
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
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
type hostModel struct {
	servers float64
	deltas  eventq.Queue[modelDelta]
	busy    float64 // CPU share in service
	tasks   int64   // requests in service
	avenrun int64
	nextLd  time.Duration
	at      time.Duration
	track   *signalTrack
	seq     int64
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
		k, d, ok := m.deltas.Peek()
		next := m.nextLd
		if ok && k.At < next && k.At <= t {
			m.deltas.Pop()
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
