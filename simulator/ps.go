package simulator

import (
	"math"
	"sort"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/eventq"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// psDownstream is the downstream with discipline: ps: processor sharing
// on Cores. Every admitted request is in service at once; with N in
// service each progresses at
//
//	r(N) = min(1, cores/N) / (1 + kappa·(N − 1))
//
// of real time (cores from the phase in force, kappa the Universal
// Scalability Law's coherency term). It keeps a virtual work clock V
// (dV/dt = r(N)): a request admitted at V₀ with service S leaves when V
// reaches V₀ + S, so the next departure is one heap minimum away and each
// admission or departure costs O(log n). The row's event queue holds one
// tick for the next departure (or the next change of cores), superseded
// by a newer one whenever N changes. The caller gives up at admission +
// timeout; the request then keeps its share until it finishes, unless
// cancel-on-timeout removes it.
type psDownstream struct {
	cfg   *scenarios.Downstream
	jobs  []psJob
	free  []int32
	heap  []int32 // job indices by finish V
	v     float64 // virtual work done per request so far, ns
	at    time.Duration
	n     int     // requests in service
	cpu   float64 // Σ (1 − io) over the requests in service
	gen   int
	marks []time.Duration // instants where the cores change
	model *hostModel
	lastB float64
	lastN int64
}

type psJob struct {
	fin       float64
	pos       int32
	seq       int64
	retry     int32
	adm       time.Duration
	io        float64
	errs      float64
	id        int64
	abandoned bool
	live      bool
}

func newPSDownstream(cfg *scenarios.Downstream) *psDownstream {
	p := &psDownstream{cfg: cfg}
	for _, ph := range cfg.Phases {
		if ph.Cores > 0 {
			p.marks = append(p.marks, ph.From, ph.To)
		}
	}
	sort.Slice(p.marks, func(i, j int) bool { return p.marks[i] < p.marks[j] })
	return p
}

func (p *psDownstream) rate(t time.Duration) float64 {
	if p.n == 0 {
		return 0
	}
	n := float64(p.n)
	return math.Min(1, p.cfg.CoresAt(t)/n) / (1 + p.cfg.Kappa*(n-1))
}

// nextMark is the first change of cores after t (MaxInt64 if none).
func (p *psDownstream) nextMark(t time.Duration) time.Duration {
	i := sort.Search(len(p.marks), func(i int) bool { return p.marks[i] > t })
	if i == len(p.marks) {
		return math.MaxInt64
	}
	return p.marks[i]
}

// advance moves V to t, piecewise across changes of cores.
func (p *psDownstream) advance(t time.Duration) {
	for p.at < t {
		end := min(t, p.nextMark(p.at))
		p.v += float64(end-p.at) * p.rate(p.at)
		p.at = end
	}
}

func (p *psDownstream) less(a, b int32) bool {
	ja, jb := &p.jobs[a], &p.jobs[b]
	if ja.fin != jb.fin {
		return ja.fin < jb.fin
	}
	return ja.id < jb.id
}

func (p *psDownstream) swap(i, j int) {
	p.heap[i], p.heap[j] = p.heap[j], p.heap[i]
	p.jobs[p.heap[i]].pos = int32(i)
	p.jobs[p.heap[j]].pos = int32(j)
}

func (p *psDownstream) up(i int) {
	for i > 0 {
		q := (i - 1) / 2
		if !p.less(p.heap[i], p.heap[q]) {
			return
		}
		p.swap(i, q)
		i = q
	}
}

func (p *psDownstream) down(i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(p.heap) && p.less(p.heap[l], p.heap[m]) {
			m = l
		}
		if r < len(p.heap) && p.less(p.heap[r], p.heap[m]) {
			m = r
		}
		if m == i {
			return
		}
		p.swap(i, m)
		i = m
	}
}

// remove takes job j out of service.
func (p *psDownstream) remove(j int32) {
	i := int(p.jobs[j].pos)
	last := len(p.heap) - 1
	if i != last {
		p.swap(i, last)
	}
	p.heap = p.heap[:last]
	if i < len(p.heap) {
		p.down(i)
		p.up(i)
	}
	p.jobs[j].pos = -1
	p.n--
	p.cpu -= 1 - p.jobs[j].io
}

