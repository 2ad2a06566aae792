package algorithms

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestKongSyncMatchesKongLua runs Kong's own rate-limiting plugin
// (testdata/kong: handler.lua, policies/init.lua, expiration.lua from
// Kong's repository, unchanged) under LuaJIT against a real redis-server,
// on the virtual clock of testdata/kong/driver.lua, and compares every
// decision, every pass's wait and the Redis traffic (reads, syncs, the
// syncs' EVALs) with KongSync's on random traces: one to four nodes
// (routed by a column or in turn), clock skew, round trips (some longer
// than sync_rate, so a timer finds the last sync still running), one to
// three identifiers, bursts across window edges.
//
// It needs luajit and a redis-server: RATELIMIT_LAB_REDIS_URL (set by
// .ci/run) or redis-server on PATH, started here on a free loopback port
// and stopped by its pid. Without them it skips (fails with CI=true;
// .ci/luajit.sh installs luajit, .ci/redis.sh redis-server).
func TestKongSyncMatchesKongLua(t *testing.T) {
	luajit, err := exec.LookPath("luajit")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("Kong's Lua conformance needs luajit; .ci/luajit.sh installs it (apt-get install luajit)")
		}
		t.Skip("Kong's Lua conformance needs luajit on PATH (apt-get install luajit, or run .ci/run)")
	}
	host, port := kongRedisAddr(t)
	// 60 cases in .ci/run (24 540 decisions), 12 in a plain go test (each
	// of the case kinds: rtt, several units, routing).
	cases := soakTrials(60, 12)
	total, refusals, rttCases := 0, 0, 0
	for c := range cases {
		n, r, withRTT := kongLuaCase(t, luajit, host, port, c)
		total += n
		refusals += r
		if withRTT {
			rttCases++
		}
	}
	t.Logf("%d cases (%d with rtt > 0), %d decisions (%d refusals), identical", cases, rttCases, total, refusals)
	if refusals == 0 || refusals == total {
		t.Fatalf("the traces never (or always) refuse: %d of %d", refusals, total)
	}
}

