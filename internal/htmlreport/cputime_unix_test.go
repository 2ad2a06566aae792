//go:build unix

package htmlreport

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system CPU time so far (every thread,
// the garbage collector's too): less disturbed than the wall clock on a
// shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
