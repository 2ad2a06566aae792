package lab

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseVary(t *testing.T) {
	cases := []struct {
		in     string
		values string
		log    bool
	}{
		{"burst=0..5", "0,1,2,3,4,5", false},
		{"burst=0..100/25", "0,25,50,75,100", false},
		{"burst=0..90/25", "0,25,50,75", false},
		{"rate=0.5..2/0.5", "0.5,1.0,1.5,2.0", false},
		{"rate=0.1..0.3/0.1", "0.1,0.2,0.3", false},
		{"max-queue=0s..1s/250ms", "0s,250ms,500ms,750ms,1s", false},
		{"sample-count=1..1000~4", "1,10,100,1000", true},
		{"limit=10..1000~3", "10,100,1000", true},
		{"warm-up=1s..100s~3", "1s,10s,1m40s", true},
		{"sample-count=100,2,10,2", "2,10,100", false},
		{"max-queue=1s,500ms", "500ms,1s", false},
		{"flavor=java,go,java", "java,go", false},
		{"2.Burst=1,2", "1,2", false},
	}
	for _, c := range cases {
		v, err := ParseVary(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := strings.Join(v.Values, ","); got != c.values || v.Log != c.log {
			t.Errorf("%s: values %s (log %v), want %s (log %v)", c.in, got, v.Log, c.values, c.log)
		}
	}
	v, _ := ParseVary("2.Burst=1,2")
	if v.Stage != 2 || v.Name != "burst" || v.Label != "Burst" {
		t.Errorf("2.Burst: stage %d name %q label %q", v.Stage, v.Name, v.Label)
	}
	for in, want := range map[string]string{
		"burst":            "not NAME=VALUES",
		"burst=":           "not NAME=VALUES",
		"burst=10..0":      "runs down",
		"rate=0.5..2":      "needs a step",
		"max-queue=0s..1s": "needs a step",
		"burst=0..10/0":    "/STEP must be a positive number",
		"burst=0s..10":     "mixes a number and a duration",
		"burst=0..10~1":    "~N must be",
		"burst=0..10~5":    "positive start",
		"burst=0..1e9":     "more than 100000",
		"burst=1,,2":       "empty value",
		"burst=a:b":        "cannot go into a spec",
		"burst=0..10/2~3":  "both /STEP and ~N",
	} {
		if _, err := ParseVary(in); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", in, err, want)
		}
	}
}

func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"burst=0..100/10", "rate=0.5..2/0.25", "x=1..1000~7", "q=0s..1s/100ms", "a=1,2,3", "a=x,y", "1.b=3..9", "n=-5..5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVary(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error on several lines: %v", s, err)
			}
			return
		}
		if len(v.Values) == 0 || len(v.Values) > MaxVaryValues || len(v.Values) != len(v.Num) {
			t.Fatalf("%q: %d values, %d numbers", s, len(v.Values), len(v.Num))
		}
		for i, x := range v.Values {
			if x == "" || strings.ContainsAny(x, "=+: ,") {
				t.Fatalf("%q: value %q cannot go into a spec", s, x)
			}
			if v.Numeric() && i > 0 && !(v.Num[i] > v.Num[i-1]) {
				t.Fatalf("%q: numbers not strictly ascending: %v", s, v.Num)
			}
		}
	})
}

