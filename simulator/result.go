package simulator

import "time"

// Result is everything a run produced, ready for renderers.
type Result struct {
	// Scenario names the scenario or trace the arrivals came from.
	Scenario string
	// Limit is the scenario's limit in requests per second.
	Limit float64
	// Bin is the width of a series bin; Window the length of the sliding
	// window behind MaxWindowPassed.
	Bin, Window time.Duration
	// RequestedBin is Config.Bin as given; Bin is wider when the series
	// would otherwise have more than Config.MaxBins bins (see PlanBin).
	RequestedBin time.Duration
	// Start and End bound the run in true time; the first bin starts at
	// Start (normally 0).
	Start, End time.Duration
	// ClockSteps lists the first MaxClockSteps steps of the limiters'
	// clock, in arrival order; ClockStepCount counts all of them.
	ClockSteps     []ClockStep
	ClockStepCount int64
	// Algorithms holds one result per limiter, in the order given.
	Algorithms []AlgoResult
	// Workers says, with Config.Workers > 1, how each row was decided
	// (shard.go); nil otherwise. No file shows it.
	Workers []RowWorkers
}

// AlgoResult is one limiter's outcome.
type AlgoResult struct {
	// Spec is the limiter's canonical spec string; Name its registry name.
	Spec, Name string
	// Label, when set, names the row for people (the rule it came from,
	// with --rules); tables and charts show it instead of Name.
	Label string
	// Rate is the limiter's limit in requests per second.
	Rate float64
	// SampleCount is leap-array's sample count (0 for other limiters).
	SampleCount int
	// StateBytes is the size of the limiter's state.
	StateBytes int

	Arrived, Passed, Blocked int64
	// MaxWindowPassed is the largest number of admissions in any sliding
	// window of length Window; WindowLimit is Rate·Window and Overshoot
	// their ratio.
	MaxWindowPassed int64
	WindowLimit     float64
	Overshoot       float64
	// SmoothBound is the seed articles' smooth-traffic figure 1 + 1/N for
	// limiters with a sample count N (0 for the others), a ratio to compare
	// with Overshoot.
	SmoothBound float64
	// LateAdmissions counts admissions that came more than Config.Reorder
	// behind the latest admission time seen; when it is not zero,
	// MaxWindowPassed is a lower bound instead of exact (see windowMax).
	LateAdmissions int64
	// MaxWindowEnd is the end t of the first window (t−Window, t] that holds
	// MaxWindowPassed admissions, in true time; HasMaxWindow is false when
	// nothing was admitted.
	MaxWindowEnd time.Duration
	HasMaxWindow bool
	// PeakBinPassed is the largest number of admissions in one bin.
	PeakBinPassed int64
	// Wait percentiles over the passes.
	WaitP50, WaitP99, WaitMax time.Duration
	// Bins is the per-bin series, Bins[i] covering [Start+i·Bin, Start+(i+1)·Bin).
	Bins []Bin
	// NsPerDecision is the measured cost of one decision in this run.
	NsPerDecision float64
	// Redis holds a Redis limiter's figures (nil for the others).
	Redis *RedisFigures
	// Cluster holds a cluster limiter's figures (nil for the others).
	Cluster *ClusterFigures
	// KongSync holds a kong sync-rate row's figures (nil for the others).
	KongSync *KongSyncFigures
	// Replicas holds a replicas= row's per-replica figures (nil for the
	// others).
	Replicas *ReplicaFigures
	// EpochMs is the Unix ms that virtual time 0 maps to for a limiter that
	// reads a wall clock (kong, traefik, haproxy); HasEpochMs says there is
	// one. A Redis limiter's is in Redis.
	EpochMs    int64
	HasEpochMs bool
	// Chain holds the responses and the breaker of an evented row (a
	// chain, a breaker, or any row with a downstream or recorded
	// responses); nil on the fast path.
	Chain *ChainResult
	// Priority describes the prioritized arrivals (nil when there were
	// none; see priority.go).
	Priority *PriorityResult
	// Keys holds the per-key results of a keyed row (nil for the others).
	Keys *KeyResult
}

