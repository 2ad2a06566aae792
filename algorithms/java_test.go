package algorithms

import (
	"math"
	"testing"
	"time"
)

// TestEpochMs: the epoch is the first multiple of lcm(bucket, 1000) at or
// after 1,600,000,000,000 ms, so bucket and second edges fall on
// multiples of their length in virtual time.
func TestEpochMs(t *testing.T) {
	cases := []struct{ bucketMs, want int64 }{
		{1, 1_600_000_000_000},
		{500, 1_600_000_000_000},
		{1000, 1_600_000_000_000},
		{3, 1_600_000_002_000},     // lcm 3000: 533333334 · 3000
		{7, 1_600_000_003_000},     // lcm 7000: 228571429 · 7000
		{1024, 1_600_000_000_000},  // lcm 128000: 12500000 · 128000
		{60000, 1_600_000_020_000}, // 26666667 · 60000
	}
	for _, c := range cases {
		got := epochMs(c.bucketMs)
		if got != c.want {
			t.Errorf("epochMs(%d) = %d, want %d", c.bucketMs, got, c.want)
		}
		if got%c.bucketMs != 0 || got%1000 != 0 {
			t.Errorf("epochMs(%d) = %d is not a multiple of the bucket and of 1000", c.bucketMs, got)
		}
	}
	if gcd(12, 18) != 6 || lcm(500, 1000) != 1000 || lcm(7, 1000) != 7000 {
		t.Errorf("gcd(12, 18) = %d, lcm(500, 1000) = %d, lcm(7, 1000) = %d", gcd(12, 18), lcm(500, 1000), lcm(7, 1000))
	}
}

// TestFloorMs floors towards minus infinity, so a clock stepped before 0
// floors as System.currentTimeMillis() would.
func TestFloorMs(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want int64
	}{
		{0, 0}, {999999, 0}, {time.Millisecond, 1}, {1500 * time.Microsecond, 1},
		{-1, -1}, {-time.Millisecond, -1}, {-time.Millisecond - 1, -2}, {-1500 * time.Microsecond, -2},
		{math.MaxInt64, math.MaxInt64 / 1_000_000},
	}
	for _, c := range cases {
		if got := floorMs(c.d); got != c.want {
			t.Errorf("floorMs(%d ns) = %d, want %d", int64(c.d), got, c.want)
		}
	}
}

// TestJavaArithmetic: Java's (long) and (int) casts truncate towards zero,
// saturate and send NaN to 0; Math.round rounds ties towards +∞ and does
// not round 0.49999999999999994 up; Math.nextUp is the next double up.
func TestJavaArithmetic(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		x    float64
		want int64
	}{{2.9, 2}, {-2.9, -2}, {nan, 0}, {1e19, math.MaxInt64}, {-1e19, math.MinInt64}, {inf, math.MaxInt64}, {-inf, math.MinInt64}} {
		if got := javaD2L(c.x); got != c.want {
			t.Errorf("(long) %v = %d, want %d", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want int32
	}{{2.9, 2}, {-0.5, 0}, {nan, 0}, {3e9, math.MaxInt32}, {-3e9, math.MinInt32}, {2147483647.5, math.MaxInt32}} {
		if got := javaD2I(c.x); got != c.want {
			t.Errorf("(int) %v = %d, want %d", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want int64
	}{
		{0.5, 1}, {-0.5, 0}, {1.5, 2}, {-1.5, -1}, {2.5, 3}, {-2.4, -2}, {-2.6, -3},
		{0.49999999999999994, 0}, {96.15384615384616, 96}, {1428.5714285714287, 1429},
		{nan, 0}, {1e20, math.MaxInt64}, {-1e20, math.MinInt64},
	} {
		if got := javaRound(c.x); got != c.want {
			t.Errorf("Math.round(%v) = %d, want %d", c.x, got, c.want)
		}
	}
	if got := nextUp(1); got != 1+math.Pow(2, -52) {
		t.Errorf("nextUp(1) = %v", got)
	}
	if got := nextUp(0); got != math.SmallestNonzeroFloat64 {
		t.Errorf("nextUp(0) = %v", got)
	}
	if got := nextUp(-math.SmallestNonzeroFloat64); got != 0 {
		t.Errorf("nextUp(-min) = %v", got)
	}
}