func TestParseGoal(t *testing.T) {
	cases := []struct {
		in    string
		want  Goal
		holds map[float64]bool
	}{
		{"users_hurt <= 0", Goal{Field: "users_hurt", Op: "<=", Value: 0}, map[float64]bool{0: true, 1: false}},
		{"rt_p99<=200ms", Goal{Field: "rt_p99_ms", Op: "<=", Value: 200}, map[float64]bool{200: true, 200.5: false}},
		{"rt_p99_ms < 1s", Goal{Field: "rt_p99_ms", Op: "<", Value: 1000}, nil},
		{"pass_pct>=95%", Goal{Field: "pass_pct", Op: ">=", Value: 95}, nil},
		{"pass_ratio>=95%", Goal{Field: "pass_pct", Op: ">=", Value: 95}, nil},
		{"keys_hurt<=1%", Goal{Field: "keys_hurt", Op: "<=", Value: 1, Over: "distinct_keys"}, nil},
		{"max passed", Goal{Objective: true, Maximize: true, Field: "passed"}, nil},
		{"minimize keys_hurt", Goal{Objective: true, Field: "keys_hurt"}, nil},
		{"min rt_p99", Goal{Objective: true, Field: "rt_p99_ms"}, nil},
		{"pass_pct[203.0.113.7] >= 50%", Goal{Field: "pass_pct[203.0.113.7]", Op: ">=", Value: 50, Key: "203.0.113.7"}, nil},
	}
	for _, c := range cases {
		g, err := ParseGoal(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		g.Text = ""
		if g != c.want {
			t.Errorf("%s: %+v, want %+v", c.in, g, c.want)
		}
		for x, want := range c.holds {
			if g.holds(x) != want {
				t.Errorf("%s at %v: holds %v", c.in, x, !want)
			}
		}
	}
	g, _ := ParseGoal("keys_hurt<=10%")
	if x, ok := g.value(map[string]float64{"keys_hurt": 3, "distinct_keys": 20}); !ok || x != 15 {
		t.Errorf("keys_hurt 3 of 20 keys: %v %%", x)
	}
	g, _ = ParseGoal("users_hurt<=0.1%")
	if x, ok := g.value(map[string]float64{"users_hurt": 2, "distinct_users": 4000}); !ok || x != 0.05 || !g.holds(x) {
		t.Errorf("users_hurt 2 of 4000 users: %v %%", x)
	}
	for in, want := range map[string]string{
		"userz_hurt<=0":  `unknown metric "userz_hurt" (did you mean "users_hurt"?); metrics of summary.json: rate, arrived`,
		"max pased":      `did you mean "passed"?`,
		"rate<=1%":       "a percentage works for",
		"passed <= lots": "is not a number",
		"passed":         "neither a constraint",
	} {
		if _, err := ParseGoal(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

// writeTrace writes a CSV trace of the times (ms) and returns its path.
func writeTrace(t *testing.T, ms []int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("t_ms\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "%d\n", m)
	}
	p := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func recommendOpts(trace string, algo string, vary []string, goals ...string) TuneOptions {
	o := DefaultTuneOptions()
	o.Source = Source{Trace: trace, Limit: 1, LimitSet: true}
	o.Algo, o.Vary, o.Goals = algo, vary, goals
	return o
}

func search(t *testing.T, o TuneOptions) *Recommendation {
	t.Helper()
	plan, err := NewRecommendPlan(context.Background(), o, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	rec, err := plan.Search(context.Background(), RecommendHooks{})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// Five requests at 0 ms and one at 1500 ms through a token bucket of 1/s:
// burst b passes min(b, 5) at 0, and the request at 1.5 s finds 1.5
// tokens back, so it passes for any b ≥ 1 (the least burst the lab takes). The smallest burst blocking nothing is 5, by hand.
func TestRecommendWorkedExample(t *testing.T) {
	trace := writeTrace(t, []int{0, 0, 0, 0, 0, 1500})
	rec := search(t, recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1..12"}, "blocked<=0"))
	if rec.Spec() != "token-bucket:rate=1,burst=5" || rec.Assignment()["burst"] != "5" {
		t.Fatalf("recommended %q %v, want burst=5", rec.Spec(), rec.Assignment())
	}
	if len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "bisection on burst: blocked assumed monotone in burst (burst ↑ ⇒ blocked ↓)") || !strings.Contains(rec.Notes[0], "the assumption holds") {
		t.Errorf("notes %q", rec.Notes)
	}
	if len(rec.Points) > 2+int(math.Ceil(math.Log2(13))) {
		t.Errorf("bisection ran %d of 12 points", len(rec.Points))
	}
	for _, p := range rec.Points {
		b, _ := strconv.Atoi(p.Params[0])
		if want := float64(min(b, 5) + 1); p.Metrics["passed"] != want {
			t.Errorf("burst=%d: passed %v, want %v", b, p.Metrics["passed"], want)
		}
	}
	// The objective min max_window_passed (min(b, 5): the five at 0) on
	// the same constraint: every feasible burst has 5, so the tie goes to
	// the smallest, 5; and the grid (a second axis of one value turns
	// bisection off) agrees.
	rec = search(t, recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1..12", "rate=1"}, "blocked<=0", "min max_window_passed"))
	if rec.Spec() != "token-bucket:rate=1,burst=5" || len(rec.Points) != 12 || len(rec.Notes) != 0 {
		t.Fatalf("grid: %q over %d points, notes %q", rec.Spec(), len(rec.Points), rec.Notes)
	}
	var front []string
	for _, p := range rec.Points {
		if p.Front {
			front = append(front, p.Params[0])
		}
	}
	// Bursts 1..4 trade blocked for a smaller window; 5 blocks none; larger ones
	// add nothing (the earlier equal point stands for them).
	if got := strings.Join(front, ","); got != "1,2,3,4,5" {
		t.Errorf("front bursts %s, want 1,2,3,4,5", got)
	}
	// No burst up to 4 meets it: no recommendation, exit status 3.
	rec = search(t, recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1..4"}, "blocked<=0"))
	if rec.Best != nil || rec.Missed() == nil || !strings.Contains(rec.Why, "no point tried meets blocked<=0") {
		t.Errorf("burst 0..3: best %v, why %q", rec.Best, rec.Why)
	}
}

// On random traces a fixed window's decisions at limit L+1 pass a
// superset of those at L (each window passes its first min(n, L)
// arrivals), so passed, blocked and max_window_passed are monotone in
// the limit: bisection must find exactly the grid's recommendation.
// A named key's pass rate: key a sends three requests at 0 ms, b one; a
// per-key token bucket of burst b passes min(b, 3) of a's, so a passes
// all from burst 3 on.
func TestRecommendNamedKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "keys.csv")
	if err := os.WriteFile(p, []byte("t_ms,key\n0,a\n0,a\n0,b\n0,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := search(t, recommendOpts(p, "token-bucket:rate=1,key=key", []string{"burst=1..8"}, "pass_pct[a]>=100"))
	if rec.Spec() != "token-bucket:rate=1,key=key,burst=3" {
		t.Fatalf("recommended %q", rec.Spec())
	}
	for _, pt := range rec.Points {
		b, _ := strconv.Atoi(pt.Params[0])
		if want := 100 * float64(min(b, 3)) / 3; math.Abs(pt.Metrics["pass_pct[a]"]-want) > 1e-9 {
			t.Errorf("burst=%d: pass_pct[a] %v, want %v", b, pt.Metrics["pass_pct[a]"], want)
		}
	}
	plan, err := NewRecommendPlan(context.Background(), recommendOpts(p, "token-bucket:rate=1,key=key", []string{"burst=1,2"}, "pass_pct[zz]>=100"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	if _, err := plan.Search(context.Background(), RecommendHooks{}); err == nil || !strings.Contains(err.Error(), "has no pass_pct for the key zz") {
		t.Errorf("unknown key: %v", err)
	}
}

func TestRecommendBisectionEqualsGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	for trial := 0; trial < 3; trial++ {
		var ms []int
		n := 50 + rng.IntN(150)
		for i := 0; i < n; i++ {
			ms = append(ms, rng.IntN(3000))
		}
		slices.Sort(ms)
		trace := writeTrace(t, ms)
		cap := 10 + rng.IntN(40)
		goals := [][]string{
			{fmt.Sprintf("max_window_passed<=%d", cap), "max passed"},
			{fmt.Sprintf("blocked<=%d", rng.IntN(20)), "min max_window_passed"},
			{fmt.Sprintf("passed>=%d", n/2), fmt.Sprintf("peak_bin_passed<=%d", 2+rng.IntN(10))},
		}[trial%3]
		bis := search(t, recommendOpts(trace, "fixed-window:window=500ms", []string{"limit=1..40"}, goals...))
		grid := search(t, recommendOpts(trace, "fixed-window:window=500ms", []string{"limit=1..40", "window=500ms"}, goals...))
		if len(grid.Points) != 40 || len(bis.Points) >= 20 {
			t.Fatalf("trial %d: grid ran %d, bisection %d points", trial, len(grid.Points), len(bis.Points))
		}
		if !strings.Contains(bis.Notes[0], "the assumption holds") {
			t.Errorf("trial %d: %q", trial, bis.Notes)
		}
		gs, bs := "", ""
		if grid.Best != nil {
			gs = grid.Best.Params[0]
		}
		if bis.Best != nil {
			bs = bis.Best.Params[0]
		}
		if gs != bs {
			t.Errorf("trial %d (%v): grid recommends limit=%s, bisection limit=%s", trial, goals, gs, bs)
		}
	}
}

func TestRecommendViolationFallsBack(t *testing.T) {
	r := &RecommendPlan{axes: []axis{{VaryParam: VaryParam{Name: "burst", Label: "burst"}, param: "burst"}}}
	s := &searcher{r: r, ran: map[int]*Point{
		0: {Index: 0, Params: []string{"0"}, Metrics: map[string]float64{"passed": 10}, Raw: map[string]string{"passed": "10"}},
		4: {Index: 4, Params: []string{"4"}, Metrics: map[string]float64{"passed": 12}, Raw: map[string]string{"passed": "12"}},
		9: {Index: 9, Params: []string{"9"}, Metrics: map[string]float64{"passed": 11}, Raw: map[string]string{"passed": "11"}},
	}}
	if got := s.violation([]string{"passed"}); got != "passed goes from 12 at burst=4 to 11 at burst=9" {
		t.Errorf("violation %q", got)
	}
	s.ran[9].Metrics["passed"] = 12
	if got := s.violation([]string{"passed"}); got != "" {
		t.Errorf("violation %q on a monotone sequence", got)
	}
	if got := spread(10, 4); !slices.Equal(got, []int{0, 3, 6, 9}) {
		t.Errorf("spread(10, 4) = %v", got)
	}
}

func TestRecommendErrors(t *testing.T) {
	trace := writeTrace(t, []int{0, 10, 20})
	for _, c := range []struct {
		o    TuneOptions
		want string
	}{
		{recommendOpts(trace, "", []string{"burst=0..3"}, "blocked<=0"), "needs the spec to vary: give --algo"},
		{recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1..4", "rate=1..300"}, "blocked<=0"), "the grid of --vary has 1200 points (4×300), more than --max-runs 200"},
		{recommendOpts(trace, "token-bucket:rate=1", []string{"burstz=1..4"}, "blocked<=0"), "burstz"},
		{recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1..4", "burst=1,2"}, "blocked<=0"), "set the same parameter"},
		{recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1..4"}, "max passed", "min blocked"), "are both objectives"},
		{recommendOpts(trace, "leap-array+circuit-breaker", []string{"threshold=1,2"}, "blocked<=0"), "no stage of leap-array+circuit-breaker has threshold; name the stage as N.threshold"},
	} {
		plan, err := NewRecommendPlan(context.Background(), c.o, nil, 0)
		if err == nil {
			plan.Close()
			t.Errorf("%v: no error, want %q", c.o.Vary, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", c.o.Vary, err, c.want)
		}
	}
	// A metric the row does not have: one line, before any file.
	plan, err := NewRecommendPlan(context.Background(), recommendOpts(trace, "token-bucket:rate=1", []string{"burst=1,2"}, "goodput>=1"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	if _, err := plan.Search(context.Background(), RecommendHooks{}); err == nil || !strings.Contains(err.Error(), "has no value for goodput") {
		t.Errorf("goodput without a downstream: %v", err)
	}
}

func TestRecommendProductNames(t *testing.T) {
	base := "leaky-bucket:limit=20,max-queue=500ms"
	plan := &RecommendPlan{base: base}
	for _, vary := range []string{"count=10,20", "maxQueueingTimeMs=0,250"} {
		v, err := ParseVary(vary)
		if err != nil {
			t.Fatal(err)
		}
		a, err := resolveAxis(v, splitSpec(base))
		if err != nil {
			t.Fatal(err)
		}
		plan.axes = append(plan.axes, a)
	}
	if got := plan.spec([]int{1, 1}); got != "leaky-bucket:limit=20,max-queue=250ms" {
		t.Errorf("spec %q", got)
	}
	v, _ := ParseVary("rate=2,5")
	a, err := resolveAxis(v, splitSpec("nginx-limit-req:rate=10r/s,burst=5"))
	if err != nil || !slices.Equal(a.values, []string{"2r/s", "5r/s"}) {
		t.Errorf("nginx rate: %v %v", a.values, err)
	}
}

// The same files for any number of workers.
func TestRecommendWorkersSameFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var ms []int
	for i := 0; i < 300; i++ {
		ms = append(ms, rng.IntN(4000))
	}
	slices.Sort(ms)
	trace := writeTrace(t, ms)
	var first map[string][]byte
	for _, w := range []int{1, 2, 4} {
		o := recommendOpts(trace, "token-bucket:rate=20", []string{"rate=10..30/10", "burst=1..16~4"}, "max_window_passed<=60", "max passed")
		o.Workers, o.Out = w, filepath.Join(t.TempDir(), "out")
		plan, err := NewRecommendPlan(context.Background(), o, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var done []int
		rec, err := plan.Execute(context.Background(), RecommendHooks{Point: func(d, total int, best string) { done = append(done, d) }}, nil, 0)
		plan.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(done) != 12 || done[11] != 12 {
			t.Errorf("workers %d: progress %v", w, done)
		}
		files := map[string][]byte{}
		filepath.WalkDir(o.Out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				files[strings.TrimPrefix(p, o.Out)] = b
			}
			return nil
		})
		var sum bytes.Buffer
		rec.WriteSummary(&sum, 100)
		files["stdout"] = sum.Bytes()
		if first == nil {
			first = files
			if len(files) < 6 {
				t.Fatalf("files %v", len(files))
			}
			continue
		}
		if w == 2 {
			// An earlier tune's points/ goes, a file of anyone else stays.
			os.WriteFile(filepath.Join(o.Out, "points", "mine.txt"), []byte("x"), 0o644)
			os.MkdirAll(filepath.Join(o.Out, "points", "999"), 0o755)
			os.WriteFile(filepath.Join(o.Out, "points", "999", "summary.json"), []byte("{}"), 0o644)
			if err := removePoints(filepath.Join(o.Out, "points")); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(o.Out, "points", "999")); !os.IsNotExist(err) {
				t.Errorf("points/999 stayed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(o.Out, "points", "mine.txt")); err != nil {
				t.Errorf("a foreign file went: %v", err)
			}
		}
		if len(files) != len(first) {
			t.Errorf("workers %d: %d files, want %d", w, len(files), len(first))
		}
		for name, b := range first {
			if !bytes.Equal(files[name], b) {
				t.Errorf("workers %d: %s differs from workers 1", w, name)
			}
		}
	}
}
