package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// TestDecisionsPeakDisk assembles decisions.csv from parts and checks
// after every chunk that the disk holds at most the final size plus one
// chunk (within 1.1× of the final file), with the same bytes as a plain
// concatenation.
func TestDecisionsPeakDisk(t *testing.T) {
	dir := t.TempDir()
	parts, err := newDecisionParts(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer parts.remove()
	var want bytes.Buffer
	want.WriteString(simulator.DecisionsHeader)
	for i, f := range parts.files {
		var b bytes.Buffer
		for j := range 150_000 * (i + 1) {
			fmt.Fprintf(&b, "\"leap-array:limit=100,sample-count=%d\",%d,%d,pass,0\n", i, j, j*1000)
		}
		f.Write(b.Bytes())
		want.Write(b.Bytes())
	}
	dst, err := os.Create(filepath.Join(dir, "decisions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	used := func() int64 {
		var n int64
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			var st syscall.Stat_t
			if syscall.Stat(filepath.Join(dir, e.Name()), &st) == nil {
				n += st.Blocks * 512
			}
		}
		return n
	}
	peak := used()
	if err := parts.writeInto(context.Background(), dst, func() { peak = max(peak, used()) }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("decisions.csv differs from the parts in order")
	}
	final := used()
	if float64(peak) > 1.1*float64(final) {
		t.Errorf("peak disk %d bytes, final file %d: %.2f×", peak, final, float64(peak)/float64(final))
	}
	t.Logf("final %d bytes, peak %d (%.3f×)", final, peak, float64(peak)/float64(final))
	if left := hidden(dir, ".decisions-part-"); len(left) != 0 {
		t.Errorf("parts left: %v", left)
	}
}

// hidden lists the files of dir whose names start with prefix.
func hidden(dir, prefix string) []string {
	var out []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}
