package simulator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// shardArrivals is a random trace over two key columns (key, ip): skewed
// keys, empty keys in both, costs, priorities, clock ties.
func shardArrivals(seed uint64, n, keys int) []scenarios.Arrival {
	rng := rand.New(rand.NewPCG(seed, 29))
	out := make([]scenarios.Arrival, n)
	var t time.Duration
	for i := range out {
		t += time.Duration(rng.IntN(3)) * time.Millisecond / 2
		k := int32(rng.IntN(rng.IntN(keys) + 1))
		if rng.IntN(12) == 0 {
			k = scenarios.NoKey
		}
		ip := int32(keys + rng.IntN(keys/4+1))
		if rng.IntN(20) == 0 {
			ip = scenarios.NoKey
		}
		out[i] = scenarios.Arrival{At: t, Clock: t,
			Keys: [scenarios.MaxKeyColumns]int32{k, ip, scenarios.NoKey, scenarios.NoKey},
			User: int32(rng.IntN(10)), Cost: int32(1 + rng.IntN(3)/2), Priority: rng.IntN(9) == 0}
	}
	return out
}

// shardSpecs are the rows of the identity test; split tells whether each
// must be split over the workers (the others must say why not).
var shardSpecs = []struct {
	spec  string
	split bool
}{
	{"token-bucket:rate=10,burst=3,key=key", true},
	{"leap-array:limit=5,sample-count=2,key=key", true}, // one instance per key
	{"fixed-window:limit=4,key=key,empty-key=shared", true},
	{"sliding-log:limit=3,key=key,empty-key=reject", true},
	{"leaky-bucket:limit=5,max-queue=300ms,key=key", true},
	{"guava-bursty:rate=5,key=key", true},
	{"kong:second=3,key=key,fallback=ip", true},
	{"bucket4j:capacity=4,refill-tokens=2,key=key", true}, // empty key shared
	{"haproxy:limit=4,key=ip", true},
	{"resilience4j:limit-for-period=3,refresh-period=1s,timeout=0s,key=key", true},
	{"nginx-limit-req:rate=20r/s,burst=2,zone=0", true},
	{"nginx-limit-req:rate=5r/s,burst=3,delay=1,zone=0,key=ip", true},
	{"sentinel-param:count=3,capacity=unbounded", true},
	{"sentinel-param:count=4,behavior=throttle,max-queue=500ms,capacity=unbounded,flavor=go", true},
	// Not split: bounded tables, a shared limiter, a chain, items=.
	{"token-bucket:rate=10,burst=3,key=key,capacity=8", false},
	{"nginx-limit-req:rate=20r/s,burst=2,zone=32k", false},
	{"sentinel-param:count=3,capacity=20", false},
	{"sentinel-param:count=3,capacity=unbounded,items=1:5", false},
	{"traefik:average=5,burst=2,key=key", false},
	{"leap-array:limit=200", false},
	{"token-bucket:rate=10,burst=3,key=key+leap-array:limit=200", false},
}

