package findings

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// gateway is one row of the gateway comparison: a gateway's limiter set up
// for each gateway scenario's limit in its own terms (100/s with a burst of
// 100 on gateway-boundary and gateway-over-limit, 1/s on average with
// bursts of 10 on gateway-idle-second), and what to know about it.
type gateway struct {
	name                 string
	boundary, idle, over string
	note                 string
}

// gateways are the rows of the comparison, Sentinel and x/time/rate first.
var gateways = []gateway{
	{"Sentinel `leap-array`", "leap-array", "leap-array", "leap-array",
		"two 500 ms buckets: at most 1.5× the limit in any second"},
	{"x/time/rate `token-bucket`", "token-bucket", "token-bucket:rate=1,burst=10", "token-bucket",
		"a full bucket passes burst + rate·t"},
	{"Envoy ≥ 1.31 local rate limit", "envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s",
		"envoy-local:max-tokens=10,tokens-per-fill=1,fill-interval=1s", "envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s",
		"continuous bucket in doubles; rounding can refuse a request that arrives exactly on time"},
	{"Envoy ≤ 1.30 local rate limit", "envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s,mode=timer",
		"envoy-local:max-tokens=10,tokens-per-fill=1,fill-interval=1s,mode=timer", "envoy-local:max-tokens=100,tokens-per-fill=100,fill-interval=1s,mode=timer",
		"whole refills on a timer: a full bucket on each side of a tick"},
	{"Traefik", "traefik:average=100,burst=100", "traefik:average=1,burst=10", "traefik:average=100,burst=100",
		"a source idle into its second whole second gets a new, full bucket"},
	{"HAProxy `sc_http_req_rate`", "haproxy:limit=100,period=1s", "haproxy:limit=10,period=10s", "haproxy:limit=100,period=1s",
		"denied requests count: a client above the limit gets nothing"},
	{"Kong, policy=local", "kong:second=100,minute=5000", "kong:minute=60", "kong:second=100,minute=5000",
		"UTC calendar windows: twice the limit across an edge"},
	{"Kong, policy=redis", "kong:second=100,minute=5000,policy=redis", "kong:minute=60,policy=redis", "kong:second=100,minute=5000,policy=redis",
		"as local, and rejected requests count in every window"},
	{"resilience4j", "resilience4j:limit-for-period=100,refresh-period=1s,timeout=0s",
		"resilience4j:limit-for-period=10,refresh-period=10s,timeout=0s", "resilience4j:limit-for-period=100,refresh-period=1s,timeout=0s",
		"fixed cycles from creation (timeout 0: no waiting)"},
	{"Bucket4j", "bucket4j:capacity=100,refill-tokens=100", "bucket4j:capacity=10,refill-tokens=1", "bucket4j:capacity=100,refill-tokens=100",
		"greedy refill in integers, fractions kept"},
	{"nginx `limit_req` (one zone key)", "nginx-limit-req:rate=100r/s,burst=99,nodelay=true,key=*",
		"nginx-limit-req:rate=1r/s,burst=9,nodelay=true,key=*", "nginx-limit-req:rate=100r/s,burst=99,nodelay=true,key=*",
		"excess in milli-requests on whole ms; burst=N passes N + 1 at once; a reject charges nothing"},
	{"Spring Cloud Gateway `RedisRateLimiter`", "redis-spring-gateway:replenish-rate=100,burst-capacity=100",
		"redis-spring-gateway:replenish-rate=1,burst-capacity=10", "redis-spring-gateway:replenish-rate=100,burst-capacity=100",
		"refills in whole seconds of Redis `TIME`: a second's tokens at once"},
	{"envoyproxy/ratelimit (Istio global)", "redis-envoy-ratelimit:limit=100,unit=second",
		"redis-envoy-ratelimit:limit=60,unit=minute", "redis-envoy-ratelimit:limit=100,unit=second",
		"fixed windows on the Unix epoch: twice the limit across :00; rejected hits count"},
	{"redis-cell `CL.THROTTLE`", "redis-cell:max-burst=99,count=100,period=1s",
		"redis-cell:max-burst=9,count=1,period=1s", "redis-cell:max-burst=99,count=100,period=1s",
		"GCRA in integer ns: max-burst + 1 at once"},
}

