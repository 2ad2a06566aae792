package scenarios

import "time"

// Arrival is one request of a scenario.
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
	RT          time.Duration
}

// Stream yields arrivals lazily, in the order they happen. After Next
// returns false, Err reports why (nil at the normal end). Close releases
// any file behind the stream.
type Stream interface {
	Next() (Arrival, bool)
	Err() error
	Close() error
}
