package algorithms

import (
	"strconv"
	"time"
)

// Explainer is a Limiter that can say, for one request, what it reads and
// how its reference decides: the decision trace of `ratelimit-lab why`.
// Explain changes nothing; the caller asks it just before the request's
// decision (the state the request sees and the arithmetic that decides it)
// and just after (the state it left), only when a trace is asked for, so a
// normal run never calls it.
//
// Each family's Explain is in its own NAME_explain.go, beside the
// limiter, and recomputes the decision on a copy of the state with the
// limiter's own functions, so the verdict it states is the one Decide
// then returns (the why command checks that, and says so when not).
type Explainer interface {
	Limiter
	Explain(now time.Duration, r *Request) Explanation
}

// Explanation is one limiter's account of one request.
type Explanation struct {
	// Rule is the configured rule in the reference's own terms
	// ("rate=10r/s burst=0 (limit_req)").
	Rule string
	// State is the state the request reads, in one line: tokens and
	// their time, the window's buckets, the queue's next free time.
	State string
	// Math is the reference's arithmetic for this request, with its
	// roundings and truncations, ending in the verdict.
	Math string
	// Pass is the verdict Math reaches, Wait the queueing it implies.
	Pass bool
	Wait time.Duration
}

// fmtF prints a float64 exactly enough to repeat the reference's
// arithmetic: the shortest representation that reads back the same.
func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// fmtMs prints a virtual time in milliseconds of the run, as the traces
// write them.
func fmtMs(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
}

// verdict is "pass" or "reject".
func verdict(pass bool) string {
	if pass {
		return "pass"
	}
	return "reject"
}

// reqCost is r's cost, 1 for a nil request.
func reqCost(r *Request) int32 {
	if r == nil {
		return 1
	}
	return r.cost()
}
