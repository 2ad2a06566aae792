package algorithms

import (
	"strings"
	"testing"
	"time"
)

type clusterStep struct {
	at   time.Duration
	prio bool
	pass bool
	wait time.Duration
}

func runClusterSteps(t *testing.T, spec string, steps []clusterStep) *SentinelCluster {
	t.Helper()
	lim, err := New(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := lim.(*SentinelCluster)
	nows := make([]time.Duration, len(steps))
	reqs := make([]Request, len(steps))
	for i, s := range steps {
		nows[i], reqs[i] = s.at, Request{Keys: noKeys, Cost: 1, Priority: s.prio}
	}
	out := make([]Decision, len(steps))
	l.DecideRequests(nows, reqs, out)
	for i, s := range steps {
		if out[i].Pass != s.pass || out[i].Wait != s.wait {
			t.Errorf("%s: arrival %d at %v: got pass=%v wait=%v, want pass=%v wait=%v", spec, i, s.at, out[i].Pass, out[i].Wait, s.pass, s.wait)
		}
	}
	return l
}

// TestSentinelClusterOutage is docs/algorithms.md's worked example: a
// GLOBAL rule of 2/s on two clients, 2 ms round trips, the server away
// from 100 ms to 200 ms. The server passes 2 for the cluster; during the
// outage each client checks the rule's count (2) on its own node, which
// holds the pass it got from the server, so each admits one more: the
// cluster admits 2 per instance. With fallback=pass everything passes.
func TestSentinelClusterOutage(t *testing.T) {
	ms := time.Millisecond
	base := "sentinel-cluster:count=2,threshold=global,instances=2,rtt=2ms,down=100ms-200ms"
	l := runClusterSteps(t, base, []clusterStep{
		{at: 0, pass: true, wait: 2 * ms},      // server at 1 ms: 2 − 0 − 1 ≥ 0, OK
		{at: 1 * ms, pass: true, wait: 2 * ms}, // server at 2 ms: 2 − 1 − 1 = 0, OK
		{at: 2 * ms},                           // server at 3 ms: 2 − 2 − 1 < 0, BLOCKED
		{at: 3 * ms},
		{at: 150 * ms, pass: true}, // down: client 0's node holds 1 pass; 1 + 1 ≤ 2
		{at: 151 * ms, pass: true}, // client 1 likewise
		{at: 152 * ms},             // client 0: 2 + 1 > 2
		{at: 153 * ms},
	})
	if fb, sw, per := l.ClusterFigures(); fb != 4 || sw != 0 || per[0] != 2 || per[1] != 2 {
		t.Errorf("figures: fallbacks %d, should wait %d, per instance %v; want 4, 0, [2 2]", fb, sw, per)
	}
	runClusterSteps(t, base+",fallback=pass", []clusterStep{
		{at: 0, pass: true, wait: 2 * ms}, {at: 1 * ms, pass: true, wait: 2 * ms}, {at: 2 * ms}, {at: 3 * ms},
		{at: 150 * ms, pass: true}, {at: 151 * ms, pass: true}, {at: 152 * ms, pass: true}, {at: 153 * ms, pass: true},
	})
	// rtt above the timeout: every request fails at T + 20 ms and is
	// checked locally then (the server still counts it).
	runClusterSteps(t, "sentinel-cluster:count=2,threshold=global,rtt=30ms", []clusterStep{
		{at: 0, pass: true, wait: 20 * ms}, {at: 1 * ms, pass: true, wait: 20 * ms}, {at: 2 * ms},
	})
	// AVG_LOCAL multiplies the count by the connected clients.
	runClusterSteps(t, "sentinel-cluster:count=1,instances=4,connected=2", []clusterStep{
		{at: 0, pass: true}, {at: 0, pass: true}, {at: 0}, {at: 0},
	})
}

// TestSentinelClusterShouldWait: a prioritized request over the threshold
// occupies the next bucket when the head bucket, about to leave the
// window, frees enough (ClusterMetric.tryOccupyNext); it waits 1000 /
// sample-count ms, and its pass lands in the next bucket the array
// resets.
func TestSentinelClusterShouldWait(t *testing.T) {
	ms := time.Millisecond
	l := runClusterSteps(t, "sentinel-cluster:count=2,threshold=global", []clusterStep{
		{at: 0, pass: true},
		{at: 0, pass: true},
		{at: 10 * ms, prio: true}, // head (bucket of 100 ms) not there: 2 + 1 − 0 > 2
		{at: 950 * ms, prio: true, pass: true, wait: 100 * ms}, // head = bucket 0 (2 passes): 2 + 1 − 2 ≤ 2
		{at: 1000 * ms, pass: true},                            // bucket 0 reset at 1000 ms takes the occupied pass: 2 − 1 − 1 = 0
		{at: 1000 * ms},
	})
	if _, sw, _ := l.ClusterFigures(); sw != 1 {
		t.Errorf("should wait %d, want 1", sw)
	}
}

// TestSentinelClusterGlobalRequestLimiter: over max-qps the server
// answers TOO_MANY_REQUEST, which the client treats as a failure.
func TestSentinelClusterGlobalRequestLimiter(t *testing.T) {
	l := runClusterSteps(t, "sentinel-cluster:count=10,threshold=global,max-qps=2,fallback=pass", []clusterStep{
		{at: 0, pass: true}, {at: 0, pass: true}, {at: 0, pass: true}, {at: 0, pass: true},
	})
	if fb, _, _ := l.ClusterFigures(); fb != 2 {
		t.Errorf("fallbacks %d, want 2 (qps + 1 ≤ 2 lets two through)", fb)
	}
}

// TestSentinelClusterLaterArrivalFirst: a request that times out is
// checked locally at T + timeout, after a later arrival's outage check on
// the same client; the batch sees it.
func TestSentinelClusterLaterArrivalFirst(t *testing.T) {
	ms := time.Millisecond
	runClusterSteps(t, "sentinel-cluster:count=1,threshold=global,rtt=30ms,down=10ms-20ms", []clusterStep{
		{at: 0},                   // times out, checked at 20 ms: the pass at 10 ms is there
		{at: 10 * ms, pass: true}, // down: checked at 10 ms first
		{at: 20 * ms},             // times out, checked at 40 ms
	})
}

func TestSentinelClusterSpec(t *testing.T) {
	lim, err := New("sentinel-cluster", 100)
	if err != nil {
		t.Fatal(err)
	}
	want := "sentinel-cluster:count=100,threshold=avg-local,instances=1,connected=1,rtt=0s,timeout=20ms,fallback=local,down=none,exceed=1,max-occupy=1,max-qps=30000,sample-count=10,interval=1s,local-sample-count=2,local-interval=1s,skew=0s"
	if got := lim.Spec(); got != want {
		t.Fatalf("Spec:\n got %s\nwant %s", got, want)
	}
	again, err := New(want, 0)
	if err != nil || again.Spec() != want {
		t.Fatalf("New(Spec()) = %v, %v", again, err)
	}
	l := lim.(*SentinelCluster)
	if l.EpochMs() != 1_600_000_000_000 || l.Rate() != 100 {
		t.Errorf("epoch %d, rate %v", l.EpochMs(), l.Rate())
	}
	lim, _ = New("sentinel-cluster:count=3,interval=1500ms,sample-count=3,local-interval=700ms,local-sample-count=7", 0)
	if e := lim.(*SentinelCluster).EpochMs(); e%21000 != 0 || e < 1_600_000_000_000 || e-21000 >= 1_600_000_000_000 {
		t.Errorf("epoch %d is not the first multiple of lcm(1000, 1500, 700) = 21000 at or after 1.6e12", e)
	}
}

func TestSentinelClusterBadSpecs(t *testing.T) {
	for spec, want := range map[string]string{
		"sentinel-cluster:count=1,threshold=local":       "threshold",
		"sentinel-cluster:count=1,fallback=block":        "fallback",
		"sentinel-cluster:count=1,down=5s":               "FROM-TO",
		"sentinel-cluster:count=1,down=5s-1s":            "end after",
		"sentinel-cluster:count=1,down=5s-6s|1s-2s":      "in order",
		"sentinel-cluster:count=1,sample-count=3":        "divided evenly",
		"sentinel-cluster:count=1,connected=two":         "connected",
		"sentinel-cluster:count=1,instances=0":           "instances",
		"sentinel-cluster:count=1,local-interval=1500us": "whole milliseconds",
		"sentinel-cluster":                               "count",
	} {
		_, err := New(spec, 0)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming %q", spec, err, want)
		}
	}
}

