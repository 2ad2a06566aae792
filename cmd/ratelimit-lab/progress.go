package main

import "github.com/ratelimit-lab/ratelimit-lab/internal/progress"

// newProgress is run's and tune's bar (internal/progress): on stderr when
// it is a terminal and --quiet is not given.
func newProgress(io *IOStreams, quiet bool, expected int64, approx float64) *progress.Bar {
	return progress.New(io.ErrOut, io.ErrTTY && !quiet, io.Width, expected, approx)
}
