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
}

// KeyResult is a keyed row's per-key results.
type KeyResult struct {
	// Column is the index of the key column in Arrival.Keys.
	Column int
	// Stats is indexed by key id; ids the row never saw have Requests 0.
	Stats []KeyStat
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
	HasUsers                     bool
	UsersHurt, InnocentUsersHurt int64
	Figures                      algorithms.KeyFigures
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
	stats []KeyStat
	over  overTracker
	// Users: hurt flags and their own over tracker.
	userHurt []bool
	userOver overTracker
	hasUsers bool
	empty    int64 // requests whose key column was empty
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

// add records one decision for arrival a.
func (k *keyStats) add(acc *accumulator, at time.Duration, keys *[scenarios.MaxKeyColumns]int32, user, cost int32, d algorithms.Decision) {
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
	if int(id) >= len(k.stats) {
		k.stats = growKeyStats(k.stats, int(id)+1)
	}
	s := &k.stats[id]
	s.Requests++
	c := max(cost, 1)
	if !s.Over {
		s.Over = k.over.add(id, at, c)
	}
	hurt := false
	switch {
	case !d.Pass:
		if s.Rejected == 0 {
			s.FirstReject = at
			acc.binAt(int64(at)).KeysHurt++
		}
		s.Rejected++
		hurt = true
	case d.Wait > 0:
		s.Passed++
		s.Delayed++
		s.TotalDelay += d.Wait
	default:
		s.Passed++
	}
	if user >= 0 {
		k.hasUsers = true
		if int(user) >= len(k.userHurt) {
			n := max(int(user)+1, 2*len(k.userHurt))
			k.userHurt = append(k.userHurt, make([]bool, n-len(k.userHurt))...)
		}
		k.userOver.add(user, at, c)
		if hurt {
			k.userHurt[user] = true
		}
	}
}

// addBatch is add for a batch of the fast path.
func (k *keyStats) addBatch(acc *accumulator, arr []scenarios.Arrival, ds []algorithms.Decision) {
	for j := range arr {
		a := &arr[j]
		k.add(acc, a.At, &a.Keys, a.User, a.Weight(), ds[j])
	}
}

func growKeyStats(a []KeyStat, n int) []KeyStat {
	if n <= cap(a) {
		return a[:n]
	}
	b := make([]KeyStat, n, max(n, 2*cap(a), 256))
	copy(b, a)
	return b
}

func (k *keyStats) result(passed int64) *KeyResult {
	r := &KeyResult{Column: k.col, Stats: k.stats, HasUsers: k.hasUsers, Figures: k.rep.KeyFigures(), EmptyKeys: k.empty}
	r.NominalLimit, r.NominalWindow = k.rep.KeyNominal()
	for id := range r.Stats {
		s := &r.Stats[id]
		if s.Requests == 0 {
			continue
		}
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
	for u, hurt := range k.userHurt {
		if hurt {
			r.UsersHurt++
			if !k.userOver.isOver(int32(u)) {
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
// m is ⌊limit⌋. It keeps each id's last m times in a ring carved out of
// one flat arena, grown as the id's requests grow (so an id with r
// requests holds min(r, m) times, at most twice that with the growth),
// and forgets them once the id is over.
type overTracker struct {
	m     int32
	w     int64
	ids   []overRing
	arena []int64
}

type overRing struct {
	off           int64
	cap, n, head  int32
	over, started bool
}

func newOverTracker(limit float64, w time.Duration) overTracker {
	m := int32(-1) // no limit: never over
	if limit > 0 && w > 0 && limit < math.MaxInt32 {
		m = int32(math.Floor(limit))
	}
	return overTracker{m: m, w: int64(w)}
}

// add records c requests of id at t and reports whether id is over.
func (o *overTracker) add(id int32, at time.Duration, c int32) bool {
	if o.m < 0 {
		return false
	}
	if int(id) >= len(o.ids) {
		n := max(int(id)+1, 2*len(o.ids), 256)
		o.ids = append(o.ids, make([]overRing, n-len(o.ids))...)
	}
	r := &o.ids[id]
	if r.over {
		return true
	}
	if o.m == 0 {
		r.over = true
		return true
	}
	t := int64(at)
	for range c {
		if r.n == o.m {
			oldest := o.arena[r.off+int64(r.head)]
			if t-oldest < o.w {
				r.over = true
				return true
			}
			o.arena[r.off+int64(r.head)] = t
			r.head++
			if r.head == r.cap {
				r.head = 0
			}
			continue
		}
		if r.n == r.cap {
			nc := min(o.m, max(4, 2*r.cap))
			off := int64(len(o.arena))
			o.arena = append(o.arena, make([]int64, nc)...)
			copy(o.arena[off:], o.arena[r.off:r.off+int64(r.n)])
			r.off, r.cap = off, nc
		}
		o.arena[r.off+int64(r.n)] = t
		r.n++
	}
	return false
}

func (o *overTracker) isOver(id int32) bool {
	return int(id) < len(o.ids) && o.ids[id].over
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
		for id := range a.Keys.Stats {
			s := &a.Keys.Stats[id]
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
	for id := range k.Stats {
		s := k.Stats[id]
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
