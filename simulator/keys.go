package simulator

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// This file is the per-key accounting of a row whose limiter keeps state
// per key (algorithms.KeyReporterOf): per key id of the limiter's key
// column, what it offered and what it got, in flat arrays indexed by the
// interned id, so that memory follows the distinct keys, not the trace.

// KeyStat is one key's figures in one row.
type KeyStat struct {
	Requests, Passed, Rejected, Delayed uint32
	// TotalDelay sums the waits of the delayed passes.
	TotalDelay time.Duration
	// FirstReject is the true time of the key's first reject (when
	// Rejected > 0).
	FirstReject time.Duration
	// Evicted is how many times the limiter dropped the key's state.
	Evicted int32
	// Over is true when, in some window of the limiter's nominal length,
	// the key offered more than the nominal limit (see overTracker).
	Over bool
	// win is the key's window for Over, beside its counters so that a
	// request touches one place (issue 27).
	win overKey
}

// KeyResult is a keyed row's per-key results.
type KeyResult struct {
	// Column is the index of the key column in Arrival.Keys.
	Column int
	// Stats is indexed by key id; ids the row never saw have Requests 0.
	Stats KeyStats
	// NominalLimit requests per NominalWindow: the limit per key that
	// Over is measured against (0 when the limiter has none). A window of
	// 0 is a concurrency limit: NominalLimit calls in flight at once, and
	// a key is over when it offered a call with that many of its own in
	// flight (algorithms.KeyOverReporter).
	NominalLimit                             float64
	NominalWindow                            time.Duration
	DistinctKeys, KeysHurt, InnocentKeysHurt int64
	// HasUsers is true when arrivals carried a user; then UsersHurt counts
	// the users with a reject and InnocentUsersHurt those of them who
	// never offered more than the nominal limit themselves.
	// DistinctUsers counts the users that sent a request.
	HasUsers                                    bool
	DistinctUsers, UsersHurt, InnocentUsersHurt int64
	Figures                                     algorithms.KeyFigures
	// ExtraPassesFromEviction is Passed minus the passes of the same
	// limiter with an unbounded table run beside it (HasShadow).
	ExtraPassesFromEviction int64
	// EmptyKeys counts the requests whose key column was empty (each met
	// by the limiter's rule for an empty key).
	EmptyKeys int64
}

// keyStats accumulates one keyed row.
type keyStats struct {
	rep   algorithms.KeyReporter
	acct  algorithms.KeyAccounter // a limiter that charges an empty key to another (Kong's fallback), or nil
	col   int
	stats KeyStats
	over  overTracker
	// Users: hurt flags and their own windows.
	// userHurt is by user id: userSeen when the user sent a request,
	// userHurtBit too when one was rejected.
	userHurt []uint8
	userWin  []overKey
	userOver overTracker
	hasUsers bool
	empty    int64 // requests whose key column was empty
	// sharded is set when a split row's shards record the per-key
	// statistics (shardKeys, shard.go): addBatch then records the users
	// only, and the shards' statistics are merged in at the end.
	sharded bool
}

func newKeyStats(lim algorithms.Limiter) *keyStats {
	rep := algorithms.KeyReporterOf(lim)
	if rep == nil {
		return nil
	}
	limit, window := rep.KeyNominal()
	acct, _ := rep.(algorithms.KeyAccounter)
	return &keyStats{rep: rep, acct: acct, col: rep.KeyIndex(),
		over: newOverTracker(limit, window), userOver: newOverTracker(limit, window)}
}

// add records one decision for arrival a. (The accumulator is not used:
// the series' keys_hurt is counted at the end, from each key's
// FirstReject; see hurtBins.)
func (k *keyStats) add(_ *accumulator, at time.Duration, keys *[scenarios.MaxKeyColumns]int32, user, cost int32, d algorithms.Decision) {
	id := keys[k.col]
	if id < 0 {
		k.empty++
	}
	if id < 0 && k.acct != nil {
		id = k.acct.AccountKey(keys) // the key the limiter charged it to
	}
	if id < 0 {
		return
	}
	if int(id) >= k.stats.Len() {
		k.stats.grow(int(id) + 1)
	}
	c := max(cost, 1)
	addKey(k.stats.At(int(id)), &k.over, at, c, d)
	if user >= 0 {
		k.addUser(user, at, c, !d.Pass)
	}
}