// The rows the verdicts name by index.
const (
	gwNginx   = 10
	gwSpring  = 11
	gwEnvoyRL = 12
)

// runGateways runs sc through specs as `ratelimit-lab run` does: the
// redis-* rows on the embedded server, a key=* row (nginx's zone on a
// constant) with one state for every request.
func (g *gen) runGateways(sc scenarios.Scenario, specs []string) (*simulator.Result, error) {
	return g.run(sc, specs, simulator.DefaultBin)
}

// gatewayRuns runs the three gateway scenarios through every gateway row.
func (g *gen) gatewayRuns() (boundary, idle, over *simulator.Result, err error) {
	var res [3]*simulator.Result
	for i, name := range []string{"gateway-boundary", "gateway-idle-second", "gateway-over-limit"} {
		sc, err := lookup(name)
		if err != nil {
			return nil, nil, nil, err
		}
		specs := make([]string, len(gateways))
		for j, gw := range gateways {
			specs[j] = [3]string{gw.boundary, gw.idle, gw.over}[i]
		}
		if res[i], err = g.runGateways(sc, specs); err != nil {
			return nil, nil, nil, err
		}
	}
	return res[0], res[1], res[2], nil
}

func gatewayCmd(scenario string, pick func(gateway) string) string {
	specs := make([]string, len(gateways))
	for i, gw := range gateways {
		specs[i] = pick(gw)
		if strings.Contains(specs[i], "*") {
			specs[i] = "'" + specs[i] + "'" // key=*: not a shell glob
		}
	}
	return "ratelimit-lab run " + scenario + " --wide --algo " + strings.Join(specs, " --algo ")
}

