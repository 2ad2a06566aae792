package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// UberConfig configures an Uber limiter.
type UberConfig struct {
	// Rate is the number of Takes per second (New's rate, Per 1 s).
	Rate int
	// Slack is how many unspent permissions an idle limiter keeps for a
	// burst (WithSlack; WithoutSlack is 0).
	Slack int
}

// uberEpochNs is the Unix nanosecond the uber limiter's clock reads at
// virtual time 0. Take only compares and adds times, so decisions do not
// depend on it as long as the clock never reads exactly 0 (Take's "first
// call" mark).
const uberEpochNs = 1_600_000_000 * int64(time.Second)

// Uber is go.uber.org/ratelimit v0.3.1's New(rate, WithSlack(slack))
// (the atomic int64 limiter that New returns), with the clock reading
// epoch + t at each arrival and a Sleep that does not move it. The limiter
// keeps one number, the time of the next permission, in Unix nanoseconds.
// Take moves it one perRequest = 1s/rate (integer ns) later, but not
// earlier than maxSlack = slack·perRequest before now (when more than
// maxSlack + perRequest has passed it restarts at now − maxSlack; without
// slack, at now), and sleeps until it when it is in the future. So after an
// idle spell up to slack requests go through at once, and a steady
// overload is spaced perRequest apart. Take never refuses: every request
// passes, and Wait is the duration Take passes to Sleep.
//
// When the clock steps back, the next permission stays where it is and
// Take sleeps the difference plus perRequest, as the real Take does.
type Uber struct {
	st  uberState
	cfg uberParams
}

// uberState is what changes in an Uber: the Unix ns of the next
// permission, 0 before the first Take. A per-key uber keeps only this per
// key (8 bytes) and the configuration once.
type uberState struct{ state int64 }

type uberParams struct {
	UberConfig
	perRequest int64
	maxSlack   int64
}

// NewUber validates c and builds the limiter.
func NewUber(c UberConfig) (*Uber, error) {
	if c.Rate < 1 {
		return nil, fmt.Errorf("uber: rate must be a whole number ≥ 1, got %d (go.uber.org/ratelimit.New takes an int; for example rate=100)", c.Rate)
	}
	if c.Slack < 0 {
		return nil, fmt.Errorf("uber: slack must be ≥ 0, got %d (0 is WithoutSlack; the default is 10)", c.Slack)
	}
	per := int64(time.Second / time.Duration(c.Rate))
	return &Uber{cfg: uberParams{UberConfig: c, perRequest: per, maxSlack: int64(time.Duration(c.Slack) * time.Duration(per))}}, nil
}

// Decide implements Limiter.
func (u *Uber) Decide(now time.Duration) Decision { return u.Check(now) }

// Check implements Stage: Take at now; the permission is spent and the
// sleep is the wait.
func (u *Uber) Check(at time.Duration) Decision { return u.st.take(at, &u.cfg) }

// take is Take on u with configuration p; the single-key limiter and the
// per-key table both decide through it.
func (u *uberState) take(at time.Duration, p *uberParams) Decision {
	now := uberEpochNs + int64(at)
	var next int64
	switch {
	case u.state == 0 || (p.maxSlack == 0 && now-u.state > p.perRequest):
		next = now
	case p.maxSlack > 0 && now-u.state > p.maxSlack+p.perRequest:
		next = now - p.maxSlack
	default:
		next = u.state + p.perRequest
	}
	u.state = next
	if sleep := next - now; sleep > 0 {
		return Decision{Pass: true, Wait: time.Duration(sleep)}
	}
	return Decision{Pass: true}
}

// Record implements Stage; Take has already slept.
func (u *Uber) Record(time.Duration) {}

// Spec implements Limiter.
func (u *Uber) Spec() string { return fmt.Sprintf("uber:rate=%d,slack=%d", u.cfg.Rate, u.cfg.Slack) }

// Rate implements Limiter.
func (u *Uber) Rate() float64 { return float64(u.cfg.Rate) }

// StateBytes implements Limiter.
func (u *Uber) StateBytes() int { return int(unsafe.Sizeof(*u)) }

// keyedTable implements keyedStater: the last take and sleep per key.
func (u *Uber) keyedTable() keyedTable {
	p := u.cfg
	return stateTable(uberState{},
		func(st *uberState, now time.Duration, _ *Request) Decision { return st.take(now, &p) })
}