// addKey records one decision of a key whose figures are s and whose
// windows for Over are over's.
func addKey(s *KeyStat, over *overTracker, at time.Duration, c int32, d algorithms.Decision) {
	s.Requests++
	if !s.Over {
		s.Over = over.add(&s.win, at, c)
	}
	switch {
	case !d.Pass:
		if s.Rejected == 0 {
			s.FirstReject = at
		}
		s.Rejected++
	case d.Wait > 0:
		s.Passed++
		s.Delayed++
		s.TotalDelay += d.Wait
	default:
		s.Passed++
	}
}

// addUser records a request of cost c of user at at (hurt: rejected).
// Users are not keys (a user may send under many keys): they are counted
// on the row's goroutine, in arrival order, whether or not the row is
// split.
func (k *keyStats) addUser(user int32, at time.Duration, c int32, hurt bool) {
	k.hasUsers = true
	if int(user) >= len(k.userHurt) {
		n := max(int(user)+1, 2*len(k.userHurt))
		k.userHurt = append(k.userHurt, make([]uint8, n-len(k.userHurt))...)
	}
	if int(user) >= len(k.userWin) {
		k.userWin = growOverKeys(k.userWin, int(user)+1)
	}
	k.userOver.add(&k.userWin[user], at, c)
	k.userHurt[user] |= userSeen
	if hurt {
		k.userHurt[user] |= userHurtBit
	}
}

// The bits of keyStats.userHurt.
const (
	userSeen    uint8 = 1
	userHurtBit uint8 = 2
)

// addBatch is add for a batch of the fast path; for a split row (sharded)
// the users alone, as add counts them: a request whose key (or the key it
// is charged to) is empty counts for no user.
func (k *keyStats) addBatch(acc *accumulator, arr []scenarios.Arrival, ds []algorithms.Decision) {
	if !k.sharded {
		for j := range arr {
			a := &arr[j]
			k.add(acc, a.At, &a.Keys, a.User, a.Weight(), ds[j])
		}
		return
	}
	for j := range arr {
		a := &arr[j]
		if a.User < 0 {
			continue
		}
		if id := a.Keys[k.col]; id < 0 && (k.acct == nil || k.acct.AccountKey(&a.Keys) < 0) {
			continue
		}
		k.addUser(a.User, a.At, max(a.Weight(), 1), !ds[j].Pass)
	}
}

// hurtBins counts each hurt key into the series' keys_hurt of the bin of
// its first reject. Counting them there at the end instead of at each
// first reject gives the same bins: the bins only ever grow to hold more
// times and merge when they widen, so the bin a time falls in at the end
// holds whatever was counted for it earlier; and every first reject is an
// arrival's time, which the accumulator's bins already hold, so no bin is
// added (hurtBins must run before the bins are aligned, in assemble).
func (k *keyStats) hurtBins(acc *accumulator) {
	for id := range k.stats.Len() {
		if s := k.stats.At(id); s.Rejected > 0 {
			acc.binAt(int64(s.FirstReject)).KeysHurt++
		}
	}
}

