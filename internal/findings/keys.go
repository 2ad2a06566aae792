package findings

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// The per-key findings (issue 15) run the catalog's four keyed scenarios
// (key-spray, nat-office, burst-zero, heavy-hitters), so that each section
// shows the `ratelimit-lab run <scenario>` command that reproduces it. The
// key-spray trace in testdata (KeyTraces; TestKeyTracesUpToDate keeps the
// file equal to it) stays for the README's per-key chart (make
// docs-images).

// KeyTraces returns the traces kept under internal/findings/testdata, by
// file name.
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

// runKeyed replays the catalog scenario name through specs, binding key
// columns and key names and tracking the unbounded twins as the CLI does,
// and returns the result and the key names.
func (g *gen) runKeyed(name string, specs []string) (*simulator.Result, func(int32) string, error) {
	sc, err := lookup(name)
	if err != nil {
		return nil, nil, err
	}
	r, err := g.replay(sc, specs, simulator.DefaultBin, simulator.DefaultWindow, nil)
	if err != nil {
		return nil, nil, err
	}
	return r.Result, r.Keys.Name, nil
}

// keyStat returns the stats of the key named name in a keyed row.
func keyStat(a *simulator.AlgoResult, name func(int32) string, key string) simulator.KeyStat {
	for id := range a.Keys.Stats.Len() {
		if name(int32(id)) == key {
			return *a.Keys.Stats.At(id)
		}
	}
	return simulator.KeyStat{}
}

