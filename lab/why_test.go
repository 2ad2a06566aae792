package lab_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// TestWhyDecidesAsTheRun: why's verdicts and waits are, request by
// request, the run's decisions.csv, for every explained family on
// catalog scenarios (bursts on a boundary, a clock step back, priority,
// keys), and no explanation disagrees with its limiter.
func TestWhyDecidesAsTheRun(t *testing.T) {
	cases := []struct {
		scenario string
		specs    []string
	}{
		{"boundary-burst-small", []string{"leap-array", "leaky-bucket", "leaky-bucket:limit=300,max-queue=2ms", "leap-array:sample-count=10", "token-bucket", "guava-bursty:timeout=50ms", "guava-warming-up:warm-up=1s,timeout=20ms", "haproxy:limit=100,period=1s", "resilience4j:limit-for-period=10,refresh-period=100ms,timeout=10ms"}},
		{"clock-rollback", []string{"leap-array", "leap-array:replicas=2,balance=random", "token-bucket:rate=40,burst=10,replicas=3", "token-bucket:burst=10", "guava-bursty", "haproxy:limit=100,period=1s", "resilience4j:limit-for-period=100,refresh-period=1s,timeout=0s"}},
		{"burst-zero", []string{"nginx-limit-req:rate=3r/s,burst=0", "nginx-limit-req:rate=2r/s,burst=1,delay=1"}},
		{"nat-office", []string{"nginx-limit-req:rate=10r/s,burst=5,key=key,zone=32k"}},
		{"gateway-idle-second", []string{"traefik:average=1,burst=10", "envoy-local:max-tokens=10,tokens-per-fill=1,fill-interval=1s", "envoy-local:max-tokens=10,tokens-per-fill=1,fill-interval=1s,mode=timer,enabled=0.9,enforced=0.5"}},
		{"priority-mix", []string{"leap-array:occupy-timeout=0s", "token-bucket"}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			opts := lab.DefaultOptions()
			opts.Source.Scenario = c.scenario
			opts.Specs = c.specs
			opts.HTML, opts.Chart = false, "none"
			ctx := context.Background()
			plan, err := lab.NewPlan(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			parts := make([]bytes.Buffer, len(plan.Specs()))
			if _, err := plan.Replay(ctx, lab.Hooks{Decisions: func(i int) io.Writer { return &parts[i] }}); err != nil {
				t.Fatal(err)
			}
			plan.Close()
			rep, err := lab.Why(ctx, opts, lab.WhySelect{Range: true, From: -time.Hour, To: time.Hour, Max: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rows) != len(parts) {
				t.Fatalf("why has %d rows, the run %d", len(rep.Rows), len(parts))
			}
			for i, row := range rep.Rows {
				rows, err := csv.NewReader(strings.NewReader(parts[i].String())).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != len(row.Steps) || len(rows) == 0 {
					t.Fatalf("%s: why explained %d requests, the run decided %d", row.Spec, len(row.Steps), len(rows))
				}
				verdicts := map[string]int{}
				for j, s := range row.Steps {
					seq, _ := strconv.ParseInt(rows[j][1], 10, 64)
					wait, _ := strconv.ParseInt(rows[j][4], 10, 64)
					if s.Seq != seq || s.Verdict != rows[j][3] || int64(s.Wait) != wait {
						t.Fatalf("%s: request %d: why says %s after %v, the run %v", row.Spec, s.Seq, s.Verdict, s.Wait, rows[j])
					}
					if s.Disagrees {
						t.Fatalf("%s: request %d at %v: the explanation disagrees with the decision: %s", row.Spec, s.Seq, s.Clock, s.Math)
					}
					verdicts[s.Verdict]++
				}
				if verdicts["pass"] == 0 || verdicts["block"] == 0 {
					t.Errorf("%s on %s: %v; the case should both pass and block", row.Spec, c.scenario, verdicts)
				}
			}
		})
	}
}

// TestWhyRefuses: what why cannot replay is one line naming the fix.
func TestWhyRefuses(t *testing.T) {
	for _, c := range []struct {
		scenario string
		specs    []string
		sel      lab.WhySelect
		want     string
	}{
		{"boundary-burst", []string{"leap-array"}, lab.WhySelect{}, "why needs requests to explain: give --seq N"},
		{"boundary-burst", []string{"sliding-log"}, lab.WhySelect{Seqs: []int64{1}}, "why: sliding-log has no decision trace; the limiters why explains are leap-array, token-bucket"},
		{"boundary-burst", []string{"leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5"}, lab.WhySelect{Seqs: []int64{1}}, "explain each stage as a row of its own"},
		{"boundary-burst", []string{"token-bucket:key=key"}, lab.WhySelect{Seqs: []int64{1}}, "which why does not explain yet"},
		{"slow-downstream", []string{"leap-array"}, lab.WhySelect{Seqs: []int64{1}}, "the scenario has a downstream"},
		{"boundary-burst", []string{"leap-array"}, lab.WhySelect{Range: true, From: time.Second, To: time.Second}, "--to 1s is not after --from 1s"},
		{"boundary-burst", []string{"leap-array"}, lab.WhySelect{Seqs: []int64{-1}}, "--seq -1 is negative"},
	} {
		opts := lab.DefaultOptions()
		opts.Source.Scenario = c.scenario
		opts.Specs = c.specs
		_, err := lab.Why(context.Background(), opts, c.sel)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: got %v, want one line with %q", c.scenario, c.specs, err, c.want)
		}
	}
}

// TestWhyKeyValue: --key-value chooses the requests of one key in any key
// column, and nginx-limit-req explains that key's own state.
func TestWhyKeyValue(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "keys.csv")
	if err := os.WriteFile(trace, []byte("t_ms,ip\n0,10.0.0.1\n0,10.0.0.2\n5,10.0.0.1\n12,10.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := lab.DefaultOptions()
	opts.Source.Trace = trace
	opts.Specs = []string{"nginx-limit-req:rate=100r/s,key=ip"}
	rep, err := lab.Why(context.Background(), opts, lab.WhySelect{Key: "10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `keys · nginx-limit-req:rate=100r/s,burst=0,delay=0,zone=10m,key=ip
rule: limit_req_zone $ip rate=100r/s; limit_req burst=0 (rate 100000 milli-requests/s: one request per 10ms)
#0 at 0ms (ip=10.0.0.1): pass
  before: key "10.0.0.1" has no state yet
  math:   a new state: excess 0 → pass (the first request costs nothing)
  after:  key "10.0.0.1": excess=0.000 last=0ms
#2 at 5ms (ip=10.0.0.1): block
  before: key "10.0.0.1": excess=0.000 last=0ms
  math:   ms = 5ms − 0ms = 5; excess = max(0, 0 − 100000·5/1000 + 1000) = 500 milli-requests > burst 0 → reject (503, "limiting requests, excess: 0.500 by zone")
  after:  key "10.0.0.1": excess=0.000 last=0ms
#3 at 12ms (ip=10.0.0.1): pass
  before: key "10.0.0.1": excess=0.000 last=0ms
  math:   ms = 12ms − 0ms = 12; excess = max(0, 0 − 100000·12/1000 + 1000) = 0 milli-requests ≤ burst 0 → pass
  after:  key "10.0.0.1": excess=0.000 last=12ms
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
