//go:build linux

package algorithms

import (
	"syscall"
	"time"
)

// threadCPU is the calling thread's user + system CPU time (the caller
// holds runtime.LockOSThread): decisions per CPU second are what a core
// does, however busy the shared machine is.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
