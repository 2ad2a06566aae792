// Package concurrent holds rate limiters built for real goroutines on the
// wall clock, so that `ratelimit-lab bench` can measure what each design
// costs under contention on one hot key: throughput, the latency of one
// decision, and how far past its limit the design lets traffic through
// when many goroutines decide at once.
//
// This is the one place in the lab that leaves the virtual clock. The
// limiters in package algorithms decide one arrival at a time from an
// explicit now; here many goroutines call Allow at once and time comes
// from a Clock, normally the process's monotonic clock (tests inject a
// fake one so that their assertions do not depend on the machine's speed).
//
// Every limiter admits Limit passes per Window. Each implementation is in
// its own file with its design in its doc comment:
//
//   - SentinelRing: Sentinel's lock-free LeapArray with DefaultController
//     and StatisticSlot, check and add in two steps (it can oversell);
//   - MutexRing: the same ring behind one mutex, check and add in one
//     critical section (it never oversells);
//   - AtomicFixedWindow: a fixed window in one 64-bit word, checked and
//     added by one compare-and-swap (it never oversells);
//   - XRate: golang.org/x/time/rate's Limiter.AllowN with burst 1.
package concurrent

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
)

// Clock returns nanoseconds since some fixed start; it must never go back
// (the monotonic clock, or a fake one in tests). It is called from many
// goroutines at once.
type Clock func() int64

// WallClock returns a Clock reading the monotonic wall clock from now.
func WallClock() Clock {
	start := time.Now()
	return func() int64 { return int64(time.Since(start)) }
}

// Limiter decides requests for one key from many goroutines at once.
type Limiter interface {
	// Allow decides one request now. For a pass, at is the Clock reading
	// at which the pass was recorded in the limiter's statistics (what a
	// later decision can see); for a block it is 0.
	Allow() (pass bool, at int64)
	// Counters reports what the limiter counted so far. It may be called
	// while other goroutines call Allow; the counts are then approximate.
	Counters() Counters
}

// Counters are the events behind a design's cost under contention.
type Counters struct {
	// Calls, Passes and Blocks are the decisions as the design itself
	// counts them (Passes+Blocks = Calls once every Allow has returned).
	// They are zero for a design that keeps no totals (the atomic fixed
	// window and x/time/rate): a shared counter written on every call
	// would cost more than the design's own decision, so the bench counts
	// decisions per goroutine instead.
	Calls, Passes, Blocks int64
	// CASFailures counts compare-and-swaps that lost a race (a bucket
	// installed or a count changed by another goroutine in between).
	CASFailures int64
	// LockMisses counts lock acquisitions that found the lock taken (a
	// failed tryLock, or a Lock that had to wait).
	LockMisses int64
	// Yields counts runtime.Gosched calls (Sentinel's Thread.yield()).
	Yields int64
}

// Config configures every implementation.
type Config struct {
	// Limit is the number of passes allowed per Window.
	Limit int
	// Window is the statistic interval; the rings need whole milliseconds
	// divisible by SampleCount (Sentinel's INTERVAL).
	Window time.Duration
	// SampleCount is the number of buckets of the rings (Sentinel's
	// SAMPLE_COUNT, default 2).
	SampleCount int
	// Clock is the time source; nil means WallClock().
	Clock Clock
}

// MaxLimit is the largest Limit: AtomicFixedWindow keeps the count in 24
// bits of its state word.
const MaxLimit = 1<<24 - 1

// MaxSampleCount bounds SampleCount: the rings allocate one bucket per
// sample up front (as algorithms' leap-array:flavor=go bounds its own).
const MaxSampleCount = 100_000

// Validate reports a configuration no implementation can run, naming the
// CLI flag and the fix, on one line.
func (c *Config) Validate() error {
	if c.Limit < 1 || c.Limit > MaxLimit {
		return fmt.Errorf("--limit must be between 1 and %d passes per window, got %d (for example --limit 100)", MaxLimit, c.Limit)
	}
	if c.Window <= 0 || c.Window%time.Millisecond != 0 {
		return fmt.Errorf("--window must be a positive whole number of milliseconds, got %v (for example --window 100ms)", c.Window)
	}
	if c.SampleCount < 1 || c.SampleCount > MaxSampleCount {
		return fmt.Errorf("--sample-count must be between 1 and %d, got %d (for example --sample-count 2)", MaxSampleCount, c.SampleCount)
	}
	if (c.Window/time.Millisecond)%time.Duration(c.SampleCount) != 0 {
		return fmt.Errorf("--sample-count %d does not divide --window %v into whole milliseconds, as Sentinel requires (for example --sample-count 2)", c.SampleCount, c.Window)
	}
	return nil
}

func (c Config) clock() Clock {
	if c.Clock == nil {
		return WallClock()
	}
	return c.Clock
}

// Impl names one implementation and builds it.
type Impl struct {
	Name    string
	Summary string
	New     func(Config) Limiter
}

// Impls are the implementations, in the order bench runs them.
var Impls = []Impl{
	{"sentinel-ring", "Sentinel's lock-free LeapArray: CAS install, tryLock reset + Gosched, LongAdder-style counters, check then add", func(c Config) Limiter { return NewSentinelRing(c) }},
	{"mutex-ring", "the same ring behind one sync.Mutex, check and add in one critical section", func(c Config) Limiter { return NewMutexRing(c) }},
	{"atomic-fixed-window", "fixed window in one uint64 (window, count), check and add by one CAS", func(c Config) Limiter { return NewAtomicFixedWindow(c) }},
	{"x-time-rate", "golang.org/x/time/rate Limiter.AllowN, rate limit/window, burst 1 (a mutex inside)", func(c Config) Limiter { return NewXRate(c) }},
}

// Names lists the implementation names in order.
func Names() []string {
	out := make([]string, len(Impls))
	for i, im := range Impls {
		out[i] = im.Name
	}
	return out
}

// Lookup finds an implementation by name; an unknown name is a one-line
// error naming the nearest one and all of them.
func Lookup(name string) (Impl, error) {
	for _, im := range Impls {
		if im.Name == name {
			return im, nil
		}
	}
	return Impl{}, fmt.Errorf("unknown implementation %q%s; known: %s", name, suggest.DidYouMean(name, Names()), strings.Join(Names(), ", "))
}

// counter is a plain atomic counter on its own cache line.
type counter struct {
	atomic.Int64
	_ [56]byte
}