func TestSentinelClusterClockBack(t *testing.T) {
	lim, _ := New("sentinel-cluster:count=1", 0)
	lim.Decide(time.Second)
	lim.Decide(0)
	if err := lim.(*SentinelCluster).Err(); err == nil || !strings.Contains(err.Error(), "steps back") {
		t.Fatalf("err %v", err)
	}
}

func FuzzParseDownWindows(f *testing.F) {
	for _, s := range []string{"", "none", "10s-20s", "1s-2s|3s-4s", "5s", "-1s-2s", "2s-1s", "1s-2s|1s-3s", "1ms-1h|", "a-b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws, err := ParseDownWindows(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("two-line error %q", err)
			}
			return
		}
		for i, w := range ws {
			if w.From < 0 || w.To <= w.From || (i > 0 && w.From < ws[i-1].To) {
				t.Fatalf("%q: bad window %d: %+v", s, i, ws)
			}
		}
		back, err := ParseDownWindows(formatDownWindows(ws))
		if err != nil || len(back) != len(ws) {
			t.Fatalf("%q: round trip %q: %v %v", s, formatDownWindows(ws), back, err)
		}
	})
}

// TestSentinelClusterRoute: route=COLUMN sends each arrival to the client
// its column names; a value that is not a client index is an error.
func TestSentinelClusterRoute(t *testing.T) {
	lim, err := New("sentinel-cluster:count=1,threshold=global,instances=2,down=0s-1s,route=pod", 0)
	if err != nil {
		t.Fatal(err)
	}
	l := lim.(*SentinelCluster)
	if cols := l.KeyColumns(); len(cols) != 1 || cols[0] != "pod" || !strings.HasSuffix(l.Spec(), ",route=pod") {
		t.Fatalf("columns %v, spec %s", cols, l.Spec())
	}
	names := []string{"1", "1", "0", "7"}
	l.BindKeyColumns([]int{0})
	l.BindKeyNames(func(id int32) string { return names[id] })
	var got []bool
	for i := range 3 {
		r := Request{Keys: noKeys, Cost: 1}
		r.Keys[0] = int32(i)
		got = append(got, l.DecideRequest(time.Duration(i)*time.Millisecond, &r).Pass)
	}
	// Down: every request is checked on its client's node with count 1:
	// client 1 passes the first and blocks the second; client 0 passes.
	if !got[0] || got[1] || !got[2] {
		t.Errorf("passes %v, want [true false true]", got)
	}
	if _, _, per := l.ClusterFigures(); per[0] != 1 || per[1] != 1 {
		t.Errorf("per instance %v", per)
	}
	r := Request{Keys: noKeys, Cost: 1}
	r.Keys[0] = 3
	l.DecideRequest(5*time.Millisecond, &r)
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), `"7"`) || !strings.Contains(err.Error(), "from 0 to 1") {
		t.Fatalf("err %v", err)
	}
}

