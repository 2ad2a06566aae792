package algorithms

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"
)

// Kong's rate-limiting units, in the plugin's order.
const (
	kongSecond = iota
	kongMinute
	kongHour
	kongDay
	kongMonth
	kongYear
	kongUnits
)

var kongUnitNames = [kongUnits]string{"second", "minute", "hour", "day", "month", "year"}

// kongExpiration is kong/plugins/rate-limiting/expiration.lua: each
// counter's TTL in seconds, set when the counter is created. A month is 30
// days and a year 365, whatever the calendar says.
var kongExpiration = [kongUnits]int64{1, 60, 3600, 86400, 2592000, 31536000}

// KongConfig configures a Kong limiter.
type KongConfig struct {
	// Limits per unit (second … year); 0 means the unit is not configured.
	Limits [kongUnits]float64
	// Redis selects policy=redis (sync_rate −1, the default); false is
	// policy=local.
	Redis bool
}

// Kong is Kong Gateway's OSS rate-limiting plugin (handler.lua,
// policies/init.lua, kong/tools/timestamp.lua) for one identifier.
//
// Time is ngx.time(): whole Unix seconds of the lab's epoch + t. Each
// configured unit counts in a UTC calendar window: the second, the minute
// (:00), the hour, the day (00:00 UTC), the calendar month and year; the
// window's counter is a key (its start in the key) created with a TTL of
// EXPIRATION[unit] seconds. A request passes iff limit − usage > 0 for
// every configured unit (all are checked; any one stops it).
//
//   - policy=local: usage is the shared-dict counter (0 when absent or
//     expired); only a passed request increments every configured unit,
//     in a timer_at(0) that the lab runs before the next arrival.
//   - policy=redis (sync_rate = −1, the default): usage() itself runs
//     INCR (with EXPIRE on the first) for every configured unit and uses
//     the value before it, so rejected requests count too: a client over
//     the limit keeps its window's counter rising.
//
// A counter expires TTL seconds after its creation, checked in ms
// (now > expiry, as ngx.shared.DICT and Redis do). Months are 30-day TTLs:
// in a 31-day month a counter created on the 1st is gone on the 31st, and
// the month's count starts again from 0 (likewise a leap year's Dec 31).
//
// The lab keeps one counter per unit, the current window's: a clock that
// steps back into an earlier window finds it empty, where Kong could still
// find that window's key.
//
// The epoch (virtual time 0) is the first multiple of the largest
// configured unit up to a day (a day for month and year) at or after
// 1.6e12 Unix ms, so every configured second, minute, hour and day window
// starts at t = 0.
type Kong struct {
	ctr [kongUnits]kongCounter // ctr[i] is the counter of cfg.units[i]
	cfg *kongParams
}

// A per-key kong keeps only the counters of its configured units per key,
// by value in the flat table (40 bytes a unit: kongCounters), and the
// limits once.

type kongCounter struct {
	start, end int64 // the window [start, end), Unix seconds
	count      int64
	expiry     int64 // Unix ms; the counter exists iff live and now ≤ expiry
	live       bool
}

type kongParams struct {
	KongConfig
	epoch int64
	units []int // configured units, in order
}

// NewKong validates c and builds the limiter.
func NewKong(c KongConfig) (*Kong, error) {
	p := &kongParams{KongConfig: c}
	largest := int64(1000)
	for u, l := range c.Limits {
		if l == 0 {
			continue
		}
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("kong: %s must be a positive number, got %s (for example %s=100)", kongUnitNames[u], formatNumber(l), kongUnitNames[u])
		}
		p.units = append(p.units, u)
		largest = max(largest, min(kongExpiration[u], 86400)*1000)
	}
	if len(p.units) == 0 {
		return nil, fmt.Errorf("kong: give at least one of second, minute, hour, day, month, year (for example kong:minute=100)")
	}
	l := largest // a multiple of 1000 and of every smaller unit
	const target = 1_600_000_000_000
	p.epoch = (target + l - 1) / l * l
	return &Kong{cfg: p}, nil
}

// Decide implements Limiter.
func (k *Kong) Decide(now time.Duration) Decision { return k.Check(now) }

// Record implements Stage; the plugin counts while deciding (redis) or in
// a timer right after (local), which the lab runs at once.
func (k *Kong) Record(time.Duration) {}

// Check implements Stage: access() for one request.
func (k *Kong) Check(now time.Duration) Decision {
	return kongCheck(k.ctr[:len(k.cfg.units)], now, k.cfg)
}

