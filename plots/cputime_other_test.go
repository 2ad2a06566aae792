//go:build !unix

package plots

import "time"

// cpuTime is 0 where getrusage is missing: the cpu-ms/op metric reads 0.
func cpuTime() time.Duration { return 0 }
