package scenarios

import "time"

// NoKey is the key id of an arrival whose key column is empty or absent:
// per-key limiters let it through without accounting it, as nginx's
// limit_req and Sentinel's ParamFlowChecker do with an empty key.
const NoKey int32 = -1

// MaxKeyColumns is how many key columns (key, ip, route, user_id, …) one
// arrival carries. A trace with more key-like columns is an error.
const MaxKeyColumns = 4

// Arrival is one request of a scenario. It is copied by value through the
// engine's batches, so it holds no pointers: keys and users are interned
// ids into the stream's KeyTable (see KeyedStream).
type Arrival struct {
	// At is the true time of the arrival from the start of the run. Bins
	// are counted in true time.
	At time.Duration
	// Clock is what the limiters' clock reads at the arrival: At plus every
	// clock step in force (negative for an NTP correction backwards). For a
	// trace, At and Clock are both the recorded timestamp.
	Clock time.Duration
	// HasResponse is set by a trace with rt_ms and error columns: a pass
	// then spends RT downstream after its admission and fails if Failed.
	HasResponse bool
	Failed      bool
	// Priority marks a prioritized entry (Sentinel's
	// SphU.entryWithPriority): the trace column priority=1, or the seeded
	// share of a YAML phase's priority.
	Priority bool
	RT       time.Duration
	// Keys holds the interned id of each key column, in the order the
	// stream's KeyColumns names them; NoKey where the value is empty and
	// for columns the stream does not have. A stream without key columns
	// leaves every entry at 0, so a stream that has none must say so with
	// KeyColumns() == nil (per-key limiters then refuse to run).
	Keys [MaxKeyColumns]int32
	// User is the interned identity behind a shared key (the trace's user
	// column), NoKey when absent; it only feeds the users_hurt figures.
	User int32
	// Cost is how many whole requests the arrival stands for (the trace's
	// cost column); 0 means 1.
	Cost int32
	// CPU (utilisation 0–1) and Load1 script the signals adaptive limiters
	// sample: each value holds from its arrival's time on. Streams without
	// those columns leave them 0; a stream that has them says so (the
	// adaptive limiters' helper adds that interface, like KeyedStream).
	CPU, Load1 float32
}

// Weight is the arrival's cost in whole requests: Cost, or 1 when unset.
func (a *Arrival) Weight() int32 {
	if a.Cost <= 0 {
		return 1
	}
	return a.Cost
}

// Stream yields arrivals lazily, in the order they happen. After Next
// returns false, Err reports why (nil at the normal end). Close releases
// any file behind the stream.
type Stream interface {
	Next() (Arrival, bool)
	Err() error
	Close() error
}

// BatchStream is a Stream that also hands out many arrivals in one call,
// which spares its reader a call and a copy per arrival. Fill writes the
// next arrivals into dst, in order, the ones Next would have returned, and
// returns how many it wrote: len(dst), or fewer when the stream ends (then
// Next returns false). Next and Fill may be mixed.
type BatchStream interface {
	Stream
	Fill(dst []Arrival) int
}

// KeyedStream is a Stream whose arrivals carry keys. KeyColumns names the
// key columns in the order of Arrival.Keys (for example ["key", "ip"]);
// Keys is the table the ids point into, filled as the stream is read (so
// read names only after the arrivals that use them).
type KeyedStream interface {
	Stream
	KeyColumns() []string
	KeyTable() *KeyTable
}
