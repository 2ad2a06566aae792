package lab

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// memFiles is a FileWriter into memory.
type memFiles map[string][]byte

func (m memFiles) WriteFile(name string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	m[name] = b.Bytes()
	return nil
}

// replayFiles is what run writes (without chart and report).
func replayFiles(t *testing.T, opts Options) memFiles {
	t.Helper()
	p, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := p.Replay(context.Background(), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	files := memFiles{}
	if _, err := WriteRunFiles(context.Background(), files, res, FileOptions{Chart: plots.ChartOptions{Mode: "none"}}); err != nil {
		t.Fatal(err)
	}
	return files
}

// shardedFiles decides every row shard by shard (nshards shards by key
// id; a row Sharding puts in one shard in one) the way the Beam pipeline
// does, then assembles the files.
func shardedFiles(t *testing.T, opts Options, nshards int) (memFiles, []string, []int) {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	type item struct {
		seq int64
		a   scenarios.Arrival
	}
	var all []item
	s, err := p.Sharding(ctx, func(seq int64, a *scenarios.Arrival, _ []int) error {
		all = append(all, item{seq, *a})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	decided := make([][]algorithms.Decision, s.Rows())
	states := make([]simulator.RowState, s.Rows())
	for i := range s.Rows() {
		decided[i] = make([]algorithms.Decision, len(all))
		shards := make([][]item, nshards)
		for _, it := range all {
			k := 0
			if c := s.Column(i); c >= 0 && it.a.Keys[c] >= 0 {
				k = int(it.a.Keys[c]) % nshards
			}
			shards[k] = append(shards[k], it)
		}
		var parts []simulator.RowState
		for _, sh := range shards {
			arr := make([]scenarios.Arrival, len(sh))
			for j := range sh {
				arr[j] = sh[j].a
			}
			ds, st, err := s.Decide(i, arr)
			if err != nil {
				t.Fatal(err)
			}
			for j := range sh {
				decided[i][sh[j].seq] = ds[j]
			}
			parts = append(parts, st)
		}
		states[i] = simulator.MergeRowStates(parts)
	}
	res, err := p.ReplayDecided(ctx, Hooks{}, func(row int, seq int64) algorithms.Decision { return decided[row][seq] }, states)
	if err != nil {
		t.Fatal(err)
	}
	files := memFiles{}
	if _, err := WriteRunFiles(ctx, files, res, FileOptions{Chart: plots.ChartOptions{Mode: "none"}}); err != nil {
		t.Fatal(err)
	}
	cols := make([]int, s.Rows())
	for i := range cols {
		cols[i] = s.Column(i)
	}
	return files, s.Notes(), cols
}

// keyedTrace writes a trace of n arrivals over keys client and path, some
// with an empty client, and returns its path.
func keyedTrace(t *testing.T, seed uint64, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("t_ms,client,path\n")
	tm := 0.0
	for range n {
		tm += r.ExpFloat64() * 40
		client := fmt.Sprintf("c%d", r.IntN(40))
		if r.IntN(10) == 0 {
			client = fmt.Sprintf("r%d", r.IntN(100)) // rare keys, idle long enough to expire
		}
		if r.IntN(50) == 0 {
			client = ""
		}
		fmt.Fprintf(&b, "%.3f,%s,/p%d\n", tm, client, r.IntN(5))
	}
	path := filepath.Join(t.TempDir(), "keyed.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestShardedReplayIsReplay(t *testing.T) {
	trace := keyedTrace(t, 1, 3000)
	// split: whether each row is split by its key column (else one shard).
	cases := []struct {
		name  string
		specs []string
		split []bool
		log   bool
	}{
		{"token-bucket per key", []string{"token-bucket:rate=2,burst=3,key=client", "token-bucket:rate=40"}, []bool{true, false}, false},
		{"nginx per key", []string{"nginx-limit-req:rate=2r/s,burst=2,zone=0,key=client", "nginx-limit-req:rate=3r/s,burst=1,nodelay=true,key=path", "nginx-limit-req:rate=1r/s,burst=1,key=*"}, []bool{true, false, false}, false},
		{"sentinel-param", []string{"sentinel-param:count=3,capacity=unbounded,key=client", "sentinel-param:count=5,behavior=throttle,max-queue=500ms,key=path"}, []bool{true, false}, false},
		{"bounded and leaky", []string{"token-bucket:rate=2,burst=2,key=client,capacity=8", "leaky-bucket:limit=3,key=client", "sliding-window:limit=30"}, []bool{false, true, false}, false},
		{"access log", []string{"nginx-limit-req:rate=1r/s,burst=1,zone=0,key=ip", "token-bucket:rate=1,burst=2,key=ip"}, []bool{true, true}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Specs = c.specs
			opts.Source = Source{Trace: trace, Limit: 10, LimitSet: true}
			if c.log {
				opts.Source = Source{Trace: "../scenarios/examples/access.log", Keys: []string{"ip"}, Limit: 10, LimitSet: true}
			}
			want := replayFiles(t, opts)
			for _, n := range []int{1, 3} {
				got, notes, cols := shardedFiles(t, opts, n)
				for i, col := range cols {
					if (col >= 0) != c.split[i] {
						t.Errorf("row %s: split by column %d, want split %v", c.specs[i], col, c.split[i])
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%d shards: files %d, want %d", n, len(got), len(want))
				}
				for name, w := range want {
					if g := got[name]; !bytes.Equal(g, w) {
						t.Errorf("%d shards: %s differs from Replay's:\n%s\nwant:\n%s", n, name, head(g), head(w))
					}
				}
				if strings.Contains(c.name, "bounded") && !strings.Contains(strings.Join(notes, "\n"), "capacity=8") {
					t.Errorf("notes %q do not say the bounded row is in one shard", notes)
				}
			}
		})
	}
}

func head(b []byte) string {
	s := string(b)
	if len(s) > 1500 {
		s = s[:1500] + "..."
	}
	return s
}
