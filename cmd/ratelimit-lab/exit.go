package main

import (
	"fmt"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Exit statuses other than 0 and 1.
const (
	// exitThreshold: the run worked, and a --fail-if threshold (or tune's
	// --target) was crossed.
	exitThreshold = 3
)

// exitError ends the command with a given exit status and one line.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// stepsBackNote says how often a trace's clock stepped back, or "" if
// never or if the stream does not count it.
func stepsBackNote(st scenarios.Stream) string {
	c, ok := st.(interface {
		StepsBack() (n int64, largest time.Duration)
	})
	if !ok {
		return ""
	}
	n, largest := c.StepsBack()
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("the trace steps back in time once, by %v (a timestamp below the one before it): a clock step back for the limiters; see docs/algorithms.md for what each does then", largest)
	}
	return fmt.Sprintf("the trace steps back in time %d times, by up to %v (a timestamp below the one before it): clock steps back for the limiters; see docs/algorithms.md for what each does then", n, largest)
}