// keys measures the per-key claims of issue 15 on the catalog's keyed
// scenarios.
func (g *gen) keys() error {
	g.section("Per key: an evicted hot key comes back with a full bucket")
	g.p("Claim: Sentinel's hot-parameter cache holds min(4000·D, 200000) values; a spray of new keys evicts a hot key, which then starts over with a full bucket (issue 15).\n\n")
	specs := []string{"sentinel-param:count=10", "sentinel-param:count=10,capacity=unbounded", "sentinel-param:count=10,flavor=go"}
	res, name, err := g.runKeyed("key-spray", specs)
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
	g.cmd("ratelimit-lab run key-spray --algo sentinel-param:count=10 --algo sentinel-param:count=10,capacity=unbounded --algo sentinel-param:count=10,flavor=go")
	java, unb := keyStat(&res.Algorithms[0], name, "hot"), keyStat(&res.Algorithms[1], name, "hot")
	g.p("`key-spray`: the hot key sends bursts of 10 every 0.5 s (20 a second, twice its limit of 10) for 15 s; from 5 s to 10 s, 10,000 new keys a second arrive. ")
	if java.Evicted > 0 && java.Passed > unb.Passed {
		g.p("Verdict: true. Between two of the hot key's bursts 5,000 new keys arrive, more than Java's 4,000-value cache holds (sentinel-golang's is 4,000 at D = 1 s as well): the hot key is evicted %d time(s), and each time its burst is a first sighting with a full bucket of 10, so it passes %d of its %d requests where an unbounded cache, which refills only after more than a whole second, passes %d (`extra_passes_from_eviction` %+d). A value is evicted only when more than `capacity` other values come between two of its own requests: a steady 20 a second would see only 500.\n\n",
			java.Evicted, java.Passed, java.Requests, unb.Passed, res.Algorithms[0].Keys.ExtraPassesFromEviction)
	} else {
		g.p("Verdict: not reproduced: the hot key was evicted %d time(s), passed %d (unbounded %d).\n\n", java.Evicted, java.Passed, unb.Passed)
	}

	g.section("Per key: nginx's zone fills")
	g.p("Claim: an nginx limit_req zone holds about 8,000 states per MB on 64-bit; when it is full, a new key forces the least recently used state out, and a client forced out starts again with no excess (issue 15).\n\n")
	specs = []string{"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=1m", "nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m"}
	res, name, err = g.runKeyed("key-spray", specs)
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
	g.cmd("ratelimit-lab run key-spray --algo nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=1m --algo nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m")
	small, big := &res.Algorithms[0], &res.Algorithms[1]
	g.p("A 1m zone has 254 pages: %d states of keys up to 48 bytes (`NginxStatesPerZone`); 10m holds %d. ", algorithms.NginxStatesPerZone(1<<20, 16), algorithms.NginxStatesPerZone(10<<20, 16))
	if small.Keys.Figures.Evictions > 0 && big.Keys.Figures.Evictions == 0 {
		g.p("Verdict: true. The spray's 50,000 keys fill the 1m zone at %d states and force %d out (none is idle for 60 s, so nothing expires first), the hot key among them %d time(s); the 10m zone keeps them all. With short keys every freed chunk fits the next state, so nothing fails to allocate; a key longer than 48 bytes needs a 256-byte chunk and is rejected with \"could not allocate node\" in a zone full of 128-byte ones.\n\n",
			small.Keys.Figures.PeakKeys, small.Keys.Figures.Evictions, keyStat(small, name, "hot").Evicted)
	} else {
		g.p("Verdict: not reproduced: %d and %d states forced out.\n\n", small.Keys.Figures.Evictions, big.Keys.Figures.Evictions)
	}

	g.section("Per key: users behind one NAT address")
	g.p("Claim: a per-IP limit hurts every user behind one office address, though each is far under the rate (issue 15).\n\n")
	res, name, err = g.runKeyed("nat-office", nil)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		office := keyStat(a, name, "office-nat")
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(int64(office.Passed)), itoa(int64(office.Rejected)), itoa(a.Keys.UsersHurt), itoa(a.Keys.InnocentUsersHurt), itoa(a.Keys.KeysHurt)})
	}
	g.table([]string{"limiter", "office passed", "office rejected", "users hurt", "innocent users hurt", "keys hurt"}, rows)
	g.cmd("ratelimit-lab run nat-office")
	a0 := &res.Algorithms[0]
	o0 := keyStat(a0, name, "office-nat")
	g.p("`nat-office`: 200 users share the address office-nat, each at 0.5 requests a second (Poisson, 100 a second together), beside 50 clients at 2 a second each, against 10 a second per address. ")
	if a0.Keys.UsersHurt > 0 && a0.Keys.InnocentUsersHurt == a0.Keys.UsersHurt {
		g.p("Verdict: true. nginx rejects %d of the office's %d requests, and %d of the 200 users are hurt, every one of them innocent: no user ever sent more than 10 requests within a second. `users_hurt` and `innocent_users_hurt` come from the traffic's user column (`--user` for an access log).\n\n", o0.Rejected, o0.Requests, a0.Keys.UsersHurt)
	} else {
		g.p("Verdict: not reproduced: %d users hurt, %d innocent.\n\n", a0.Keys.UsersHurt, a0.Keys.InnocentUsersHurt)
	}

	g.section("Per key: burst=0 loses requests at exactly the rate")
	g.p("Claim: nginx counts in whole milliseconds and milli-requests, so a client at exactly its rate with burst=0 is rejected whenever 1000/rate is not a whole number of ms (issue 15).\n\n")
	res, _, err = g.runKeyed("burst-zero", nil)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Passed), itoa(a.Blocked), itoa(a.Keys.InnocentKeysHurt)})
	}
	g.table([]string{"limiter", "passed", "rejected", "innocent keys hurt"}, rows)
	g.cmd("ratelimit-lab run burst-zero")
	z := &res.Algorithms[0]
	g.p("`burst-zero`: one client sends request k at k/3 s (whole milliseconds 0, 333, 666, 1000, …): 3 a second, never more in any second. ")
	if z.Blocked > 0 && res.Algorithms[1].Blocked == 0 {
		g.p("Verdict: true. At 3r/s (3000 milli-requests a second) a request 333 ms after the last leaves 0 − 3000·333/1000 + 1000 = 1 milli-request of excess, over a burst of 0: %d of %d requests are rejected and the client counts as an innocent key hurt. burst=1 absorbs the rounding and rejects none; at 4r/s the gap would be 250 ms exactly and nothing would be lost.\n\n", z.Blocked, z.Arrived)
	} else {
		g.p("Verdict: not reproduced: %d rejected with burst=0, %d with burst=1.\n\n", z.Blocked, res.Algorithms[1].Blocked)
	}

	g.section("Per key: heavy hitters take the rejections")
	g.p("Claim: with keys drawn by Zipf's law, a per-key limit throttles a handful of heavy keys and leaves the long tail alone, while a bounded table forgets the quiet keys, not the heavy ones (issue 15).\n\n")
	res, _, err = g.runKeyed("heavy-hitters", nil)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		_, share := a.Keys.TopRejected(0)
		extra := "0"
		if a.Keys.Figures.HasShadow {
			extra = fmt.Sprintf("%+d", a.Keys.ExtraPassesFromEviction)
		}
		rows = append(rows, []string{"`" + a.Spec + "`", itoa(a.Keys.DistinctKeys), itoa(a.Keys.KeysHurt), itoa(a.Keys.InnocentKeysHurt),
			strconv.FormatFloat(100*share, 'f', 1, 64) + "%", itoa(a.Keys.Figures.Evictions), extra})
	}
	g.table([]string{"limiter", "distinct keys", "keys hurt", "innocent keys hurt", "rejects taken by the top 1% of keys", "evictions", "extra passes from eviction"}, rows)
	g.cmd("ratelimit-lab run heavy-hitters")
	h0 := &res.Algorithms[0]
	_, share := h0.Keys.TopRejected(0)
	bounded := &res.Algorithms[len(res.Algorithms)-1]
	g.p("`heavy-hitters`: 20,000 requests a second for 10 s from 100,000 keys drawn by Zipf's law (s = 1.1), a limit of 10 a second per key. ")
	sp := &res.Algorithms[1]
	if share > 0.5 && h0.Keys.KeysHurt*100 < h0.Keys.DistinctKeys {
		g.p("Verdict: true. nginx hurts %d of the %d keys seen (innocent keys hurt: %d), and the top 1%% of keys take %.1f%% of its rejects. The bounded tables, Sentinel's 4,000 values and the token bucket's 10,000 keys, evict %d and %d states, yet pass %+d and %+d against their unbounded twins: the heavy keys come often enough to stay in the table, and a quiet key that is evicted was far under its limit anyway.\n\n",
			h0.Keys.KeysHurt, h0.Keys.DistinctKeys, h0.Keys.InnocentKeysHurt, 100*share, sp.Keys.Figures.Evictions, bounded.Keys.Figures.Evictions, sp.Keys.ExtraPassesFromEviction, bounded.Keys.ExtraPassesFromEviction)
	} else {
		g.p("Verdict: not reproduced: %d of %d keys hurt, the top 1%% take %.1f%% of the rejects.\n\n", h0.Keys.KeysHurt, h0.Keys.DistinctKeys, 100*share)
	}
	return nil
}
