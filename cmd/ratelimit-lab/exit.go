package main

// Exit statuses other than 0 and 1.
const (
	// exitThreshold: the run worked, and a --fail-if threshold (or tune's
	// --target) was crossed (lab.ThresholdError).
	exitThreshold = 3
	// exitUndefined: the run worked, no --fail-if threshold was crossed,
	// but one tested a value that is undefined (0/0, such as pass_pct of
	// a run without arrivals), so the gate neither passed nor failed
	// (lab.UndefinedError).
	exitUndefined = 4
)

// exitError ends the command with a given exit status and one line.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