// kongLuaCase runs random case c through both and compares them: the
// decisions and refusals compared, and whether it had rtt > 0.
func kongLuaCase(t *testing.T, luajit, host, port string, c int) (int, int, bool) {
	rng := rand.New(rand.NewPCG(uint64(c), 30))
	cfg := KongSyncConfig{
		Instances: 1 + rng.IntN(4),
		SyncRate:  time.Duration(20+rng.IntN(1500)) * time.Millisecond,
	}
	units := []int{kongSecond}
	switch {
	case c%3 == 1:
		cfg.RTT = time.Duration(1+rng.IntN(60)) * time.Millisecond
		if c%2 == 1 {
			units = []int{kongMinute}
		}
		if rng.IntN(3) == 0 { // a round trip longer than the sync rate
			cfg.SyncRate = time.Duration(20+rng.IntN(20)) * time.Millisecond
			cfg.RTT = cfg.SyncRate + time.Duration(1+rng.IntN(30))*time.Millisecond
		}
	case c%3 == 2:
		units = []int{kongSecond, kongMinute}
		if rng.IntN(2) == 0 {
			units = []int{kongMinute, kongHour}
		}
	}
	for _, u := range units {
		if u == kongSecond {
			cfg.Limits[u] = float64(1 + rng.IntN(12))
		} else {
			cfg.Limits[u] = float64(5 + rng.IntN(60))
		}
	}
	// Skew only where no key is read after its TTL on the virtual clock
	// (checked below): real Redis ages keys on the wall clock.
	if units[0] != kongSecond && cfg.Instances > 1 {
		cfg.Skew = time.Duration(rng.IntN(3000)) * time.Millisecond
	}
	route := c%4 == 0 && cfg.Instances > 1
	if route {
		cfg.Route = "node"
	}
	k, err := NewKongSync(cfg)
	if err != nil {
		t.Fatalf("case %d: %v", c, err)
	}
	k.routeIdx = 0
	k.keyName = func(id int32) string { return strconv.Itoa(int(id)) }
	ids := 1 + rng.IntN(3)

	var in bytes.Buffer
	fmt.Fprintf(&in, "%d %d %s lab%d-%d", k.EpochMs(), cfg.RTT.Nanoseconds(), strconv.FormatFloat(cfg.SyncRate.Seconds(), 'g', -1, 64), os.Getpid(), c)
	for _, u := range units {
		fmt.Fprintf(&in, " %s=%d", kongUnitNames[u], int(cfg.Limits[u]))
	}
	in.WriteString("\n")
	for i, off := range k.cfg.offsets {
		if i > 0 {
			in.WriteString(" ")
		}
		fmt.Fprintf(&in, "%d", off.Nanoseconds())
	}
	in.WriteString("\n")

	n := 300 + rng.IntN(200)
	var want []Decision
	at := time.Duration(rng.IntN(900)) * time.Millisecond
	for i := range n {
		switch r := rng.IntN(100); {
		case r < 3: // a pause to the edge of a later second
			at = (at/time.Second+time.Duration(1+rng.IntN(3)))*time.Second - time.Duration(rng.IntN(30))*time.Millisecond
		case r < 60: // a burst
			at += time.Duration(rng.IntN(3)) * time.Millisecond
		default:
			at += time.Duration(rng.IntN(60)) * time.Millisecond
		}
		id := int32(0)
		if rng.IntN(4) == 0 {
			id = int32(rng.IntN(ids))
		}
		node := i % cfg.Instances
		if route {
			node = rng.IntN(cfg.Instances)
		}
		want = append(want, k.decide(id, at, &Request{Keys: [MaxKeyColumns]int32{int32(node)}, Cost: 1}))
		fmt.Fprintf(&in, "%d %d c%d\n", at.Nanoseconds(), node, id)
	}
	reads, syncs, evals, _, _ := k.KongSyncFigures()
	if k.expiredReads > 0 {
		t.Fatalf("case %d: %d reads found their key expired on the virtual clock; real Redis ages keys on the wall clock, so the case cannot be compared: change its skew or length", c, k.expiredReads)
	}
	if k.err != nil {
		t.Fatalf("case %d: %v", c, k.err)
	}

	// KONG_LUA_DUMP=DIR keeps each case's trace, to replay one by hand:
	// luajit driver.lua . HOST PORT < DIR/caseN.txt (in testdata/kong).
	if d := os.Getenv("KONG_LUA_DUMP"); d != "" {
		os.WriteFile(filepath.Join(d, fmt.Sprintf("case%d.txt", c)), in.Bytes(), 0o644)
	}
	cmd := exec.Command(luajit, "driver.lua", ".", host, port)
	cmd.Dir = filepath.Join("testdata", "kong")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("case %d: luajit driver.lua: %v\n%s", c, err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	refusals := 0
	for i := range n {
		if !sc.Scan() {
			t.Fatalf("case %d: the driver printed %d decisions, want %d", c, i, n)
		}
		got := Decision{}
		if f := strings.Fields(sc.Text()); f[0] == "P" {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			got = Decision{Pass: true, Wait: time.Duration(ns)}
		}
		if got != want[i] {
			t.Fatalf("case %d (%+v, units %v): arrival %d: Kong's Lua %+v, the lab %+v", c, cfg, units, i, got, want[i])
		}
		if !got.Pass {
			refusals++
		}
	}
	sc.Scan()
	if line, w := sc.Text(), fmt.Sprintf("reads %d syncs %d evals %d", reads, syncs, evals); line != w {
		t.Fatalf("case %d (%+v): Kong's Lua sent %q, the lab counts %q", c, cfg, line, w)
	}
	return n, refusals, cfg.RTT > 0
}

// kongRedisAddr is the redis-server to run Kong's Lua against:
// RATELIMIT_LAB_REDIS_URL's, or one started here on a free loopback port
// (persistence off, stopped by its pid at the end), as .ci/redis.sh does.
func kongRedisAddr(t *testing.T) (host, port string) {
	if u := os.Getenv("RATELIMIT_LAB_REDIS_URL"); u != "" {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatalf("RATELIMIT_LAB_REDIS_URL %q: %v", u, err)
		}
		h, pt, err := net.SplitHostPort(p.Host)
		if err != nil {
			t.Fatalf("RATELIMIT_LAB_REDIS_URL %q: %v", u, err)
		}
		if ips, err := net.LookupIP(h); err == nil && len(ips) > 0 && ips[0].To4() != nil {
			h = ips[0].String()
		}
		return h, pt
	}
	server, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but RATELIMIT_LAB_REDIS_URL is not set: run the tests through .ci/run, which starts redis-server")
		}
		t.Skip("Kong's Lua conformance needs a redis-server: set RATELIMIT_LAB_REDIS_URL or put redis-server on PATH (apt-get install redis-server, or run .ci/run)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	dir := t.TempDir()
	cmd := exec.Command(server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// As startNginx: no deadline on the start (a server that never
	// answers runs into go test's -timeout); a dial is refused at once
	// until it listens, and the loop ends when it answers PING or exits.
	for {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Write([]byte("PING\r\n"))
			buf := make([]byte, 7)
			n, _ := io.ReadFull(c, buf)
			c.Close()
			if string(buf[:n]) == "+PONG\r\n" {
				return "127.0.0.1", port
			}
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server exited without answering PING on port %s:\n%s", port, log)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
