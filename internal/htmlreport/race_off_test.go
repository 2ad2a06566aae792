//go:build !race

package htmlreport

// raceOn is true when the tests run with -race.
const raceOn = false
