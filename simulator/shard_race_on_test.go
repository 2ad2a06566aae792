//go:build race

package simulator

// raceOn: the race detector slows the identity test tenfold; it then runs
// a smaller trace.
const raceOn = true