// TestSentinelClusterLocalOccupy is docs/algorithms.md's second worked
// example: a prioritized request on the fail path runs
// DefaultController.canPass with prioritized on the node. Over the count
// it borrows the next bucket (StatisticNode.tryOccupyNext,
// addWaitingRequest) and sleeps; FlowRuleChecker.passClusterCheck catches
// the PriorityWaitException and runs fallbackToLocalOrPass again, so the
// check runs a second time after the wait, on a window that now holds the
// borrowed pass.
func TestSentinelClusterLocalOccupy(t *testing.T) {
	ms := time.Millisecond
	// Node of 2 buckets of 500 ms. At 600 ms the node holds 2 (bucket 0):
	// 2 + 1 > 2; bucket 0 leaves at 1000 ms: 2 + 0 + 1 − 2 ≤ 2, wait 400.
	// At 1000 ms bucket 0 resets and takes the borrowed pass: 1 + 1 ≤ 2,
	// a pass counted again (2 in the bucket), so 1001 ms is blocked: its
	// next free bucket is 999 ms away, past the 500 ms occupy timeout.
	l := runClusterSteps(t, "sentinel-cluster:count=2,threshold=global,down=0s-2s", []clusterStep{
		{at: 0, pass: true},
		{at: 1 * ms, pass: true},
		{at: 600 * ms, prio: true, pass: true, wait: 400 * ms},
		{at: 1001 * ms, prio: true},
	})
	if fb, _, per := l.ClusterFigures(); fb != 4 || per[0] != 3 {
		t.Errorf("figures: fallbacks %d, passes %v; want 4, [3]", fb, per)
	}
	// count=1: the second check finds the borrowed pass alone over the
	// count, and from a bucket start the next free bucket is 500 ms away:
	// blocked after waiting (a block reports no wait).
	runClusterSteps(t, "sentinel-cluster:count=1,threshold=global,down=0s-2s", []clusterStep{
		{at: 0, pass: true},
		{at: 600 * ms, prio: true},
	})
	// Buckets of 250 ms: the second check borrows again (wait 200 + 250
	// ms) and the exception reaches StatisticSlot: a pass that borrowed
	// twice, so 1260 ms finds 2 in the window.
	runClusterSteps(t, "sentinel-cluster:count=2,threshold=global,down=0s-2s,local-sample-count=4", []clusterStep{
		{at: 0, pass: true},
		{at: 300 * ms, pass: true},
		{at: 800 * ms, prio: true, pass: true, wait: 450 * ms},
		{at: 1260 * ms},
	})
	// An ordinary request in the same place just blocks.
	runClusterSteps(t, "sentinel-cluster:count=2,threshold=global,down=0s-2s", []clusterStep{
		{at: 0, pass: true}, {at: 1 * ms, pass: true}, {at: 600 * ms},
	})
}
