//go:build !linux

package algorithms

import "time"

// threadCPU is unavailable here; the benchmark falls back to wall time.
func threadCPU() time.Duration { return 0 }
