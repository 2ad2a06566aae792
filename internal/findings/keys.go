package findings

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// The per-key findings (issue 15) replay keyed CSV traces kept in
// testdata, written by KeyTraces (TestKeyTracesUpToDate keeps the files
// equal to it), so that the commands shown run as they are. When the
// catalog's heavy-hitters, key-spray, nat-office and burst-zero scenarios
// land, the same sections can name them instead.

// KeyTraces returns the per-key findings' traces by file name under
// internal/findings/testdata.
func KeyTraces() map[string][]byte {
	out := map[string][]byte{}
	// key-spray: one hot client at twice its limit (2/s against 1/s) for
	// 10 s; from 4 s, 10,000 new keys a second for 1.2 s.
	var b bytes.Buffer
	b.WriteString("t_ms,key\n")
	type ev struct {
		t   int
		key string
	}
	var evs []ev
	for i := 0; i < 20; i++ {
		evs = append(evs, ev{i * 500, "hot"})
	}
	for i := 0; i < 12_000; i++ {
		evs = append(evs, ev{4000 + i/10, "s" + strconv.Itoa(i)})
	}
	sortEvents(evs, func(e ev) int { return e.t })
	for _, e := range evs {
		fmt.Fprintf(&b, "%d,%s\n", e.t, e.key)
	}
	out["key-spray.csv"] = b.Bytes()

	// nat-office: 200 users behind one address, each one request every
	// 20 s (staggered): 10 requests a second on the address, no user
	// anywhere near 1 a second.
	var n bytes.Buffer
	n.WriteString("t_ms,ip,user\n")
	for t := 0; t < 60_000; t += 100 {
		u := (t / 100) % 200
		fmt.Fprintf(&n, "%d,203.0.113.7,u%03d\n", t, u)
	}
	out["nat-office.csv"] = n.Bytes()

	// burst-zero: one client at exactly 3 requests a second (every 333 or
	// 334 ms: the k-th request at ⌊k·1000/3⌋ ms) for 30 s.
	var z bytes.Buffer
	z.WriteString("t_ms,ip\n")
	for k := 0; k < 90; k++ {
		fmt.Fprintf(&z, "%d,198.51.100.9\n", k*1000/3)
	}
	out["burst-zero.csv"] = z.Bytes()
	return out
}

func sortEvents[E any](evs []E, at func(E) int) {
	// Insertion of two sorted runs: a stable merge keeps equal times in
	// the order they were added.
	tmp := make([]E, 0, len(evs))
	var a, b []E
	for i, e := range evs {
		if i > 0 && at(e) < at(evs[i-1]) && a == nil {
			a, b = evs[:i], evs[i:]
		}
	}
	if a == nil {
		return
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if at(b[j]) < at(a[i]) {
			tmp = append(tmp, b[j])
			j++
		} else {
			tmp = append(tmp, a[i])
			i++
		}
	}
	tmp = append(tmp, a[i:]...)
	tmp = append(tmp, b[j:]...)
	copy(evs, tmp)
}

