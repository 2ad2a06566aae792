package simulator

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestReplicaFiguresReachTheSummary: a replicas= row's per-replica counts
// and periods, read at the end of the run, in summary.json's fields and
// the terminal's line; a row without replicas has none.
func TestReplicaFiguresReachTheSummary(t *testing.T) {
	l, err := algorithms.New("token-bucket:rate=1,burst=1,replicas=2,scale=10s:3", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{0, 0, 0, 10 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second} {
		l.Decide(at)
	}
	// rr: 0 1 0 at 0s (the second to replica 0 blocks); 1 2 0 1 at 10s
	// (the turn kept, replica 2 fresh, replica 1 has spent its token).
	f := replicaFigures(l)
	js, _ := json.Marshal(replicasSummary(f))
	want := `{"replica_arrived":[3,3,1],"replica_passed":[2,2,1],"replica_periods":[{"from_s":0,"replicas":2,"effective_limit":2,"window_s":1,"per_key":false},{"from_s":10,"replicas":3,"effective_limit":3,"window_s":1,"per_key":false}]}`
	if string(js) != want {
		t.Errorf("summary\n got %s\nwant %s", js, want)
	}
	line := ReplicasLine("token-bucket", f)
	if wantLine := "token-bucket: passed/sent per replica 2/3 2/3 1/1; effective limit from 0s 2 × 1 = 2/1s, from 10s 3 × 1 = 3/1s"; line != wantLine {
		t.Errorf("line\n got %s\nwant %s", line, wantLine)
	}
	plain, _ := algorithms.New("token-bucket:rate=1,burst=1", 1)
	if replicaFigures(plain) != nil || replicasSummary(nil) != nil {
		t.Error("a row without replicas has replica figures")
	}
}