// shardLimiter is spec, bound to the columns of shardArrivals (key, ip).
func shardLimiter(t testing.TB, spec string) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ku, ok := l.(algorithms.KeyColumnUser); ok {
		var idx []int
		for _, c := range ku.KeyColumns() {
			idx = append(idx, map[string]int{"key": 0, "ip": 1}[c])
		}
		if err := ku.BindKeyColumns(idx); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// shardRun runs every spec of shardSpecs over arr on workers goroutines
// and returns its files; tweak, if not nil, changes the run's Config.
func shardRun(t testing.TB, arr []scenarios.Arrival, workers int, tweak ...func(*Config)) (map[string]string, *Result) {
	t.Helper()
	lims := make([]algorithms.Limiter, len(shardSpecs))
	for i, s := range shardSpecs {
		l := shardLimiter(t, s.spec)
		if kn, ok := l.(algorithms.KeyNameUser); ok {
			kn.BindKeyNames(func(id int32) string { return strconv.Itoa(int(id)) })
		}
		if kr := algorithms.KeyReporterOf(l); kr != nil {
			kr.TrackShadow()
		}
		lims[i] = l
	}
	dec := make([]bytes.Buffer, len(lims))
	cfg := DefaultConfig()
	cfg.End = arr[len(arr)-1].At + time.Millisecond
	cfg.Workers = workers
	cfg.Decisions = func(i int) io.Writer { return &dec[i] }
	for _, f := range tweak {
		f(&cfg)
	}
	res, err := Run(context.Background(), &sliceStream{arr: arr}, lims, cfg)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var b bytes.Buffer
	for name, write := range map[string]func(io.Writer, *Result) error{
		"series.csv": WriteSeriesCSV, "summary.json": WriteSummaryJSON,
		"keys.csv": func(w io.Writer, r *Result) error {
			return WriteKeysCSV(w, r, func(id int32) string { return strconv.Itoa(int(id)) })
		},
	} {
		b.Reset()
		if err := write(&b, res); err != nil {
			t.Fatal(err)
		}
		files[name] = b.String()
	}
	for i := range dec {
		files[fmt.Sprintf("decisions %d", i)] = dec[i].String()
	}
	for i, a := range res.Algorithms {
		files[fmt.Sprintf("figures %d", i)] = fmt.Sprint(a.StateBytes)
		if a.Keys != nil {
			files[fmt.Sprintf("figures %d", i)] += fmt.Sprintf(" %+v", a.Keys.Figures)
		}
	}
	return files, res
}

// --workers 1..8 write the same files, bit for bit, on random keyed
// traces; the rows that must split do, the others say why not.
func TestWorkersByteIdentical(t *testing.T) {
	n, seeds := 40_000, []uint64{1, 2} // two batches each
	if testing.Short() || raceOn {
		n, seeds = 6_000, seeds[:1]
	}
	if raceOn {
		n = 1_500 // still split over every shard, under the race detector
	}
	for _, seed := range seeds {
		arr := shardArrivals(seed, n, 300)
		want, _ := shardRun(t, arr, 1)
		for w := 2; w <= 8; w++ {
			got, res := shardRun(t, arr, w)
			for name, s := range want {
				if got[name] != s {
					t.Errorf("seed %d, workers %d: %s differs from workers 1", seed, w, name)
				}
			}
			for i, s := range shardSpecs {
				rw := res.Workers[i]
				if s.split && rw.Shards != w {
					t.Errorf("workers %d: %s decided on %d shards (%s), want %d", w, s.spec, rw.Shards, rw.Why, w)
				}
				if !s.split && (rw.Shards != 1 || rw.Why == "") {
					t.Errorf("workers %d: %s: %+v, want one worker and a reason", w, s.spec, rw)
				}
			}
		}
	}
}

// keyModel is a keyed row's per-key results computed the plain way from
// the decisions of a fresh limiter of spec deciding arr alone: per key
// (its column's id, or the id the limiter charges an empty key to) the
// counts, the first reject and Over by overModel, per user the same, and
// per bin of width bin from start the keys whose first reject is in it.
type keyModel struct {
	stats                     map[int32]*KeyStat
	maxID                     int32
	empty                     int64
	users, usersHurt, usersIn int64
	hurtBins                  map[int64]int64
}

func newKeyModel(t *testing.T, spec string, arr []scenarios.Arrival, start, bin time.Duration) *keyModel {
	t.Helper()
	lim := shardLimiter(t, spec)
	rep := algorithms.KeyReporterOf(lim)
	acct, _ := rep.(algorithms.KeyAccounter)
	col := rep.KeyIndex()
	limit, w := rep.KeyNominal()
	m := int(newOverTracker(limit, w).m)
	keys := &overModel{m: m, w: int64(w), times: map[int32][]int64{}, over: map[int32]bool{}}
	users := &overModel{m: m, w: int64(w), times: map[int32][]int64{}, over: map[int32]bool{}}
	userHurt := map[int32]bool{}
	km := &keyModel{stats: map[int32]*KeyStat{}, maxID: -1, hurtBins: map[int64]int64{}}
	rl := lim.(algorithms.RequestLimiter)
	for i := range arr {
		a := &arr[i]
		var r algorithms.Request
		requestOf(a, &r)
		d := rl.DecideRequest(a.Clock, &r)
		id := a.Keys[col]
		if id < 0 {
			km.empty++
			if acct != nil {
				id = acct.AccountKey(&a.Keys)
			}
		}
		if id < 0 {
			continue
		}
		s := km.stats[id]
		if s == nil {
			s = &KeyStat{}
			km.stats[id] = s
		}
		km.maxID = max(km.maxID, id)
		s.Requests++
		if keys.add(id, int64(a.At), a.Weight()) {
			s.Over = true
		}
		switch {
		case !d.Pass:
			if s.Rejected == 0 {
				s.FirstReject = a.At
				km.hurtBins[floorDiv(int64(a.At-start), int64(bin))]++
			}
			s.Rejected++
		case d.Wait > 0:
			s.Passed++
			s.Delayed++
			s.TotalDelay += d.Wait
		default:
			s.Passed++
		}
		if a.User >= 0 {
			users.add(a.User, int64(a.At), a.Weight())
			userHurt[a.User] = userHurt[a.User] || !d.Pass
		}
	}
	for u, hurt := range userHurt {
		km.users++
		if hurt {
			km.usersHurt++
			if !users.over[u] {
				km.usersIn++
			}
		}
	}
	return km
}

// check compares a row's per-key results and its series' keys_hurt with
// the model's.
func (km *keyModel) check(t *testing.T, what string, a *AlgoResult, start time.Duration) {
	t.Helper()
	k := a.Keys
	if k.Stats.Len() != int(km.maxID)+1 {
		t.Fatalf("%s: %d key stats, want %d (the largest id + 1)", what, k.Stats.Len(), km.maxID+1)
	}
	var hurt, innocent int64
	for id := range statSlice(&k.Stats) {
		got, want := *k.Stats.At(id), km.stats[int32(id)]
		if want == nil {
			want = &KeyStat{}
		}
		got.Evicted = 0 // the limiter's, not recorded
		if got != *want {
			t.Fatalf("%s: key %d: %+v, the model says %+v", what, id, got, *want)
		}
		if want.Rejected > 0 {
			hurt++
			if !want.Over {
				innocent++
			}
		}
	}
	if k.DistinctKeys != int64(len(km.stats)) || k.KeysHurt != hurt || k.InnocentKeysHurt != innocent || k.EmptyKeys != km.empty {
		t.Fatalf("%s: %d keys, %d hurt, %d innocent, %d empty; the model says %d, %d, %d, %d",
			what, k.DistinctKeys, k.KeysHurt, k.InnocentKeysHurt, k.EmptyKeys, len(km.stats), hurt, innocent, km.empty)
	}
	if k.DistinctUsers != km.users || k.UsersHurt != km.usersHurt || k.InnocentUsersHurt != km.usersIn {
		t.Fatalf("%s: users %d, hurt %d, innocent %d; the model says %d, %d, %d",
			what, k.DistinctUsers, k.UsersHurt, k.InnocentUsersHurt, km.users, km.usersHurt, km.usersIn)
	}
	var sum int64
	for i, b := range a.Bins {
		if want := km.hurtBins[int64(i)]; b.KeysHurt != want {
			t.Fatalf("%s: bin %d keys_hurt %d, the model says %d", what, i, b.KeysHurt, want)
		}
		sum += b.KeysHurt
	}
	if sum != hurt {
		t.Fatalf("%s: the bins count %d keys hurt, want %d", what, sum, hurt)
	}
}

// The per-key results of every split row, on one worker (the row's own
// statistics) and on 2..8 (each shard's, merged), are those of a plain
// model of the decisions: counts, first rejects, Over, users; and the
// series' keys_hurt, counted at the end from the first rejects, is the
// model's per bin, also when the bins widen during the run (a span far
// shorter than the trace, and few bins), where the series is still the
// same bit for bit on every worker count.
func TestWorkersKeyStatsMatchModel(t *testing.T) {
	n, top := 8_000, 8
	if testing.Short() || raceOn {
		n, top = 2_500, 4
	}
	arr := shardArrivals(7, n, 200)
	// Many users, few requests each, some without one: a user who only
	// sent requests charged to no key counts for none. Key ids and ip ids
	// overlap.
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range arr {
		arr[i].User = int32(rng.IntN(n / 4))
		if rng.IntN(10) == 0 {
			arr[i].User = scenarios.NoKey
		}
		if arr[i].Keys[1] >= 0 && rng.IntN(3) == 0 {
			// An ip that is also a key's id: kong's fallback charges a
			// request without a key to the key of that id.
			arr[i].Keys[1] = int32(rng.IntN(200))
		}
	}
	widen := func(c *Config) { c.End, c.MaxBins = 20*time.Millisecond, 8 }
	for _, tweak := range []func(*Config){nil, widen} {
		var want map[string]string
		for w := 1; w <= top; w++ {
			var files map[string]string
			var res *Result
			if tweak == nil {
				files, res = shardRun(t, arr, w)
			} else {
				files, res = shardRun(t, arr, w, tweak)
				if res.Bin <= 4*DefaultBin {
					t.Fatalf("the bins did not widen during the run: %v", res.Bin)
				}
			}
			if w == 1 {
				want = files
			} else {
				for name, s := range want {
					if files[name] != s {
						t.Errorf("workers %d (widened %v): %s differs from workers 1", w, tweak != nil, name)
					}
				}
			}
			for i, s := range shardSpecs {
				if !s.split {
					continue
				}
				a := &res.Algorithms[i]
				newKeyModel(t, s.spec, arr, res.Start, res.Bin).check(t, fmt.Sprintf("workers %d (widened %v), %s", w, tweak != nil, s.spec), a, res.Start)
			}
		}
	}
}

// A shard that is handed keys of two residues mod n, or two shards of one
// residue, is an error, never a wrong figure: the per-key statistics of a
// split row rely on each key being decided on one shard.
func TestShardKeysResidues(t *testing.T) {
	arr := []scenarios.Arrival{{Keys: [scenarios.MaxKeyColumns]int32{4}}, {Keys: [scenarios.MaxKeyColumns]int32{6}}, {Keys: [scenarios.MaxKeyColumns]int32{5}}}
	ds := []algorithms.Decision{{Pass: true}, {}, {Pass: true}}
	k := &shardKeys{n: 2, res: -1}
	k.addBatch(arr, []int32{0, 1}, ds[:2])
	if k.res != 0 || k.stats.Len() != 4 || k.stats.At(2).Requests != 1 || k.stats.At(3).Rejected != 1 {
		t.Fatalf("ids 4 and 6 on the shard of residue %d: %+v", k.res, k.stats)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("id 5 on the shard of the even ids: no panic")
			}
		}()
		k.addBatch(arr, []int32{2}, ds[2:])
	}()
	ks := &keyStats{}
	a, b := &shardKeys{n: 2, res: 1, stats: KeyStatsOf(make([]KeyStat, 1))}, &shardKeys{n: 2, res: 1, stats: KeyStatsOf(make([]KeyStat, 1))}
	if err := ks.merge([]*shardKeys{a, b}); err == nil {
		t.Error("two shards of the odd ids merged")
	}
	a.stats.At(0).Requests, b.res = 3, 0
	b.stats = KeyStatsOf(make([]KeyStat, 2))
	b.stats.At(1).Requests = 2
	if err := ks.merge([]*shardKeys{a, b}); err != nil || ks.stats.Len() != 3 || ks.stats.At(1).Requests != 3 || ks.stats.At(2).Requests != 2 {
		t.Fatalf("merge: %v, %+v", err, ks.stats)
	}
}
