package algorithms

import (
	"fmt"
	"math"
	"time"
)

// Parameters and parsers of the Guava, uber and window limiters.

var (
	pRate         = p("rate", "", "permits per second, may be fractional", kindFloat)
	pGuavaTimeout = p("timeout", "0", "tryAcquire timeout: 0 never waits, inf is acquire()", kindDuration)
)

// guavaTimeout parses a Guava timeout: "inf" for acquire(), or a duration
// ≥ 0 ("0" needs no unit).
func (a *args) guavaTimeout() (time.Duration, error) {
	v, _ := a.lookup("timeout")
	switch v {
	case "inf":
		return InfiniteTimeout, nil
	case "0":
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s: timeout %q is not a duration ≥ 0 or inf (for example timeout=0, timeout=200ms or timeout=inf for acquire())", a.name, v)
	}
	return d, nil
}

// wholeRate reads a rate that must be a positive whole number; a rate
// taken from the scenario's limit must be whole too.
func (a *args) wholeRate(key string) (int, error) {
	f, err := a.float(key)
	if err != nil {
		return 0, err
	}
	if !(f >= 1) || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %s must be a whole number ≥ 1, got %s (go.uber.org/ratelimit.New takes an int; for example %s=100)", a.name, key, formatNumber(f), key)
	}
	return int(f), nil
}
