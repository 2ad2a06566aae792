//go:build !race

package simulator

const raceOn = false