// admit puts a request in service at t (V already advanced to t).
func (p *psDownstream) admit(t time.Duration, seq int64, retry int32, id int64) int32 {
	service, errs := p.cfg.At(t)
	var j int32
	if k := len(p.free); k > 0 {
		j = p.free[k-1]
		p.free = p.free[:k-1]
	} else {
		p.jobs = append(p.jobs, psJob{})
		j = int32(len(p.jobs) - 1)
	}
	io := p.cfg.IOAt(t)
	p.jobs[j] = psJob{fin: p.v + float64(service), seq: seq, retry: retry, adm: t, io: io, errs: errs, id: id, live: true}
	p.heap = append(p.heap, j)
	p.jobs[j].pos = int32(len(p.heap) - 1)
	p.up(len(p.heap) - 1)
	p.n++
	p.cpu += 1 - io
	return j
}

// release frees job j's slot.
func (p *psDownstream) release(j int32) {
	p.jobs[j].live = false
	p.free = append(p.free, j)
}

// next is the time of the next departure or change of cores after t,
// MaxInt64 when idle.
func (p *psDownstream) next(t time.Duration) time.Duration {
	if len(p.heap) == 0 {
		return math.MaxInt64
	}
	dv := p.jobs[p.heap[0]].fin - p.v
	r := p.rate(t)
	dep := t + time.Duration(math.Ceil(math.Max(dv, 0)/r))
	return min(dep, p.nextMark(t))
}

// signal records the CPU and tasks in service at t in the host model.
func (p *psDownstream) signal(t time.Duration) {
	if p.model == nil {
		return
	}
	cores := p.cfg.CoresAt(t)
	busy := 0.0
	if p.n > 0 {
		busy = math.Min(1, cores/float64(p.n)) * p.cpu / cores * p.model.servers
	}
	p.model.set(t, busy-p.lastB, int64(p.n)-p.lastN)
	p.lastB, p.lastN = busy, int64(p.n)
}

// PS events on the row's queue: a tick for the next departure (Seq −1,
// Round the generation) and a caller's timeout per request.
const (
	psTick    = 1
	psTimeout = 2
)

// psSchedule pushes the tick for the next departure after a change at t.
func (u *chainUnit) psSchedule(t time.Duration) {
	p := u.ps
	p.gen++
	if nt := p.next(t); nt != math.MaxInt64 {
		if nt < t && u.err == nil {
			u.err = wrapErr(u.lim.Spec(), "the downstream", t, "the processor-sharing service of the requests in it", "give the downstream more cores or a shorter service, or a timeout with cancel-on-timeout: true")
		}
		u.q.Push(eventq.Key{At: max(nt, t), Class: classCompletion, Seq: -1, Round: p.gen}, chainEvent{ps: psTick})
	}
	p.signal(t)
}

// psAdmit serves o (admitted at t) on the PS downstream.
func (u *chainUnit) psAdmit(o *outcome, retry int32, t time.Duration) {
	p := u.ps
	p.advance(t)
	j := p.admit(t, o.seq, retry, o.seq+int64(o.attempt)<<48)
	if to := p.cfg.Timeout; to > 0 {
		u.schedule(o, t, eventq.Key{At: t + to, Class: classCompletion, Seq: o.seq, Round: int(o.attempt)}, chainEvent{ps: psTimeout, k: j, retry: retry}, "the caller's timeout", "bound the limiter's wait (a timeout or max-queue, or a higher rate)")
	}
	u.psSchedule(t)
}

// psEvent runs a PS tick or timeout at t.
func (u *chainUnit) psEvent(k eventq.Key, ev chainEvent) {
	p := u.ps
	t := k.At
	switch ev.ps {
	case psTick:
		if k.Round != p.gen {
			return // superseded
		}
		p.advance(t)
		for len(p.heap) > 0 {
			j := p.heap[0]
			jb := &p.jobs[j]
			if jb.fin > p.v+1e-6*math.Max(1, math.Abs(p.v)*1e-9) && p.next(t) > t {
				break
			}
			p.remove(j)
			if jb.abandoned {
				p.release(j)
				continue
			}
			failed := jb.errs > 0 && unitFloat(p.cfg.Seed, uint64(jb.id)) < jb.errs
			seq, retry := jb.seq, jb.retry
			p.release(j)
			u.complete(u.event(seq, retry), retry, t, failed, false)
		}
		u.psSchedule(t)
	case psTimeout:
		j := ev.k
		jb := &p.jobs[j]
		if !jb.live || jb.abandoned || jb.seq != k.Seq || jb.adm+p.cfg.Timeout != t || jb.pos < 0 {
			return // it left before its timeout
		}
		jb.abandoned = true
		seq, retry := jb.seq, jb.retry
		if p.cfg.CancelOnTimeout {
			p.advance(t)
			p.remove(j)
			p.release(j)
			u.psSchedule(t)
		}
		u.complete(u.event(seq, retry), retry, t, true, true)
	}
}