func (k *keyStats) result(passed int64) *KeyResult {
	r := &KeyResult{Column: k.col, Stats: k.stats, HasUsers: k.hasUsers, Figures: k.rep.KeyFigures(), EmptyKeys: k.empty}
	r.NominalLimit, r.NominalWindow = k.rep.KeyNominal()
	for id := range r.Stats.Len() {
		s := r.Stats.At(id)
		if s.Requests == 0 {
			continue
		}
		s.win = overKey{} // the tracker's, of no use now (and a split row's shards' own)
		s.Evicted = k.rep.KeyEvictions(int32(id))
		if o, ok := k.rep.(algorithms.KeyOverReporter); ok && o.KeyOver(int32(id)) {
			s.Over = true // a concurrency limit: offered a call at its limit
		}
		r.DistinctKeys++
		if s.Rejected > 0 {
			r.KeysHurt++
			if !s.Over {
				r.InnocentKeysHurt++
			}
		}
	}
	for u, seen := range k.userHurt {
		if seen&userSeen != 0 {
			r.DistinctUsers++
		}
		if seen&userHurtBit != 0 {
			r.UsersHurt++
			if u >= len(k.userWin) || k.userWin[u].n >= 0 {
				r.InnocentUsersHurt++
			}
		}
	}
	if r.Figures.HasShadow {
		r.ExtraPassesFromEviction = passed - r.Figures.ShadowPasses
	}
	return r
}

// overTracker tells, per id, whether the id ever offered more than m
// requests within a window of length w: more than m arrivals (a request
// of cost c counts c times) at times t_i ≤ … ≤ t_j with t_j − t_i < w.
// m is ⌊limit⌋. The times of one id never decrease (the engine accounts
// arrivals in time order), so an id is over exactly when, at one of its
// arrivals, it already holds m times less than w before it: it keeps only
// the times of its current window, dropping those w or more before its
// newest arrival. An id with at most one time in its window (most ids,
// when a million of them share the traffic) keeps it in its 16-byte
// overKey (in the key's KeyStat, or the users' array); only an id with
// more holds a ring, from a pool of rings by size
// (4, 8, 16, ... up to m times), returned to the pool when the id's
// window falls back to one time or the id is over. So memory follows the
// ids busy at once, not every id's last m times (issue 27).
type overTracker struct {
	m     int32
	w     int64
	rings []overBuf
	free  [][]int32 // by size class: indexes of free rings
}

// overKey is an id's window: n times (-1 once over), the one time in t
// when there is no ring, else the ring rings[ring-1].
type overKey struct {
	t       int64
	ring, n int32
}

type overBuf struct {
	t     []int64
	head  int32
	class int32
}

func newOverTracker(limit float64, w time.Duration) overTracker {
	m := int32(-1) // no limit: never over
	if limit > 0 && w > 0 && limit < math.MaxInt32 {
		m = int32(math.Floor(limit))
	}
	return overTracker{m: m, w: int64(w)}
}

// add records c requests of the id whose window is k at t and reports
// whether the id is over.
func (o *overTracker) add(k *overKey, at time.Duration, c int32) bool {
	if o.m < 0 {
		return false
	}
	if k.n < 0 {
		return true
	}
	t := int64(at)
	if k.ring == 0 {
		if k.n == 1 && t-k.t >= o.w {
			k.n = 0
		}
	} else {
		r := &o.rings[k.ring-1]
		size := int32(len(r.t))
		for k.n > 0 && t-r.t[r.head] >= o.w {
			r.head++
			if r.head == size {
				r.head = 0
			}
			k.n--
		}
		if k.n <= 1 {
			k.t = r.t[r.head]
			o.release(k.ring)
			k.ring = 0
		}
	}
	for range c {
		if k.n >= o.m {
			// m times in the window before this one: over.
			if k.ring != 0 {
				o.release(k.ring)
				k.ring = 0
			}
			k.n = -1
			return true
		}
		o.push(k, t)
	}
	return false
}

// push appends t to k's window (k.n < m).
func (o *overTracker) push(k *overKey, t int64) {
	if k.ring == 0 {
		if k.n == 0 {
			k.t, k.n = t, 1
			return
		}
		k.ring = o.acquire(0)
		r := &o.rings[k.ring-1]
		r.t[0], r.t[1], r.head = k.t, t, 0
		k.n = 2
		return
	}
	r := &o.rings[k.ring-1]
	size := int32(len(r.t))
	if k.n == size {
		nr := o.acquire(r.class + 1)
		r = &o.rings[k.ring-1] // acquire may have moved the rings
		n := &o.rings[nr-1]
		c := copy(n.t, r.t[r.head:])
		copy(n.t[c:], r.t[:r.head])
		n.head = 0
		o.release(k.ring)
		k.ring = nr
		r, size = n, int32(len(n.t))
	}
	i := r.head + k.n
	if i >= size {
		i -= size
	}
	r.t[i] = t
	k.n++
}

