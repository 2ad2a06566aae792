package scenarios

import (
	"math"
	"time"
)

// head is the pending arrival of one source in the merge heap.
type head struct {
	t   time.Duration
	src int // index in mergeStream.srcs, which follows phase order
}

// mergeStream merges the phases' sources by time (ties in phase order) and
// applies the clock steps. It holds one pending arrival per source.
type mergeStream struct {
	srcs   []source
	heap   []head
	steps  []clockStep
	si     int
	offset time.Duration
	end    time.Duration
	// tags gives each source's arrivals their key, user and priority (nil
	// entries: none); keys interns them; cols says what arrivals carry.
	tags []*tagger
	keys *KeyTable
	cols Columns
}

// Stream returns the scenario's arrivals lazily and in time order. Phases
// that overlap are merged by time; arrivals at the same instant keep phase
// order. Arrivals at or after Duration are cut. Clock is At plus every clock
// step whose time is at or before At. The stream never fails: Err is
// always nil, and Close is a no-op.
func (s Scenario) Stream() (Stream, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m := &mergeStream{steps: clockSteps(s.Phases), end: s.Duration, keys: NewKeyTable(), cols: scenarioColumns(s.Phases)}
	for i, p := range s.Phases {
		switch p.Type {
		case PhaseIdle, PhaseClockStep:
			continue
		}
		m.srcs = append(m.srcs, p.source(s.Duration, s.Seed, i))
		m.tags = append(m.tags, newTagger(p, s.Seed, i, m.keys))
	}
	m.heap = make([]head, 0, len(m.srcs))
	for i, src := range m.srcs {
		if t, ok := src.next(); ok {
			m.push(head{t: t, src: i})
		}
	}
	if s.PriorityShare > 0 {
		return withPriority(m, s.PriorityShare, s.Seed), nil
	}
	return m, nil
}

func (h head) less(o head) bool {
	return h.t < o.t || (h.t == o.t && h.src < o.src)
}

func (m *mergeStream) push(h head) {
	m.heap = append(m.heap, h)
	i := len(m.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !m.heap[i].less(m.heap[p]) {
			break
		}
		m.heap[i], m.heap[p] = m.heap[p], m.heap[i]
		i = p
	}
}

// down restores the heap property from the root.
func (m *mergeStream) down() {
	h := m.heap
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			c = r
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Next returns the next arrival in true-time order.
func (m *mergeStream) Next() (Arrival, bool) {
	if len(m.heap) == 0 {
		return Arrival{}, false
	}
	top := m.heap[0]
	if top.t >= m.end {
		m.heap = m.heap[:0]
		return Arrival{}, false
	}
	if t, ok := m.srcs[top.src].next(); ok {
		m.heap[0].t = t
	} else {
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	m.down()
	for m.si < len(m.steps) && m.steps[m.si].at <= top.t {
		m.offset += m.steps[m.si].offset
		m.si++
	}
	a := Arrival{At: top.t, Clock: top.t + m.offset}
	if m.cols.Keys != nil || m.cols.User {
		a.Keys = [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}
		a.User = NoKey
	}
	if tg := m.tags[top.src]; tg != nil {
		tg.tag(&a, m.keys)
	}
	return a, true
}

// Fill implements BatchStream: Next for each arrival of dst in turn, except
// that while one Poisson phase alone is left, without keys, users or
// priorities, it draws the times in one loop.
func (m *mergeStream) Fill(dst []Arrival) int {
	k := 0
	for k < len(dst) {
		if len(m.heap) == 1 && m.cols.Keys == nil && !m.cols.User && m.tags[m.heap[0].src] == nil {
			if p, ok := m.srcs[m.heap[0].src].(*poissonSource); ok {
				k += m.fillPoisson(p, dst[k:])
				return k
			}
		}
		a, ok := m.Next()
		if !ok {
			break
		}
		dst[k] = a
		k++
	}
	return k
}

// fillPoisson is Fill while p is the only source left and the arrivals
// carry nothing but their times: the same arrivals as Next's, without the
// heap.
func (m *mergeStream) fillPoisson(p *poissonSource, dst []Arrival) int {
	t := m.heap[0].t // the pending arrival
	next := time.Duration(math.MaxInt64)
	if m.si < len(m.steps) {
		next = m.steps[m.si].at
	}
	for k := range dst {
		if t >= m.end {
			m.heap = m.heap[:0]
			return k
		}
		if next <= t {
			for m.si < len(m.steps) && m.steps[m.si].at <= t {
				m.offset += m.steps[m.si].offset
				m.si++
			}
			next = time.Duration(math.MaxInt64)
			if m.si < len(m.steps) {
				next = m.steps[m.si].at
			}
		}
		dst[k] = Arrival{At: t, Clock: t + m.offset}
		nt, ok := p.next()
		if !ok {
			m.heap = m.heap[:0]
			return k + 1
		}
		t = nt
	}
	m.heap[0].t = t
	return len(dst)
}

func (m *mergeStream) Err() error   { return nil }
func (m *mergeStream) Close() error { return nil }
