//go:build !race

package concurrent

// raceOn is true when the tests run with -race.
const raceOn = false
