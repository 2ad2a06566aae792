package beamlab

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// TestMain runs the tests on Prism (ptest's default runner), with Beam's
// log at warn: Beam reads its level once, when ptest.Main calls beam.Init.
func TestMain(m *testing.M) {
	beamlog.LogLevel = "warn"
	ptest.Main(m)
}

// keyedTrace writes a trace of n arrivals keyed by client and path: 40
// busy clients, 100 rare ones, a few empty cells.
func keyedTrace(t testing.TB, dir string, seed uint64, n int) string {
	return keyedTraceN(t, dir, seed, n, 40)
}

// keyedTraceN is keyedTrace with busy clients.
func keyedTraceN(t testing.TB, dir string, seed uint64, n, busy int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	b.WriteString("t_ms,client,path\n")
	tm := 0.0
	for range n {
		tm += r.ExpFloat64() * 20
		client := fmt.Sprintf("c%d", r.IntN(busy))
		if r.IntN(10) == 0 {
			client = fmt.Sprintf("r%d", r.IntN(100))
		}
		if r.IntN(50) == 0 {
			client = ""
		}
		fmt.Fprintf(&b, "%.3f,%s,/p%d\n", tm, client, r.IntN(5))
	}
	path := filepath.Join(dir, "keyed.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runFiles writes what `ratelimit-lab run` writes for c (without chart
// and report) through the lab's Plan.Execute, into dir.
func runFiles(t *testing.T, c Config, dir string) map[string][]byte {
	t.Helper()
	o := c.options(c.Trace)
	o.Out = dir
	p, err := lab.NewPlan(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	run, err := p.Execute(context.Background(), lab.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return readFiles(t, dir, run.Files)
}

func readFiles(t *testing.T, dir string, names []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// beamFiles runs the pipeline of c on the test runner (Prism) and reads
// the files it wrote.
func beamFiles(t *testing.T, c Config, names []string) map[string][]byte {
	t.Helper()
	if _, err := Check(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	Build(s, c)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(sorted(names), ",") {
		t.Fatalf("the pipeline wrote %v, run wrote %v", got, names)
	}
	return readFiles(t, c.Out, names)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestPipelineWritesRunsFiles runs the pipeline on Prism and holds its
// files to run's byte for byte, in one shard and split into several (the
// split rows' state figures merged as the one table of a run has them:
// simulator.MergeRowStates).
func TestPipelineWritesRunsFiles(t *testing.T) {
	dir := t.TempDir()
	trace := keyedTrace(t, dir, 1, 2000)
	cases := []struct {
		name   string
		c      Config
		shards []int
	}{
		{"keyed csv", Config{Trace: trace, Specs: []string{
			"token-bucket:rate=2,burst=3,key=client",
			"nginx-limit-req:rate=2r/s,burst=2,zone=0,key=client",
			"nginx-limit-req:rate=3r/s,burst=1,nodelay=true,key=path",
			"sentinel-param:count=3,capacity=unbounded,key=client",
			"sentinel-param:count=5,behavior=throttle,max-queue=500ms,key=path",
		}}, []int{1, 4}},
		{"access log", Config{Trace: "../scenarios/examples/access.log", Keys: []string{"ip"}, Specs: []string{
			"nginx-limit-req:rate=1r/s,burst=1,zone=0,key=ip",
			"token-bucket:rate=1,burst=2,key=ip",
		}}, []int{3}},
		{"not per key", Config{Trace: trace, Specs: []string{"token-bucket:rate=20,burst=5", "sliding-window:limit=30"}}, []int{4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.Bin, c.Window, c.Limit, c.LimitSet = lab.DefaultBin, lab.DefaultWindow, 10, true
			want := runFiles(t, c, filepath.Join(t.TempDir(), "run"))
			var names []string
			for n := range want {
				names = append(names, n)
			}
			for _, n := range tc.shards {
				c.Shards, c.Out = n, filepath.Join(t.TempDir(), fmt.Sprintf("beam%d", n))
				got := beamFiles(t, c, names)
				for name, w := range want {
					if g := got[name]; !bytes.Equal(g, w) {
						t.Errorf("%d shards: %s differs from run's:\n%.1500s\nrun's:\n%.1500s", n, name, g, w)
					}
				}
			}
		})
	}
}

// TestCheckRefuses: what the pipeline cannot replay is refused before it
// is built, on one line naming the flag or the spec.
func TestCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	trace := keyedTrace(t, dir, 2, 10)
	base := Config{Trace: trace, Specs: []string{"token-bucket:rate=2,key=client"}, Bin: lab.DefaultBin, Window: lab.DefaultWindow,
		Limit: 10, LimitSet: true, Out: filepath.Join(dir, "out"), Shards: 4}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Shards = 0 }, "--shards must be 1 or more"},
		{func(c *Config) { c.Trace = filepath.Join(dir, "missing.csv") }, "missing.csv"},
		{func(c *Config) { c.Out = "" }, "no --out"},
		{func(c *Config) { c.Specs = []string{"token-bucket:rate=2+sliding-window:limit=3"} }, "cannot be decided shard by shard"},
		{func(c *Config) { c.Specs = []string{"nope:rate=1"} }, "nope"},
	} {
		c := base
		tc.edit(&c)
		_, err := Check(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Check(%+v) = %v, want one line with %q", c, err, tc.want)
		}
	}
}

func TestArrivalCodecRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		var a = randomArrival(r)
		seq := r.Int64() - 1<<62
		got, back, err := decodeArrival(encodeArrival(nil, seq, &a))
		if err != nil || got != seq || back != a {
			t.Fatalf("round trip of %d %+v gave %d %+v (%v)", seq, a, got, back, err)
		}
	}
	if _, _, err := decodeArrival(make([]byte, arrivalSize-1)); err == nil {
		t.Error("a short record decoded")
	}
}

func randomArrival(r *rand.Rand) scenarios.Arrival {
	a := scenarios.Arrival{
		At: time.Duration(r.Int64()), Clock: time.Duration(r.Int64() - 1<<62),
		HasResponse: r.IntN(2) == 0, Failed: r.IntN(2) == 0, Priority: r.IntN(2) == 0,
		RT: time.Duration(r.Int64()), User: r.Int32() - 1<<30, Cost: r.Int32(),
		CPU: r.Float32(), Load1: r.Float32() * 10,
	}
	for i := range a.Keys {
		a.Keys[i] = r.Int32() - 1<<30
	}
	return a
}

// FuzzDecodeArrival: any bytes decode without panicking, a record of the
// right size decodes to what encodes back to it, any other size is an
// error.
func FuzzDecodeArrival(f *testing.F) {
	f.Add(encodeArrival(nil, 7, &scenarios.Arrival{At: 5, Clock: 5, Keys: [scenarios.MaxKeyColumns]int32{1, -1, -1, -1}}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, a, err := decodeArrival(b)
		if len(b) != arrivalSize {
			if err == nil {
				t.Fatalf("%d bytes decoded", len(b))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if again := encodeArrival(nil, seq, &a); !bytes.Equal(again[:17], b[:17]) || !bytes.Equal(again[18:], b[18:]) || again[17]&7 != b[17]&7 {
			t.Fatalf("%x decoded to %d %+v, which encodes to %x", b, seq, a, again)
		}
	})
}
