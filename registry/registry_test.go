package registry

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
)

// The registry lists the in-memory families, then Redis, each in its own
// order, with every name and alias once.
func TestListOrderAndNames(t *testing.T) {
	got := List()
	want := append(algorithms.List(), distributed.List()...)
	if len(got) != len(want) {
		t.Fatalf("List has %d specs, want %d", len(got), len(want))
	}
	seen := map[string]bool{}
	for i := range got {
		if got[i].Name != want[i].Name || got[i].Family != want[i].Family {
			t.Errorf("List()[%d] = %s (%s), want %s (%s)", i, got[i].Name, got[i].Family, want[i].Name, want[i].Family)
		}
		for _, n := range append([]string{got[i].Name}, got[i].Aliases...) {
			if seen[n] {
				t.Errorf("name %q is listed twice", n)
			}
			seen[n] = true
		}
	}
	if len(Names()) != len(seen) || !slices.IsSorted(Names()) {
		t.Errorf("Names() = %v: want the %d names and aliases, sorted", Names(), len(seen))
	}
	if len(got) != 40 {
		t.Errorf("List has %d specs; the lab has 40 (update this pin with a new family)", len(got))
	}
}

// Exactly the Redis family needs a Redis session, and the capabilities
// of a spec string come from its stages.
func TestRedisCaps(t *testing.T) {
	for _, info := range List() {
		redis := info.Family == "Redis"
		if info.Caps.Has(algorithms.CapRedis) != redis {
			t.Errorf("%s (%s): CapRedis = %v", info.Name, info.Family, !redis)
		}
		if redis && (!info.Caps.Has(algorithms.CapKeyColumn) || info.Caps.Has(algorithms.CapStage)) {
			t.Errorf("%s: caps %v, want key and no stage", info.Name, info.Caps)
		}
	}
	// redis_rate's AllowN takes a count (the trace's cost); the fixed
	// window's INCR counts one per request.
	if c := Caps("redis-gcra:rate=5"); c != algorithms.CapRedis|algorithms.CapKeyColumn|algorithms.CapCost {
		t.Errorf("Caps(redis-gcra) = %v", c)
	}
	if c := Caps("redis-fixed-window:limit=5"); c != algorithms.CapRedis|algorithms.CapKeyColumn {
		t.Errorf("Caps(redis-fixed-window) = %v", c)
	}
	if Caps("REDIS-GCRA : rate=5").Has(algorithms.CapRedis) != true || Caps("leap-array+nope").Has(algorithms.CapRedis) {
		t.Error("Caps does not follow the stages' names")
	}
}

func TestLookup(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"leap-array", "leap-array"}, {"Sliding-Window", "leap-array"}, {"throttling", "leaky-bucket"},
		{" redis-cell ", "redis-cell"}, {"none", "none"},
	} {
		info, ok := Lookup(c.name)
		if !ok || info.Name != c.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", c.name, info.Name, ok, c.want)
		}
	}
	if _, ok := Lookup("redis-nope"); ok {
		t.Error("Lookup found redis-nope")
	}
}

// Check and New report, word for word, the errors of the family that owns
// the spec's first name; a misspelt redis-* name is the Redis family's.
func TestCheckErrors(t *testing.T) {
	for _, c := range []struct {
		spec  string
		limit float64
		want  string
	}{
		{"redis-sliding-log:limit=2.5", 0, "redis-sliding-log: limit must be a positive whole number, got 2.5: Redis counts whole requests (for example limit=100)"},
		{"redis-fixed-window", 2.5, "redis-fixed-window: limit must be a positive whole number, got 2.5 (the scenario's limit): Redis counts whole requests (for example limit=100)"},
		{"redis-fixed-windw", 10, `unknown algorithm "redis-fixed-windw" (did you mean "redis-fixed-window"?); Redis algorithms: redis-fixed-window, redis-sliding-log, redis-bucketed, redis-gcra, redis-script, redis-spring-gateway, redis-envoy-ratelimit, redis-cell`},
		{"redis-fixed-window+circuit-breaker:strategy=error-count,threshold=1", 10, `"redis-fixed-window+circuit-breaker:strategy=error-count,threshold=1": a redis-* limiter cannot be part of a chain A+B (chains run in memory); give it as its own --algo`},
		{"leap-array+redis-fixed-window", 10, `"redis-fixed-window" is a Redis limiter: it runs on its own (` + "`--algo redis-fixed-window:...`" + `), not as a stage of a chain A+B`},
		{"leap-array:sample-count=x", 10, `leap-array: sample-count "x" is not a whole number (for example sample-count=10)`},
		{"", 10, `empty algorithm spec "": write NAME[:key=value,...], for example leap-array:sample-count=10`},
	} {
		err := Check(c.spec, c.limit)
		if err == nil || err.Error() != c.want {
			t.Errorf("Check(%q, %v) = %v\nwant %s", c.spec, c.limit, err, c.want)
		}
		_, err = New(c.spec, c.limit, nil)
		if strings.HasPrefix(c.spec, "redis-") {
			if err == nil || err.Error() != "redis-* limiters run with 'ratelimit-lab run' only" {
				t.Errorf("New(%q) without an Env = %v", c.spec, err)
			}
		} else if err == nil || err.Error() != c.want {
			t.Errorf("New(%q, %v) = %v\nwant %s", c.spec, c.limit, err, c.want)
		}
	}
	for _, s := range []string{"fixed-window", "leap-array+circuit-breaker:strategy=error-count,threshold=1", "redis-gcra", "nginx-limit-req:rate=10r/s,key=ip"} {
		if err := Check(s, 10); err != nil {
			t.Errorf("Check(%q) = %v", s, err)
		}
	}
}

