// Package eventq is the one event queue of the simulator: a min-heap of
// events on the virtual clock, ordered by (At, Class, Seq, Round).
//
// Everything that happens later than the arrival that caused it goes
// through it: a Redis batch executing half a round trip after it was sent,
// a breaker stage waiting behind a queueing limiter, a downstream
// completion. The order key is the contract that makes runs reproducible:
// events run in virtual-time order; at equal times the lower Class runs
// first (each user fixes its classes, for example completions before
// breaker stages before arrivals); then the lower arrival number Seq; then
// the lower Round (the first batch of a request before its second).
package eventq

import "time"

// Key orders events.
type Key struct {
	At    time.Duration
	Class int
	Seq   int64
	Round int
}

// Less reports whether k runs before o.
func (k Key) Less(o Key) bool {
	if k.At != o.At {
		return k.At < o.At
	}
	if k.Class != o.Class {
		return k.Class < o.Class
	}
	if k.Seq != o.Seq {
		return k.Seq < o.Seq
	}
	return k.Round < o.Round
}

type item[T any] struct {
	key Key
	val T
}

// Queue is a min-heap of events carrying a value of type T. The zero
// value is an empty queue. It allocates only when it grows.
type Queue[T any] struct {
	h []item[T]
	// With the lane (UseLane), an event at or after the last one in the
	// lane is appended to it instead of going on the heap: lane[head:]
	// is in key order, and the first event is the lesser of its head and
	// the heap's top.
	useLane bool
	lane    []item[T]
	head    int
}

// UseLane makes events pushed in key order (each at or after the last
// one that went in the lane) cost O(1) instead of O(log n): a
// completion a fixed timeout after each admission, a FIFO server's exits.
// Events with equal keys may then come out in another order than the
// heap's alone, so only a user whose keys are never equal (or whose
// events with equal keys are interchangeable) may use it.
func (q *Queue[T]) UseLane() { q.useLane = true }

// Len is the number of queued events.
func (q *Queue[T]) Len() int { return len(q.h) + len(q.lane) - q.head }

// laneFirst reports whether the first event is the lane's head.
func (q *Queue[T]) laneFirst() bool {
	return q.head < len(q.lane) && (len(q.h) == 0 || q.lane[q.head].key.Less(q.h[0].key))
}

// Push queues v at k.
//
// Push and Pop move a hole instead of swapping (each level writes one
// item, not two) and take the same decisions as the swapping heap, so
// the layout, and the order of equal keys, is the same.
func (q *Queue[T]) Push(k Key, v T) {
	if q.useLane {
		if n := len(q.lane); q.head == n {
			q.lane, q.head = q.lane[:0], 0
			q.lane = append(q.lane, item[T]{k, v})
			return
		} else if !k.Less(q.lane[n-1].key) {
			if q.head > 1024 && 2*q.head > n {
				m := copy(q.lane, q.lane[q.head:])
				clear(q.lane[m:])
				q.lane, q.head = q.lane[:m], 0
			}
			q.lane = append(q.lane, item[T]{k, v})
			return
		}
	}
	q.h = append(q.h, item[T]{})
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !k.Less(h[p].key) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = item[T]{k, v}
}

// Peek returns the first event without removing it; ok is false when the
// queue is empty.
func (q *Queue[T]) Peek() (k Key, v T, ok bool) {
	if q.laneFirst() {
		return q.lane[q.head].key, q.lane[q.head].val, true
	}
	if len(q.h) == 0 {
		return k, v, false
	}
	return q.h[0].key, q.h[0].val, true
}

// Pop removes and returns the first event. It panics on an empty queue.
func (q *Queue[T]) Pop() (Key, T) {
	if q.laneFirst() {
		top := q.lane[q.head]
		q.lane[q.head] = item[T]{}
		q.head++
		return top.key, top.val
	}
	top := q.h[0]
	n := len(q.h) - 1
	last := q.h[n]
	var zero item[T]
	q.h[n] = zero
	q.h = q.h[:n]
	h := q.h
	if n == 0 {
		return top.key, top.val
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		// m: the child that would swap with last (the left one unless
		// the right one is less than it, as the swapping heap chose).
		m := l
		if r := l + 1; r < n && h[r].key.Less(h[l].key) {
			m = r
		}
		// The swapping heap compares the right child with the lesser
		// of last and the left child.
		if !h[m].key.Less(last.key) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top.key, top.val
}

// Before reports whether the first event runs before k; an empty queue
// reports false.
func (q *Queue[T]) Before(k Key) bool {
	if q.laneFirst() {
		return q.lane[q.head].key.Less(k)
	}
	return len(q.h) > 0 && q.h[0].key.Less(k)
}
