package algorithms

import "time"

// MaxKeyColumns mirrors scenarios.MaxKeyColumns: how many key columns one
// request carries.
const MaxKeyColumns = 4

// NoKey is the id of an empty key: per-key limiters pass it unaccounted.
const NoKey int32 = -1

// Request is what a limiter may read of an arrival besides its time: its
// interned keys (one id per key column of the trace), its cost in whole
// requests and its priority flag. Limiters that read none of it implement
// Limiter only; the simulator calls DecideRequest on those that implement
// RequestLimiter.
type Request struct {
	Keys     [MaxKeyColumns]int32
	Cost     int32 // whole requests, at least 1
	Priority bool
}

// noKeys is a request's keys when it has none.
var noKeys = [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}

// cost is r's cost, at least 1.
func (r *Request) cost() int32 { return max(r.Cost, 1) }

// RequestLimiter is a Limiter that reads the request: per-key limiters
// (key=COLUMN), limiters charging a cost, Sentinel's prioritized entries.
// Decide(now) must equal DecideRequest(now, &Request{Cost: 1}) with every
// key NoKey… except that per-key limiters refuse a run without keys up
// front (see KeyColumnUser).
type RequestLimiter interface {
	Limiter
	DecideRequest(now time.Duration, r *Request) Decision
}

// KeyColumnUser is a limiter that reads a named key column (its spec's
// key=NAME). Before the run the simulator's caller resolves the names
// against the stream's KeyColumns and calls BindKeyColumns with each one's
// index in Request.Keys; a name the stream lacks is a one-line error
// naming the columns it has.
type KeyColumnUser interface {
	KeyColumns() []string
	BindKeyColumns(idx []int) error
}
