package findings

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

var update = flag.Bool("update", false, "rewrite docs/findings.md from the lab's runs")

const root = "../.."

// TestFindingsUpToDate regenerates docs/findings.md and compares it with
// the committed file; -update rewrites it.
func TestFindingsUpToDate(t *testing.T) {
	got, err := Generate(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "findings.md")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: make findings)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/findings.md is out of date with the lab's runs; run: make findings\n%s", firstDiff(want, got))
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b []byte
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if !bytes.Equal(a, b) {
			return "line " + itoa(int64(i+1)) + ":\n  committed: " + string(a) + "\n  generated: " + string(b)
		}
	}
	return ""
}

// TestNoRollbackMatchesCatalog keeps the baseline of claim (f) equal to the
// catalog's clock-rollback without its clock step.
func TestNoRollbackMatchesCatalog(t *testing.T) {
	base, err := scenarios.LoadFile(filepath.Join(root, NoRollbackFile))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Lookup("clock-rollback")
	if err != nil {
		t.Fatal(err)
	}
	var phases []scenarios.Phase
	for _, p := range sc.Phases {
		if p.Type != scenarios.PhaseClockStep {
			phases = append(phases, p)
		}
	}
	if base.Limit != sc.Limit || base.Duration != sc.Duration || base.Seed != sc.Seed {
		t.Errorf("%s: limit/duration/seed %v/%v/%v, clock-rollback has %v/%v/%v",
			NoRollbackFile, base.Limit, base.Duration, base.Seed, sc.Limit, sc.Duration, sc.Seed)
	}
	if !reflect.DeepEqual(base.Phases, phases) {
		t.Errorf("%s phases %+v, want clock-rollback's without the step %+v", NoRollbackFile, base.Phases, phases)
	}
	if !reflect.DeepEqual(base.Algorithms, sc.Algorithms) {
		t.Errorf("%s algorithms %v, want %v", NoRollbackFile, base.Algorithms, sc.Algorithms)
	}
}

// TestSectionLetters keeps the sections of docs/findings.md lettered
// (a), (b), … once each, in order, so that links to them stay unique.
func TestSectionLetters(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(root, "docs", "findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range bytes.Split(md, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("## ")) {
			continue
		}
		if want := SectionLetter(n); !bytes.HasPrefix(line, []byte("## ("+want+") ")) {
			t.Fatalf("section %q, want it lettered (%s)", line, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d sections", n)
	}
	for i, want := range map[int]string{0: "a", 25: "z", 26: "aa", 27: "ab", 51: "az", 52: "ba"} {
		if got := SectionLetter(i); got != want {
			t.Errorf("SectionLetter(%d) = %q, want %q", i, got, want)
		}
	}
}

// The recovery column: "-" without a trigger and for a trigger that never
// ends (latency-step's step), "never" for one that ends but goodput does
// not come back, else the time.
func TestRecoveryColumn(t *testing.T) {
	for _, c := range []struct {
		r    simulator.ChainResult
		want string
	}{
		{simulator.ChainResult{}, "-"},
		{simulator.ChainResult{Trigger: true}, "-"},
		{simulator.ChainResult{Trigger: true, TriggerEnds: true, TriggerEnd: 20 * time.Second}, "never"},
		{simulator.ChainResult{Trigger: true, TriggerEnds: true, HasRecovery: true, Recovery: 1500 * time.Millisecond}, "1500 ms"},
	} {
		if got := recovery(&c.r); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
