package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --cpuprofile and --memprofile write profiles go tool pprof reads, for run
// and tune, and the run's output is the same with them.
func TestProfileFlags(t *testing.T) {
	for _, cmd := range [][]string{
		{"run", "boundary-burst-small", "--chart", "none", "--html=false", "--quiet"},
		{"tune", "boundary-burst-small", "--html=false", "--quiet", "--sample-counts", "1,10"},
	} {
		dir := t.TempDir()
		cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
		args := append(cmd, "-o", filepath.Join(dir, "out"), "--cpuprofile", cpu, "--memprofile", mem)
		out, _, code := binary(t, args...)
		plain, _, code2 := binary(t, append(cmd, "-o", filepath.Join(dir, "out2"))...)
		if code != 0 || code2 != 0 {
			t.Fatalf("%v: exit %d, %d", cmd, code, code2)
		}
		if strings.ReplaceAll(out, "/out/", "/") != strings.ReplaceAll(plain, "/out2/", "/") && cmd[0] == "run" {
			t.Errorf("%v: the profile changed the output:\n%s\nvs\n%s", cmd, out, plain)
		}
		for _, p := range []string{cpu, mem} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// A profile is gzipped protocol buffers (runtime/pprof).
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%v: %s is not a profile: %v", cmd, p, err)
			}
			if raw, err := io.ReadAll(zr); err != nil || len(raw) == 0 {
				t.Errorf("%v: %s is not a profile: %d bytes, %v", cmd, p, len(raw), err)
			}
		}
	}
}

func TestProfileFlagBadPath(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.pprof")
	_, stderr, code := binary(t, "run", "boundary-burst-small", "--chart", "none", "--quiet", "-o", t.TempDir(), "--cpuprofile", bad)
	if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--cpuprofile "+bad+": cannot create the file") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
