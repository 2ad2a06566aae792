//go:build race

package concurrent

// raceOn is true when the tests run with -race, whose shadow memory makes
// every goroutine heavier than a real run's.
const raceOn = true