// acquire returns 1 + the index of a free ring of class (min(m, 4<<class)
// times).
func (o *overTracker) acquire(class int32) int32 {
	if int(class) < len(o.free) {
		if f := o.free[class]; len(f) > 0 {
			i := f[len(f)-1]
			o.free[class] = f[:len(f)-1]
			o.rings[i-1].head = 0
			return i
		}
	}
	size := int64(4) << class
	if size > int64(o.m) {
		size = int64(o.m)
	}
	o.rings = append(o.rings, overBuf{t: make([]int64, size), class: class})
	return int32(len(o.rings))
}

func (o *overTracker) release(ring int32) {
	c := o.rings[ring-1].class
	for int(c) >= len(o.free) {
		o.free = append(o.free, nil)
	}
	o.free[c] = append(o.free[c], ring)
}

func growOverKeys(a []overKey, n int) []overKey {
	if n <= cap(a) {
		return a[:n]
	}
	b := make([]overKey, n, max(n, 2*cap(a), 256))
	copy(b, a)
	return b
}

// HasKeys reports whether any row has per-key results.
func HasKeys(r *Result) bool {
	for i := range r.Algorithms {
		if r.Algorithms[i].Keys != nil {
			return true
		}
	}
	return false
}

// KeysHeader is the header line of keys.csv.
const KeysHeader = "algorithm,key,requests,passed,rejected,delayed,total_delay_ms,first_reject_ms,evicted,over_nominal\n"

// WriteKeysCSV writes keys.csv: per keyed row and key (in the order the
// keys were first seen), what the key offered and got. name gives a key
// id's string.
func WriteKeysCSV(w io.Writer, r *Result, name func(int32) string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(KeysHeader)
	var b []byte
	for i := range r.Algorithms {
		a := &r.Algorithms[i]
		if a.Keys == nil {
			continue
		}
		spec := csvField(a.Spec)
		for id := range a.Keys.Stats.Len() {
			s := a.Keys.Stats.At(id)
			if s.Requests == 0 {
				continue
			}
			b = append(b[:0], spec...)
			b = append(b, ',')
			b = append(b, csvField(name(int32(id)))...)
			for _, v := range []uint32{s.Requests, s.Passed, s.Rejected, s.Delayed} {
				b = append(b, ',')
				b = strconv.AppendUint(b, uint64(v), 10)
			}
			b = append(b, ',')
			b = append(b, fmtMs(s.TotalDelay)...)
			b = append(b, ',')
			if s.Rejected > 0 {
				b = append(b, fmtMs(s.FirstReject)...)
			}
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(s.Evicted), 10)
			b = append(b, ',')
			b = strconv.AppendBool(b, s.Over)
			b = append(b, '\n')
			bw.Write(b)
		}
	}
	return bw.Flush()
}

// TopKey is one line of the top keys by rejections.
type TopKey struct {
	ID   int32
	Stat KeyStat
}

// TopPctKeys is how many keys "the top 1%" of TopRejected's share is: 1%
// of the distinct keys, rounded up, and at least one.
func (k *KeyResult) TopPctKeys() int {
	return max(1, int((k.DistinctKeys+99)/100))
}

