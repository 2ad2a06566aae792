package algorithms

import (
	"strings"
	"testing"
	"time"
)

// wantPick is the balancer written out on its own: rr keeps its turn
// modulo the active count, random and hash pick over the active count.
type wantPick struct {
	balance string
	next    int
	rnd     splitmix64
}

func (w *wantPick) pick(active int, key int32) int {
	switch w.balance {
	case "random":
		return int(w.rnd.next() % uint64(active))
	case "hash":
		return int((uint64(key) * 0x9e3779b97f4a7c15 >> 32) % uint64(active))
	}
	i := w.next % active
	w.next = (i + 1) % active
	return i
}

// TestReplicasScaleDecideAsSplitRuns: across scale= steps, every
// replica decides as a run of the limiter alone on the requests the
// balancer sent it during its life; a replica that leaves and comes back
// is a new run (fresh state).
func TestReplicasScaleDecideAsSplitRuns(t *testing.T) {
	arrivals := explainArrivals()
	end := arrivals[len(arrivals)-1]
	steps := []ScaleStep{{end / 4, 5}, {end / 2, 1}, {3 * end / 4, 3}}
	scale := formatScale(steps)
	for _, c := range []struct{ spec, balance string }{
		{"token-bucket:rate=3,burst=2,replicas=3,scale=" + scale, "rr"},
		{"nginx-limit-req:rate=3r/s,burst=1,key=key,replicas=2,balance=hash,scale=" + scale, "hash"},
		{"leap-array:limit=3,replicas=4,balance=random,scale=" + scale, "random"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			l, err := New(c.spec, 100)
			if err != nil {
				t.Fatal(err)
			}
			p := l.(*Replicas)
			p.Reseed(11)
			if err := p.BindKeyColumns([]int{0}); err != nil {
				t.Fatal(err)
			}
			w := wantPick{balance: c.balance, rnd: splitmix64{s: 11}}
			active := p.active
			alone := make([]Limiter, 5)
			fresh := func(i int) {
				alone[i], _ = New(p.inner, 100)
				if sd, ok := alone[i].(Seeded); ok {
					sd.Reseed(11 + uint64(i+1)*0xbf58476d1ce4e5b9)
				}
				if ku, ok := alone[i].(KeyColumnUser); ok {
					ku.BindKeyColumns([]int{0})
				}
			}
			for i := 0; i < active; i++ {
				fresh(i)
			}
			step, blocks := 0, 0
			usedIn := map[[2]int]bool{} // (step, replica)
			for i, now := range arrivals {
				for step < len(steps) && now >= steps[step].At {
					for k := active; k < steps[step].N; k++ {
						fresh(k)
					}
					active = steps[step].N
					step++
				}
				key := int32(i % 5)
				r := Request{Keys: [MaxKeyColumns]int32{key, NoKey, NoKey, NoKey}, Cost: 1}
				k := w.pick(active, key)
				usedIn[[2]int{step, k}] = true
				got := p.DecideRequest(now, &r)
				want := decideReq(alone[k], now, &r)
				if got != want {
					t.Fatalf("arrival %d at %v (step %d) to replica %d: %+v, alone %+v", i, now, step, k, got, want)
				}
				if !got.Pass {
					blocks++
				}
			}
			if !usedIn[[2]int{1, 4}] || !usedIn[[2]int{3, 2}] || blocks == 0 || step != 3 {
				t.Errorf("used %v, %d blocks, %d steps: the case should reach the joining replicas and block", usedIn, blocks, step)
			}
		})
	}
}

