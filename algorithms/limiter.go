// Package algorithms holds the rate limiters of ratelimit-lab.
//
// Every limiter decides from an explicit virtual time: Decide(now) is given
// the time of an arrival, measured from the start of the run, and answers
// pass or block, plus the queueing wait of a pass. No limiter reads the wall
// clock, sleeps, starts a goroutine or does I/O, so a test can script any
// sequence of instants, including a clock that steps backwards.
//
// The Sentinel limiters run on Sentinel's absolute millisecond clock: virtual
// time t is mapped to epoch + t, where the epoch is large and a multiple of
// every bucket length of the limiter and of 1000 ms. Bucket edges therefore
// fall on multiples of the bucket length in virtual time, and every limiter
// starts "idle since forever".
//
// # What a limiter implements
//
// A limiter is one file: its type implements Limiter, and the optional
// interfaces below for what it does beyond it; the code that needs a
// capability asks for the interface, as net/http asks a ResponseWriter
// for a Flusher, so no list of types elsewhere names it. Its registry line
// (its family's table in registry*.go) gives its spec's parameters, its
// constructor and its Caps, which a test holds to the interfaces.
//
//   - Stage (Check, then Record): it can be a stage of a chain A+B, and it
//     takes check-to-add when its Caps say CapCheckToAdd.
//   - RequestLimiter: it reads a request's keys, cost or priority.
//   - KeyColumnUser, KeyReporter, KeyNameUser, RequestStage: it reads key
//     columns itself (nginx-limit-req, sentinel-param).
//   - keyedStater: made per-key with key=, it keeps only a fixed-size
//     state per key (else one instance per key); KeyBound, Expirer: the
//     reference bounds or expires its per-key states; perKeyRefuser,
//     resourceWide: it cannot be made per-key, or not in some
//     configuration.
//   - Completer, SignalReader, Seeded: it reads completions, host signals
//     or the run's seed (the adaptive family), on the simulator's closed
//     loop.
//   - Warner: it has warnings about its configuration (Warnings).
//   - WindowLimiter, EpochReader: its limit differs by window length, or
//     it reads a wall clock.
package algorithms

import "time"

// Decision is a limiter's answer for one arrival.
type Decision struct {
	// Pass is true when the request is admitted.
	Pass bool
	// Wait is how long an admitted request queues before it is let through
	// (throttling and warm-up-rate-limiter). It is zero for blocks and for
	// immediate passes.
	Wait time.Duration
}

// Limiter is one rate-limiting algorithm with its state.
//
// Decide must be called with the arrivals in the order they happen; now may
// go backwards (a clock step), and each limiter then does what its reference
// does. A Limiter is not safe for concurrent use.
type Limiter interface {
	// Decide admits or blocks one request arriving at virtual time now.
	Decide(now time.Duration) Decision
	// Spec is the canonical spec string: the name and every parameter, with
	// defaults filled in, such that New(Spec()) builds an identical limiter.
	Spec() string
	// Rate is the limit expressed in requests per second (for overshoot).
	Rate() float64
	// StateBytes is the size of the limiter's state in bytes.
	StateBytes() int
}

// Stage is a Limiter whose decision and bookkeeping are two steps, the
// way its reference splits them: Sentinel's FlowSlot checks the window
// count (Check), and StatisticSlot adds the pass only after every slot of
// the chain has passed (Record). Chains of limiters and the check-to-add
// race are built on this split.
//
// Check decides at now and changes the state that the reference changes
// while deciding (x/time/rate spends its token, ThrottlingController moves
// latestPassedTime); it never records a pass in the statistics. Record
// records one admitted request at time at (normally the arrival plus its
// wait) in the statistics a later step keeps; it is a no-op for limiters
// that keep none. For every Stage, Decide(now) is Check(now) followed, for
// a pass, by Record(now + Wait) at the moment the clock reaches it.
type Stage interface {
	Limiter
	Check(now time.Duration) Decision
	Record(at time.Duration)
}
