package concurrent

import (
	"time"

	"golang.org/x/time/rate"
)

// XRate is golang.org/x/time/rate's token bucket, the limiter most Go
// services reach for: rate Limit/Window tokens per second and burst 1, so
// that it paces the limit evenly and, like the windows, lets at most Limit
// through in any Window. AllowN is given the Clock's time, so tests can
// drive it with a fake clock. Inside, every call takes the Limiter's one
// sync.Mutex, reserves and spends the token in that critical section, so
// it never oversells; its lock contention is not visible from outside,
// and it keeps no totals (Counters is empty).
type XRate struct {
	l     *rate.Limiter
	clock Clock
	epoch time.Time
}

// NewXRate builds the limiter; c must be valid.
func NewXRate(c Config) *XRate {
	return &XRate{
		l:     rate.NewLimiter(rate.Limit(float64(c.Limit)/c.Window.Seconds()), 1),
		clock: c.clock(),
		epoch: time.Unix(1_600_000_000, 0),
	}
}

// Allow implements Limiter.
func (x *XRate) Allow() (bool, int64) {
	now := x.clock()
	if !x.l.AllowN(x.epoch.Add(time.Duration(now)), 1) {
		return false, 0
	}
	return true, now
}

// Counters implements Limiter: x/time/rate counts nothing visible.
func (x *XRate) Counters() Counters { return Counters{} }
