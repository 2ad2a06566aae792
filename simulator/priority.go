package simulator

import (
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// Prioritized requests (Sentinel's SphU.entryWithPriority, the arrivals'
// Priority flag): what each row counts of them, and what the outputs add.
// A run without prioritized arrivals writes exactly what it wrote before,
// except decisions.csv's priority column (always there, 0 or 1).

// PriorityResult is what a row did with the prioritized arrivals.
type PriorityResult struct {
	// Arrived and Passed count the prioritized arrivals and their passes;
	// OrdinaryArrived and OrdinaryPassed the others.
	Arrived, Passed                 int64
	OrdinaryArrived, OrdinaryPassed int64
	// WaitedForNextWindow counts the prioritized passes that waited for a
	// future window and were counted there in advance (a borrow: only
	// leap-array with occupy-timeout borrows; 0 for the other limiters,
	// which ignore the flag). Their waits are WaitP50, WaitP99, WaitMax.
	WaitedForNextWindow       int64
	WaitP50, WaitP99, WaitMax time.Duration
}

// prioAcc accumulates a row's prioritized arrivals.
type prioAcc struct {
	borrows         bool // the limiter borrows (algorithms.Borrower)
	arrived, passed int64
	borrowed        int64
	waits           waitHist
}

func newPrioAcc(lim algorithms.Limiter) prioAcc {
	b, ok := lim.(algorithms.Borrower)
	return prioAcc{borrows: ok && b.Borrows()}
}

// borrow records a borrowed pass admitted in bin b after waiting w.
func (p *prioAcc) borrow(b *Bin, w time.Duration) {
	b.Borrowed++
	p.borrowed++
	p.waits.add(w)
}

func (p *prioAcc) result(arrived, passed int64) *PriorityResult {
	if p.arrived == 0 {
		return nil
	}
	r := &PriorityResult{
		Arrived: p.arrived, Passed: p.passed,
		OrdinaryArrived: arrived - p.arrived, OrdinaryPassed: passed - p.passed,
		WaitedForNextWindow: p.borrowed,
	}
	q := p.waits.quantiles(50, 99)
	r.WaitP50, r.WaitP99, r.WaitMax = q[0], q[1], p.waits.max
	return r
}

// HasBorrowed reports whether any row borrowed (series.csv then has a
// borrowed column).
func HasBorrowed(r *Result) bool {
	for i := range r.Algorithms {
		if p := r.Algorithms[i].Priority; p != nil && p.WaitedForNextWindow > 0 {
			return true
		}
	}
	return false
}

// SeriesBorrowedColumn is the column series.csv adds, last, when a row
// borrowed: the passes of the bin that were borrowed (a subset of passed,
// counted at admission like them).
const SeriesBorrowedColumn = ",borrowed"

func appendBorrowedBin(b []byte, bin *Bin) []byte {
	b = append(b, ',')
	return strconv.AppendInt(b, bin.Borrowed, 10)
}

// prioritySummaryJS is what summary.json adds for a row that saw
// prioritized arrivals.
type prioritySummaryJS struct {
	Priority *priorityJS `json:"priority"`
	Waited   int64       `json:"waited_for_next_window"`
}

type priorityJS struct {
	Arrived           int64   `json:"arrived"`
	Passed            int64   `json:"passed"`
	PassRatio         jsonNum `json:"pass_ratio"`
	OrdinaryArrived   int64   `json:"ordinary_arrived"`
	OrdinaryPassed    int64   `json:"ordinary_passed"`
	OrdinaryPassRatio jsonNum `json:"ordinary_pass_ratio"`
	WaitP50Ms         jsonNum `json:"wait_p50_ms"`
	WaitP99Ms         jsonNum `json:"wait_p99_ms"`
	WaitMaxMs         jsonNum `json:"wait_max_ms"`
}

func prioritySummary(p *PriorityResult) *prioritySummaryJS {
	if p == nil {
		return nil
	}
	return &prioritySummaryJS{
		Priority: &priorityJS{
			Arrived: p.Arrived, Passed: p.Passed,
			PassRatio:       ratioJSON(p.Passed, p.Arrived),
			OrdinaryArrived: p.OrdinaryArrived, OrdinaryPassed: p.OrdinaryPassed,
			OrdinaryPassRatio: ratioJSON(p.OrdinaryPassed, p.OrdinaryArrived),
			WaitP50Ms:         jsonNum(fmtMs(p.WaitP50)),
			WaitP99Ms:         jsonNum(fmtMs(p.WaitP99)),
			WaitMaxMs:         jsonNum(fmtMs(p.WaitMax)),
		},
		Waited: p.WaitedForNextWindow,
	}
}

// appendPriority ends a decisions.csv row with its priority column.
func appendPriority(b []byte, prio bool) []byte {
	if prio {
		return append(b, ",1\n"...)
	}
	return append(b, ",0\n"...)
}
