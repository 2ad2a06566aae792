//go:build unix

package simulator

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system CPU time so far: with the
// wall time it shows how much of a run's work the second core absorbed,
// and it is less disturbed than wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
