//go:build !race

package main

// raceOn is true when the tests run with -race.
const raceOn = false
