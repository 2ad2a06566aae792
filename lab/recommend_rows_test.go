package lab

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Two rules of the Sentinel example tuned in one search each: each
// rule's files are the one-rule tune's, byte for byte, for 1 and 2
// workers; the --emit file is the user's with exactly the tuned lines
// changed; a rule no point suits stays as it was and the exit is 3.
func TestRecommendRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 8))
	var ms []int
	for i := 0; i < 300; i++ {
		ms = append(ms, rng.IntN(1500))
	}
	slices.Sort(ms)
	trace := writeTrace(t, ms)
	const file = "../examples/rules/sentinel-flow-rules.json"
	names := []string{"GET:/api/orders", "POST:/api/checkout"}
	opts := func(out string, workers int, rule ...string) TuneOptions {
		o := recommendOpts(trace, "", []string{"count=100,200,300"}, "pass_pct>=90", "min passed")
		o.Rules.Files, o.Workers, o.Out, o.Emit = []string{file}, workers, out, "sentinel"
		if len(rule) == 1 && rule[0] != "all" {
			o.Rule = rule[0]
		} else {
			o.RuleNames = rule
		}
		return o
	}
	tree := func(dir string) map[string][]byte {
		files := map[string][]byte{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				files[strings.TrimPrefix(p, dir)] = b
			}
			return nil
		})
		return files
	}
	// The one-rule tunes.
	var single []map[string][]byte
	var best []string
	for _, n := range names {
		out := filepath.Join(t.TempDir(), "one")
		plan, err := NewRecommendPlan(context.Background(), opts(out, 1, n), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := plan.Execute(context.Background(), RecommendHooks{}, nil, 0)
		plan.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Best == nil {
			t.Fatalf("%s: no recommendation", n)
		}
		best = append(best, rec.Best.Spec)
		files := tree(out)
		delete(files, "/recommended-sentinel-flow-rules.json")
		single = append(single, files)
	}
	if best[0] == "leap-array:limit=100" && best[1] == "leaky-bucket:limit=20,max-queue=500ms" {
		t.Fatalf("both recommendations are the file's own values; the test shows nothing")
	}
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var first map[string][]byte
	for _, w := range []int{1, 2} {
		out := filepath.Join(t.TempDir(), "rows")
		rr, err := NewRecommendRows(context.Background(), opts(out, w, names...), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := rr.Execute(context.Background(), RecommendHooks{}, nil, 0)
		rr.Close()
		if err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		if err := res.Print(&stdout, 100); err != nil {
			t.Fatal(err)
		}
		files := tree(out)
		files["stdout"] = bytes.ReplaceAll(stdout.Bytes(), []byte(out), []byte("OUT"))
		for i, n := range names {
			if res.Recs[i].Best == nil || res.Recs[i].Best.Spec != best[i] {
				t.Errorf("workers %d: %s recommends %v, the one-rule tune %s", w, n, res.Recs[i].Best, best[i])
			}
			sub := "/" + []string{"1-get-api-orders", "2-post-api-checkout"}[i]
			for f, b := range single[i] {
				if !bytes.Equal(files[sub+f], b) {
					t.Errorf("workers %d: %s%s differs from the one-rule tune's %s", w, sub, f, f)
				}
			}
		}
		// The emitted file: the user's, with only the count lines of the
		// two rules changed, to the recommended limits.
		em := files["/recommended-sentinel-flow-rules.json"]
		ol, el := strings.Split(string(orig), "\n"), strings.Split(string(em), "\n")
		if len(ol) != len(el) {
			t.Fatalf("emitted file has %d lines, the user's %d:\n%s", len(el), len(ol), em)
		}
		var changed []string
		for i := range ol {
			if ol[i] != el[i] {
				changed = append(changed, strings.TrimSpace(el[i]))
			}
		}
		limit := func(s string) string { return strings.SplitN(strings.SplitN(s, "limit=", 2)[1], ",", 2)[0] }
		want := []string{`"count": ` + limit(best[0]) + `,`, `"count": ` + limit(best[1]) + `,`}
		if limit(best[0]) == "100" {
			want = want[1:]
		}
		if !slices.Equal(changed, want) {
			t.Errorf("changed lines %q, want %q", changed, want)
		}
		if !strings.Contains(stdout.String(), `== rule "POST:/api/checkout"`) {
			t.Errorf("no heading for the second rule:\n%s", stdout.String())
		}
		if first == nil {
			first = files
			continue
		}
		if len(files) != len(first) {
			t.Errorf("workers %d: %d files, workers 1 %d", w, len(files), len(first))
		}
		for f, b := range first {
			if !bytes.Equal(files[f], b) {
				t.Errorf("workers %d: %s differs from workers 1", w, f)
			}
		}
	}

	// --rule all, goals no point of one rule meets: exit 3 naming it, its
	// rule left as it was in the emitted file.
	o := opts(filepath.Join(t.TempDir(), "all"), 2, "all")
	o.Vary, o.Goals = []string{"count=10,300"}, []string{"passed>=95%"}
	rr, err := NewRecommendRows(context.Background(), o, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rr.Execute(context.Background(), RecommendHooks{}, nil, 0)
	rr.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Recs) != 3 {
		t.Fatalf("--rule all tuned %d rules, want 3", len(res.Recs))
	}
	var stdout bytes.Buffer
	err = res.Print(&stdout, 100)
	var te *ThresholdError
	if !errors.As(err, &te) || strings.Contains(te.Msg, "\n") {
		t.Fatalf("error %v, want one line of exit status 3", err)
	}
	for _, rec := range res.Recs {
		if got := strings.Contains(te.Msg, `"`+rec.Rule.Name+`"`); got != (rec.Best == nil) {
			t.Errorf("%q (recommended %v): named in %q: %v", rec.Rule.Name, rec.Best != nil, te.Msg, got)
		}
	}
	if len(res.Unchanged) != 1 || !strings.Contains(te.Msg, "1 of 3 rules") {
		t.Fatalf("want one rule missed, got %q; left unchanged %v", te.Msg, res.Unchanged)
	}
	em, err := os.ReadFile(res.Emitted)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range res.Recs {
		block := string(orig)[strings.Index(string(orig), rec.Rule.Name):]
		block = block[:strings.Index(block, "}")]
		if got := strings.Contains(string(em), block); got != (rec.Best == nil) {
			t.Errorf("%s (recommended %v): its block unchanged in the emitted file: %v", rec.Rule.Name, rec.Best != nil, got)
		}
	}
	if !strings.Contains(stdout.String(), "left as they were (no point meets the goals): "+res.Unchanged[0]) {
		t.Errorf("stdout does not say which rule stays:\n%s", stdout.String())
	}
}

func TestRecommendRowsErrors(t *testing.T) {
	trace := writeTrace(t, []int{0, 10, 20})
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, []byte(`[{"resource": "other", "count": 5}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rules []string
		vary  string
		emit  string
		want  string
	}{
		{[]string{"GET:/api/orders", "nope"}, "count=1,2", "", `--rule "nope" is not a rule of the --rules files; pick among: GET:/api/orders, POST:/api/checkout, GET:/api/search, other (or --rule all)`},
		{[]string{"GET:/api/orders", "GET:/api/orders"}, "count=1,2", "", "given twice"},
		{[]string{"all"}, "maxQueueingTimeMs=0,500", "", `rule "GET:/api/orders": leap-array: unknown parameter "maxqueueingtimems"; allowed: limit, sample-count`},
		{[]string{"all"}, "maxQueueingTimeMs=0,500", "", `; its fields: count`},
		{[]string{"all"}, "count=1,2", "nginx", `--emit nginx with several rules patches their own file, and rule "GET:/api/orders"`},
		{[]string{"GET:/api/orders", "other"}, "count=1,2", "sentinel", `--emit sentinel with several rules writes one file, and rule "GET:/api/orders" is in ../examples/rules/sentinel-flow-rules.json:2, rule "other" in `},
	} {
		o := recommendOpts(trace, "", []string{c.vary}, "pass_pct>=90")
		o.Rules.Files, o.RuleNames, o.Emit, o.Out = []string{"../examples/rules/sentinel-flow-rules.json", other}, c.rules, c.emit, t.TempDir()
		rr, err := NewRecommendRows(context.Background(), o, nil, 0)
		if err == nil {
			rr.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %s: error %v, want one line with %q", c.rules, c.vary, err, c.want)
		}
	}
}