func TestParse(t *testing.T) {
	sp, err := Parse("leap-array:limit=10+circuit-breaker:strategy=error-count,threshold=1")
	if err != nil || sp.String() != "leap-array:limit=10+circuit-breaker:strategy=error-count,threshold=1" {
		t.Errorf("Parse = %v, %v", sp, err)
	}
	if _, err := Parse("redis-gcra:rate=5,key=user"); err != nil {
		t.Errorf("Parse(redis-gcra) = %v", err)
	}
	_, err = Parse("leap-aray")
	if err == nil || !strings.HasPrefix(err.Error(), `unknown algorithm "leap-aray" (did you mean "leap-array"?); known algorithms: `) {
		t.Errorf("Parse(leap-aray) = %v", err)
	}
	if _, err := Parse("leap-array:limit"); err == nil {
		t.Error("Parse accepted a parameter that is not key=value")
	}
}

// An Env opens the embedded backend on the first redis-* spec only.
func TestEnvOpensLazily(t *testing.T) {
	if _, err := NewEnv(context.Background(), "", 0, 0); err == nil {
		t.Error("NewEnv accepted a 0 timeout")
	}
	env, err := NewEnv(context.Background(), "", distributed.DefaultTimeout, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := New("fixed-window", 10, env); err != nil {
		t.Fatal(err)
	}
	if env.Opened() {
		t.Error("an in-memory spec opened the Redis backend")
	}
	l, err := New("redis-fixed-window:limit=2", 0, env)
	if err != nil {
		t.Fatal(err)
	}
	if !env.Opened() || len(env.RedisLimiters()) != 1 || !env.Embedded() {
		t.Errorf("after a redis-* spec: opened %v, %d limiters", env.Opened(), len(env.RedisLimiters()))
	}
	if l.Spec() != "redis-fixed-window:limit=2,window=1s,instances=1,skew=0s,rtt=0s,clock=instance" {
		t.Errorf("Spec() = %q", l.Spec())
	}
}

// docs/algorithms.md's index has one row per spec of the registry, and no
// row that is not one (rows whose spec holds '…' describe a feature).
func TestDocsIndexListsEverySpec(t *testing.T) {
	b, err := os.ReadFile("../docs/algorithms.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| \\[`([^`]+)`\\]")
	count := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		if strings.Contains(m[1], "…") {
			continue
		}
		count[m[1]]++
	}
	for _, info := range List() {
		if count[info.Name] != 1 {
			t.Errorf("docs/algorithms.md's index lists %s %d times, want once", info.Name, count[info.Name])
		}
		delete(count, info.Name)
	}
	for name := range count {
		t.Errorf("docs/algorithms.md's index lists %q, which is not in the registry", name)
	}
}

// Check gives, word for word, what the CLI's check gave before the
// registry: distributed.Parse for a spec whose first name is redis-*,
// algorithms.New for any other.
func TestCheckEqualsTheFamiliesChecks(t *testing.T) {
	for _, s := range []string{
		"fixed-window", "FIXED-WINDOW : limit = 3", "leap-aray", "redis-gcra", "redis-gcra:rate=1e+03", "Redis-Cell:count=0",
		"redis-fixed-window+leap-array", "leap-array+redis-fixed-window", "redis-", "redis", "", " + ", "a++b",
		"token-bucket:rate=3e+08", "token-bucket:rate=3e+08+circuit-breaker:strategy=error-count,threshold=1",
		"nginx-limit-req:rate=10r/s,key=ip+nginx-limit-req:rate=1r/s,key=ip", "fixed-window:key=", "redis-sliding-log:atomc=false",
		"redis-fixed-window:limit=2,limit=3", "fixed-window:limit", "sliding-window:limit=3,key=user,capacity=10",
	} {
		for _, limit := range []float64{0, 2.5, 10} {
			var want error
			if distributed.IsRedis(s) {
				_, want = distributed.Parse(s, limit)
			} else {
				_, want = algorithms.New(s, limit)
			}
			got := Check(s, limit)
			if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
				t.Errorf("Check(%q, %v) = %v\nwant %v", s, limit, got, want)
			}
		}
	}
}