// gatewaySections compares the gateway limiters with each other and with
// Sentinel's leap-array and x/time/rate on the three gateway scenarios.
func (g *gen) gatewaySections() error {
	boundary, idle, over, err := g.gatewayRuns()
	if err != nil {
		return err
	}
	names := func(keep func(i int) bool) string {
		var out []string
		for i, gw := range gateways {
			if keep(i) {
				out = append(out, gw.name)
			}
		}
		return strings.Join(out, "; ")
	}

	g.section("Gateways across a window edge")
	g.p("Claim (issue 17): each gateway's limiter has its own surprise under a boundary burst; fixed windows and timer refills pass twice the limit across an edge. `gateway-boundary`: 100 requests in the 100 ms before t = 1 s and 100 in the 100 ms after, every limiter set to 100/s (burst 100 where it has one).\n\n")
	var rows [][]string
	for i, a := range boundary.Algorithms {
		over := a.Overshoot
		if a.WindowLimit == 0 { // a key=* row has no aggregate limit: its one key's is the scenario's
			over = float64(a.MaxWindowPassed) / boundary.Limit
		}
		rows = append(rows, []string{gateways[i].name, "`" + a.Spec + "`", itoa(a.Passed), itoa(a.MaxWindowPassed), x(over)})
	}
	g.table([]string{"gateway", "limiter", "passed of 200", "max 1 s window", "overshoot"}, rows)
	g.cmd(gatewayCmd("gateway-boundary", func(gw gateway) string { return gw.boundary }))
	g.p("Verdict: twice the limit in 200 ms: %s. A continuous bucket passes its burst plus what 100 ms refills: %s. Sentinel's two buckets and HAProxy's window (started by the first request) hold the limit: %s.\n\n",
		names(func(i int) bool { return boundary.Algorithms[i].Passed >= 200 }),
		names(func(i int) bool { p := boundary.Algorithms[i].Passed; return p > 100 && p < 200 }),
		names(func(i int) bool { return boundary.Algorithms[i].Passed <= 100 }))
	ng, sg, er := boundary.Algorithms[gwNginx], boundary.Algorithms[gwSpring], boundary.Algorithms[gwEnvoyRL]
	g.p("envoyproxy/ratelimit passes %d: its counter's key is the Unix second (`(now/divider)·divider`), a new window at :00 of each second, so the second burst meets a fresh count, and it passes %d in one second. Spring Cloud Gateway's script passes %d: it refills in whole seconds of Redis `TIME`, so at t = 1 s a whole second's %d tokens come back at once. nginx's `limit_req` with burst=99 passes %d, its excess draining continuously as a token bucket's does.\n\n",
		er.Passed, er.MaxWindowPassed, sg.Passed, 100, ng.Passed)

	g.section("Traefik's idle second")
	g.p("Claim (issue 17): Traefik hands back a full burst after a pause just over a second. `gateway-idle-second`: bursts of 10 requests within 10 ms at 0.9 s and 2.0 s of every 2 s, every limiter set to 1/s on average with bursts of 10 in its own terms.\n\n")
	rows = rows[:0]
	for i, a := range idle.Algorithms {
		rows = append(rows, []string{gateways[i].name, "`" + a.Spec + "`", itoa(a.Arrived), itoa(a.Passed), itoa(a.MaxWindowPassed)})
	}
	g.table([]string{"gateway", "limiter", "arrived", "passed", "max 1 s window"}, rows)
	g.cmd(gatewayCmd("gateway-idle-second", func(gw gateway) string { return gw.idle }))
	tr, tb := idle.Algorithms[4], idle.Algorithms[1]
	g.p("Verdict: Traefik passes %d where x/time/rate's own bucket of the same rate and burst passes %d (%s as many): its source entry expires at the second whole second after its last use, and the burst after a 1.1 s pause meets a new, full bucket; the burst after 0.9 s meets the old one. Over 20 s that is %.1f requests a second against a limit of 1.\n\n",
		tr.Passed, tb.Passed, x(float64(tr.Passed)/float64(tb.Passed)), float64(tr.Passed)/idle.End.Seconds())

	g.section("Gateways that count what they reject")
	g.p("Claim (issue 17): HAProxy's `http_req_rate` counts denied requests, so a client steadily over the limit gets nothing at all; Kong's redis policy counts rejected requests, its local policy does not. `gateway-over-limit`: evenly spaced requests at 120/s for 60 s, every limiter set to 100/s (Kong also 5000 a minute).\n\n")
	rows = rows[:0]
	for i, a := range over.Algorithms {
		rows = append(rows, []string{gateways[i].name, "`" + a.Spec + "`", itoa(a.Passed), fmt.Sprintf("%.1f", 100*float64(a.Passed)/float64(a.Arrived))})
	}
	g.table([]string{"gateway", "limiter", "passed of 7200", "pass %"}, rows)
	g.cmd(gatewayCmd("gateway-over-limit", func(gw gateway) string { return gw.over }))
	ha, kl, kr := over.Algorithms[5], over.Algorithms[6], over.Algorithms[7]
	haText := "the first second's, and none in the 59 seconds after: each denied request raises the rate it is judged by"
	if ha.Passed > 100 {
		haText = "more than its first second's: its denials did not lock the client out here"
	}
	g.p("Verdict: HAProxy passes %d requests, %s. Kong's local policy passes %d (100 a second until the minute's 5000 are spent at 50 s); the redis policy passes %d, its minute spent by passes and rejections alike at about 41.7 s. The token buckets pass about 100 a second plus their first burst.\n\n",
		ha.Passed, haText, kl.Passed, kr.Passed)
	er, sg, ng = over.Algorithms[gwEnvoyRL], over.Algorithms[gwSpring], over.Algorithms[gwNginx]
	g.p("envoyproxy/ratelimit counts rejected hits too (its `INCRBY` runs before the verdict), but with unit=second each second is a new key, so the rejections of one second never reach the next: it passes %d. Spring's bucket passes %d, a second's tokens at each whole second of Redis time, and nginx, which charges nothing for a reject, %d.\n\n",
		er.Passed, sg.Passed, ng.Passed)
	return nil
}

// ReadmeGatewayTable is README.md's "which gateway does what" table, from
// the same runs as the findings' gateway sections.
func ReadmeGatewayTable(ctx context.Context) ([]byte, error) {
	g := &gen{ctx: ctx}
	boundary, idle, over, err := g.gatewayRuns()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("| gateway | 200 across an edge, limit 100/s: passed | bursts after idle seconds, 1/s: passed of 190 | 120/s for 60 s, limit 100/s: passed of 7200 | what to know |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	for i, gw := range gateways {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", gw.name, boundary.Algorithms[i].Passed, idle.Algorithms[i].Passed, over.Algorithms[i].Passed, gw.note)
	}
	return b.Bytes(), nil
}