// ChainResult is what an evented row adds: its responses and its
// breaker's history.
type ChainResult struct {
	// Responses is true when passes got a response time (a downstream, a
	// trace with rt_ms, or a breaker whose passes complete at admission).
	Responses bool
	// Completed passes, those that failed (timeouts included), and those
	// the caller gave up on.
	Completed, Errors, Timeouts int64
	// RT percentiles over the completed passes: exit − admission.
	RTP50, RTP99, RTMax time.Duration
	// Breaker is the spec of the chain's breaker ("" when none).
	Breaker string
	// Transitions are the breaker's state changes in order.
	Transitions []Transition
	// Opens counts transitions to OPEN, Probes the requests let through
	// as a probe, OpenTime the true time spent OPEN up to the end of the
	// run.
	Opens, Probes int64
	OpenTime      time.Duration
	// Retries are the clients' retry attempts; Goodput the completed
	// passes without error or timeout (attempts included). RTP90 and
	// RTP999 complete the RT percentiles.
	Retries, Goodput int64
	RTP90, RTP999    time.Duration
	// RetriesDroppedAtEnd counts the retries the clients would have sent
	// at or after the end of the run: they are not sent (the run is the
	// span of the traffic), and their requests keep the outcome of their
	// last attempt.
	RetriesDroppedAtEnd int64
	// Adaptive is true when the row has an adaptive stage; Requests are
	// the stream's arrivals it saw (attempts = Requests + Retries).
	Adaptive bool
	Requests int64
	// Trigger is set for a run whose downstream has a phase that starts
	// within the run (its first phase, the trigger); TriggerEnds when that
	// phase also ends within the run, at TriggerEnd. Recovery is then the
	// time from TriggerEnd until goodput over one second is back within
	// ±10% of its mean over the 10 s before the phase (over the run's last
	// 10 s after the phase when the phase starts with the run); HasRecovery
	// is false when there is no trigger, the trigger never ends, or
	// goodput never came back within the run (see recovery).
	Recovery    time.Duration
	HasRecovery bool
	Trigger     bool
	TriggerEnds bool
	TriggerEnd  time.Duration
}

// Bin counts one bin of one limiter. Arrivals and blocks are counted at
// arrival, passes at admission (arrival + wait).
type Bin struct {
	Arrived, Passed, Blocked int64
	// WaitSum and WaitMax describe the waits of the passes admitted in this
	// bin.
	WaitSum, WaitMax time.Duration
	// Completed, Errors and Timeouts count the responses of an evented row
	// by their exit time; RTSum and RTMax describe their response times.
	Completed, Errors, Timeouts int64
	RTSum, RTMax                time.Duration
	// Borrowed counts the passes admitted in this bin that waited for a
	// future window and were counted there in advance (prioritized
	// requests on leap-array with occupy-timeout); they are among Passed.
	Borrowed int64
	// Fallbacks counts the arrivals of this bin a cluster limiter decided
	// on its fail path (series.csv's cluster_fallbacks; cluster.go).
	Fallbacks int64
	// KeysHurt counts the keys whose first reject fell in this bin (keyed
	// rows only; series.csv's keys_hurt column is its running sum).
	KeysHurt int64
	// Retries counts the retry attempts that arrived in this bin (also
	// in Arrived). InFlight and Limit are the first adaptive stage's calls
	// in flight and current limit after the bin's last arrival (Sampled
	// tells a bin without arrivals).
	Retries  int64
	InFlight int64
	Limit    float64
	Sampled  bool
	// RTP99 is the nearest-rank 99th percentile of the RTs of the
	// responses that exited in the bin (adaptive rows; after bins are
	// merged, the largest of theirs). CPU is the row's CPU signal after
	// the bin's last arrival (HasCPU when the row reads signals).
	RTP99  time.Duration
	CPU    float32
	HasCPU bool
}

// TuneResult is the outcome of running leap-array at several sample counts
// on the same arrivals (`ratelimit-lab tune`).
type TuneResult struct {
	Scenario string
	// Limit is the QPS limit given to every leap-array.
	Limit float64
	// Interval is leap-array's statistic interval; Window the sliding window
	// behind MaxWindowPassed; Bin the bin behind PeakBinPassed.
	Interval, Window, Bin time.Duration
	Rows                  []TuneRow
}

// TuneRow is one sample count's outcome.
type TuneRow struct {
	SampleCount int
	// Bucket is Interval / SampleCount.
	Bucket          time.Duration
	Arrived, Passed int64
	PassedPct       float64
	MaxWindowPassed int64
	// LateAdmissions as in AlgoResult: when not 0, MaxWindowPassed and
	// Overshoot are lower bounds.
	LateAdmissions int64
	// Overshoot is MaxWindowPassed divided by the limit over Window.
	Overshoot float64
	// SmoothBound is the articles' smooth-traffic figure 1 + 1/N.
	SmoothBound   float64
	PeakBinPassed int64
	StateBytes    int
	NsPerDecision float64
	// Skipped is non-empty when the sample count does not divide the
	// interval; it then says why, and the other fields are zero.
	Skipped string
}
