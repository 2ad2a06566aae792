package algorithms

import (
	"math"
	"time"
)

// This file holds the small pieces of Java arithmetic that the Sentinel
// limiters must reproduce bit for bit, and the mapping of virtual time onto
// Sentinel's absolute clock.

// epochMs is the absolute millisecond that virtual time 0 maps to, for a
// limiter whose bucket length is bucketMs. It is large (about 2020-09 in
// Unix milliseconds), and a multiple of bucketMs and of 1000, so bucket
// edges and second edges fall on multiples of their length in virtual time.
func epochMs(bucketMs int64) int64 {
	l := lcm(bucketMs, 1000)
	const target = 1_600_000_000_000
	return (target + l - 1) / l * l
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }

// floorMs floors a virtual time to whole milliseconds (towards minus
// infinity, so a clock stepped before 0 still floors correctly).
func floorMs(d time.Duration) int64 {
	if d >= 0 {
		// Unsigned division by a constant: a multiply, no sign fix-up.
		return int64(uint64(d) / uint64(time.Millisecond))
	}
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond < 0 {
		ms--
	}
	return ms
}

// javaD2L is Java's (long) cast of a double: truncation towards zero,
// saturating at the long range, NaN to 0. Go's conversion of an
// out-of-range float is implementation-defined, so it is spelled out.
func javaD2L(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// javaD2I is Java's (int) cast of a double.
func javaD2I(x float64) int32 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(x)
}

// javaRound is Java's Math.round(double): the closest long, ties towards
// positive infinity, saturating, NaN to 0.
func javaRound(x float64) int64 {
	if x != x {
		return 0
	}
	// floor(x+0.5) would round 0.49999999999999994 up; x - floor(x) is
	// exact for every double, so compare the fraction instead.
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return javaD2L(f)
}

// nextUp is Java's Math.nextUp(double).
func nextUp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