// runKeyed replays a testdata trace through specs, binding key columns as
// the CLI does, and returns the result and the key names.
func (g *gen) runKeyed(file string, specs []string) (*simulator.Result, func(int32) string, error) {
	path := filepath.Join(g.root, "internal", "findings", "testdata", file)
	st, err := scenarios.OpenLog(path, file, scenarios.LogOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	// Read the header (the first arrival), then bind.
	first, ok := st.Next()
	ks := st.(scenarios.KeyedStream)
	cols := ks.KeyColumns()
	lims := make([]algorithms.Limiter, len(specs))
	for i, s := range specs {
		l, err := algorithms.New(s, 0)
		if err != nil {
			return nil, nil, err
		}
		ku := l.(algorithms.KeyColumnUser)
		idx := make([]int, len(ku.KeyColumns()))
		for j, name := range ku.KeyColumns() {
			idx[j] = -1
			for c, col := range cols {
				if col == name {
					idx[j] = c
				}
			}
			if idx[j] < 0 && name == "key" {
				idx[j] = 0
			}
			if idx[j] < 0 {
				return nil, nil, fmt.Errorf("%s: no column %s in %s", s, name, file)
			}
		}
		if err := ku.BindKeyColumns(idx); err != nil {
			return nil, nil, err
		}
		if kn, ok := l.(algorithms.KeyNameUser); ok {
			kn.BindKeyNames(ks.KeyTable().Name)
		}
		algorithms.KeyReporterOf(l).TrackShadow()
		lims[i] = l
	}
	src := &firstThen{Stream: st, first: first, has: ok}
	cfg := simulator.DefaultConfig()
	cfg.Scenario = file
	res, err := simulator.Run(context.Background(), src, lims, cfg)
	return res, ks.KeyTable().Name, err
}

type firstThen struct {
	scenarios.Stream
	first     scenarios.Arrival
	has, done bool
}

func (f *firstThen) Next() (scenarios.Arrival, bool) {
	if !f.done {
		f.done = true
		return f.first, f.has
	}
	return f.Stream.Next()
}

// keyStat returns the stats of the key named name in a keyed row.
func keyStat(a *simulator.AlgoResult, name func(int32) string, key string) simulator.KeyStat {
	for id := range a.Keys.Stats {
		if name(int32(id)) == key {
			return a.Keys.Stats[id]
		}
	}
	return simulator.KeyStat{}
}

// keys measures the per-key claims of issue 15.
func (g *gen) keys() error {
	const dir = "internal/findings/testdata/"
	g.section("Per key: an evicted hot key comes back with a full bucket")
	g.p("Claim: Sentinel's hot-parameter cache holds min(4000·D, 200000) values; a spray of new keys evicts a hot key, which then starts over with a full bucket (issue 15).\n\n")
	specs := []string{"sentinel-param:count=1", "sentinel-param:count=1,capacity=unbounded", "sentinel-param:count=1,flavor=go"}
	res, name, err := g.runKeyed("key-spray.csv", specs)
	if err != nil {
		return err
	}
	var rows [][]string
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		hot := keyStat(a, name, "hot")
		extra := "-"
		if a.Keys.Figures.HasShadow {
			extra = fmt.Sprintf("%+d", a.Keys.ExtraPassesFromEviction)
		}
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(int64(hot.Passed)), itoa(int64(hot.Requests)), itoa(int64(hot.Evicted)), itoa(a.Keys.Figures.Evictions), extra})
	}
	g.table([]string{"limiter", "hot passed", "hot requests", "hot evicted", "evictions", "extra passes from eviction"}, rows)
	g.cmd("ratelimit-lab run --trace " + dir + "key-spray.csv --algo sentinel-param:count=1 --algo sentinel-param:count=1,capacity=unbounded --algo sentinel-param:count=1,flavor=go")
	java, unb := keyStat(&res.Algorithms[0], name, "hot"), keyStat(&res.Algorithms[1], name, "hot")
	g.p("One client sends 2 requests a second against a limit of 1 for 10 s; from 4 s, 10,000 new keys a second arrive for 1.2 s. ")
	if java.Evicted > 0 && java.Passed > unb.Passed {
		g.p("Verdict: true. Between two of the hot client's requests 5,000 new keys arrive, more than Java's 4,000-value cache holds (sentinel-golang's is 4,000 at D = 1 s as well): the hot key is evicted %d time(s), and each time it returns as a first sighting and passes, so it passes %d of its %d requests where an unbounded cache passes %d (`extra_passes_from_eviction` %+d).\n\n",
			java.Evicted, java.Passed, java.Requests, unb.Passed, res.Algorithms[0].Keys.ExtraPassesFromEviction)
	} else {
		g.p("Verdict: not reproduced: the hot key was evicted %d time(s), passed %d (unbounded %d).\n\n", java.Evicted, java.Passed, unb.Passed)
	}
	// The catalog's key-spray: the hot key at 20/s against 10/s.
	sc, err := lookup("key-spray")
	if err != nil {
		return err
	}
	cat, err := g.run(sc, []string{"sentinel-param:count=10,key=key"}, simulator.DefaultBin)
	if err != nil {
		return err
	}
	var top simulator.KeyStat
	for _, st := range cat.Algorithms[0].Keys.Stats {
		if st.Requests > top.Requests {
			top = st
		}
	}
	g.cmd("ratelimit-lab run key-spray --algo sentinel-param:count=10")
	g.p("The catalog's `key-spray` sends its hot key 20 times a second (against 10) while 10,000 new keys arrive a second: only 500 new keys come between two of its requests, fewer than the 4,000 the cache holds, so the hot key is evicted %d time(s) there (%d evictions of other keys). A value is evicted only when more than `capacity` other values are seen between two of its own requests: a spray evicts the quiet keys, and a hot key only when it is slower than spray rate / capacity.\n\n",
		top.Evicted, cat.Algorithms[0].Keys.Figures.Evictions)

	g.section("Per key: nginx's zone fills")
	g.p("Claim: an nginx limit_req zone holds about 8,000 states per MB on 64-bit; when it is full, a new key forces the least recently used state out, and a client forced out starts again with no excess (issue 15).\n\n")
	specs = []string{"nginx-limit-req:rate=1r/s,zone=1m", "nginx-limit-req:rate=1r/s,zone=10m"}
	res, name, err = g.runKeyed("key-spray.csv", specs)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		hot := keyStat(a, name, "hot")
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(int64(a.Keys.Figures.PeakKeys)), itoa(a.Keys.Figures.Evictions), itoa(a.Keys.Figures.AllocFailures),
			itoa(int64(hot.Passed)), itoa(int64(hot.Evicted)), fmt.Sprintf("%+d", a.Keys.ExtraPassesFromEviction)})
	}
	g.table([]string{"limiter", "peak states", "states forced out", "alloc failures", "hot passed", "hot forced out", "extra passes"}, rows)
	g.cmd("ratelimit-lab run --trace " + dir + "key-spray.csv --algo nginx-limit-req:rate=1r/s,zone=1m --algo nginx-limit-req:rate=1r/s,zone=10m")
	small, big := &res.Algorithms[0], &res.Algorithms[1]
	g.p("A 1m zone has 254 pages: %d states of keys up to 48 bytes (`NginxStatesPerZone`); 10m holds %d. ", algorithms.NginxStatesPerZone(1<<20, 16), algorithms.NginxStatesPerZone(10<<20, 16))
	if small.Keys.Figures.Evictions > 0 && big.Keys.Figures.Evictions == 0 {
		g.p("Verdict: true. The spray fills the 1m zone at %d states and forces %d out (none is idle for 60 s, so nothing expires first), the hot client among them %d time(s); the 10m zone keeps them all. With short keys every freed chunk fits the next state, so nothing fails to allocate; a key longer than 48 bytes needs a 256-byte chunk and is rejected with \"could not allocate node\" in a zone full of 128-byte ones.\n\n",
			small.Keys.Figures.PeakKeys, small.Keys.Figures.Evictions, keyStat(small, name, "hot").Evicted)
	} else {
		g.p("Verdict: not reproduced: %d and %d states forced out.\n\n", small.Keys.Figures.Evictions, big.Keys.Figures.Evictions)
	}

	g.section("Per key: users behind one NAT address")
	g.p("Claim: a per-IP limit hurts every user behind one office address, though each is far under the rate (issue 15).\n\n")
	specs = []string{"nginx-limit-req:rate=5r/s,burst=10,key=ip", "nginx-limit-req:rate=5r/s,burst=10,nodelay=true,key=ip", "sentinel-param:count=5,key=ip"}
	res, _, err = g.runKeyed("nat-office.csv", specs)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Passed), itoa(a.Blocked), itoa(a.Keys.UsersHurt), itoa(a.Keys.InnocentUsersHurt)})
	}
	g.table([]string{"limiter", "passed", "rejected", "users hurt", "innocent users hurt"}, rows)
	g.cmd("ratelimit-lab run --trace " + dir + "nat-office.csv --algo nginx-limit-req:rate=5r/s,burst=10,key=ip --algo nginx-limit-req:rate=5r/s,burst=10,nodelay=true,key=ip --algo sentinel-param:count=5,key=ip")
	a0 := &res.Algorithms[0]
	g.p("200 users share 203.0.113.7; each sends one request every 20 s, 10 a second together, against 5 a second per address. ")
	if a0.Keys.UsersHurt > 0 && a0.Keys.InnocentUsersHurt == a0.Keys.UsersHurt {
		g.p("Verdict: true. %d of the office's %d requests are rejected, and %d of the 200 users are hurt, every one of them innocent: no user ever sent more than one request a second. `users_hurt` and `innocent_users_hurt` come from the trace's user column (`--user` for an access log).\n\n", a0.Blocked, a0.Arrived, a0.Keys.UsersHurt)
	} else {
		g.p("Verdict: not reproduced: %d users hurt, %d innocent.\n\n", a0.Keys.UsersHurt, a0.Keys.InnocentUsersHurt)
	}

	g.section("Per key: burst=0 loses requests at exactly the rate")
	g.p("Claim: nginx counts in whole milliseconds and milli-requests, so a client at exactly its rate with burst=0 is rejected whenever 1000/rate is not a whole number of ms (issue 15).\n\n")
	specs = []string{"nginx-limit-req:rate=3r/s,key=ip", "nginx-limit-req:rate=3r/s,burst=1,key=ip", "nginx-limit-req:rate=4r/s,key=ip"}
	res, _, err = g.runKeyed("burst-zero.csv", specs)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Passed), itoa(a.Blocked), itoa(a.Keys.InnocentKeysHurt)})
	}
	g.table([]string{"limiter", "passed", "rejected", "innocent keys hurt"}, rows)
	g.cmd("ratelimit-lab run --trace " + dir + "burst-zero.csv --algo nginx-limit-req:rate=3r/s,key=ip --algo nginx-limit-req:rate=3r/s,burst=1,key=ip --algo nginx-limit-req:rate=4r/s,key=ip")
	z := &res.Algorithms[0]
	g.p("One client sends request k at ⌊k·1000/3⌋ ms: 3 a second, never more in any second. ")
	if z.Blocked > 0 && res.Algorithms[1].Blocked == 0 {
		g.p("Verdict: true. At 3r/s (3000 milli-requests a second) a request 333 ms after the last leaves 0 − 3000·333/1000 + 1000 = 1 milli-request of excess, over a burst of 0: %d of %d requests are rejected and the client counts as an innocent key hurt. burst=1 absorbs the rounding and rejects none; at 4r/s the gap is 250 ms exactly and the same traffic would pass.\n\n", z.Blocked, z.Arrived)
	} else {
		g.p("Verdict: not reproduced: %d rejected with burst=0, %d with burst=1.\n\n", z.Blocked, res.Algorithms[1].Blocked)
	}
	return nil
}