// TestReplicasScaleWorkedExample is docs/algorithms.md's example: two
// buckets of 1 (1/s), three from 10s, one from 20s.
func TestReplicasScaleWorkedExample(t *testing.T) {
	l, err := New("token-bucket:rate=1,burst=1,replicas=2,scale=10s:3+20s:1", 1)
	if err != nil {
		t.Fatal(err)
	}
	p := l.(*Replicas)
	var got []string
	for _, at := range []struct {
		t time.Duration
		n int
	}{{0, 4}, {10 * time.Second, 4}, {20 * time.Second, 3}} {
		pass := 0
		for i := 0; i < at.n; i++ {
			if l.Decide(at.t).Pass {
				pass++
			}
		}
		got = append(got, FormatDuration(at.t)+":"+string(rune('0'+pass)))
	}
	arrived, passed, periods := p.ReplicaFigures()
	if strings.Join(got, " ") != "0s:2 10s:3 20s:1" {
		t.Errorf("passes per instant %v, want 0s:2 10s:3 20s:1", got)
	}
	// rr: 0 1 0 1 | turn 0: 0 1 2 0 | turn 1 mod 1: 0 0 0.
	if !equalInts(arrived, []int64{7, 3, 1}) || !equalInts(passed, []int64{3, 2, 1}) {
		t.Errorf("arrived %v passed %v, want [7 3 1] [3 2 1]", arrived, passed)
	}
	if len(periods) != 3 || periods[1] != (ReplicaPeriod{10 * time.Second, 3, 3, time.Second, false}) || periods[2].Limit != 1 {
		t.Errorf("periods %+v", periods)
	}
	if l.Spec() != "token-bucket:rate=1,burst=1,replicas=2,balance=rr,scale=10s:3+20s:1" {
		t.Errorf("spec %s", l.Spec())
	}
	if again, err := New(l.Spec(), 1); err != nil || again.Spec() != l.Spec() {
		t.Errorf("the spec does not rebuild: %v", err)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReplicasRoute: route=COLUMN sends each request to the replica its
// column names; a value naming no active replica is the run's error.
func TestReplicasRoute(t *testing.T) {
	l, err := New("token-bucket:rate=1,burst=1,replicas=2,route=pod,scale=5s:1", 1)
	if err != nil {
		t.Fatal(err)
	}
	p := l.(*Replicas)
	if cols := p.KeyColumns(); len(cols) != 1 || cols[0] != "pod" {
		t.Fatalf("key columns %v", cols)
	}
	p.BindKeyColumns([]int{0})
	names := []string{"0", "1", "x"}
	p.BindKeyNames(func(id int32) string { return names[id] })
	req := func(id int32) *Request {
		return &Request{Keys: [MaxKeyColumns]int32{id, NoKey, NoKey, NoKey}, Cost: 1}
	}
	var got []bool
	for _, id := range []int32{0, 0, 1} {
		got = append(got, p.DecideRequest(0, req(id)).Pass)
	}
	if got[0] != true || got[1] != false || got[2] != true || p.Err() != nil {
		t.Errorf("pod 0, 0, 1 at 0s: %v (%v), want pass, block, pass", got, p.Err())
	}
	p.DecideRequest(6*time.Second, req(1)) // one replica left from 5s
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), `the arrival at 6s: route column "pod" holds "1", not a replica index from 0 to 0`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("route to a replica gone: %v", err)
	}
	for spec, want := range map[string]string{
		"token-bucket:replicas=2,route=pod,balance=hash": "drop balance=hash",
		"token-bucket:replicas=2,balance=route":          "needs route=COLUMN",
		"token-bucket:scale=1s:2":                        "add replicas=N",
		"token-bucket:replicas=2,scale=1s:2+1s:3":        "increasing time",
		"token-bucket:replicas=2,scale=1s":               "not AT:N",
		"token-bucket:replicas=2,scale=1s:0":             "from 1 to 1024",
		"token-bucket:replicas=2,scale=-1s:2":            "not a duration",
	} {
		if _, err := New(spec, 1); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", spec, err, want)
		}
	}
}

// FuzzParseScale: any scale= value parses or is refused in one line; what
// parses is increasing, in bounds, and prints back to itself.
func FuzzParseScale(f *testing.F) {
	for _, s := range []string{"10s:5+20s:2", "0s:1", "1m30s:3", "1s", "2s:1+1s:2", ":", "+", "1s:1025", "500ms:2+1.5s:7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		steps, err := ParseScale(s, 8)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("two lines: %v", err)
			}
			return
		}
		for i, st := range steps {
			if st.N < 1 || st.N > 8 || st.At < 0 || (i > 0 && st.At <= steps[i-1].At) {
				t.Fatalf("%q: step %d %+v", s, i, st)
			}
		}
		again, err := ParseScale(formatScale(steps), 8)
		if err != nil || formatScale(again) != formatScale(steps) {
			t.Fatalf("%q prints as %q, which reads back as %v (%v)", s, formatScale(steps), again, err)
		}
		if _, err := New("token-bucket:rate=1,burst=1,replicas=2,scale="+formatScale(steps), 1); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
