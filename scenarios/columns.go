package scenarios

// Columns says what a stream's arrivals carry beyond their times, so a
// limiter that needs a signal (a key column, priorities, CPU or load) can
// refuse, with one line, a run whose traffic does not have it.
type Columns struct {
	// Keys names the key columns in the order of Arrival.Keys (nil: none).
	Keys []string
	// User: Arrival.User is filled (a user column, --user, users: phases).
	User bool
	// Cost: some arrivals may weigh more than one request.
	Cost bool
	// Priority: Arrival.Priority is set where the traffic says so.
	Priority bool
	// CPU and Load1: the signals are scripted (each value holds from its
	// arrival on).
	CPU, Load1 bool
	// Response and Error: arrivals carry a recorded response time, and
	// whether it failed.
	Response, Error bool
}

// ColumnStream is a Stream that says which columns its arrivals carry.
// Every stream of package scenarios implements it; a stream that does not
// carries times only.
type ColumnStream interface {
	Stream
	Columns() Columns
}

// StreamColumns returns st's columns, or none if st does not say.
func StreamColumns(st Stream) Columns {
	if c, ok := st.(ColumnStream); ok {
		return c.Columns()
	}
	return Columns{}
}

// Has reports whether the columns include the key column name.
func (c Columns) Has(name string) bool {
	for _, k := range c.Keys {
		if k == name {
			return true
		}
	}
	return false
}
