package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

func positiveLimit(name, key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s must be a positive number, got %s (for example %s=100)", name, key, formatNumber(v), key)
	}
	return nil
}

// wholeMs checks that d is a whole number of milliseconds, at least minMs
// and within Java's int (2³¹−1 ms, about 24.8 days), and returns it in
// ms. Its error names both bounds, so every millisecond interval of the
// Sentinel limiters says how long it may be.
func wholeMs(name, key string, d time.Duration, minMs int64) (int64, error) {
	const maxMs = math.MaxInt32
	if d%time.Millisecond != 0 || d < time.Duration(minMs)*time.Millisecond || d > maxMs*time.Millisecond {
		return 0, fmt.Errorf("%s: %s must be whole milliseconds from %dms to %dms (%v), got %v (Sentinel counts it in an int of ms)", name, key, minMs, maxMs, maxMs*time.Millisecond, d)
	}
	return int64(d / time.Millisecond), nil
}

// wholeSeconds checks that d is a whole number of seconds from minS to
// maxS, the range of the source's field (why says which field and type),
// and returns it in seconds. Its error names both bounds.
func wholeSeconds(name, key string, d time.Duration, minS, maxS int64, why string) (int64, error) {
	if d%time.Second != 0 || d < time.Duration(minS)*time.Second || d > time.Duration(maxS)*time.Second {
		return 0, fmt.Errorf("%s: %s must be whole seconds from %ds to %ds (%v), got %v (%s)", name, key, minS, maxS, time.Duration(maxS)*time.Second, d, why)
	}
	return int64(d / time.Second), nil
}

// bucketLength checks Sentinel's LeapArray parameters and returns the
// bucket length in ms.
func bucketLength(name string, sampleCount int, interval time.Duration) (int64, error) {
	ims, err := wholeMs(name, "interval", interval, 1)
	if err != nil {
		return 0, err
	}
	if sampleCount < 1 {
		return 0, fmt.Errorf("%s: sample-count must be at least 1, got %d", name, sampleCount)
	}
	if ims%int64(sampleCount) != 0 {
		return 0, fmt.Errorf("%s: sample-count %d does not divide interval %v, and Sentinel requires the interval to be evenly divided; pick a divisor of %d such as %s",
			name, sampleCount, interval, ims, divisorsNear(ims, sampleCount))
	}
	return ims / int64(sampleCount), nil
}

// divisorsNear lists the divisors of n closest to k, for error messages.
func divisorsNear(n int64, k int) string {
	below, above := int64(0), int64(0)
	for d := int64(k); d >= 1; d-- {
		if n%d == 0 {
			below = d
			break
		}
	}
	for d := int64(k); d <= n; d++ {
		if n%d == 0 {
			above = d
			break
		}
	}
	if below == above || above == 0 {
		return strconv.FormatInt(below, 10)
	}
	return fmt.Sprintf("%d or %d", below, above)
}

// formatFloat prints a float the shortest way that parses back exactly, in
// fixed notation: 1000000, never 1e+06, so a spec reads as it is written.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// formatNumber prints a number for a message: exact and in fixed notation
// (500, 12.5, 1000000) unless that would be long, from 1e21 up and below
// 1e-6 with an exponent (1e+300, 2.5e-07), as internal/report's Number
// does, so an error about rate=1e300 does not print 301 digits.
func formatNumber(v float64) string {
	if a := math.Abs(v); a != 0 && !math.IsInf(v, 0) && (a >= 1e21 || a < 1e-6) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// FormatDuration prints a duration in Go syntax with a single unit where
// one fits exactly ("1s", "500ms", "60s", "1500us"), so specs stay short;
// every spec string of the lab writes its durations this way.
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	case d%time.Microsecond == 0:
		return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}
