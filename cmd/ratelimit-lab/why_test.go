package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// whyQuestions are the questions of docs/questions.md, each answered by
// one why command on a trace of examples/questions/: the command as the
// page writes it (single quotes only around words without spaces).
var whyQuestions = []struct{ name, cmd string }{
	{"nginx-6000rm", `ratelimit-lab why --trace examples/questions/nginx-6000rm.csv --algo 'nginx-limit-req:rate=6000r/m,key=*' --seq 1 --seq 2`},
	{"sentinel-below-threshold", `ratelimit-lab why --trace examples/questions/sentinel-below-threshold.csv --algo leap-array:limit=10 --seq 9 --seq 10`},
	{"envoy-default-bucket", `ratelimit-lab why --trace examples/questions/envoy-default-bucket.csv --algo envoy-local:max-tokens=2,tokens-per-fill=2,fill-interval=1s --algo envoy-local:max-tokens=5,tokens-per-fill=5,fill-interval=1s --seq 2`},
	{"haproxy-denied", `ratelimit-lab why --trace examples/questions/haproxy-denied.csv --algo haproxy:limit=1,period=1s --seq 2 --seq 3`},
	{"haproxy-denied-json", `ratelimit-lab why --trace examples/questions/haproxy-denied.csv --algo haproxy:limit=1,period=1s --seq 3 --format json`},
	{"resilience4j-cycles", `ratelimit-lab why --trace examples/questions/resilience4j-cycles.csv --algo resilience4j:limit-for-period=2,refresh-period=1s,timeout=0s --from 0s`},
	{"ingress-replicas", `ratelimit-lab why --trace examples/questions/ingress-replicas.csv --algo 'nginx-limit-req:rate=1r/s,key=*' --algo 'nginx-limit-req:rate=1r/s,key=*,replicas=3' --seq 2`},
	{"guava-idle", `ratelimit-lab why --trace examples/questions/guava-idle.csv --algo guava-bursty:rate=2 --from 0s`},
}

// whyArgs splits a documented command into the arguments of the command
// tree, with the traces' paths made relative to this package.
func whyArgs(cmd string) []string {
	var args []string
	for _, w := range strings.Fields(strings.TrimPrefix(cmd, "ratelimit-lab ")) {
		w = strings.Trim(w, "'")
		if strings.HasPrefix(w, "examples/") {
			w = filepath.Join("..", "..", w)
		}
		args = append(args, w)
	}
	return args
}

// TestWhyQuestions pins, byte for byte, what each question's command
// prints (testdata/why/NAME.golden; -update rewrites them), and checks
// that docs/questions.md shows each command and exactly that output.
func TestWhyQuestions(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "questions.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range whyQuestions {
		t.Run(q.name, func(t *testing.T) {
			out, stderr, err := execute(t, whyArgs(q.cmd)...)
			if err != nil || stderr != "" {
				t.Fatalf("%s: %v %s", q.cmd, err, stderr)
			}
			golden := filepath.Join("testdata", "why", q.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Fatalf("%s prints\n%s\nwant (%s)\n%s", q.cmd, out, golden, want)
			}
			if !strings.Contains(string(doc), "\n"+q.cmd+"\n") {
				t.Errorf("docs/questions.md does not show the command %s on a line of its own", q.cmd)
			}
			if !strings.Contains(string(doc), "\n"+out) {
				t.Errorf("docs/questions.md does not show what %s prints:\n%s", q.cmd, out)
			}
		})
	}
}

// TestWhyFlags: a bad --format is one line, and --from alone means from
// then on.
func TestWhyFlags(t *testing.T) {
	_, _, err := execute(t, "why", "--trace", "../../examples/questions/guava-idle.csv", "--algo", "guava-bursty:rate=2", "--seq", "0", "--format", "yaml")
	if err == nil || err.Error() != `--format "yaml" is unknown; use text or json` {
		t.Errorf("got %v", err)
	}
	out, _, err := execute(t, "why", "--trace", "../../examples/questions/guava-idle.csv", "--algo", "guava-bursty:rate=2", "--from", "5.002s")
	if err != nil || strings.Count(out, "\n#") != 2 || !strings.Contains(out, "#2 at 5002ms: pass") || !strings.Contains(out, "#3 at 5003ms: block") {
		t.Errorf("--from 5.002s: %v\n%s", err, out)
	}
}

// TestWhyHelpListsExplainers: the help's list is the registry's
// explainers.
func TestWhyHelpListsExplainers(t *testing.T) {
	if got, want := strings.ReplaceAll(whyExplained, "\n", " "), strings.Join(lab.WhyLimiters(), ", "); got != want {
		t.Errorf("why's help lists %q; the limiters that explain are %q", got, want)
	}
}

// TestReplicasQuestion: docs/questions.md's autoscaled ingress-nginx shows
// the command and the per-replica line run prints for it.
func TestReplicasQuestion(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "questions.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := `ratelimit-lab run --trace examples/questions/ingress-autoscale.csv --algo 'nginx-limit-req:rate=1r/s,key=*' --algo 'nginx-limit-req:rate=1r/s,key=*,replicas=3,scale=2s:1'`
	if !strings.Contains(string(doc), "\n"+cmd+"\n") {
		t.Fatalf("docs/questions.md does not show %s", cmd)
	}
	out, _, err := execute(t, append(whyArgs(cmd), "--quiet", "--out", t.TempDir())...)
	if err != nil {
		t.Fatal(err)
	}
	const line = "nginx-limit-req #2: passed/sent per replica 3/5 2/2 2/2; effective limit from 0s 3 × 1 = 3/1s per key, from 2s 1 × 1 = 1/1s per key\n"
	if !strings.Contains(out, "\n"+line) || !strings.Contains(string(doc), "\n"+line) || strings.Count(out, "per replica") != 1 {
		t.Errorf("run prints\n%s\nwant the line, also in docs/questions.md:\n%s", out, line)
	}
}