// TopRejected returns the n keys with the most rejections (ties: the
// key seen first), and the share of all rejections taken by the top 1% of
// the distinct keys (at least one key).
func (k *KeyResult) TopRejected(n int) (top []TopKey, topPctShare float64) {
	var all []TopKey
	var total int64
	for id := range k.Stats.Len() {
		s := *k.Stats.At(id)
		if s.Rejected > 0 {
			all = append(all, TopKey{int32(id), s})
			total += int64(s.Rejected)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Stat.Rejected > all[j].Stat.Rejected })
	if total > 0 {
		onePct := k.TopPctKeys()
		var sum int64
		for i := 0; i < onePct && i < len(all); i++ {
			sum += int64(all[i].Stat.Rejected)
		}
		topPctShare = float64(sum) / float64(total)
	}
	if len(all) > n {
		all = all[:n]
	}
	return all, topPctShare
}

// SeriesKeysColumn is the column series.csv adds when a row is keyed:
// the keys hurt so far (with a reject at or before the bin's end); empty
// for the rows that are not keyed.
const SeriesKeysColumn = "keys_hurt"

// seriesKeysHeader adds the keys column to header when keyed.
func seriesKeysHeader(header string, keyed bool) string {
	if !keyed {
		return header
	}
	return header[:len(header)-1] + "," + SeriesKeysColumn + "\n"
}

func appendKeysHurt(b []byte, keyed bool, hurt int64) []byte {
	b = append(b, ',')
	if keyed {
		b = strconv.AppendInt(b, hurt, 10)
	}
	return b
}

type keysSummaryJS struct {
	KeyColumn               int     `json:"key_column"`
	NominalLimit            jsonNum `json:"nominal_limit"`
	NominalWindowMs         jsonNum `json:"nominal_window_ms"`
	DistinctKeys            int64   `json:"distinct_keys"`
	KeysHurt                int64   `json:"keys_hurt"`
	InnocentKeysHurt        int64   `json:"innocent_keys_hurt"`
	DistinctUsers           jsonNum `json:"distinct_users"`
	UsersHurt               jsonNum `json:"users_hurt"`
	InnocentUsersHurt       jsonNum `json:"innocent_users_hurt"`
	Evictions               int64   `json:"evictions"`
	ExtraPassesFromEviction jsonNum `json:"extra_passes_from_eviction"`
	PeakKeys                int     `json:"peak_keys"`
	PeakStateBytes          int64   `json:"peak_state_bytes"`
	AllocFailures           int64   `json:"alloc_failures"`
	TopOnePctRejectShare    jsonNum `json:"top_1pct_reject_share"`
}

func keysSummary(k *KeyResult) *keysSummaryJS {
	if k == nil {
		return nil
	}
	js := &keysSummaryJS{
		KeyColumn:        k.Column,
		NominalLimit:     jsonNum(fmtExact(k.NominalLimit)),
		NominalWindowMs:  jsonNum(fmtMs(k.NominalWindow)),
		DistinctKeys:     k.DistinctKeys,
		KeysHurt:         k.KeysHurt,
		InnocentKeysHurt: k.InnocentKeysHurt,
		Evictions:        k.Figures.Evictions,
		PeakKeys:         k.Figures.PeakKeys,
		PeakStateBytes:   k.Figures.PeakStateBytes,
		AllocFailures:    k.Figures.AllocFailures,
	}
	if k.HasUsers {
		js.DistinctUsers = jsonNum(strconv.FormatInt(k.DistinctUsers, 10))
		js.UsersHurt = jsonNum(strconv.FormatInt(k.UsersHurt, 10))
		js.InnocentUsersHurt = jsonNum(strconv.FormatInt(k.InnocentUsersHurt, 10))
	}
	if k.Figures.HasShadow {
		js.ExtraPassesFromEviction = jsonNum(strconv.FormatInt(k.ExtraPassesFromEviction, 10))
	} else if k.Figures.Evictions == 0 && k.Figures.AllocFailures == 0 {
		js.ExtraPassesFromEviction = "0" // nothing was evicted: nothing extra
	}
	if _, share := k.TopRejected(0); k.KeysHurt > 0 {
		js.TopOnePctRejectShare = jsonNum(fmtRatio(share))
	}
	return js
}
