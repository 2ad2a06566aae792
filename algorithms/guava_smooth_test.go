package algorithms_test

import (
	"testing"
	"time"
)

// TestGuavaSmoothTable holds what SmoothBursty and SmoothWarmingUp share
// (guava_smooth.go, docs/algorithms.md's guava-bursty section): the
// stopwatch reads t in whole µs truncated towards zero, created at t = 0;
// canAcquire is nextFreeTicket − timeout ≤ now; a pass waits until the
// ticket as it was before it reserved.
func TestGuavaSmoothTable(t *testing.T) {
	cases := []struct {
		name, spec string
		steps      []arrival
	}{
		{"999 ns reads 0 µs (rate 10⁶: one permit a µs)", "guava-bursty:rate=1000000", []arrival{
			pass(0), block(999 * time.Nanosecond), pass(1000 * time.Nanosecond),
		}},
		{"before creation: −1500 ns reads −1 µs, −999 ns reads 0", "guava-bursty:rate=1", []arrival{
			block(-1500 * time.Nanosecond), pass(-999 * time.Nanosecond), block(0), pass(time.Second),
		}},
		{"the same for SmoothWarmingUp", "guava-warming-up:rate=2,warm-up=4s", []arrival{
			block(-1500 * time.Nanosecond), pass(-999 * time.Nanosecond), block(0),
		}},
		{"the timeout is truncated to µs (NANOSECONDS.toMicros)", "guava-bursty:rate=5,timeout=199999999ns", []arrival{
			pass(0), block(0), // 199999 µs < the 200000 µs to the ticket
		}},
		{"a wait is whole µs", "guava-bursty:rate=3,timeout=inf", []arrival{
			pass(0), passAfter(dms(0.0005), 333333*time.Microsecond), // 500 ns reads 0 µs
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { replay(t, mustNew(t, c.spec), c.steps) })
	}
}
