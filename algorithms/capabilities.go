package algorithms

import "strings"

// Caps are the capabilities of a limiter spec, declared once beside the
// spec in its family's table and read by everything that used to branch
// on a spec's name: the run binds key columns only for CapKeyColumn, opens
// a Redis session only for CapRedis, and so on. `list`, --help and the docs
// index show them.
type Caps uint16

const (
	// CapKeyColumn: the spec takes key=COLUMN and keeps a state per key.
	CapKeyColumn Caps = 1 << iota
	// CapClosedLoop: the limiter reads completions (response times,
	// errors, in-flight counts) and needs a downstream or a trace with
	// responses.
	CapClosedLoop
	// CapRedis: the limiter runs its decisions on a Redis backend and
	// needs the run's Redis session.
	CapRedis
	// CapCost: the limiter charges a request's cost (the trace's cost
	// column) rather than 1.
	CapCost
	// CapStage: the spec can be a stage of a chain A+B.
	CapStage
	// CapCheckToAdd: the spec takes check-to-add=DURATION (its reference
	// checks and records a pass in two steps).
	CapCheckToAdd
	// CapShard: made per-key with an unbounded table, the spec's keys can
	// be decided on several goroutines at once (run --workers N, shard.go):
	// a key's decisions read that key's state only.
	CapShard
)

var capNames = []struct {
	c    Caps
	name string
}{
	{CapKeyColumn, "key"},
	{CapClosedLoop, "closed-loop"},
	{CapRedis, "redis"},
	{CapCost, "cost"},
	{CapStage, "stage"},
	{CapCheckToAdd, "check-to-add"},
	{CapShard, "shard"},
}

// Has reports whether every capability of want is in c.
func (c Caps) Has(want Caps) bool { return c&want == want }

// String lists the capabilities by name, comma-separated, in a fixed order.
func (c Caps) String() string {
	var s []string
	for _, n := range capNames {
		if c.Has(n.c) {
			s = append(s, n.name)
		}
	}
	return strings.Join(s, ",")
}