// kongCheck is access() on the counters ctr of p's configured units, in
// order; the single-key limiter and the per-key table both decide
// through it.
func kongCheck(ctr []kongCounter, now time.Duration, p *kongParams) Decision {
	ms := p.epoch + floorMs(now)
	sec := floorDiv(ms, 1000)
	stop := false
	for i, u := range p.units {
		c := &ctr[i]
		c.window(u, sec)
		var usage int64
		if p.Redis {
			// INCR key; EXPIRE key ttl when the INCR made it 1.
			if !c.exists(sec, ms) {
				c.live, c.count, c.expiry = true, 0, ms+kongExpiration[u]*1000
			}
			c.count++
			usage = c.count - 1
		} else if c.exists(sec, ms) {
			usage = c.count
		}
		if p.Limits[u]-float64(usage) <= 0 {
			stop = true
		}
	}
	if stop {
		return Decision{}
	}
	if !p.Redis {
		// shm:incr(key, 1, 0, EXPIRATION[unit]) for every configured unit.
		for i, u := range p.units {
			c := &ctr[i]
			if !c.exists(sec, ms) {
				c.live, c.count, c.expiry = true, 0, ms+kongExpiration[u]*1000
			}
			c.count++
		}
	}
	return Decision{Pass: true}
}

// window makes c's window the one holding sec; the counter of an earlier
// window is then absent (a new key).
func (c *kongCounter) window(u int, sec int64) {
	if c.live && sec >= c.start && sec < c.end {
		return
	}
	start, end := kongWindow(u, sec)
	if c.live && start == c.start {
		return
	}
	c.start, c.end, c.live = start, end, false
}

// exists reports whether the window's counter is present at ms.
func (c *kongCounter) exists(sec, ms int64) bool { return c.live && ms <= c.expiry }

// kongWindow is the UTC calendar window of unit u holding Unix second sec,
// as kong.tools.timestamp.get_timestamps computes its start.
func kongWindow(u int, sec int64) (start, end int64) {
	switch u {
	case kongSecond, kongMinute, kongHour, kongDay:
		n := kongExpiration[u]
		start = floorDiv(sec, n) * n
		return start, start + n
	}
	t := time.Unix(sec, 0).UTC()
	if u == kongMonth {
		s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		return s.Unix(), s.AddDate(0, 1, 0).Unix()
	}
	s := time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	return s.Unix(), s.AddDate(1, 0, 0).Unix()
}

// kongTable is the per-key table of a kong with n configured units: an
// array of n counters per key.
func kongTable(p *kongParams) keyedTable {
	switch len(p.units) {
	case 1:
		return stateTable([1]kongCounter{}, func(st *[1]kongCounter, now time.Duration, _ *Request) Decision { return kongCheck(st[:], now, p) })
	case 2:
		return stateTable([2]kongCounter{}, func(st *[2]kongCounter, now time.Duration, _ *Request) Decision { return kongCheck(st[:], now, p) })
	case 3:
		return stateTable([3]kongCounter{}, func(st *[3]kongCounter, now time.Duration, _ *Request) Decision { return kongCheck(st[:], now, p) })
	case 4:
		return stateTable([4]kongCounter{}, func(st *[4]kongCounter, now time.Duration, _ *Request) Decision { return kongCheck(st[:], now, p) })
	case 5:
		return stateTable([5]kongCounter{}, func(st *[5]kongCounter, now time.Duration, _ *Request) Decision { return kongCheck(st[:], now, p) })
	}
	return stateTable([kongUnits]kongCounter{}, func(st *[kongUnits]kongCounter, now time.Duration, _ *Request) Decision {
		return kongCheck(st[:], now, p)
	})
}

// floorDiv is ⌊a / b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// EpochMs is the Unix ms of virtual time 0.
func (k *Kong) EpochMs() int64 { return k.cfg.epoch }

// Spec implements Limiter.
func (k *Kong) Spec() string {
	var b strings.Builder
	b.WriteString("kong:")
	for _, u := range k.cfg.units {
		fmt.Fprintf(&b, "%s=%s,", kongUnitNames[u], formatFloat(k.cfg.Limits[u]))
	}
	if k.cfg.Redis {
		b.WriteString("policy=redis")
	} else {
		b.WriteString("policy=local")
	}
	return b.String()
}

// Rate implements Limiter: the strictest configured unit's limit per its
// length (a month as 30 days, a year as 365).
func (k *Kong) Rate() float64 {
	r := math.Inf(1)
	for _, u := range k.cfg.units {
		r = min(r, k.cfg.Limits[u]/float64(kongExpiration[u]))
	}
	return r
}

// WindowLimit implements WindowLimiter: the tightest configured limit at
// a window of w, each limit L per unit U allowing L·max(1, w/U) in w (a
// month as 30 days, a year as 365). At w = 1 s, second=100,minute=5000 is
// 100 (Rate's 5000/60 = 83.3 is the minute's, spread over its seconds);
// at w = 1 min it is 5000.
func (k *Kong) WindowLimit(w time.Duration) float64 {
	r := math.Inf(1)
	for _, u := range k.cfg.units {
		r = min(r, k.cfg.Limits[u]*max(1, w.Seconds()/float64(kongExpiration[u])))
	}
	return r
}

// StateBytes implements Limiter: a counter per unit and a pointer to the
// shared configuration.
func (k *Kong) StateBytes() int { return int(unsafe.Sizeof(*k)) }

// keyedTable implements keyedStater: one counter per configured unit and
// key (kongTable).
func (k *Kong) keyedTable() keyedTable { return kongTable(k.cfg) }

// Fresh implements Freshener: no counters yet, sharing k's configuration.
func (k *Kong) Fresh() Limiter { return &Kong{cfg: k.cfg} }
